package policy_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/testkit"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// A view made by With forwards its calls to its own provider and asks its
// own human, and shares everything else with its policy: an "always"
// answer given through one view answers the next call of another, and of
// the policy itself. The policy's own provider and human are not used.
func TestWithGivesABatchItsOwnProviderAndHuman(t *testing.T) {
	base, other := newFake(), newFake()
	nobody := answering(policy.Answer{Action: policy.DenyOnce})
	p := newPolicy(t, policy.Options{Provider: base, OnAsk: nobody.ask, Rules: withDefaults()})
	alice := answering(policy.Answer{Action: policy.AlwaysAllow})
	ctx := context.Background()

	res := p.With(policy.Via{Provider: other, OnAsk: alice.ask}).ExecuteToolCalls(ctx, []provider.Call{write("1", "/srv/a/x")})
	require.False(t, res[0].IsError, "%+v", res[0])
	assert.Len(t, alice.Questions(), 1, "the view's human was asked")
	assert.Empty(t, nobody.Questions(), "the policy's own human was not")
	assert.Len(t, other.Calls(), 1, "the view's provider ran the call")
	assert.Empty(t, base.Calls(), "the policy's own provider did not")

	// The grant alice's answer left is the policy's: no one is asked again.
	bob := answering(policy.Answer{Action: policy.DenyOnce})
	res = p.With(policy.Via{OnAsk: bob.ask}).ExecuteToolCalls(ctx, []provider.Call{write("2", "/srv/a/y")})
	require.False(t, res[0].IsError, "%+v", res[0])
	assert.Empty(t, bob.Questions())
	assert.Len(t, base.Calls(), 1, "a view with no provider of its own forwards to the policy's")
	res = p.ExecuteToolCalls(ctx, []provider.Call{write("3", "/srv/a/z")})
	require.False(t, res[0].IsError, "%+v", res[0])
	assert.Empty(t, nobody.Questions())
}

// A headless policy seen with a human asks; the policy itself still
// refuses what needs asking, and a view of a view keeps what the first
// gave unless it names its own.
func TestWithMakesAHeadlessPolicyAsk(t *testing.T) {
	fake := newFake()
	p := newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults()})
	require.False(t, p.Interactive())
	once := answering(policy.Answer{Action: policy.AllowOnce})
	view := p.With(policy.Via{OnAsk: once.ask})
	assert.True(t, view.Interactive())

	ctx := context.Background()
	res := view.ExecuteToolCalls(ctx, []provider.Call{write("1", "/srv/a/x")})
	require.False(t, res[0].IsError, "%+v", res[0])
	assert.Len(t, once.Questions(), 1)
	res = p.ExecuteToolCalls(ctx, []provider.Call{write("2", "/srv/a/x")})
	assert.True(t, res[0].IsError, "the headless policy refuses what it would ask")

	other := newFake()
	twice := view.With(policy.Via{Provider: other})
	res = twice.ExecuteToolCalls(ctx, []provider.Call{testkit.Call("3", "fs_write", `{"path":"/srv/b/x","content":"x"}`)})
	require.False(t, res[0].IsError, "%+v", res[0])
	assert.Len(t, once.Questions(), 2, "the first view's human, kept")
	assert.Len(t, other.Calls(), 1, "the second view's provider")
}
