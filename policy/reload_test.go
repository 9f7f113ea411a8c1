package policy_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

var (
	allowA = rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/a"}
	allowB = rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/b"}
)

func TestSetRulesRefusesABadSetAndKeepsTheOld(t *testing.T) {
	p := newPolicy(t, policy.Options{Provider: newFake(), Rules: []rules.Rule{allowA}})
	for name, set := range map[string]struct {
		rs      []rules.Rule
		modules []rules.Module
	}{
		"invalid rule":   {rs: []rules.Rule{{Tool: "fs_write", Decision: "maybe"}}},
		"module syntax":  {rs: []rules.Rule{allowB}, modules: []rules.Module{{Name: "bad.rego", Source: "package mcp.custom\n\ndeny contains"}}},
		"module compile": {rs: []rules.Rule{allowB}, modules: []rules.Module{{Name: "bad.rego", Source: "package mcp.custom\n\ndeny contains x if { x := nope }"}}},
		"engine package": {rs: []rules.Rule{allowB}, modules: []rules.Module{{Name: "e.rego", Source: "package mcp.engine\n"}}},
	} {
		t.Run(name, func(t *testing.T) {
			err := p.SetRules(set.rs, set.modules)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "rules not changed")
			d, err := p.Decide(context.Background(), write("1", "a/x"))
			require.NoError(t, err)
			assert.Equal(t, rules.Allow, d.Decision, "the old rules stand")
			d, err = p.Decide(context.Background(), write("1", "b/x"))
			require.NoError(t, err)
			assert.Equal(t, rules.Ask, d.Decision)
		})
	}
	require.NoError(t, p.SetRules([]rules.Rule{allowB}, nil))
	d, err := p.Decide(context.Background(), write("1", "b/x"))
	require.NoError(t, err)
	assert.Equal(t, rules.Allow, d.Decision, "a good set replaces the old")
	d, err = p.Decide(context.Background(), write("1", "a/x"))
	require.NoError(t, err)
	assert.Equal(t, rules.Ask, d.Decision)
}

// The session's grants and a question being asked are not the rules: a
// reload leaves them, and the answer given after it still counts.
func TestSetRulesKeepsGrantsAndThePendingQuestion(t *testing.T) {
	fake := newFake()
	asked, answer := make(chan struct{}), make(chan struct{})
	var g grantRecorder
	p := newPolicy(t, policy.Options{Provider: fake, OnGrant: g.onGrant,
		Grants: []rules.Rule{{Tool: "fs_write", Decision: rules.Deny, Under: "/srv/secret"}},
		OnAsk: func(context.Context, policy.Question) policy.Answer {
			close(asked)
			<-answer
			return policy.Answer{Action: policy.AlwaysAllow}
		}})
	done := make(chan []provider.Result)
	go func() { done <- p.ExecuteToolCalls(context.Background(), []provider.Call{write("1", "notes/x")}) }()
	<-asked
	require.NoError(t, p.SetRules([]rules.Rule{allowB}, nil))
	close(answer)
	var res []provider.Result
	within(t, 5*time.Second, "the batch", func() { res = <-done })
	assert.False(t, res[0].IsError, "the answer given across the reload allows its call")
	assert.Equal(t, []rules.Rule{
		{Tool: "fs_write", Decision: rules.Deny, Under: "/srv/secret"},
		{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/notes"},
	}, p.Grants(), "the grants from before, and the answer's")
	d, err := p.Decide(context.Background(), write("2", "secret/k"))
	require.NoError(t, err)
	assert.Equal(t, rules.Deny, d.Decision)
	assert.Equal(t, rules.ReasonGrant, d.Reason)
	d, err = p.Decide(context.Background(), write("3", "b/x"))
	require.NoError(t, err)
	assert.Equal(t, rules.Allow, d.Decision, "the new rules decide")
}

// A reload made while a batch is being decided (here, by the human's
// answer to its first call) changes no decision of that batch: the batch
// is decided by the rules it began with. The next batch gets the new ones.
func TestAReloadDuringABatchChangesNoDecisionOfIt(t *testing.T) {
	fake := newFake()
	var p *policy.Policy
	p = newPolicy(t, policy.Options{Provider: fake, Rules: []rules.Rule{allowA},
		OnAsk: func(context.Context, policy.Question) policy.Answer {
			if err := p.SetRules([]rules.Rule{{Tool: "fs_write", Decision: rules.Deny}}, nil); err != nil {
				t.Error(err)
			}
			return policy.Answer{Action: policy.AllowOnce}
		}})
	batch := []provider.Call{write("1", "asked/x"), write("2", "a/x"), write("3", "a/y")}
	res := p.ExecuteToolCalls(context.Background(), batch)
	for _, r := range res {
		assert.False(t, r.IsError, "%s: decided by the rules the batch began with: %s", r.ToolCallID, r.Content)
	}
	res = p.ExecuteToolCalls(context.Background(), batch[1:])
	for _, r := range res {
		assert.True(t, r.IsError, "%s: the next batch is decided by the new rules", r.ToolCallID)
		assert.Contains(t, r.Content, "Denied")
	}
}

// Calls decided while the rules are swapped again and again, under -race:
// every decision is one of the two rule sets', never a mix or a failure.
func TestCallsDuringReloads(t *testing.T) {
	p := newPolicy(t, policy.Options{Provider: newFake(), Rules: []rules.Rule{allowA}})
	sets := [][]rules.Rule{{allowA}, {allowB}}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; !stop.Load(); i++ {
			if err := p.SetRules(sets[i%2], nil); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for range 4 {
		wg.Go(func() {
			for range 200 {
				res := p.ExecuteToolCalls(context.Background(), []provider.Call{write("a", "a/x"), write("b", "b/x")})
				// One set allows a and asks b (refused: nobody to ask); the
				// other the reverse. Both at once, or neither, is a mix.
				if res[0].IsError == res[1].IsError {
					t.Errorf("a batch decided by a mix of rule sets: %+v", res)
					return
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
}

// A team's rule that ranges over an argument four times over takes time
// in the fourth power of its length. Such a rule is one the fast path
// reads on the call, without OPA's evaluator (it may find it failing and
// decide at once), and that reading stops at a bound and hands the
// decision to the evaluator, which DecisionTimeout stops: a hundred
// elements (10^8 ways through) are refused in about the timeout.
func TestARuleReadOnTheCallKeepsTheTimeout(t *testing.T) {
	ranges := rules.Module{Name: "ranges.rego", Source: `package mcp.custom

deny contains "never" if {
	a := input.arguments.a[_]
	b := input.arguments.a[_]
	c := input.arguments.a[_]
	d := input.arguments.a[_]
	a != b
	b != c
	c != d
	mcp.path.fold(d) == "/never"
}
`}
	fake := newFake()
	p := newPolicy(t, policy.Options{Provider: fake, Modules: []rules.Module{ranges}, DecisionTimeout: 100 * time.Millisecond})
	a := make([]string, 100)
	for i := range a {
		a[i] = fmt.Sprintf("%q", fmt.Sprint("v", i))
	}
	call := provider.Call{ID: "1", Function: provider.CallFunction{Name: "fs_write", Arguments: `{"path":"a/x","a":[` + strings.Join(a, ",") + `]}`}}
	var res []provider.Result
	within(t, 20*time.Second, "a decision bounded to 100ms", func() {
		res = p.ExecuteToolCalls(context.Background(), []provider.Call{call})
	})
	require.True(t, res[0].IsError)
	assert.Contains(t, res[0].Content, "took longer than 100ms")
	assert.Empty(t, fake.Calls(), "nothing ran")
}

// A team's module that never ends is stopped by DecisionTimeout: the call
// is refused, closed, and the policy goes on deciding.
func TestADecisionPastItsTimeoutIsRefused(t *testing.T) {
	loop := rules.Module{Name: "loop.rego", Source: `package mcp.custom

deny contains "never" if {
	some i in numbers.range(1, 100000000 + count(input.paths))
	i < 0
}
`}
	fake := newFake()
	p := newPolicy(t, policy.Options{Provider: fake, Modules: []rules.Module{loop}, DecisionTimeout: 100 * time.Millisecond})
	var res []provider.Result
	within(t, 20*time.Second, "a decision bounded to 100ms", func() {
		res = p.ExecuteToolCalls(context.Background(), []provider.Call{write("1", "a/x")})
	})
	require.True(t, res[0].IsError)
	assert.Contains(t, res[0].Content, "took longer than 100ms")
	assert.Empty(t, fake.Calls(), "nothing ran")
}
