package policy_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// scaleRules is a rule set of n rules shaped like a team's: most name one
// tool and one directory or host, a few are globs; none allows the
// benchmarks' write to scratch/ or granted/ but the first.
func scaleRules(n int) []rules.Rule {
	rs := []rules.Rule{
		{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/scratch"},
		{Tool: "*_user_ask", Decision: rules.Allow},
		{Tool: "fs_*", Decision: rules.Deny, Under: "/srv/live"},
	}
	for i := len(rs); i < n; i++ {
		switch i % 4 {
		case 0:
			rs = append(rs, rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: fmt.Sprintf("/srv/projects/p%d", i)})
		case 1:
			rs = append(rs, rules.Rule{Tool: fmt.Sprintf("t%d_exec", i), Decision: rules.Deny})
		case 2:
			rs = append(rs, rules.Rule{Tool: "web_fetch", Decision: rules.Allow, Host: fmt.Sprintf("h%d.example.com", i)})
		default:
			rs = append(rs, rules.Rule{Tool: "fs_edit", Decision: rules.Ask, Under: fmt.Sprintf("rel%d", i)})
		}
	}
	return rs[:n]
}

// BenchmarkNew is policy.New with n rules: the rules validated, compiled
// and prepared. B/op is what New allocates; MB-kept is what the policy
// holds once it is built (the heap after a collection, less before).
func BenchmarkNew(b *testing.B) {
	for _, n := range []int{10, 1000, 10_000, 100_000} {
		rs := scaleRules(n)
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var kept uint64
			for b.Loop() {
				var before, after runtime.MemStats
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&before)
				b.StartTimer()
				p, err := policy.New(policy.Options{Provider: benchNoop, Rules: rs, Roots: srvRoots})
				if err != nil {
					b.Fatal(err)
				}
				// The first decision builds what New left for it, if anything.
				if d, err := p.Decide(context.Background(), benchAllowed[0]); err != nil || d.Decision != rules.Allow {
					b.Fatalf("%+v %v", d, err)
				}
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&after)
				kept = after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
				runtime.KeepAlive(p)
				b.StartTimer()
			}
			b.ReportMetric(float64(kept)/(1<<20), "MB-kept")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/rule")
		})
	}
}

// grantSet is n grants of which only the last answers benchByGrant: the
// same tool under other directories, and other tools.
func grantSet(n int) []rules.Rule {
	out := nonMatching(n)
	if n > 0 {
		out[n-1] = benchGrantHit
	}
	return out
}

// grantedPolicy is a policy whose static rules ask about benchByGrant,
// with n grants of its own, n in a store, or n of each ("both").
func grantedPolicy(b *testing.B, n int, where string) (*policy.Policy, *grants.Store) {
	b.Helper()
	o := policy.Options{Provider: benchNoop, Rules: synopsisRules(), OnAsk: func(context.Context, policy.Question) policy.Answer {
		b.Fatal("asked: the grant should have answered")
		return policy.Answer{}
	}}
	var store *grants.Store
	if where == "store" || where == "both" {
		s, err := grants.NewStore(grantSet(n))
		if err != nil {
			b.Fatal(err)
		}
		o.GrantsStore, store = s, s
	}
	if where == "own" || where == "both" {
		o.Grants = grantSet(n)
	}
	return newPolicy(b, o), store
}

// BenchmarkGrants is an asked call answered by the last of n grants: the
// policy's own, a store's, or both; and an allowed call with as many
// grants about, which must not look at them.
func BenchmarkGrants(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{0, 10, 100, 10_000, 100_000} {
		for _, where := range []string{"own", "store", "both"} {
			p, _ := grantedPolicy(b, n, where)
			calls := benchByGrant
			if n == 0 {
				calls = benchAllowed // nothing to answer it: the allowed call alone
			}
			b.Run(fmt.Sprintf("grants=%d/%s/asked", n, where), func(b *testing.B) {
				if n == 0 {
					b.Skip("no grant to answer the asked call")
				}
				b.ReportAllocs()
				for b.Loop() {
					if r := p.ExecuteToolCalls(ctx, calls); r[0].IsError {
						b.Fatal(r[0].Content)
					}
				}
			})
			b.Run(fmt.Sprintf("grants=%d/%s/allowed", n, where), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if r := p.ExecuteToolCalls(ctx, benchAllowed); r[0].IsError {
						b.Fatal(r[0].Content)
					}
				}
			})
		}
	}
}

// BenchmarkGrantsAfterAdd is the next asked decision after one grant is
// added to a store of n: what adding costs the fleet.
func BenchmarkGrantsAfterAdd(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10_000, 100_000} {
		p, store := grantedPolicy(b, n, "store")
		b.Run(fmt.Sprintf("grants=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				if err := store.Add(rules.Rule{Tool: fmt.Sprintf("added%d", i), Decision: rules.Deny}); err != nil {
					b.Fatal(err)
				}
				if r := p.ExecuteToolCalls(ctx, benchByGrant); r[0].IsError {
					b.Fatal(r[0].Content)
				}
			}
		})
	}
}

// BenchmarkConcurrent is allowed calls from many goroutines at once: with
// no lock every call takes, calls per second grow with cores (this
// machine has two); run with -mutexprofile to see what is contended.
func BenchmarkConcurrent(b *testing.B) {
	ctx := context.Background()
	store, err := grants.NewStore(grantSet(1000))
	if err != nil {
		b.Fatal(err)
	}
	p := newPolicy(b, policy.Options{Provider: benchNoop, Rules: synopsisRules(), Grants: grantSet(1000), GrantsStore: store})
	calls := []provider.Call{benchAllowed[0]}
	for _, g := range []int{1, 2, 8, 64} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			b.ReportAllocs()
			// Exactly g goroutines share the b.N calls (RunParallel would
			// start a multiple of GOMAXPROCS).
			var left atomic.Int64
			left.Store(int64(b.N))
			var wg sync.WaitGroup
			b.ResetTimer()
			for range g {
				wg.Go(func() {
					for left.Add(-1) >= 0 {
						if r := p.ExecuteToolCalls(ctx, calls); r[0].IsError {
							b.Error(r[0].Content)
							return
						}
					}
				})
			}
			wg.Wait()
		})
	}
}
