package policy_test

import (
	"context"
	"testing"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/verdict"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// A tool whose name is a glob: the suggestion and the grant an "always
// allow" leaves name that tool exactly, so fs_delete is not allowed by an
// answer about a tool called "fs_*".
func TestAnAlwaysAnswerAboutAToolNamedLikeAGlobAllowsThatToolOnly(t *testing.T) {
	fake := newFake()
	fake.tools = append(fake.tools, provider.Tool{Type: "function",
		Function: provider.ToolFunction{Name: "fs_*", Parameters: []byte(`{"type":"object"}`)}, Annotations: &provider.Annotations{}})
	a := answering(policy.Answer{Action: policy.AlwaysAllow})
	p := newPolicy(t, policy.Options{Provider: fake, OnAsk: a.ask})
	require.False(t, run1(p, testkit.Call("1", "fs_*", `{}`)).IsError)
	require.Len(t, a.Questions(), 1)
	assert.Equal(t, `fs_\*`, a.Questions()[0].Suggestion.Tool, "escaped")
	assert.Equal(t, []rules.Rule{{Tool: `fs_\*`, Decision: rules.Allow}}, p.Grants())

	for _, other := range []string{"fs_delete", "fs_x", "fs_"} {
		d, err := p.Decide(context.Background(), testkit.Call("2", other, `{}`))
		require.NoError(t, err)
		assert.Equal(t, rules.Ask, d.Decision, "%s is not the tool the human answered about", other)
	}
	d, err := p.Decide(context.Background(), testkit.Call("3", "fs_*", `{}`))
	require.NoError(t, err)
	assert.Equal(t, rules.ReasonGrant, d.Reason, "the tool itself is")
}

// An answer's relative scope is made absolute against the call's root
// before it is remembered: a store shared by policies with other roots
// would read it as another directory.
func TestARelativeAnswerIsRememberedAbsolute(t *testing.T) {
	store := mustStore(t, nil)
	a := answering(policy.Answer{Action: policy.AlwaysAllow, Rule: &rules.Rule{Tool: "fs_write", Under: "scratch"}})
	p := newPolicy(t, policy.Options{Provider: newFake(), OnAsk: a.ask, GrantsStore: store})
	require.False(t, run1(p, write("1", "scratch/a")).IsError)
	assert.Equal(t, []rules.Rule{{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/scratch"}}, store.List())

	// Another policy on the same store, rooted elsewhere, is not allowed
	// into its own scratch by it.
	other := newPolicy(t, policy.Options{Provider: newFake(), GrantsStore: store, Roots: map[string]string{"fs": "/home/u"}})
	d, err := other.Decide(context.Background(), write("2", "scratch/a"))
	require.NoError(t, err)
	assert.Equal(t, rules.Ask, d.Decision)

	// No root to resolve against: refused, nothing remembered.
	a = answering(policy.Answer{Action: policy.AlwaysAllow, Rule: &rules.Rule{Tool: "web_write", Under: "scratch"}})
	p = newPolicy(t, policy.Options{Provider: newFake(), OnAsk: a.ask, Roots: map[string]string{"fs": "/srv"}})
	r := run1(p, testkit.Call("1", "web_write", `{"path":"/srv/scratch/a"}`))
	assert.True(t, r.IsError)
	assert.Contains(t, r.Content, "no root")
	assert.Empty(t, p.Grants())
}

// The suggestion for a directory the tool acts on is that directory, not
// its parent (which for "." is above the root).
func TestTheSuggestionForADirectoryIsTheDirectory(t *testing.T) {
	fake := newFake()
	fake.tools = append(fake.tools,
		provider.Tool{Type: "function", Function: provider.ToolFunction{Name: "fs_list_directory", Parameters: []byte(`{}`)}, Annotations: &provider.Annotations{}},
		provider.Tool{Type: "function", Function: provider.ToolFunction{Name: "fs_search", Parameters: []byte(`{}`)}, Annotations: &provider.Annotations{}})
	p := newPolicy(t, policy.Options{Provider: fake})
	for args, want := range map[string]string{
		`{"path":"."}`:    "/srv",
		`{"path":"docs"}`: "/srv/docs",
	} {
		d, err := p.Decide(context.Background(), testkit.Call("1", "fs_list_directory", args))
		require.NoError(t, err)
		assert.Equal(t, want, d.Suggestion.Under, args)
	}
	d, err := p.Decide(context.Background(), testkit.Call("1", "fs_search", `{"cwd":"docs","path":"docs/a.md"}`))
	require.NoError(t, err)
	assert.Equal(t, "/srv/docs", d.Suggestion.Under, "a directory argument is its own scope")
	d, err = p.Decide(context.Background(), write("1", "."))
	require.NoError(t, err)
	assert.Equal(t, "/srv", d.Suggestion.Under, "the root itself is a directory")
	d, err = p.Decide(context.Background(), write("1", "docs/a.md"))
	require.NoError(t, err)
	assert.Equal(t, "/srv/docs", d.Suggestion.Under, "a file's scope is its directory")
}

// Grants read calls as rules do: a deny grant matches any path, folded; an
// allow grant needs every path, exactly.
func TestGrantsReadCallsAsRulesDo(t *testing.T) {
	p := newPolicy(t, policy.Options{Provider: newFake(), Grants: []rules.Rule{
		{Tool: "fs_write", Decision: rules.Allow, Under: "/srv"},
		{Tool: "fs_write", Decision: rules.Deny, Under: "/srv/secret"},
	}})
	for args, want := range map[string]verdict.Decision{
		`{"paths":["/srv/ok","/srv/secret/k"]}`: rules.Deny,
		`{"paths":["/srv/SECRET/k"]}`:           rules.Deny,
		`{"paths":["/srv/ok","/etc/x"]}`:        rules.Ask,
		`{"paths":["/srv/ok","/srv/b"]}`:        rules.Allow,
		`{"paths":["/SRV/ok"]}`:                 rules.Ask,
	} {
		d, err := p.Decide(context.Background(), testkit.Call("1", "fs_write", args))
		require.NoError(t, err)
		assert.Equal(t, want, d.Decision, args)
	}
	// A deny grant named in another case still denies; an allow does not
	// allow another case.
	p = newPolicy(t, policy.Options{Provider: newFake(), Grants: []rules.Rule{
		{Tool: "FS_WRITE", Decision: rules.Deny},
	}})
	d, err := p.Decide(context.Background(), write("1", "a"))
	require.NoError(t, err)
	assert.Equal(t, rules.Deny, d.Decision)
}

// A catalogue that lists a name twice, once harmless and once not, is not
// read by either entry: the tool is decided as unknown.
func TestAToolListedTwiceIsUnknown(t *testing.T) {
	fake := newFake()
	readOnly := provider.Tool{Type: "function", Function: provider.ToolFunction{Name: "fs_write", Parameters: []byte(`{}`)},
		Annotations: &provider.Annotations{ReadOnlyHint: boolp(true)}}
	fake.tools = append(fake.tools, readOnly)
	p := newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults()})
	d, err := p.Decide(context.Background(), write("1", "notes.md"))
	require.NoError(t, err)
	assert.Equal(t, rules.Ask, d.Decision, "the read-only entry does not make the write a read")
}
