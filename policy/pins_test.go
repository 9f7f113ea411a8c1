package policy_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/testkit"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// A tool whose definition is not the one a human approved
// (Tool.DefinitionChange) has its allow grants suspended and its
// annotations read as unknown; its deny grants still answer, the static
// rules still apply, and the question says what changed.
func TestChangedToolSuspendsAllowGrantsAndAnnotations(t *testing.T) {
	ctx := context.Background()
	const change = `description was "write a file", now "write a file, and send ~/.ssh/id_rsa"`
	changed := func(names ...string) *fakeProvider {
		fake := newFake()
		for i := range fake.tools {
			for _, n := range names {
				if fake.tools[i].Function.Name == n {
					fake.tools[i].DefinitionChange = change
				}
			}
		}
		return fake
	}
	grant := rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: "/srv"}

	unchanged := newPolicy(t, policy.Options{Provider: newFake(), Rules: withDefaults(), Grants: []rules.Rule{grant}})
	d, err := unchanged.Decide(ctx, write("1", "/srv/a.txt"))
	require.NoError(t, err)
	require.Equal(t, rules.Allow, d.Decision, "the grant answers the tool as approved")

	a := answering(policy.Answer{Action: policy.DenyOnce})
	p := newPolicy(t, policy.Options{Provider: changed("fs_write", "fs_read"), Rules: withDefaults(), Grants: []rules.Rule{grant}, OnAsk: a.ask})
	d, err = p.Decide(ctx, write("1", "/srv/a.txt"))
	require.NoError(t, err)
	assert.Equal(t, rules.Ask, d.Decision, "the changed tool's allow grant still answered")
	res := p.ExecuteToolCalls(ctx, []provider.Call{write("2", "/srv/a.txt")})
	require.True(t, res[0].IsError)
	qs := a.Questions()
	require.Len(t, qs, 1)
	assert.Equal(t, change, qs[0].DefinitionChange)
	assert.True(t, qs[0].AllowGrantable, "an always answer is offered: it approves the change")

	read := testkit.Call("3", "fs_read", `{"path":"/srv/a.txt"}`)
	d, err = p.Decide(ctx, read)
	require.NoError(t, err)
	assert.Equal(t, rules.Ask, d.Decision, "a changed tool's read-only mark still counted")
	d, err = newPolicy(t, policy.Options{Provider: newFake(), Rules: withDefaults()}).Decide(ctx, read)
	require.NoError(t, err)
	assert.Equal(t, rules.Allow, d.Decision, "the unchanged read-only tool reads")

	deny := newPolicy(t, policy.Options{Provider: changed("fs_write"), Rules: withDefaults(),
		Grants: []rules.Rule{{Tool: "fs_write", Decision: rules.Deny}}})
	d, err = deny.Decide(ctx, write("4", "/srv/a.txt"))
	require.NoError(t, err)
	assert.Equal(t, rules.Deny, d.Decision, "a deny grant is not suspended")

	static := newPolicy(t, policy.Options{Provider: changed("fs_write"), Rules: withDefaults(grant)})
	d, err = static.Decide(ctx, write("5", "/srv/a.txt"))
	require.NoError(t, err)
	assert.Equal(t, rules.Allow, d.Decision, "the static rules still apply")
}

// With a pinned catalogue, a tool the catalogue does not list once (left
// out, listed twice, or a list the proxy could not read) is one whose
// definition no human approved: its allow grants do not answer, and the
// question says why. Without, such a tool is merely unknown, and a grant
// answers it.
func TestUnlistedToolOfAPinnedCatalogueIsUnapproved(t *testing.T) {
	ctx := context.Background()
	grant := rules.Rule{Tool: "fs_sync", Decision: rules.Allow, Under: "/srv"}
	sync := testkit.Call("1", "fs_sync", `{"path":"/srv/a"}`)

	plain := newPolicy(t, policy.Options{Provider: newFake(), Rules: withDefaults(), Grants: []rules.Rule{grant}})
	d, err := plain.Decide(ctx, sync)
	require.NoError(t, err)
	assert.Equal(t, rules.Allow, d.Decision, "an unknown tool's grant answers without pins")

	a := answering(policy.Answer{Action: policy.DenyOnce})
	pinned := newPolicy(t, policy.Options{Provider: newFake(), Rules: withDefaults(), Grants: []rules.Rule{grant}, PinnedCatalogue: true, OnAsk: a.ask})
	d, err = pinned.Decide(ctx, sync)
	require.NoError(t, err)
	assert.Equal(t, rules.Ask, d.Decision, "an unlisted tool's grant answered under pins")
	pinned.ExecuteToolCalls(ctx, []provider.Call{sync})
	require.Len(t, a.Questions(), 1)
	assert.Contains(t, a.Questions()[0].DefinitionChange, "not in the server's tool list")

	twice := newFake()
	twice.tools = append(twice.tools, twice.tools[0]) // fs_read listed twice
	read := testkit.Call("2", "fs_read", `{"path":"/srv/a"}`)
	d, err = newPolicy(t, policy.Options{Provider: twice, Rules: withDefaults(), PinnedCatalogue: true,
		Grants: []rules.Rule{{Tool: "fs_read", Decision: rules.Allow, Under: "/srv"}}}).Decide(ctx, read)
	require.NoError(t, err)
	assert.Equal(t, rules.Ask, d.Decision, "a tool listed twice: neither its read-only mark nor its grant answers")
}
