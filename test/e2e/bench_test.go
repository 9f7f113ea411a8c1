package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// BenchmarkRoundTrip measures one allowed tools/call to the test server over
// stdio, straight through the client and through a policy (decided by the
// default read-only rule): the difference is the policy's overhead.
func BenchmarkRoundTrip(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("hello"), 0o600); err != nil {
		b.Fatal(err)
	}
	client := connect(b, dir)
	p := newPolicy(b, policy.Options{Provider: client, Rules: policy.DefaultRules(), Roots: map[string]string{"fs": dir}})
	calls := []provider.Call{mkcall("1", "fs_read", `{"path":"notes.md"}`)}
	directAndThroughPolicy(b, client, p, calls)
}

// BenchmarkRoundTripOfficial is BenchmarkRoundTrip against the reference
// filesystem server from npm, the round trip the 5% target is measured
// against.
func BenchmarkRoundTripOfficial(b *testing.B) {
	node, entry := needOfficialFS(b)
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("hello"), 0o600); err != nil {
		b.Fatal(err)
	}
	client := connectCmd(b, node, []string{entry, dir})
	p := newPolicy(b, policy.Options{Provider: client, Rules: policy.DefaultRules(), Roots: map[string]string{"*": dir}})
	calls := []provider.Call{mkcall("1", "read_text_file", map[string]string{"path": "notes.md"})}
	// Node compiles the server's hot paths as it runs: warm it up first, or
	// whichever sub-benchmark runs first pays for that.
	for range 2000 {
		client.ExecuteToolCalls(context.Background(), calls)
	}
	b.Run("policy", func(b *testing.B) { directAndThroughPolicy(b, client, p, calls) })
	// The decision alone, in a loop of its own as the other benchmarks
	// time things, against the median round trip measured just after it.
	b.Run("decision", func(b *testing.B) {
		ctx := context.Background()
		start := time.Now()
		for b.Loop() {
			if d, err := p.Decide(ctx, calls[0]); err != nil || d.Decision != rules.Allow {
				b.Fatalf("%+v %v", d, err)
			}
		}
		decision := time.Since(start) / time.Duration(b.N)
		var direct []time.Duration
		for range 500 {
			start := time.Now()
			client.ExecuteToolCalls(ctx, calls)
			direct = append(direct, time.Since(start))
		}
		b.ReportMetric(100*float64(decision)/float64(median(direct)), "of-round-trip-%")
	})
	// The yardstick in place: the least any Rego decision costs, a
	// prepared query reading one input field, run before each call. Between
	// round trips a decision runs with cold caches, and slows the round
	// trip after it too, so its share here is several times what the same
	// query costs in a loop of its own (BenchmarkPreparedQueryFixedCost).
	pq, err := rego.New(rego.Query("input.tool")).PrepareForEval(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("prepared-query", func(b *testing.B) { interleave(b, client, queryFirst{pq, client}, calls) })
}

// queryFirst evaluates a prepared query on each call, as any OPA user
// would (arguments decoded by encoding/json), then forwards it.
type queryFirst struct {
	query rego.PreparedEvalQuery
	next  provider.Provider
}

func (q queryFirst) ToolsForLLM(ctx context.Context) ([]provider.Tool, error) {
	return q.next.ToolsForLLM(ctx)
}

func (q queryFirst) ExecuteToolCalls(ctx context.Context, calls []provider.Call) []provider.Result {
	for _, c := range calls {
		var args map[string]any
		if err := json.Unmarshal([]byte(c.Function.Arguments), &args); err != nil {
			return []provider.Result{provider.ErrorResult(c.ID, err.Error())}
		}
		if _, err := q.query.Eval(ctx, rego.EvalInput(map[string]any{"tool": c.Function.Name, "arguments": args})); err != nil {
			return []provider.Result{provider.ErrorResult(c.ID, err.Error())}
		}
	}
	return q.next.ExecuteToolCalls(ctx, calls)
}

// directAndThroughPolicy runs calls (which read "hello") straight through
// client and through p, alternately in one loop, so that whatever the
// machine and the server drift by falls on both alike. It reports the median
// of each and the policy's overhead in percent of the direct round trip.
func directAndThroughPolicy(b *testing.B, client provider.Provider, p *policy.Policy, calls []provider.Call) {
	if _, err := p.ToolsForLLM(context.Background()); err != nil {
		b.Fatal(err)
	}
	interleave(b, client, p, calls)
}

// interleave runs calls through client and through p in turn, timing each.
func interleave(b *testing.B, client, p provider.Provider, calls []provider.Call) {
	ctx := context.Background()
	timed := func(through provider.Provider) time.Duration {
		start := time.Now()
		if r := through.ExecuteToolCalls(ctx, calls); r[0].IsError || r[0].Content != "hello" {
			b.Fatalf("%+v", r[0])
		}
		return time.Since(start)
	}
	var direct, through []time.Duration
	for i := 0; b.Loop(); i++ {
		// Each goes first in turn, so that neither always follows the other.
		if i%2 == 0 {
			direct, through = append(direct, timed(client)), append(through, timed(p))
		} else {
			through, direct = append(through, timed(p)), append(direct, timed(client))
		}
	}
	d, t := median(direct), median(through)
	b.ReportMetric(float64(d.Microseconds()), "direct-µs")
	b.ReportMetric(float64(t.Microseconds()), "through-µs")
	b.ReportMetric(100*float64(t-d)/float64(d), "overhead-%")
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
