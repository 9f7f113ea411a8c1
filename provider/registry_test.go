package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/provider"
)

// fake is a provider that serves a fixed catalogue, records every batch it
// is handed and answers each call with "NAME(ARGS)".
type fake struct {
	tools   []provider.Tool
	listErr error
	exec    func(calls []provider.Call) []provider.Result // overrides the default answer

	mu      sync.Mutex
	batches [][]provider.Call
}

func newFake(names ...string) *fake {
	f := &fake{}
	for _, n := range names {
		f.tools = append(f.tools, provider.Tool{Type: "function", Function: provider.ToolFunction{
			Name: n, Description: "the " + n + " tool", Parameters: json.RawMessage(`{"type":"object"}`),
		}})
	}
	return f
}

func (f *fake) ToolsForLLM(context.Context) ([]provider.Tool, error) {
	if f.listErr != nil {
		return nil, f.listErr
	}
	return f.tools, nil
}

func (f *fake) ExecuteToolCalls(_ context.Context, calls []provider.Call) []provider.Result {
	f.mu.Lock()
	f.batches = append(f.batches, append([]provider.Call(nil), calls...))
	f.mu.Unlock()
	if f.exec != nil {
		return f.exec(calls)
	}
	out := make([]provider.Result, len(calls))
	for i, c := range calls {
		out[i] = provider.TextResult(c.ID, c.Function.Name+"("+c.Function.Arguments+")")
	}
	return out
}

func (f *fake) recorded() [][]provider.Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]provider.Call(nil), f.batches...)
}

func names(tools []provider.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Function.Name)
	}
	return out
}

func TestRegistryAddRejectsBadRegistrations(t *testing.T) {
	r := provider.NewRegistry()
	require.NoError(t, r.Add(newFake("read"), "fs"))

	err := r.Add(newFake("get"), "fs")
	require.Error(t, err, "a second provider under one prefix must be refused")
	assert.Contains(t, err.Error(), `"fs"`)

	assert.Error(t, r.Add(newFake("x"), ""), "an empty prefix would publish unprefixed names")
	assert.Error(t, r.Add(nil, "web"), "a nil provider would panic at the first call")

	tools, err := r.ToolsForLLM(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"fs_read"}, names(tools), "refused registrations must leave nothing behind")
}

func TestRegistryPublishesPrefixedCopies(t *testing.T) {
	yes := true
	fs := newFake("read", "write")
	fs.tools[0].Annotations = &provider.Annotations{ReadOnlyHint: &yes}
	web := newFake("fetch")
	r := provider.NewRegistry()
	require.NoError(t, r.Add(fs, "fs"))
	require.NoError(t, r.Add(web, "web"))

	tools, err := r.ToolsForLLM(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"fs_read", "fs_write", "web_fetch"}, names(tools), "registration order, then each catalogue's order")
	assert.Equal(t, "the read tool", tools[0].Function.Description)
	assert.JSONEq(t, `{"type":"object"}`, string(tools[0].Function.Parameters))
	require.NotNil(t, tools[0].Annotations, "annotations must survive the registry for a policy above it")
	assert.True(t, *tools[0].Annotations.ReadOnlyHint)
	assert.Nil(t, tools[1].Annotations, "an unknown catalogue stays unknown")

	b, err := json.Marshal(tools[2])
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"function","function":{"name":"web_fetch","description":"the fetch tool","parameters":{"type":"object"}}}`, string(b))

	// Changing the published copy must not change what the provider serves.
	tools[0].Function.Parameters[2] = 'X'
	*tools[0].Annotations.ReadOnlyHint = false
	assert.Equal(t, "read", fs.tools[0].Function.Name)
	assert.JSONEq(t, `{"type":"object"}`, string(fs.tools[0].Function.Parameters))
	assert.True(t, *fs.tools[0].Annotations.ReadOnlyHint)
}

func TestRegistryListingFailureIsAnErrorNamingThePrefix(t *testing.T) {
	boom := errors.New("server went away")
	broken := newFake("fetch")
	broken.listErr = boom
	r := provider.NewRegistry()
	require.NoError(t, r.Add(newFake("read"), "fs"))
	require.NoError(t, r.Add(broken, "web"))

	tools, err := r.ToolsForLLM(context.Background())
	require.Error(t, err, "a shorter catalogue must not be published silently")
	assert.Nil(t, tools)
	assert.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), `"web"`)
}

type panickyLister struct{ *fake }

func (panickyLister) ToolsForLLM(context.Context) ([]provider.Tool, error) { panic("lister blew up") }

func TestRegistryListingPanicBecomesAnError(t *testing.T) {
	r := provider.NewRegistry()
	require.NoError(t, r.Add(panickyLister{newFake()}, "bad"))
	_, err := r.ToolsForLLM(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "lister blew up")
}

func TestRegistryDuplicatePublishedNameIsAnError(t *testing.T) {
	r := provider.NewRegistry()
	require.NoError(t, r.Add(newFake("b_c"), "a"))
	require.NoError(t, r.Add(newFake("c"), "a_b"))

	_, err := r.ToolsForLLM(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"a_b_c"`)
}

func TestRegistryRoutesStripsAndBatchesPerProvider(t *testing.T) {
	fs, web := newFake("read", "write"), newFake("fetch")
	r := provider.NewRegistry()
	require.NoError(t, r.Add(fs, "fs"))
	require.NoError(t, r.Add(web, "web"))

	calls := []provider.Call{
		testkit.Call("1", "fs_read", `{"path":"a"}`),
		testkit.Call("2", "web_fetch", `{"url":"https://x"}`),
		testkit.Call("3", "nope_tool", `{}`),
		testkit.Call("4", "fs_write", `{"path":"b"}`),
	}
	res := r.ExecuteToolCalls(context.Background(), calls)
	require.Len(t, res, 4)

	assert.Equal(t, provider.TextResult("1", `read({"path":"a"})`), res[0])
	assert.Equal(t, provider.TextResult("2", `fetch({"url":"https://x"})`), res[1])
	assert.Equal(t, provider.ErrorResult("3", "unknown tool 'nope_tool'"), res[2])
	assert.Equal(t, provider.TextResult("4", `write({"path":"b"})`), res[3])

	require.Len(t, fs.recorded(), 1, "both fs calls must go in one batch")
	assert.Equal(t, []provider.Call{testkit.Call("1", "read", `{"path":"a"}`), testkit.Call("4", "write", `{"path":"b"}`)}, fs.recorded()[0])
	require.Len(t, web.recorded(), 1)
	assert.Equal(t, []provider.Call{testkit.Call("2", "fetch", `{"url":"https://x"}`)}, web.recorded()[0])
	assert.Equal(t, "fs_read", calls[0].Function.Name, "the caller's calls must not be rewritten")
}

func TestRegistryUnknownNames(t *testing.T) {
	fs := newFake("read")
	r := provider.NewRegistry()
	require.NoError(t, r.Add(fs, "fs"))
	res := r.ExecuteToolCalls(context.Background(), []provider.Call{
		testkit.Call("1", "fs_", `{}`),
		testkit.Call("2", "fs", `{}`),
		testkit.Call("3", "fsread", `{}`),
		testkit.Call("4", "", `{}`),
	})
	for i, want := range []string{"fs_", "fs", "fsread", ""} {
		assert.Equal(t, provider.ErrorResult(res[i].ToolCallID, "unknown tool '"+want+"'"), res[i])
	}
	assert.Empty(t, fs.recorded(), "an unroutable call must reach no provider")
	assert.Empty(t, r.ExecuteToolCalls(context.Background(), nil))
}

func TestRegistryRoutesAmbiguousNamesByCatalogue(t *testing.T) {
	a, ab := newFake("b_x"), newFake("y")
	r := provider.NewRegistry()
	require.NoError(t, r.Add(a, "a"))
	require.NoError(t, r.Add(ab, "a_b"))

	// Before listing: the longest prefix wins.
	res := r.ExecuteToolCalls(context.Background(), []provider.Call{testkit.Call("1", "a_b_y", `{}`), testkit.Call("2", "a_b_x", `{}`)})
	assert.Equal(t, "y({})", res[0].Content)
	assert.Equal(t, "x({})", res[1].Content)

	// After listing, the catalogue knows "a_b_x" is a's "b_x".
	_, err := r.ToolsForLLM(context.Background())
	require.NoError(t, err)
	res = r.ExecuteToolCalls(context.Background(), []provider.Call{testkit.Call("3", "a_b_y", `{}`), testkit.Call("4", "a_b_x", `{}`)})
	assert.Equal(t, provider.TextResult("3", "y({})"), res[0])
	assert.Equal(t, provider.TextResult("4", "b_x({})"), res[1])
}

func TestRegistryResultsCarryTheCallersIDs(t *testing.T) {
	f := newFake("read")
	f.exec = func(calls []provider.Call) []provider.Result {
		out := make([]provider.Result, len(calls))
		for i := range calls {
			out[i] = provider.Result{ToolCallID: "mangled", Content: fmt.Sprint(i)}
		}
		return out
	}
	r := provider.NewRegistry()
	require.NoError(t, r.Add(f, "fs"))
	res := r.ExecuteToolCalls(context.Background(), []provider.Call{testkit.Call("a", "fs_read", `{}`), testkit.Call("b", "fs_read", `{}`)})
	assert.Equal(t, []provider.Result{provider.TextResult("a", "0"), provider.TextResult("b", "1")}, res)
}

func TestRegistryContainsMisbehavingProviders(t *testing.T) {
	panics, short, good := newFake("x"), newFake("y"), newFake("z")
	panics.exec = func([]provider.Call) []provider.Result { panic("kaboom") }
	short.exec = func([]provider.Call) []provider.Result { return nil }
	r := provider.NewRegistry()
	require.NoError(t, r.Add(panics, "p"))
	require.NoError(t, r.Add(short, "s"))
	require.NoError(t, r.Add(good, "g"))

	var res []provider.Result
	require.NotPanics(t, func() {
		res = r.ExecuteToolCalls(context.Background(), []provider.Call{
			testkit.Call("1", "p_x", `{}`), testkit.Call("2", "s_y", `{}`), testkit.Call("3", "g_z", `{}`), testkit.Call("4", "p_x", `{}`),
		})
	})
	require.Len(t, res, 4)
	for _, i := range []int{0, 3} {
		assert.True(t, res[i].IsError)
		assert.Contains(t, res[i].Content, "kaboom")
		assert.Contains(t, res[i].Content, "'p_x'", "errors name the tool as the model called it")
	}
	assert.Equal(t, "1", res[0].ToolCallID)
	assert.Equal(t, "4", res[3].ToolCallID)
	assert.True(t, res[1].IsError)
	assert.Contains(t, res[1].Content, "0 results for 1 calls")
	assert.Equal(t, provider.TextResult("3", "z({})"), res[2], "a healthy provider's results stand")
}

func TestRegistryProvidersRunConcurrently(t *testing.T) {
	// Each provider waits for the other to have started: sequential
	// execution would deadlock until the timeout.
	var started sync.WaitGroup
	started.Add(2)
	gate := func(calls []provider.Call) []provider.Result {
		started.Done()
		done := make(chan struct{})
		go func() { started.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			return []provider.Result{provider.ErrorResult(calls[0].ID, "ran alone")}
		}
		return []provider.Result{provider.TextResult(calls[0].ID, "ok")}
	}
	a, b := newFake("x"), newFake("y")
	a.exec, b.exec = gate, gate
	r := provider.NewRegistry()
	require.NoError(t, r.Add(a, "a"))
	require.NoError(t, r.Add(b, "b"))
	res := r.ExecuteToolCalls(context.Background(), []provider.Call{testkit.Call("1", "a_x", `{}`), testkit.Call("2", "b_y", `{}`)})
	assert.Equal(t, []provider.Result{provider.TextResult("1", "ok"), provider.TextResult("2", "ok")}, res)
}

func TestRegistryConcurrentUse(t *testing.T) {
	r := provider.NewRegistry()
	require.NoError(t, r.Add(newFake("read"), "fs"))
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			switch i % 3 {
			case 0:
				_ = r.Add(newFake("t"), fmt.Sprintf("p%d", i))
			case 1:
				_, err := r.ToolsForLLM(context.Background())
				assert.NoError(t, err)
			default:
				res := r.ExecuteToolCalls(context.Background(), []provider.Call{testkit.Call("1", "fs_read", `{}`)})
				assert.Equal(t, provider.TextResult("1", "read({})"), res[0])
			}
		})
	}
	wg.Wait()
	tools, err := r.ToolsForLLM(context.Background())
	require.NoError(t, err)
	assert.Len(t, tools, 1+7)
}

func TestForwardHoldsAProviderToTheContract(t *testing.T) {
	f := newFake("x")
	f.exec = func([]provider.Call) []provider.Result {
		return []provider.Result{{Content: "one"}, {Content: "two"}}
	}
	res := provider.Forward(context.Background(), f, []provider.Call{testkit.Call("1", "x", `{}`)})
	require.Len(t, res, 1)
	assert.True(t, res[0].IsError)
	assert.Equal(t, "1", res[0].ToolCallID)
	assert.Equal(t, "tool", res[0].Role)

	assert.Empty(t, provider.Forward(context.Background(), f, nil))
	assert.Len(t, f.recorded(), 1, "an empty batch is not forwarded")
}
