package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/provider"
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
		args: `{"url":"http://169.254.169.254/latest/meta-data/"}`, decision: "ask", reason: "no-match",
		suggestion: `{"tool":"web_fetch","host":"169.254.169.254"}`},
	{name: "default read-only/a decoy path beside the URL", rules: `[]`, tool: "web_fetch",
		args: `{"url":"http://169.254.169.254/latest/meta-data/","path":"/tmp"}`, decision: "ask", reason: "no-match",
		paths: []string{"/tmp"}, suggestion: `{"tool":"web_fetch","under":"/","host":"169.254.169.254"}`},
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
		args: `{"url":"https://docs.example/","path":"/etc/shadow"}`, decision: "ask", reason: "no-match",
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
	dir := t.TempDir()
	tools := write(t, dir, "tools.json", attackTools)
	catalogue, err := loadTools(tools)
	require.NoError(t, err)
	var list []provider.Tool
	for _, tool := range catalogue {
		list = append(list, *tool)
	}
	for i, a := range dimensionCases {
		t.Run(a.name, func(t *testing.T) { decideAlike(t, dir, tools, list, i, a) })
	}
}
