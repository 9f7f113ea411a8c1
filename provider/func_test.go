package provider_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/provider"
)

// A Func keeps the contract for the function it wraps: one result per
// call in order, each with its id; an unlisted tool never reaches Run; an
// error or a panic is that call's is_error result, and the batch goes on.
func TestFuncKeepsTheContract(t *testing.T) {
	var ran []string
	f := provider.Func{
		Tools: newFake("echo", "fail", "boom").tools,
		Run: func(ctx context.Context, c provider.Call) (string, error) {
			ran = append(ran, c.ID)
			in, ok := provider.CallFrom(ctx)
			require.True(t, ok, "ctx carries the call")
			require.Equal(t, c, in)
			switch c.Function.Name {
			case "fail":
				return "", errors.New("disk full")
			case "boom":
				panic("nil map")
			}
			return "echo " + c.Function.Arguments, nil
		},
	}
	tools, err := f.ToolsForLLM(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"echo", "fail", "boom"}, names(tools))
	tools[0].Function.Name = "renamed"
	assert.Equal(t, "echo", f.Tools[0].Function.Name, "the catalogue handed out is a copy")

	got := f.ExecuteToolCalls(context.Background(), []provider.Call{
		testkit.Call("1", "echo", `{"a":1}`), testkit.Call("2", "fail", `{}`), testkit.Call("3", "missing", `{}`), testkit.Call("4", "boom", `{}`), testkit.Call("5", "echo", `{}`),
	})
	require.Len(t, got, 5)
	for i, want := range []struct {
		isError bool
		content string
	}{{false, `echo {"a":1}`}, {true, "disk full"}, {true, "unknown tool 'missing'"}, {true, "panicked: nil map"}, {false, "echo {}"}} {
		assert.Equal(t, fmt.Sprint(i+1), got[i].ToolCallID)
		assert.Equal(t, "tool", got[i].Role)
		assert.Equal(t, want.isError, got[i].IsError, "call %d: %s", i+1, got[i].Content)
		assert.True(t, strings.Contains(got[i].Content, want.content), "call %d: %q lacks %q", i+1, got[i].Content, want.content)
	}
	assert.Equal(t, []string{"1", "2", "4", "5"}, ran, "the unlisted tool never ran")

	var none provider.Func
	none.Tools = f.Tools
	res := none.ExecuteToolCalls(context.Background(), []provider.Call{testkit.Call("1", "echo", `{}`)})
	assert.True(t, res[0].IsError, "no Run: an error result, not a panic")
}

// A Func stacks like any provider: here under a Registry, which publishes
// its tools with the prefix and strips it again. Run's error is the
// model's is_error result.
func ExampleFunc() {
	clock := provider.Func{
		Tools: []provider.Tool{{Type: "function", Function: provider.ToolFunction{Name: "now", Parameters: []byte(`{"type":"object"}`)}}},
		Run: func(ctx context.Context, c provider.Call) (string, error) {
			if c.Function.Arguments != "{}" {
				return "", errors.New("now takes no arguments")
			}
			return "2026-12-04T10:00:00Z", nil
		},
	}
	r := provider.NewRegistry()
	if err := r.Add(clock, "clock"); err != nil {
		fmt.Println(err)
		return
	}
	tools, _ := r.ToolsForLLM(context.Background())
	fmt.Println(tools[0].Function.Name)
	for _, res := range r.ExecuteToolCalls(context.Background(), []provider.Call{
		{ID: "c1", Type: "function", Function: provider.CallFunction{Name: "clock_now", Arguments: `{}`}},
		{ID: "c2", Type: "function", Function: provider.CallFunction{Name: "clock_now", Arguments: `{"tz":"UTC"}`}},
	}) {
		fmt.Printf("%s error=%v: %s\n", res.ToolCallID, res.IsError, res.Content)
	}
	// Output:
	// clock_now
	// c1 error=false: 2026-12-04T10:00:00Z
	// c2 error=true: tool 'now' failed: now takes no arguments
}
