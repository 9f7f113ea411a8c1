package pgstore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/grants/pgstore"
	"github.com/mcp-policy/mcp-policy/internal/pgtest"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

type noop struct{}

func (noop) ToolsForLLM(context.Context) ([]provider.Tool, error) {
	return []provider.Tool{{Type: "function", Function: provider.ToolFunction{Name: "fs_write",
		Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}}, nil
}

func (noop) ExecuteToolCalls(_ context.Context, calls []provider.Call) []provider.Result {
	out := make([]provider.Result, len(calls))
	for i, c := range calls {
		out[i] = provider.Result{Role: "tool", ToolCallID: c.ID, Content: "ok"}
	}
	return out
}

// benchStore opens a store of 1,000 grants, the last answering the
// benchmark's call, in memory, in a file or in PostgreSQL.
func benchStore(b *testing.B, where string) *grants.Store {
	b.Helper()
	gs := make([]rules.Rule, 1000)
	for i := range gs {
		gs[i] = rules.Rule{Tool: fmt.Sprintf("other_%d", i), Decision: rules.Deny}
	}
	gs[len(gs)-1] = rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/granted"}
	var s *grants.Store
	var err error
	switch where {
	case "memory":
		return must(grants.NewStore(gs))
	case "file":
		s, err = grants.Open(filepath.Join(b.TempDir(), "grants.json"))
	case "postgres":
		s, err = pgstore.Open(context.Background(), pgtest.NewDatabase(b), pgstore.Options{Logf: b.Logf})
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if err := s.Add(gs...); err != nil {
		b.Fatal(err)
	}
	return s
}

func must(s *grants.Store, err error) *grants.Store {
	if err != nil {
		panic(err)
	}
	return s
}

// BenchmarkAskedCallByGrant is an asked call answered by a grant, the
// store's grants in memory, in a file or in PostgreSQL: a decision never
// waits for the database, so the last two should cost what the first
// does (the file's costs a stat).
func BenchmarkAskedCallByGrant(b *testing.B) {
	ctx := context.Background()
	call := []provider.Call{{ID: "1", Type: "function", Function: provider.CallFunction{Name: "fs_write",
		Arguments: `{"path":"granted/notes.md"}`}}}
	for _, where := range []string{"memory", "file", "postgres"} {
		b.Run(where, func(b *testing.B) {
			p, err := policy.New(policy.Options{Provider: noop{}, Roots: map[string]string{"fs": "/srv"},
				GrantsStore: benchStore(b, where),
				OnAsk: func(context.Context, policy.Question) policy.Answer {
					b.Fatal("asked: the grant should have answered")
					return policy.Answer{}
				}})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if r := p.ExecuteToolCalls(ctx, call); r[0].IsError {
					b.Fatal(r[0].Content)
				}
			}
		})
	}
}

// BenchmarkPropagation is the time from an always-allow added through
// store A to store B (its own connections and listener, as another
// process's would be) answering with it: one op is one grant made in A
// and seen in B.
func BenchmarkPropagation(b *testing.B) {
	url := pgtest.NewDatabase(b)
	a, err := pgstore.Open(context.Background(), url, pgstore.Options{Logf: b.Logf})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	c, err := pgstore.Open(context.Background(), url, pgstore.Options{Logf: b.Logf})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	i := 0
	for b.Loop() {
		i++
		r := rules.Rule{Tool: fmt.Sprintf("tool_%d", i), Decision: rules.Allow, Under: "/srv"}
		if err := a.Add(r); err != nil {
			b.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for !c.Grants().Has(r) {
			if time.Now().After(deadline) {
				b.Fatal("B never saw A's grant")
			}
			time.Sleep(50 * time.Microsecond)
		}
	}
}
