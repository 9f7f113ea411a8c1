package policy_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// slowAlwaysAllow deliberates for 20ms, then says always-allow.
func slowAlwaysAllow(a *asker) policy.AskFunc {
	a.answer = func(policy.Question) policy.Answer {
		time.Sleep(20 * time.Millisecond)
		return policy.Answer{Action: policy.AlwaysAllow}
	}
	return a.ask
}

// hammer runs n concurrent single-call batches about files in one
// directory, batch i through policies[i%len(policies)].
func hammer(t *testing.T, n int, policies []*policy.Policy) []provider.Result {
	t.Helper()
	results := make([]provider.Result, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			c := write(fmt.Sprint(i), fmt.Sprintf("project/file%d.txt", i))
			results[i] = policies[i%len(policies)].ExecuteToolCalls(context.Background(), []provider.Call{c})[0]
		})
	}
	within(t, 30*time.Second, "64 concurrent batches", func() {
		close(start)
		wg.Wait()
	})
	return results
}

func TestSixAgentsOneAnswerOnePolicy(t *testing.T) {
	fake := newFake()
	a := &asker{}
	g := &grantRecorder{}
	p := newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults(), OnAsk: slowAlwaysAllow(a), OnGrant: g.onGrant})
	results := hammer(t, 64, []*policy.Policy{p})
	for i, r := range results {
		assert.False(t, r.IsError, "call %d: %s", i, r.Content)
		assert.Equal(t, fmt.Sprint(i), r.ToolCallID)
	}
	assert.Equal(t, int32(1), a.n.Load(), "the human answers once")
	assert.Len(t, g.Lists(), 1, "OnGrant fires once")
	assert.Equal(t, []rules.Rule{{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/project"}}, p.Grants())
	assert.Len(t, fake.Calls(), 64)
}

func TestSixAgentsOneAnswerSharedStore(t *testing.T) {
	fake := newFake()
	store := mustStore(t, nil)
	a := &asker{}
	ask := slowAlwaysAllow(a)
	g := &grantRecorder{}
	var fleet []*policy.Policy
	for i := range 6 {
		fleet = append(fleet, newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults(), OnAsk: ask,
			OnGrant: g.onGrant, GrantsStore: store, Name: fmt.Sprintf("agent%d", i)}))
	}
	results := hammer(t, 64, fleet)
	for i, r := range results {
		assert.False(t, r.IsError, "call %d: %s", i, r.Content)
	}
	assert.Equal(t, int32(1), a.n.Load(), "six agents, one human, one answer")
	assert.Len(t, g.Lists(), 1, "OnGrant fires once across the fleet")
	assert.Equal(t, []rules.Rule{{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/project"}}, store.List())
	for _, p := range fleet {
		assert.Equal(t, store.List(), p.Grants())
	}
	assert.Len(t, fake.Calls(), 64)
}

func TestFleetSharesOneHumanForDifferentQuestions(t *testing.T) {
	// Two policies over one store: their questions are put one at a time.
	store := mustStore(t, nil)
	var mu sync.Mutex
	open, maxOpen := 0, 0
	ask := func(context.Context, policy.Question) policy.Answer {
		mu.Lock()
		open++
		maxOpen = max(maxOpen, open)
		mu.Unlock()
		time.Sleep(10 * time.Millisecond)
		mu.Lock()
		open--
		mu.Unlock()
		return policy.Answer{Action: policy.AllowOnce}
	}
	p1 := newPolicy(t, policy.Options{Provider: newFake(), OnAsk: ask, GrantsStore: store})
	p2 := newPolicy(t, policy.Options{Provider: newFake(), OnAsk: ask, GrantsStore: store})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			p := p1
			if i%2 == 1 {
				p = p2
			}
			run1(p, write(fmt.Sprint(i), fmt.Sprintf("d%d/x", i)))
		})
	}
	within(t, 10*time.Second, "the fleet's batches", wg.Wait)
	assert.Equal(t, 1, maxOpen, "one question open at a time")
}

func TestCancelledBatchStopsWaitingForTheLock(t *testing.T) {
	fake := newFake()
	asked := make(chan string, 4)
	release := make(chan struct{})
	p := newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults(),
		OnAsk: func(_ context.Context, q policy.Question) policy.Answer {
			asked <- q.Call.ID
			<-release
			return policy.Answer{Action: policy.AllowOnce}
		}})

	firstDone := make(chan provider.Result, 1)
	go func() { firstDone <- run1(p, write("holder", "a/x")) }()
	require.Equal(t, "holder", <-asked)

	ctx, cancel := context.WithCancel(context.Background())
	waiterDone := make(chan []provider.Result, 1)
	go func() {
		waiterDone <- p.ExecuteToolCalls(ctx, []provider.Call{
			write("waiter", "b/y"), testkit.Call("read", "fs_read", `{"path":"b/z"}`),
		})
	}()
	time.Sleep(50 * time.Millisecond) // let it queue behind the open question
	select {
	case <-waiterDone:
		t.Fatal("the waiting batch returned before its question could be asked")
	default:
	}
	cancel()
	select {
	case res := <-waiterDone:
		require.Len(t, res, 2)
		assert.True(t, res[0].IsError)
		assert.Equal(t, "waiter", res[0].ToolCallID)
		assert.Contains(t, res[0].Content, "not run")
		assert.Contains(t, res[0].Content, context.Canceled.Error())
		assert.Equal(t, "read", res[1].ToolCallID)
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled batch kept waiting for the ask lock")
	}
	for _, c := range fake.Calls() {
		assert.NotEqual(t, "waiter", c.ID)
	}

	close(release)
	select {
	case r := <-firstDone:
		assert.False(t, r.IsError, r.Content)
	case <-time.After(5 * time.Second):
		t.Fatal("the first batch did not finish")
	}
	assert.Len(t, asked, 0, "the cancelled call was never asked")

	// The lock is free again.
	within(t, 5*time.Second, "an ask after the cancellation", func() {
		assert.False(t, run1(p, write("after", "c/z")).IsError)
	})
	assert.Equal(t, "after", <-asked)
}

func TestAlreadyCancelledBatchIsNeverAsked(t *testing.T) {
	// With the lock free and ctx already done, the human must not be asked
	// (a select between the two would pick either at random).
	fake := newFake()
	a := answering(policy.Answer{Action: policy.AllowOnce})
	p := newPolicy(t, policy.Options{Provider: fake, OnAsk: a.ask, Rules: withDefaults()})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 50 {
		res := p.ExecuteToolCalls(ctx, []provider.Call{write("1", "x")})
		assert.True(t, res[0].IsError) // stopped waiting, or the engine's eval was cancelled
	}
	assert.Zero(t, a.n.Load())
	assert.Empty(t, fake.Calls())
	_, err := p.ElicitHook()(ctx, provider.ElicitRequest{Method: provider.ElicitMethod})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, a.n.Load())
}

func TestCancelledElicitationStopsWaitingForTheLock(t *testing.T) {
	asked := make(chan struct{}, 1)
	release := make(chan struct{})
	p := newPolicy(t, policy.Options{Provider: newFake(), OnAsk: func(_ context.Context, q policy.Question) policy.Answer {
		if q.Kind == policy.KindPermission {
			asked <- struct{}{}
			<-release
			return policy.Answer{Action: policy.AllowOnce}
		}
		return policy.Answer{Action: "accept"}
	}})
	go run1(p, write("1", "x"))
	<-asked
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	var err error
	within(t, 5*time.Second, "a cancelled elicitation", func() {
		_, err = p.ElicitHook()(ctx, provider.ElicitRequest{Method: provider.ElicitMethod})
	})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestReentrantCallFromOnAskIsRefused(t *testing.T) {
	fake := newFake()
	var inner []provider.Result
	var innerRead []provider.Result
	var elicitErr error
	var p *policy.Policy
	p = newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults(), Name: "pol",
		OnAsk: func(ctx context.Context, q policy.Question) policy.Answer {
			if q.Call.ID == "outer" {
				inner = p.ExecuteToolCalls(ctx, []provider.Call{write("inner", "other/x")})
				innerRead = p.ExecuteToolCalls(ctx, []provider.Call{testkit.Call("innerRead", "fs_read", `{"path":"x"}`)})
				_, elicitErr = p.ElicitHook()(ctx, provider.ElicitRequest{Method: provider.ElicitMethod})
			}
			return policy.Answer{Action: policy.AllowOnce}
		}})
	var outer provider.Result
	within(t, 10*time.Second, "a re-entrant call from OnAsk", func() { outer = run1(p, write("outer", "a/x")) })

	assert.False(t, outer.IsError, "the outer call is answered normally")
	require.Len(t, inner, 1)
	assert.True(t, inner[0].IsError)
	assert.Contains(t, inner[0].Content, "re-entrant")
	assert.Contains(t, inner[0].Content, "pol")
	require.Len(t, innerRead, 1)
	assert.False(t, innerRead[0].IsError, "a statically allowed call needs no lock and still runs")
	require.Error(t, elicitErr)
	assert.Contains(t, elicitErr.Error(), "re-entrant")
	for _, c := range fake.Calls() {
		assert.NotEqual(t, "inner", c.ID)
	}

	// And the lock was released afterwards.
	within(t, 5*time.Second, "a later ask", func() { assert.False(t, run1(p, write("later", "b/x")).IsError) })
}

func TestReentrantCallIntoFleetMemberIsRefused(t *testing.T) {
	// Policies sharing a store share the human: a call into a sibling
	// from inside OnAsk, with the ctx it was handed, must not deadlock.
	store := mustStore(t, nil)
	var sibling *policy.Policy
	var inner []provider.Result
	ask := func(ctx context.Context, q policy.Question) policy.Answer {
		if q.Call.ID == "outer" {
			inner = sibling.ExecuteToolCalls(ctx, []provider.Call{write("inner", "other/x")})
		}
		return policy.Answer{Action: policy.AllowOnce}
	}
	p := newPolicy(t, policy.Options{Provider: newFake(), OnAsk: ask, GrantsStore: store})
	sibling = newPolicy(t, policy.Options{Provider: newFake(), OnAsk: ask, GrantsStore: store})
	within(t, 10*time.Second, "a re-entrant call into a sibling", func() { run1(p, write("outer", "a/x")) })
	require.Len(t, inner, 1)
	assert.True(t, inner[0].IsError)
}
