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

var allowSrvWrites = rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: "/srv"}

func TestExplicitAskRuleAsksEveryTimeDespiteAllowGrant(t *testing.T) {
	for _, viaStore := range []bool{false, true} {
		fake := newFake()
		a := answering(policy.Answer{Action: policy.AlwaysAllow})
		o := policy.Options{Provider: fake, OnAsk: a.ask, Rules: withDefaults(rules.Rule{Tool: "fs_write", Decision: rules.Ask})}
		if viaStore {
			o.GrantsStore = mustStore(t, []rules.Rule{allowSrvWrites})
		} else {
			o.Grants = []rules.Rule{allowSrvWrites}
		}
		p := newPolicy(t, o)
		for i := range 3 {
			r := run1(p, write("w", "docs/a.md"))
			assert.False(t, r.IsError)
			assert.Equal(t, int32(i+1), a.n.Load(), "an explicit ask rule means ask me every time (store=%v)", viaStore)
		}
		assert.Equal(t, rules.ReasonRule, a.Questions()[0].Reason)
		_, ok := p.GrantDecision(write("w", "docs/a.md"))
		assert.False(t, ok, "an allow grant has nothing to say about an explicit ask")
	}
}

func TestFloorAskAsksEveryTimeDespiteAllowGrant(t *testing.T) {
	fake := newFake()
	a := answering(policy.Answer{Action: policy.AlwaysAllow})
	p := newPolicy(t, policy.Options{Provider: fake, OnAsk: a.ask, Rules: withDefaults(),
		Grants: []rules.Rule{allowSrvWrites, {Tool: "*", Decision: rules.Allow, Under: "/"}}})
	for i := range 3 {
		r := run1(p, write("w", "repo/.git/config"))
		assert.False(t, r.IsError)
		assert.Equal(t, int32(i+1), a.n.Load(), "a floor ask is asked every time")
	}
	assert.Equal(t, rules.ReasonFloor, a.Questions()[0].Reason)

	// Even an allow data rule cannot lower the floor.
	fake2 := newFake()
	a2 := answering(policy.Answer{Action: policy.DenyOnce})
	p2 := newPolicy(t, policy.Options{Provider: fake2, OnAsk: a2.ask, Rules: []rules.Rule{allowSrvWrites}})
	assert.True(t, run1(p2, write("w", "repo/.git/hooks/pre-commit")).IsError)
	assert.Equal(t, int32(1), a2.n.Load())
	assert.Empty(t, fake2.Calls())

	// Headless, the floor refuses.
	p3 := newPolicy(t, policy.Options{Provider: newFake(), Rules: []rules.Rule{allowSrvWrites}, Grants: []rules.Rule{allowSrvWrites}})
	r := run1(p3, write("w", "repo/.git/config"))
	assert.True(t, r.IsError)
	assert.Contains(t, r.Content, "Permission required")
}

func TestDenyGrantAnswersFloorAsk(t *testing.T) {
	fake := newFake()
	a := answering(policy.Answer{Action: policy.AllowOnce})
	p := newPolicy(t, policy.Options{Provider: fake, OnAsk: a.ask,
		Grants: []rules.Rule{{Tool: "fs_write", Decision: rules.Deny, Under: "/srv/repo/.git"}}})
	assert.True(t, run1(p, write("w", "repo/.git/config")).IsError)
	assert.Zero(t, a.n.Load())
	assert.Empty(t, fake.Calls())
}

func TestDenyGrantBeatsAllowGrant(t *testing.T) {
	deny := rules.Rule{Tool: "fs_write", Decision: rules.Deny, Under: "/srv/secret"}
	for name, gs := range map[string][]rules.Rule{
		"allow first": {allowSrvWrites, deny},
		"deny first":  {deny, allowSrvWrites},
	} {
		t.Run(name, func(t *testing.T) {
			fake := newFake()
			a := answering(policy.Answer{Action: policy.AllowOnce})
			p := newPolicy(t, policy.Options{Provider: fake, OnAsk: a.ask, Grants: gs})
			res := p.ExecuteToolCalls(context.Background(), []provider.Call{write("1", "secret/key"), write("2", "public/x")})
			assert.True(t, res[0].IsError)
			assert.Contains(t, res[0].Content, "always deny")
			assert.False(t, res[1].IsError)
			assert.Zero(t, a.n.Load())
			assert.Equal(t, []provider.Call{write("2", "public/x")}, fake.Calls())

			d, ok := p.GrantDecision(write("1", "secret/key"))
			assert.True(t, ok)
			assert.Equal(t, rules.Deny, d)
		})
	}
}

func TestDenyGrantBeatsAllowGrantAcrossOwnAndStore(t *testing.T) {
	fake := newFake()
	p := newPolicy(t, policy.Options{Provider: fake, Grants: []rules.Rule{allowSrvWrites},
		GrantsStore: mustStore(t, []rules.Rule{{Tool: "fs_*", Decision: rules.Deny, Under: "/srv/secret"}})})
	assert.True(t, run1(p, write("1", "secret/key")).IsError)
	assert.False(t, run1(p, write("2", "public/key")).IsError)
}

func TestGrantNeverOverrulesDenyRule(t *testing.T) {
	fake := newFake()
	a := answering(policy.Answer{Action: policy.AllowOnce})
	p := newPolicy(t, policy.Options{Provider: fake, OnAsk: a.ask,
		Rules:       []rules.Rule{{Tool: "fs_write", Decision: rules.Deny, Under: "live", Message: "live is read-only"}},
		Grants:      []rules.Rule{allowSrvWrites},
		GrantsStore: mustStore(t, []rules.Rule{{Tool: "*", Decision: rules.Allow, Under: "/"}}),
	})
	r := run1(p, write("1", "live/index.html"))
	assert.True(t, r.IsError)
	assert.Contains(t, r.Content, "live is read-only")
	assert.Zero(t, a.n.Load())
	assert.Empty(t, fake.Calls())

	d, err := p.Decide(context.Background(), write("1", "live/index.html"))
	require.NoError(t, err)
	assert.Equal(t, rules.Deny, d.Decision)
	assert.Equal(t, rules.ReasonRule, d.Reason)
	assert.Nil(t, d.Grant)
}

func TestDenyGrantAnswersExplicitAskRule(t *testing.T) {
	fake := newFake()
	a := answering(policy.Answer{Action: policy.AllowOnce})
	p := newPolicy(t, policy.Options{Provider: fake, OnAsk: a.ask,
		Rules:  []rules.Rule{{Tool: "fs_write", Decision: rules.Ask}},
		Grants: []rules.Rule{{Tool: "fs_write", Decision: rules.Deny, Under: "/srv"}}})
	r := run1(p, write("1", "a"))
	assert.True(t, r.IsError)
	assert.Contains(t, r.Content, "always deny")
	assert.Zero(t, a.n.Load())
	assert.Empty(t, fake.Calls())
}

func TestGrantsNotConsultedForStaticAllow(t *testing.T) {
	fake := newFake()
	p := newPolicy(t, policy.Options{Provider: fake, Rules: []rules.Rule{allowSrvWrites},
		Grants: []rules.Rule{{Tool: "fs_write", Decision: rules.Deny, Under: "/srv"}}})
	assert.False(t, run1(p, write("1", "a")).IsError, "static allow: the deny grant is never consulted")
	d, err := p.Decide(context.Background(), write("1", "a"))
	require.NoError(t, err)
	assert.Equal(t, rules.ReasonRule, d.Reason)
}

func TestAllowGrantNeverAnswersUnevaluablePathByGuess(t *testing.T) {
	// An allow grant under /srv cannot vouch for a path that cannot be
	// evaluated: the call is asked.
	fake := newFake()
	a := answering(policy.Answer{Action: policy.DenyOnce})
	p := newPolicy(t, policy.Options{Provider: fake, OnAsk: a.ask, Grants: []rules.Rule{allowSrvWrites}})
	assert.True(t, run1(p, testkit.Call("1", "fs_write", `{"path":"~/x"}`)).IsError)
	assert.Equal(t, int32(1), a.n.Load())
}

// An always-allow answer to a question no allow grant can answer (the
// floor, an explicit ask rule) allows the call once and leaves no grant: the
// question says so, so that a host offers "always allow" only where it
// sticks.
func TestAlwaysAllowThatCannotStickIsAllowOnce(t *testing.T) {
	for name, c := range map[string]struct {
		rules  []rules.Rule
		call   provider.Call
		sticks bool
	}{
		"floor":    {withDefaults(), write("1", "repo/.git/config"), false},
		"ask rule": {withDefaults(rules.Rule{Tool: "fs_write", Decision: rules.Ask}), write("1", "docs/a.md"), false},
		"no match": {withDefaults(), write("1", "docs/a.md"), true},
	} {
		t.Run(name, func(t *testing.T) {
			fake := newFake()
			var g grantRecorder
			a := answering(policy.Answer{Action: policy.AlwaysAllow})
			p := newPolicy(t, policy.Options{Provider: fake, OnAsk: a.ask, OnGrant: g.onGrant, Rules: c.rules})
			assert.False(t, run1(p, c.call).IsError, "allowed this time either way")
			require.Len(t, a.Questions(), 1)
			assert.Equal(t, c.sticks, a.Questions()[0].AllowGrantable)
			if c.sticks {
				assert.Len(t, p.Grants(), 1)
				assert.Len(t, g.Lists(), 1)
			} else {
				assert.Empty(t, p.Grants(), "nothing remembered")
				assert.Empty(t, g.Lists(), "OnGrant not fired")
			}
		})
	}
}
