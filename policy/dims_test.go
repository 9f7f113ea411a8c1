package policy_test

import (
	"context"
	"testing"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// dlFake is the filesystem catalogue plus a downloader that writes a URL's
// body to a path: a call naming a directory and a host.
func dlFake() *fakeProvider {
	fake := newFake()
	fake.tools = append(fake.tools, provider.Tool{Type: "function", Function: provider.ToolFunction{
		Name: "fs_download", Parameters: []byte(`{"type":"object"}`)},
		Annotations: &provider.Annotations{ReadOnlyHint: boolp(false), DestructiveHint: boolp(false)}})
	return fake
}

// An "always allow" remembered under a directory covers that directory
// only: a later call that also names a host is asked, since the grant says
// nothing of hosts (an allow covers every dimension the call names, or
// none of the call).
func TestAnAllowGrantUnderADirectoryDoesNotCoverAHost(t *testing.T) {
	a := answering(policy.Answer{Action: policy.AlwaysAllow, Rule: &rules.Rule{Tool: "fs_download", Under: "/srv/dl"}})
	p := newPolicy(t, policy.Options{Provider: dlFake(), OnAsk: a.ask})
	require.False(t, run1(p, testkit.Call("1", "fs_download", `{"path":"/srv/dl/a"}`)).IsError)
	require.Equal(t, []rules.Rule{{Tool: "fs_download", Decision: rules.Allow, Under: "/srv/dl"}}, p.Grants())

	d, err := p.Decide(context.Background(), testkit.Call("2", "fs_download", `{"path":"/srv/dl/b"}`))
	require.NoError(t, err)
	assert.Equal(t, rules.ReasonGrant, d.Reason, "the grant covers a path in its directory")
	for _, args := range []string{
		`{"path":"/srv/dl/b","url":"https://evil.example/x"}`,
		`{"path":"/srv/dl/b","url":"http://10.0.0.5/admin/"}`,
		`{"path":"/srv/dl/b","url":"http:///nohost"}`, // an unknown host
	} {
		d, err := p.Decide(context.Background(), testkit.Call("3", "fs_download", args))
		require.NoError(t, err)
		assert.Equal(t, rules.Ask, d.Decision, args)
		assert.Equal(t, rules.ReasonNoMatch, d.Reason, args)
	}
}

// A call naming a directory and one host is suggested both; the
// suggestion is a valid rule, and remembered as a grant it answers that
// same call, and not the same directory from another host or without one.
func TestASuggestionNamesEveryDimensionOfTheCall(t *testing.T) {
	a := answering(policy.Answer{Action: policy.AlwaysAllow})
	p := newPolicy(t, policy.Options{Provider: dlFake(), OnAsk: a.ask})
	same := testkit.Call("1", "fs_download", `{"path":"dl/a.tgz","url":"https://Docs.Example.org:443/a.tgz"}`)
	require.False(t, run1(p, same).IsError)
	qs := a.Questions()
	require.Len(t, qs, 1)
	want := rules.Rule{Tool: "fs_download", Under: "/srv/dl", Host: "docs.example.org"}
	assert.Equal(t, &want, qs[0].Suggestion)
	v, err := rules.Validate(rules.Rule{Tool: want.Tool, Decision: rules.Allow, Under: want.Under, Host: want.Host}, "suggestion")
	require.NoError(t, err)
	assert.Equal(t, []rules.Rule{v}, p.Grants())

	d, err := p.Decide(context.Background(), same)
	require.NoError(t, err)
	assert.Equal(t, rules.Allow, d.Decision)
	assert.Equal(t, rules.ReasonGrant, d.Reason)
	for _, args := range []string{
		`{"path":"dl/b.tgz","url":"https://evil.example/a.tgz"}`,
		`{"path":"dl/b.tgz"}`,
		`{"url":"https://docs.example.org/a.tgz"}`,
		`{"path":"etc/b.tgz","url":"https://docs.example.org/a.tgz"}`,
	} {
		d, err := p.Decide(context.Background(), testkit.Call("2", "fs_download", args))
		require.NoError(t, err)
		assert.Equal(t, rules.Ask, d.Decision, args)
	}

	// URLs of two hosts, or an unknown one, beside a path: the bare tool.
	for _, args := range []string{
		`{"path":"dl/a","urls":["https://a.example/","https://b.example/"]}`,
		`{"path":"dl/a","url":"http:///nohost"}`,
	} {
		d, err := p.Decide(context.Background(), testkit.Call("3", "fs_download", args))
		require.NoError(t, err)
		assert.Equal(t, &rules.Rule{Tool: "fs_download"}, d.Suggestion, args)
	}
}
