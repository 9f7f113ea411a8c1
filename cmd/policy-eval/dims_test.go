package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
)

// An allow covers a call only if it covers every dimension the call names
// (an outside review found the hole): a rule or grant with under and no
// host matches no call naming a URL or host, known or not, and one with
// host and no under none naming a path; one with neither allows the whole
// tool. Deny and ask still match on any path or host. Each case is decided
// by policy-eval decide and by the Go API alike, after the default rules.
var dimensionCases = []attack{
	// The default read-only rule (under "/", no host) and a decoy path.
	{name: "default read-only/a URL alone is asked", rules: `[]`, tool: "web_fetch",
		args: `{"url":"http://10.0.0.5/admin/"}`, decision: "ask", reason: "no-match",
		suggestion: `{"tool":"web_fetch","host":"10.0.0.5"}`},
	{name: "default read-only/a decoy path beside the URL", rules: `[]`, tool: "web_fetch",
		args: `{"url":"http://10.0.0.5/admin/","path":"/tmp"}`, decision: "ask", reason: "no-match",
		paths: []string{"/tmp"}, suggestion: `{"tool":"web_fetch","under":"/","host":"10.0.0.5"}`},
	{name: "default read-only/a decoy path beside a URL under another name", rules: `[]`, tool: "web_fetch",
		args: `{"path":"/srv/x","endpoint":"https://evil.example/"}`, decision: "ask", reason: "no-match"},
	{name: "default read-only/a path alone is still a local read", rules: `[]`, tool: "web_fetch",
		args: `{"path":"/tmp/x"}`, decision: "allow", reason: "rule"},
	// An unknown host (no URL reader can tell it) beside a path.
	{name: "default read-only/an unknown host beside a path", rules: `[]`, tool: "web_fetch",
		args: `{"path":"/tmp/x","url":"http:///nohost"}`, decision: "ask", suggestion: `{"tool":"web_fetch"}`},
	{name: "under rule/an unknown host beside a path", rules: allowScratch, roots: srv, tool: "write_file",
		args: `{"path":"scratch/a","url":"http:///nohost"}`, decision: "ask", suggestion: `{"tool":"write_file"}`},

	// A host-only allow rule and a decoy path, known or not.
	{name: "host rule/the URL alone", rules: denyEvilHost, tool: "web_fetch",
		args: `{"url":"https://docs.example/"}`, decision: "allow", reason: "rule"},
	{name: "host rule/a decoy path", rules: `[{"tool": "web_fetch", "decision": "allow", "host": "*.example"}]`, tool: "web_fetch",
		args: `{"url":"https://docs.example/","path":"/etc/hostname"}`, decision: "ask", reason: "no-match",
		suggestion: `{"tool":"web_fetch","under":"/etc","host":"docs.example"}`},
	{name: "host rule/an unknown decoy path", rules: `[{"tool": "web_fetch", "decision": "allow", "host": "*.example"}]`, tool: "web_fetch",
		args: `{"url":"https://docs.example/","path":"~/.ssh/id_rsa"}`, decision: "ask", suggestion: `{"tool":"web_fetch"}`},

	// A grant under a directory, then a call adding a host.
	{name: "grant under/the directory alone", rules: `[]`, grants: `[{"tool": "convert", "decision": "allow", "under": "/srv/dl"}]`,
		tool: "convert", args: `{"path":"/srv/dl/a"}`, decision: "allow", reason: "grant"},
	{name: "grant under/a host added", rules: `[]`, grants: `[{"tool": "convert", "decision": "allow", "under": "/srv/dl"}]`,
		tool: "convert", args: `{"path":"/srv/dl/a","url":"https://evil.example/x"}`, decision: "ask", reason: "no-match",
		suggestion: `{"tool":"convert","under":"/srv/dl","host":"evil.example"}`},
	{name: "grant under/an unknown host added", rules: `[]`, grants: `[{"tool": "convert", "decision": "allow", "under": "/srv/dl"}]`,
		tool: "convert", args: `{"path":"/srv/dl/a","url":"http:///x"}`, decision: "ask"},
	{name: "grant host/a path added", rules: `[]`, grants: `[{"tool": "convert", "decision": "allow", "host": "docs.example"}]`,
		tool: "convert", args: `{"path":"/srv/dl/a","url":"https://docs.example/x"}`, decision: "ask", reason: "no-match"},
	{name: "grant with both/both hold", rules: `[]`, grants: `[{"tool": "convert", "decision": "allow", "under": "/srv/dl", "host": "docs.example"}]`,
		tool: "convert", args: `{"path":"/srv/dl/a","url":"https://docs.example/x"}`, decision: "allow", reason: "grant"},
	{name: "grant with both/another host too", rules: `[]`, grants: `[{"tool": "convert", "decision": "allow", "under": "/srv/dl", "host": "docs.example"}]`,
		tool: "convert", args: `{"path":"/srv/dl/a","urls":["https://docs.example/x","https://evil.example/"]}`, decision: "ask",
		suggestion: `{"tool":"convert"}`},

	// A rule or grant with neither allows the whole tool, as written.
	{name: "neither/a tool-wide rule", rules: `[{"tool": "convert", "decision": "allow"}]`, tool: "convert",
		args: `{"path":"/srv/dl/a","url":"https://evil.example/x"}`, decision: "allow", reason: "rule"},
	{name: "neither/a tool-wide grant, unknown host", rules: `[]`, grants: `[{"tool": "convert", "decision": "allow"}]`, tool: "convert",
		args: `{"path":"/srv/dl/a","url":"http:///x"}`, decision: "allow", reason: "grant"},
	{name: "neither/a tool-wide grant, known host", rules: `[]`, grants: `[{"tool": "convert", "decision": "allow"}]`, tool: "convert",
		args: `{"path":"/srv/dl/a","url":"https://evil.example/x"}`, decision: "allow", reason: "grant"},

	// Deny and ask are unchanged: any path, any host.
	{name: "deny host/beside a path", rules: allowAllDenyEvil, tool: "write_file",
		args: `{"path":"/srv/x","url":"https://evil.example/"}`, decision: "deny", reason: "rule"},
	{name: "deny under/beside a URL", rules: allowAllDenySecret, tool: "web_fetch",
		args: `{"path":"/srv/secret/k","url":"https://docs.example/"}`, decision: "deny", reason: "rule"},
}

func TestEveryDimensionDecidedAlikeByTheCLIAndTheGoAPI(t *testing.T) {
	decideAllAlike(t, dimensionCases)
}

var (
	// Our org only: an allow on one owner, and a deny on a value.
	allowAcme    = `[{"tool": "gh_*", "decision": "allow", "arguments": {"owner": "acme"}}]`
	allowAcmeAll = `[{"tool": "gh_*", "decision": "allow", "arguments": {"owner": "acme-*", "issue": "7", "draft": "false"}}]`
	denyEvil     = `[{"tool": "gh_*", "decision": "allow"}, {"tool": "gh_*", "decision": "deny", "arguments": {"owner": "evil*", "repo": "secret"}}]`
	allowEscaped = `[{"tool": "gh_*", "decision": "allow", "arguments": {"owner": "ac\\*me?"}}]`
)

// Rules naming top-level arguments, decided alike by policy-eval decide
// and the Go API: names compared as the reader compares them (case, "_"
// and "-"), a glob over a scalar's text; an allow needs every named
// argument and every spelling of it to match, a deny any, and a value that
// is no scalar might be what a deny names.
var argumentCases = []attack{
	{name: "allow acme/acme", rules: allowAcme, tool: "gh_create_issue", args: `{"owner":"acme","title":"x"}`, decision: "allow", reason: "rule"},
	{name: "allow acme/another owner", rules: allowAcme, tool: "gh_create_issue", args: `{"owner":"acme2"}`, decision: "ask", reason: "no-match"},
	{name: "allow acme/missing", rules: allowAcme, tool: "gh_create_issue", args: `{"repo":"acme"}`, decision: "ask", reason: "no-match"},
	{name: "allow acme/spelt otherwise", rules: allowAcme, tool: "gh_create_issue", args: `{"OWNER":"acme"}`, decision: "allow", reason: "rule"},
	{name: "allow acme/spelt otherwise, underscores", rules: allowAcme, tool: "gh_create_issue", args: `{"_Own-er_":"acme"}`, decision: "allow", reason: "rule"},
	{name: "allow acme/two spellings, one another owner", rules: allowAcme, tool: "gh_create_issue",
		args: `{"owner":"acme","Owner":"evil"}`, decision: "ask", reason: "no-match"},
	{name: "allow acme/value as written", rules: allowAcme, tool: "gh_create_issue", args: `{"owner":"ACME"}`, decision: "ask", reason: "no-match"},
	{name: "allow acme/an object", rules: allowAcme, tool: "gh_create_issue", args: `{"owner":{"login":"acme"}}`, decision: "ask", reason: "no-match"},
	{name: "allow acme/one word", rules: allowAcme, tool: "gh_create_issue", args: `{"owner":["acme"]}`, decision: "allow", reason: "rule"},
	{name: "allow acme/several words", rules: allowAcme, tool: "gh_create_issue", args: `{"owner":["acme","evil"]}`, decision: "ask", reason: "no-match"},
	{name: "allow acme/null", rules: allowAcme, tool: "gh_create_issue", args: `{"owner":null}`, decision: "ask", reason: "no-match"},
	{name: "allow acme/nested is not top-level", rules: allowAcme, tool: "gh_create_issue", args: `{"repo":{"owner":"acme"}}`, decision: "ask", reason: "no-match"},
	{name: "allow acme/a path beside it", rules: allowAcme, tool: "gh_create_issue", args: `{"owner":"acme","path":"/srv/x"}`, decision: "allow", reason: "rule"},
	{name: "allow acme/reason is not an argument", rules: allowAcme, tool: "gh_create_issue", args: `{"reason":"acme"}`, decision: "ask", reason: "no-match"},
	// Numbers and booleans by their JSON text.
	{name: "non-string/number and boolean", rules: allowAcmeAll, tool: "gh_update_issue", args: `{"owner":"acme-web","issue":7,"draft":false}`, decision: "allow", reason: "rule"},
	{name: "non-string/as strings", rules: allowAcmeAll, tool: "gh_update_issue", args: `{"owner":"acme-web","issue":"7","draft":"false"}`, decision: "allow", reason: "rule"},
	{name: "non-string/another number text", rules: allowAcmeAll, tool: "gh_update_issue", args: `{"owner":"acme-web","issue":7.0,"draft":false}`, decision: "ask", reason: "no-match"},
	{name: "non-string/another boolean", rules: allowAcmeAll, tool: "gh_update_issue", args: `{"owner":"acme-web","issue":7,"draft":true}`, decision: "ask", reason: "no-match"},
	{name: "non-string/one missing", rules: allowAcmeAll, tool: "gh_update_issue", args: `{"owner":"acme-web","issue":7}`, decision: "ask", reason: "no-match"},
	// Escapes: "\*" is a star, "?" one character.
	{name: "escapes/a literal star", rules: allowEscaped, tool: "gh_x", args: `{"owner":"ac*me!"}`, decision: "allow", reason: "rule"},
	{name: "escapes/no wildcard", rules: allowEscaped, tool: "gh_x", args: `{"owner":"acXYme!"}`, decision: "ask", reason: "no-match"},
	{name: "escapes/? is one character", rules: allowEscaped, tool: "gh_x", args: `{"owner":"ac*me"}`, decision: "ask", reason: "no-match"},
	// A deny on a value: any named argument, any spelling, folded.
	{name: "deny/the value", rules: denyEvil, tool: "gh_create_issue", args: `{"owner":"evil-corp"}`, decision: "deny", reason: "rule"},
	{name: "deny/another case", rules: denyEvil, tool: "gh_create_issue", args: `{"owner":"EVIL"}`, decision: "deny", reason: "rule"},
	{name: "deny/another spelling beside a harmless one", rules: denyEvil, tool: "gh_create_issue",
		args: `{"owner":"acme","OWNER":"evil"}`, decision: "deny", reason: "rule"},
	{name: "deny/another named argument", rules: denyEvil, tool: "gh_create_issue", args: `{"owner":"acme","repo":"secret"}`, decision: "deny", reason: "rule"},
	{name: "deny/not the value", rules: denyEvil, tool: "gh_create_issue", args: `{"owner":"acme"}`, decision: "allow", reason: "rule"},
	{name: "deny/missing", rules: denyEvil, tool: "gh_create_issue", args: `{}`, decision: "allow", reason: "rule"},
	{name: "deny/an array of words is read joined", rules: denyEvil, tool: "gh_create_issue", args: `{"owner":["evil"]}`, decision: "deny", reason: "rule"},
	{name: "deny/an array of objects might be the value", rules: denyEvil, tool: "gh_create_issue", args: `{"owner":[{"login":"evil"}]}`, decision: "ask", reason: "unevaluable-path"},
	{name: "deny/an object might be", rules: denyEvil, tool: "gh_create_issue", args: `{"owner":{"login":"evil"}}`, decision: "ask", reason: "unevaluable-path"},
	{name: "deny/a number is its text", rules: `[{"tool": "gh_*", "decision": "deny", "arguments": {"issue": "1?"}}]`, tool: "gh_x",
		args: `{"issue":13}`, decision: "deny", reason: "rule"},
	// A grant reads them the same way.
	{name: "grant/acme", rules: `[]`, grants: allowAcme, tool: "gh_create_issue", args: `{"owner":"acme"}`, decision: "allow", reason: "grant"},
	{name: "grant/another owner", rules: `[]`, grants: allowAcme, tool: "gh_create_issue", args: `{"owner":"evil"}`, decision: "ask", reason: "no-match"},
}

func TestRuleArgumentsDecidedAlikeByTheCLIAndTheGoAPI(t *testing.T) { decideAllAlike(t, argumentCases) }

// A rule naming an argument badly is refused by name, on both front ends.
func TestBadRuleArgumentsAreRefused(t *testing.T) {
	dir := t.TempDir()
	for i, bad := range []string{`{"": "x"}`, `{"owner": ""}`, `{"owner": "acme\\"}`, `{"owner": 7}`, `["owner"]`, `{"reason": "x"}`} {
		text := `[{"tool": "gh_*", "decision": "allow", "arguments": ` + bad + `}]`
		p := write(t, dir, fmt.Sprintf("bad%d.json", i), text)
		code, out, errOut := cli(t, "", "decide", "--rules", p, call("1", "gh_x", "{}"))
		assert.Equal(t, exitUsage, code, bad)
		assert.Empty(t, out, bad)
		assert.Contains(t, errOut, `rule 1: field "arguments"`, bad)
		_, err := rules.ParseRules([]byte(text), "rules")
		assert.ErrorContains(t, err, `rule 1: field "arguments"`, bad)
	}
	for _, bad := range []map[string]string{{"": "x"}, {"owner": ""}, {"owner": `acme\`}, {"Reason": "x"}, {"owner": "a", "OWNER": "a"}} {
		_, err := policy.New(policy.Options{Provider: catalogueOnly(nil), Rules: []rules.Rule{{Tool: "gh_*", Decision: rules.Allow, Arguments: bad}}})
		assert.ErrorContains(t, err, `rule 1: field "arguments"`, "%v", bad)
	}
}
