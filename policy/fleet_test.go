package policy_test

import (
	"context"
	"testing"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
)

func TestGrantThroughParentBindsChildren(t *testing.T) {
	store := mustStore(t, nil)
	fake := newFake()
	parentAsk := answering(policy.Answer{Action: policy.AlwaysAllow})
	never := func(context.Context, policy.Question) policy.Answer {
		t.Errorf("a child must not be asked what the fleet already answered")
		return policy.Answer{Action: policy.DenyOnce}
	}
	g := &grantRecorder{}
	parent := newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults(), OnAsk: parentAsk.ask, GrantsStore: store, OnGrant: g.onGrant})
	before := newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults(), OnAsk: never, GrantsStore: store})

	assert.False(t, run1(parent, write("p", "work/a.md")).IsError)
	want := []rules.Rule{{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/work"}}
	assert.Equal(t, want, store.List(), "an always- answer is written to the store")
	assert.Equal(t, [][]rules.Rule{want}, g.Lists())

	after := newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults(), OnAsk: never, GrantsStore: store})
	assert.False(t, run1(before, write("b", "work/b.md")).IsError, "a child built before the grant")
	assert.False(t, run1(after, write("c", "work/c.md")).IsError, "a child built after the grant")
	assert.Equal(t, want, before.Grants())
	assert.Equal(t, want, after.Grants())
	assert.Equal(t, int32(1), parentAsk.n.Load())

	// And the other way: a deny through a child binds the parent.
	childAsk := answering(policy.Answer{Action: policy.AlwaysDeny})
	child := newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults(), OnAsk: childAsk.ask, GrantsStore: store})
	assert.True(t, run1(child, testkit.Call("d", "fs_delete", `{"path":"tmp/x"}`)).IsError)
	assert.True(t, run1(parent, testkit.Call("d2", "fs_delete", `{"path":"tmp/x"}`)).IsError)
	assert.Equal(t, int32(1), parentAsk.n.Load(), "the parent was not asked again")
	assert.Len(t, store.List(), 2)
}

func TestGrantsAreOwnThenStore(t *testing.T) {
	own := rules.Rule{Tool: "fs_edit", Decision: rules.Allow, Under: "/srv/mine"}
	seeded := rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/seeded"}
	store := mustStore(t, []rules.Rule{seeded})
	g := &grantRecorder{}
	fake := newFake()
	p := newPolicy(t, policy.Options{Provider: fake, Grants: []rules.Rule{own}, GrantsStore: store, OnGrant: g.onGrant,
		OnAsk: answering(policy.Answer{Action: policy.AlwaysAllow}).ask})
	assert.Equal(t, []rules.Rule{own, seeded}, p.Grants())

	assert.False(t, run1(p, write("1", "new/x")).IsError)
	added := rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/new"}
	assert.Equal(t, []rules.Rule{seeded, added}, store.List(), "written to the store, not to the policy's own")
	assert.Equal(t, []rules.Rule{own, seeded, added}, p.Grants())
	assert.Equal(t, [][]rules.Rule{{own, seeded, added}}, g.Lists(), "OnGrant gets the effective set")

	// A grant added to the store from outside binds at once.
	require.NoError(t, store.Add(rules.Rule{Tool: "fs_delete", Decision: rules.Deny, Under: "/srv"}))
	r := run1(p, testkit.Call("2", "fs_delete", `{"path":"x"}`))
	assert.True(t, r.IsError)
	assert.Contains(t, r.Content, "always deny")
}

func TestSeededStoreDecides(t *testing.T) {
	store := mustStore(t, []rules.Rule{{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/resumed"}})
	fake := newFake()
	a := answering(policy.Answer{Action: policy.DenyOnce})
	p := newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults(), OnAsk: a.ask, GrantsStore: store})
	assert.False(t, run1(p, write("1", "resumed/x")).IsError)
	assert.Zero(t, a.n.Load())
	d, err := p.Decide(context.Background(), write("1", "resumed/x"))
	require.NoError(t, err)
	assert.Equal(t, rules.ReasonGrant, d.Reason)
	assert.Equal(t, "/srv/resumed", d.Grant.Under)
	dec, ok := p.GrantDecision(write("1", "resumed/x"))
	assert.True(t, ok)
	assert.Equal(t, rules.Allow, dec)
}

func TestStoreSurvivesAPolicyThatNoLongerExists(t *testing.T) {
	// Policies come and go; the store and its lock stay usable.
	store := mustStore(t, nil)
	for i := range 3 {
		p := newPolicy(t, policy.Options{Provider: newFake(), GrantsStore: store,
			OnAsk: answering(policy.Answer{Action: policy.AlwaysAllow}).ask})
		assert.False(t, run1(p, write("1", "d"+string(rune('a'+i))+"/x")).IsError)
	}
	assert.Len(t, store.List(), 3)
}
