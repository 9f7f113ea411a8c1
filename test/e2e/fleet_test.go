package e2e_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/policy/rules"
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
		if len(rs) != fleetBatch {
			t.Fatalf("got %d results, want %d", len(rs), fleetBatch)
		}
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
	const agentsN = 4
	dir := t.TempDir()
	client := connect(t, dir)
	store, err := grants.NewStore(nil)
	if err != nil {
		t.Fatal(err)
	}
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
	if len(dialogs) != 1 {
		var asked []string
		for _, q := range dialogs {
			asked = append(asked, q.Call.ID)
		}
		t.Fatalf("the human was asked %d times, want once: %q", len(dialogs), asked)
	}
	if s := dialogs[0].Suggestion; s == nil || s.Tool != "fs_write" || s.Under != shared {
		t.Fatalf("suggestion = %+v, want fs_write under %s", s, shared)
	}
	if onGrants != 1 {
		t.Errorf("OnGrant fired %d times, want once", onGrants)
	}
	mu.Unlock()
	if g := store.List(); len(g) != 1 || !reflect.DeepEqual(g[0], rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: shared}) {
		t.Fatalf("store = %+v, want the one grant fs_write under %s", g, shared)
	}
	for _, a := range agents {
		if g := a.Grants(); len(g) != 1 {
			t.Fatalf("effective grants = %+v, want the store's one", g)
		}
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
	if qs := human.asked(); len(qs) != 1 {
		t.Fatalf("asked %d times, want once", len(qs))
	}
	if g := p.Grants(); len(g) != 1 {
		t.Fatalf("grants = %+v, want one", g)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(onGrants) != 1 || onGrants[0] != 1 {
		t.Fatalf("OnGrant calls (list lengths) = %v, want [1]", onGrants)
	}
}
