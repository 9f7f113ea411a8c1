package policy_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
)

// "Allow for a day" leaves an allow grant that expires a day after it was
// given, which answers the next call like any other.
func TestAllowForADayGrantExpiresInADay(t *testing.T) {
	s := mustStore(t, nil)
	fake := newFake()
	a := answering(policy.Answer{Action: policy.AllowForADay})
	p := newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults(), GrantsStore: s, OnAsk: a.ask})
	require.False(t, run1(p, write("1", "docs/a.md")).IsError)
	require.False(t, run1(p, write("2", "docs/b.md")).IsError)
	assert.Len(t, a.Questions(), 1, "the day grant answers the second write")
	records := s.Records()
	require.Len(t, records, 1)
	assert.Equal(t, rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/docs"}, records[0].Rule)
	assert.Equal(t, policy.ADay, records[0].Expires.Sub(records[0].GrantedAt), "the grant's lifetime")
}

// The operator's --grant-ttl (the store's TTL) bounds every grant: an
// answer can shorten one, never lengthen it.
func TestAllowForADayKeepsAShorterStoreTTL(t *testing.T) {
	for ttl, want := range map[time.Duration]time.Duration{time.Hour: time.Hour, 0: policy.ADay, 72 * time.Hour: policy.ADay} {
		s := mustStore(t, nil)
		s.SetTTL(ttl)
		p := newPolicy(t, policy.Options{Provider: newFake(), Rules: withDefaults(), GrantsStore: s,
			OnAsk: answering(policy.Answer{Action: policy.AllowForADay}).ask})
		require.False(t, run1(p, write("1", "docs/a.md")).IsError)
		records := s.Records()
		require.Len(t, records, 1)
		assert.Equal(t, want, records[0].Expires.Sub(records[0].GrantedAt), "lifetime under a store TTL of %v", ttl)
	}
}

// A policy's own grant list keeps no expiry: without a store the answer is
// refused, not kept for ever, and the call is not run.
func TestAllowForADayWithoutAStoreIsRefused(t *testing.T) {
	fake := newFake()
	p := newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults(), OnAsk: answering(policy.Answer{Action: policy.AllowForADay}).ask})
	r := run1(p, write("1", "docs/a.md"))
	require.True(t, r.IsError)
	assert.Contains(t, r.Content, "needs a grants store")
	assert.Empty(t, p.Grants(), "nothing remembered")
	assert.Empty(t, fake.Batches(), "the call was run")
}

// Where no allow grant can answer (the floor, an ask rule), "allow for a
// day", like "always allow", allows once and remembers nothing.
func TestAllowForADayThatCannotStickIsAllowOnce(t *testing.T) {
	for name, r := range map[string][]rules.Rule{
		"floor":    withDefaults(),
		"ask rule": withDefaults(rules.Rule{Tool: "fs_write", Decision: rules.Ask}),
	} {
		s := mustStore(t, nil)
		a := answering(policy.Answer{Action: policy.AllowForADay})
		p := newPolicy(t, policy.Options{Provider: newFake(), Rules: r, GrantsStore: s, OnAsk: a.ask})
		path := "docs/a.md"
		if name == "floor" {
			path = "repo/.git/config"
		}
		assert.False(t, run1(p, write("1", path)).IsError, name)
		require.Len(t, a.Questions(), 1, name)
		assert.False(t, a.Questions()[0].AllowGrantable, name)
		assert.Empty(t, s.Records(), "%s: nothing remembered", name)
	}
}
