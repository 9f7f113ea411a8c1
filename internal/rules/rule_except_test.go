package rules_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/verdict"
	"github.com/mcp-policy/mcp-policy/provider"
)

// "Allow under the project, ask anywhere else", on top of the default
// read-only rule: an ask with an exception. What the exception cannot
// place (a path that cannot be evaluated) stays asked.
func TestRuleExceptionAsksOutsideTheProject(t *testing.T) {
	rs, err := rules.ParseRules([]byte(`[
		{"tool": "*", "decision": "allow", "annotations": {"readOnlyHint": true}, "under": "/"},
		{"tool": "read_text_file", "decision": "ask", "except": {"under": "/home/u/proj"}}
	]`), "rules.json")
	require.NoError(t, err)
	e := engine(t, rules.Config{Rules: rs, Home: "/home/u"})
	readOnly := &provider.Tool{Function: provider.ToolFunction{Name: "read_text_file"},
		Annotations: &provider.Annotations{ReadOnlyHint: ptr(true)}}
	for args, want := range map[string]verdict.Decision{
		`{"path":"/home/u/proj/README.md"}`:                         verdict.Allow,
		`{"path":"/home/u/notes.md"}`:                               verdict.Ask,
		`{"path":"/etc/hosts"}`:                                     verdict.Ask,
		`{"paths":["/home/u/proj/a.md","/home/u/other/b.md"]}`:      verdict.Ask, // every path must be inside
		`{"path":"$SOMEWHERE/a.md"}`:                                verdict.Ask, // might be outside
		`{"path":"/home/u/proj/../notes.md"}`:                       verdict.Ask,
		`{"path":"/home/u/proj/src/main.go","url":"https://x.org"}`: verdict.Ask, // the exception does not cover the URL
	} {
		d := decide(t, e, call("read_text_file", args), readOnly)
		assert.Equal(t, want, d.Decision, args)
	}
	// Another read-only tool is not the rule's: the default allows it.
	other := &provider.Tool{Function: provider.ToolFunction{Name: "list_directory"},
		Annotations: &provider.Annotations{ReadOnlyHint: ptr(true)}}
	assert.Equal(t, verdict.Allow, decide(t, e, call("list_directory", `{"path":"/etc"}`), other).Decision)
}

// An exception to a broad allow: every GitHub tool, but a comment outside
// the user's own owner is asked; a deny with an exception denies the rest
// and leaves the exception to the other rules.
func TestRuleExceptionNarrowsADenyOrAsk(t *testing.T) {
	e := engine(t, rules.Config{Roots: map[string]string{"*": "/srv"}, Rules: []rules.Rule{
		{Tool: "*", Decision: rules.Allow},
		{Tool: "add_issue_comment", Decision: rules.Ask, Except: &rules.Rule{Arguments: map[string]string{"owner": "me"}}},
		{Tool: "*", Decision: rules.Deny, Under: "/srv/data", Except: &rules.Rule{Under: "/srv/data/public"}},
	}})
	for c, want := range map[[2]string]verdict.Decision{
		{"add_issue_comment", `{"owner":"me","repo":"x","body":"hi"}`}:   verdict.Allow,
		{"add_issue_comment", `{"owner":"ME","repo":"x","body":"hi"}`}:   verdict.Ask, // an allow compares exactly
		{"add_issue_comment", `{"owner":"acme","repo":"x","body":"hi"}`}: verdict.Ask,
		{"add_issue_comment", `{"repo":"x","body":"hi"}`}:                verdict.Ask,
		{"add_issue_comment", `{"owner":{"login":"me"},"body":"hi"}`}:    verdict.Ask,
		{"create_issue", `{"owner":"acme","repo":"x","title":"t"}`}:      verdict.Allow,
		{"fs_read", `{"path":"/srv/data/public/a.csv"}`}:                 verdict.Allow,
		{"fs_read", `{"path":"/srv/data/private/a.csv"}`}:                verdict.Deny,
		{"fs_read", `{"paths":["/srv/data/public/a","/srv/data/b"]}`}:    verdict.Deny,
		{"fs_read", `{"path":"/srv/data/PUBLIC/../private/a"}`}:          verdict.Deny,
		{"fs_read", `{"path":"/srv/other/a.csv"}`}:                       verdict.Allow,
	} {
		d := decide(t, e, call(c[0], c[1]), nil)
		assert.Equal(t, want, d.Decision, "%s %s", c[0], c[1])
	}
	// A path that cannot be evaluated might be in the denied part: it is
	// not allowed.
	d := decide(t, e, call("fs_read", `{"path":"$D/a.csv"}`), nil)
	assert.NotEqual(t, verdict.Allow, d.Decision)
}

// An exception is only on a deny or ask, names only what it leaves out,
// and is no grant's.
func TestRuleExceptionIsValidated(t *testing.T) {
	for bad, field := range map[string]string{
		`{"tool":"t","decision":"allow","except":{"under":"/a"}}`:                       "except",
		`{"tool":"t","decision":"ask","except":{}}`:                                     "except",
		`{"tool":"t","decision":"ask","except":{"tool":"x","under":"/a"}}`:              "except",
		`{"tool":"t","decision":"ask","except":{"under":"/a","message":"m"}}`:           "except",
		`{"tool":"t","decision":"ask","except":{"under":"/a","except":{"under":"/b"}}}`: "except",
		`{"tool":"t","decision":"ask","except":{"host":"exa mple.com"}}`:                "except.host",
		`{"tool":"t","decision":"ask","except":{"arguments":{"reason":"x"}}}`:           "except.arguments",
		`{"tool":"t","decision":"ask","except":{"command":[""]}}`:                       "except.command",
	} {
		_, err := rules.ParseRules([]byte("["+bad+"]"), "rules.json")
		var ve *rules.ValidationError
		if assert.ErrorAs(t, err, &ve, bad) {
			assert.Equal(t, field, ve.Field, bad)
		}
	}
	_, err := rules.ParseRules([]byte(`[{"tool":"t","decision":"ask","except":{"undr":"/a"}}]`), "rules.json")
	assert.ErrorContains(t, err, "undr")
	_, err = rules.ParseRules([]byte(`[{"tool":"t","decision":"ask","except":"/a"}]`), "rules.json")
	assert.ErrorContains(t, err, "except")

	_, err = grants.ParseGrants([]byte(`[{"tool":"t","decision":"deny","except":{"under":"/a"}}]`), "grants.json")
	var ve *rules.ValidationError
	if assert.ErrorAs(t, err, &ve) {
		assert.Equal(t, "except", ve.Field)
	}
}

// "This host or no host": the tool allowed, and an ask on any host it names
// but the one. A call that names no host is the allow's.
func TestRuleExceptionAllowsOneHostOrNone(t *testing.T) {
	rs, err := rules.ParseRules([]byte(`[
		{"tool": "search", "decision": "allow"},
		{"tool": "search", "decision": "ask", "host": "*", "except": {"host": "docs.example.com"}},
		{"tool": "*", "decision": "deny", "host": "169.254.0.0/16"}
	]`), "rules.json")
	require.NoError(t, err)
	e := engine(t, rules.Config{Rules: rs})
	for args, want := range map[string]verdict.Decision{
		`{"query":"release notes"}`:                                                   verdict.Allow,
		`{"query":"release notes","site":"https://docs.example.com/"}`:                verdict.Allow,
		`{"query":"x","site":"https://evil.example/"}`:                                verdict.Ask,
		`{"query":"x","sites":["https://docs.example.com/","https://evil.example/"]}`: verdict.Ask,
		`{"query":"x","site":"https://169.254.169.254/"}`:                             verdict.Deny,
		`{"query":"x","site":"ftp:// what"}`:                                          verdict.Ask, // a host that cannot be told
	} {
		d := decide(t, e, call("search", args), nil)
		assert.Equal(t, want, d.Decision, args)
	}
	// "*" is the only wildcard that stands alone.
	for _, bad := range []string{"*x", "**", "*.*"} {
		_, err := rules.Validate(rules.Rule{Tool: "t", Decision: rules.Ask, Host: bad}, "rule 1")
		assert.Error(t, err, bad)
	}
}
