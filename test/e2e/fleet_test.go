package e2e_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

const (
	fleetBatches = 3 // concurrent batches per agent
	fleetBatch   = 3 // writes per batch
)

// deliberate is how long the scripted human takes to answer. Nothing is
// asserted about time: it only widens the window in which other batches
// are waiting for the answer, the case under test.
const deliberate = 20 * time.Millisecond

// fleetWrites runs fleetBatches concurrent batches on every agent, each
// writing fleetBatch files into shared/ — a directory no static rule allows —
// and checks that every write succeeded and landed.
func fleetWrites(t *testing.T, dir string, agents []*policy.Policy) {
	t.Helper()
	var wg sync.WaitGroup
	results := make([][]provider.Result, len(agents)*fleetBatches)
	for a, p := range agents {
		for b := range fleetBatches {
			wg.Go(func() {
				calls := make([]provider.Call, fleetBatch)
				for k := range calls {
					name := fmt.Sprintf("shared/a%d-b%d-%d.txt", a, b, k)
					calls[k] = mkcall(name, "fs_write", map[string]string{"path": name, "content": name})
				}
				results[a*fleetBatches+b] = p.ExecuteToolCalls(context.Background(), calls)
			})
		}
	}
	wg.Wait()
	for _, rs := range results {
		require.Len(t, rs, fleetBatch, "results of a batch")
		for _, r := range rs {
			wantOK(t, r)
			wantFile(t, filepath.Join(dir, filepath.FromSlash(r.ToolCallID)), r.ToolCallID)
		}
	}
}

// TestFleet: several agents, each with its own policy and its own OnAsk
// (one human behind all of them), over ONE client, sharing one
// grants.Store, all writing into the same directory at once. The human
// answers once; every write lands; the book holds one grant; an agent
// started afterwards is bound by it.
//
// This needs the policies of one store to share one ask lock: with a lock
// per policy, each agent puts the same question at the same moment (the
// human was asked 3–4 times out of 4 in every run before the fleet lock).
func TestFleet(t *testing.T) {
	t.Parallel()
	const agentsN = 4
	dir := t.TempDir()
	client := connect(t, dir)
	store, err := grants.NewStore(nil)
	require.NoError(t, err)
	shared := filepath.Join(dir, "shared")

	var (
		mu       sync.Mutex
		dialogs  []policy.Question
		onGrants int
	)
	agents := make([]*policy.Policy, agentsN)
	for a := range agents {
		agents[a] = newPolicy(t, policy.Options{
			Provider:    client,
			Rules:       policy.DefaultRules(),
			Roots:       map[string]string{"fs": dir},
			GrantsStore: store,
			Name:        fmt.Sprintf("agent-%d", a),
			OnAsk: func(_ context.Context, q policy.Question) policy.Answer {
				mu.Lock()
				dialogs = append(dialogs, q)
				mu.Unlock()
				time.Sleep(deliberate)
				return policy.Answer{Action: policy.AlwaysAllow}
			},
			OnGrant: func([]rules.Rule) {
				mu.Lock()
				onGrants++
				mu.Unlock()
			},
		})
	}

	fleetWrites(t, dir, agents)

	mu.Lock()
	var asked []string
	for _, q := range dialogs {
		asked = append(asked, q.Call.ID)
	}
	require.Len(t, dialogs, 1, "the human was asked about %q, want once", asked)
	s := dialogs[0].Suggestion
	require.NotNil(t, s, "suggestion")
	require.Equal(t, "fs_write", s.Tool, "suggestion %+v", s)
	require.Equal(t, shared, s.Under, "suggestion %+v", s)
	assert.Equal(t, 1, onGrants, "times OnGrant fired")
	mu.Unlock()
	require.Equal(t, []rules.Rule{{Tool: "fs_write", Decision: rules.Allow, Under: shared}}, store.List(), "the store: the one grant")
	for _, a := range agents {
		require.Len(t, a.Grants(), 1, "effective grants: want the store's one")
	}

	// An agent started after the answer is bound by it too.
	late := newPolicy(t, policy.Options{
		Provider: client, Rules: policy.DefaultRules(), Roots: map[string]string{"fs": dir},
		GrantsStore: store, OnAsk: refuse(t, "the late agent's human"),
	})
	rs := execute(t, late, mkcall("late", "fs_write", map[string]string{"path": "shared/late.txt", "content": "late"}))
	wantOK(t, rs[0])
	wantFile(t, filepath.Join(shared, "late.txt"), "late")
}

// TestOnePolicyManyBatches: concurrent batches through ONE policy ask the
// same question once; the batches that waited behind it are decided by the
// grant the answer left.
func TestOnePolicyManyBatches(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	human := &asker{answer: func(policy.Question) policy.Answer {
		time.Sleep(deliberate)
		return policy.Answer{Action: policy.AlwaysAllow}
	}}
	var onGrants []int
	var mu sync.Mutex
	p := newPolicy(t, policy.Options{
		Provider: connect(t, dir), Rules: policy.DefaultRules(), Roots: map[string]string{"fs": dir},
		OnAsk: human.ask,
		OnGrant: func(g []rules.Rule) {
			mu.Lock()
			onGrants = append(onGrants, len(g))
			mu.Unlock()
		},
	})
	agents := make([]*policy.Policy, 6)
	for i := range agents {
		agents[i] = p
	}
	fleetWrites(t, dir, agents)
	require.Len(t, human.asked(), 1, "questions: want once")
	require.Len(t, p.Grants(), 1, "grants")
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []int{1}, onGrants, "OnGrant calls (list lengths)")
}
