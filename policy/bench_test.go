package policy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// noopProvider answers every call at once: what is left of a round trip is
// the policy's own overhead.
type noopProvider struct{ tools []provider.Tool }

func (n noopProvider) ToolsForLLM(context.Context) ([]provider.Tool, error) { return n.tools, nil }

func (noopProvider) ExecuteToolCalls(_ context.Context, calls []provider.Call) []provider.Result {
	out := make([]provider.Result, len(calls))
	for i, c := range calls {
		out[i] = provider.Result{Role: "tool", ToolCallID: c.ID, Content: "ok"}
	}
	return out
}

var (
	benchNoop     = noopProvider{tools: fsTools("fs_")}
	benchAllowed  = []provider.Call{testkit.Call("1", "fs_write", `{"path":"scratch/notes.md","content":"hello"}`)}
	benchByGrant  = []provider.Call{testkit.Call("1", "fs_write", `{"path":"granted/notes.md","content":"hello"}`)}
	benchGrantHit = rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/granted"}
)

func BenchmarkNoopProvider(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := benchNoop.ExecuteToolCalls(ctx, benchAllowed); r[0].IsError {
			b.Fatal(r[0].Content)
		}
	}
}

// BenchmarkExecuteToolCalls is the policy's overhead on one call a static
// rule allows.
func BenchmarkExecuteToolCalls(b *testing.B) {
	ctx := context.Background()
	p := newPolicy(b, policy.Options{Provider: benchNoop, Rules: synopsisRules()})
	if r := p.ExecuteToolCalls(ctx, benchAllowed); r[0].IsError {
		b.Fatal(r[0].Content)
	}
	b.ReportAllocs()
	for b.Loop() {
		if r := p.ExecuteToolCalls(ctx, benchAllowed); r[0].IsError {
			b.Fatal(r[0].Content)
		}
	}
}

// BenchmarkExecuteToolCallsCold is BenchmarkExecuteToolCalls as the proxy
// meets it: before each call other work has filled the processor's caches
// (there, the MCP server's own answer to the last call). A decision touches
// enough memory that this, not its instruction count, sets its time in
// place: compare the two benchmarks, and the bare prepared query (the
// yardstick of internal/rules' BenchmarkPreparedQueryFixedCost) under the
// same conditions.
//
//	go test ./policy/ -run '^$' -bench 'ExecuteToolCalls$|ExecuteToolCallsCold' -benchmem
func BenchmarkExecuteToolCallsCold(b *testing.B) {
	ctx := context.Background()
	other := make([]byte, 64<<20) // larger than any cache of this machine's
	coldLoop := func(b *testing.B, run func()) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			for i := 0; i < len(other); i += 64 {
				other[i]++
			}
			b.StartTimer()
			run()
		}
	}
	b.Run("policy", func(b *testing.B) {
		p := newPolicy(b, policy.Options{Provider: benchNoop, Rules: synopsisRules()})
		coldLoop(b, func() {
			if r := p.ExecuteToolCalls(ctx, benchAllowed); r[0].IsError {
				b.Fatal(r[0].Content)
			}
		})
	})
	b.Run("prepared-query", func(b *testing.B) {
		pq, err := rego.New(rego.Query("input.tool")).PrepareForEval(ctx)
		if err != nil {
			b.Fatal(err)
		}
		c := benchAllowed[0]
		coldLoop(b, func() {
			var args map[string]any
			if err := json.Unmarshal([]byte(c.Function.Arguments), &args); err != nil {
				b.Fatal(err)
			}
			if _, err := pq.Eval(ctx, rego.EvalInput(map[string]any{"tool": c.Function.Name, "arguments": args})); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// nonMatching is n grants that do not match benchByGrant: the same tool
// under other directories (the grant matcher has to test each path), and
// other tools.
func nonMatching(n int) []rules.Rule {
	out := make([]rules.Rule, n)
	for i := range out {
		if i%2 == 0 {
			out[i] = rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: fmt.Sprintf("/srv/other/p%d", i)}
		} else {
			out[i] = rules.Rule{Tool: fmt.Sprintf("t%d_exec", i), Decision: rules.Deny}
		}
	}
	return out
}

// BenchmarkExecuteToolCallsGrants is one call the rules ask about and an
// allow grant answers, with n grants that do not match loaded before it:
// allocations must not grow with n (only time, linearly, for the scan).
func BenchmarkExecuteToolCallsGrants(b *testing.B) {
	ctx := context.Background()
	for _, where := range []string{"own", "store"} {
		for _, n := range []int{1, 100, 10000} {
			gs := append(nonMatching(n), benchGrantHit)
			o := policy.Options{Provider: benchNoop, Rules: synopsisRules()}
			if where == "own" {
				o.Grants = gs
			} else {
				o.GrantsStore = mustStore(b, gs)
			}
			p := newPolicy(b, o)
			d, err := p.Decide(ctx, benchByGrant[0])
			if err != nil || d.Reason != rules.ReasonGrant || d.Decision != rules.Allow {
				b.Fatalf("%s/%d: %+v %v", where, n, d, err)
			}
			b.Run(fmt.Sprintf("%s/grants=%d", where, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if r := p.ExecuteToolCalls(ctx, benchByGrant); r[0].IsError {
						b.Fatal(r[0].Content)
					}
				}
			})
		}
	}
}
