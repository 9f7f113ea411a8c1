package policy_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// fakeProvider is a recording provider: it remembers every batch it was
// handed, answers each call with "ran NAME ARGS", and can be told to do
// something else (panic, miscount, elicit) through exec.
type fakeProvider struct {
	tools []provider.Tool

	mu      sync.Mutex
	batches [][]provider.Call
	exec    func(ctx context.Context, calls []provider.Call) []provider.Result
}

func boolp(b bool) *bool { return &b }

// fsTools is a small filesystem-like catalogue with annotations, so the
// default rules (read-only tools on local paths) apply.
func fsTools(prefix string) []provider.Tool {
	tool := func(name string, ann *provider.Annotations) provider.Tool {
		return provider.Tool{Type: "function", Function: provider.ToolFunction{
			Name: prefix + name, Description: name + " a file",
			Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path"]}`),
		}, Annotations: ann}
	}
	return []provider.Tool{
		tool("read", &provider.Annotations{ReadOnlyHint: boolp(true)}),
		tool("list", &provider.Annotations{ReadOnlyHint: boolp(true)}),
		tool("write", &provider.Annotations{ReadOnlyHint: boolp(false), DestructiveHint: boolp(false)}),
		tool("edit", &provider.Annotations{ReadOnlyHint: boolp(false), DestructiveHint: boolp(false)}),
		tool("delete", &provider.Annotations{ReadOnlyHint: boolp(false), DestructiveHint: boolp(true)}),
	}
}

func newFake() *fakeProvider { return &fakeProvider{tools: fsTools("fs_")} }

func (f *fakeProvider) ToolsForLLM(context.Context) ([]provider.Tool, error) {
	return append([]provider.Tool(nil), f.tools...), nil
}

func (f *fakeProvider) ExecuteToolCalls(ctx context.Context, calls []provider.Call) []provider.Result {
	f.mu.Lock()
	f.batches = append(f.batches, append([]provider.Call(nil), calls...))
	exec := f.exec
	f.mu.Unlock()
	if exec != nil {
		return exec(ctx, calls)
	}
	out := make([]provider.Result, len(calls))
	for i, c := range calls {
		out[i] = provider.TextResult(c.ID, "ran "+c.Function.Name+" "+c.Function.Arguments)
	}
	return out
}

// Batches returns a copy of what the provider was handed.
func (f *fakeProvider) Batches() [][]provider.Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]provider.Call(nil), f.batches...)
}

// Calls is every call the provider saw, flattened.
func (f *fakeProvider) Calls() []provider.Call {
	var out []provider.Call
	for _, b := range f.Batches() {
		out = append(out, b...)
	}
	return out
}

func write(id, path string) provider.Call {
	return testkit.Call(id, "fs_write", fmt.Sprintf(`{"path":%q,"content":"x"}`, path))
}

var srvRoots = map[string]string{"fs": "/srv"}

// asker records the questions it is asked and answers with answer.
type asker struct {
	mu        sync.Mutex
	questions []policy.Question
	n         atomic.Int32
	answer    func(q policy.Question) policy.Answer
}

func answering(a policy.Answer) *asker {
	return &asker{answer: func(policy.Question) policy.Answer { return a }}
}

func (a *asker) ask(_ context.Context, q policy.Question) policy.Answer {
	a.n.Add(1)
	a.mu.Lock()
	a.questions = append(a.questions, q)
	a.mu.Unlock()
	return a.answer(q)
}

func (a *asker) Questions() []policy.Question {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]policy.Question(nil), a.questions...)
}

// grantRecorder records every list OnGrant is handed.
type grantRecorder struct {
	mu    sync.Mutex
	lists [][]rules.Rule
}

func (g *grantRecorder) onGrant(gs []rules.Rule) {
	g.mu.Lock()
	g.lists = append(g.lists, gs)
	g.mu.Unlock()
}

func (g *grantRecorder) Lists() [][]rules.Rule {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([][]rules.Rule(nil), g.lists...)
}

func newPolicy(t testing.TB, o policy.Options) *policy.Policy {
	t.Helper()
	if o.Roots == nil {
		o.Roots = srvRoots
	}
	p, err := policy.New(o)
	require.NoError(t, err)
	return p
}

// withDefaults is DefaultRules followed by rs.
func withDefaults(rs ...rules.Rule) []rules.Rule {
	return append(policy.DefaultRules(), rs...)
}

// within runs f and fails the test, rather than hanging it, if f does not
// return within d.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %v (deadlock?)", what, d)
	}
}

func ids(rs []provider.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ToolCallID
	}
	return out
}

func mustStore(t testing.TB, initial []rules.Rule) *grants.Store {
	t.Helper()
	s, err := grants.NewStore(initial)
	require.NoError(t, err)
	return s
}
