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
