package reasons_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/provider"
	"github.com/mcp-policy/mcp-policy/reasons"
)

// fake serves a fixed catalogue and records every batch it is handed.
type fake struct {
	tools   []provider.Tool
	listErr error
	panics  bool

	mu      sync.Mutex
	batches [][]provider.Call
}

func (f *fake) ToolsForLLM(context.Context) ([]provider.Tool, error) { return f.tools, f.listErr }

func (f *fake) ExecuteToolCalls(_ context.Context, calls []provider.Call) []provider.Result {
	f.mu.Lock()
	f.batches = append(f.batches, append([]provider.Call(nil), calls...))
	f.mu.Unlock()
	if f.panics {
		panic("below blew up")
	}
	out := make([]provider.Result, len(calls))
	for i, c := range calls {
		out[i] = provider.TextResult(c.ID, c.Function.Arguments)
	}
	return out
}

func (f *fake) recorded() [][]provider.Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]provider.Call(nil), f.batches...)
}

func tool(name, params string) provider.Tool {
	t := provider.Tool{Type: "function", Function: provider.ToolFunction{Name: name, Description: name}}
	if params != "" {
		t.Function.Parameters = json.RawMessage(params)
	}
	return t
}

var reasonProp = `{"type":"string","description":"` + reasons.Description + `"}`

func TestToolsGetAnOptionalReason(t *testing.T) {
	yes := true
	withPath := tool("write", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)
	withPath.Annotations = &provider.Annotations{DestructiveHint: &yes}
	f := &fake{tools: []provider.Tool{
		withPath,
		tool("empty", ""),
		tool("null", "null"),
		tool("bare", `{}`),
		tool("noprops", `{"type":"object"}`),
	}}
	tools, err := reasons.New(f).ToolsForLLM(context.Background())
	require.NoError(t, err)
	require.Len(t, tools, 5)

	assert.JSONEq(t, `{"type":"object","properties":{"path":{"type":"string"},"reason":`+reasonProp+`},"required":["path"],"additionalProperties":false}`,
		string(tools[0].Function.Parameters), "reason must be optional: never in required")
	assert.Equal(t, withPath.Annotations, tools[0].Annotations, "annotations pass through for the policy above")
	for _, i := range []int{1, 2, 3, 4} {
		assert.JSONEq(t, `{"type":"object","properties":{"reason":`+reasonProp+`}}`, string(tools[i].Function.Parameters), tools[i].Function.Name)
	}
	assert.JSONEq(t, `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`,
		string(f.tools[0].Function.Parameters), "the provider's own catalogue must not be modified")
}

func TestSchemaKeepsItsOrderAndText(t *testing.T) {
	f := &fake{tools: []provider.Tool{tool("w", `{"type":"object", "properties":{"z":{"type":"number","maximum":1e400}, "a":{"type":"string"}}, "title":"<W>"}`)}}
	tools, err := reasons.New(f).ToolsForLLM(context.Background())
	require.NoError(t, err)
	assert.Equal(t, `{"type":"object","properties":{"z":{"type":"number","maximum":1e400},"a":{"type":"string"},"reason":`+reasonProp+`},"title":"<W>"}`,
		string(tools[0].Function.Parameters))
}

func TestToolWithItsOwnReasonKeepsSchemaAndArguments(t *testing.T) {
	own := `{"type":"object","properties":{"reason":{"type":"string","enum":["bug","feature"]}},"required":["reason"]}`
	f := &fake{tools: []provider.Tool{tool("label", own), tool("other", `{"type":"object"}`)}}
	r := reasons.New(f)
	tools, err := r.ToolsForLLM(context.Background())
	require.NoError(t, err)
	assert.Equal(t, own, string(tools[0].Function.Parameters))

	res := r.ExecuteToolCalls(context.Background(), []provider.Call{
		testkit.Call("1", "label", `{"reason":"bug"}`),
		testkit.Call("2", "other", `{"reason":"because","x":1}`),
	})
	assert.Equal(t, `{"reason":"bug"}`, res[0].Content, "the tool's own reason argument must reach it")
	assert.Equal(t, `{"x":1}`, res[1].Content)
}

func TestSchemasReasonsCannotExtendAreLeftAlone(t *testing.T) {
	for name, params := range map[string]string{
		"string schema":         `{"type":"string"}`,
		"array":                 `[1]`,
		"properties not object": `{"type":"object","properties":[]}`,
		"not JSON":              `{bad`,
	} {
		t.Run(name, func(t *testing.T) {
			f := &fake{tools: []provider.Tool{tool("t", params)}}
			r := reasons.New(f)
			tools, err := r.ToolsForLLM(context.Background())
			require.NoError(t, err)
			assert.Equal(t, params, string(tools[0].Function.Parameters))
			res := r.ExecuteToolCalls(context.Background(), []provider.Call{testkit.Call("1", "t", `{"reason":"r"}`)})
			assert.Equal(t, `{"reason":"r"}`, res[0].Content, "no reason was offered, so none is taken away")
		})
	}
}

func TestListingErrorPassesThrough(t *testing.T) {
	boom := errors.New("cannot list")
	_, err := reasons.New(&fake{listErr: boom}).ToolsForLLM(context.Background())
	assert.ErrorIs(t, err, boom)
}

func TestCallsAreStrippedAndForwardedInOneBatch(t *testing.T) {
	f := &fake{tools: []provider.Tool{tool("write", `{"type":"object"}`)}}
	r := reasons.New(f)
	calls := []provider.Call{
		testkit.Call("1", "write", `{"path":"a", "reason":"saving notes", "mode": {"x" : 1}}`),
		testkit.Call("2", "write", `{ "path" : "b" }`),
		testkit.Call("3", "write", `not json`),
		testkit.Call("4", "write", `["reason"]`),
		testkit.Call("5", "write", `{"reason":"only"}`),
		testkit.Call("6", "unlisted", `{"reason":"r","q":"<&>"}`),
		testkit.Call("7", "write", `{"reason":1,"reason":"dup"}`),
	}
	res := r.ExecuteToolCalls(context.Background(), calls)
	require.Len(t, f.recorded(), 1, "one batch in, one batch down")
	got := f.recorded()[0]
	require.Len(t, got, 7)
	assert.Equal(t, `{"path":"a","mode":{"x" : 1}}`, got[0].Function.Arguments)
	assert.Equal(t, `{ "path" : "b" }`, got[1].Function.Arguments, "no reason: the original text, untouched")
	assert.Equal(t, `not json`, got[2].Function.Arguments, "the provider below reports malformed arguments")
	assert.Equal(t, `["reason"]`, got[3].Function.Arguments)
	assert.Equal(t, `{}`, got[4].Function.Arguments)
	assert.Equal(t, `{"q":"<&>"}`, got[5].Function.Arguments)
	assert.Equal(t, `{}`, got[6].Function.Arguments)
	for i, c := range got {
		assert.Equal(t, calls[i].ID, c.ID)
		assert.Equal(t, calls[i].ID, res[i].ToolCallID)
	}
	assert.Contains(t, calls[0].Function.Arguments, "saving notes", "the caller's calls must not be rewritten")
}

func TestStripsBeforeTheCatalogueIsListed(t *testing.T) {
	f := &fake{}
	res := reasons.New(f).ExecuteToolCalls(context.Background(), []provider.Call{testkit.Call("1", "x", `{"reason":"r","a":true}`)})
	assert.Equal(t, `{"a":true}`, res[0].Content)
}

func TestProviderPanicBecomesErrorResults(t *testing.T) {
	var res []provider.Result
	require.NotPanics(t, func() {
		res = reasons.New(&fake{panics: true}).ExecuteToolCalls(context.Background(), []provider.Call{testkit.Call("1", "x", `{}`)})
	})
	require.Len(t, res, 1)
	assert.True(t, res[0].IsError)
	assert.Equal(t, "1", res[0].ToolCallID)
}

func TestStrip(t *testing.T) {
	rest, reason, ok := reasons.Strip(`{"a":1,"reason":"to see","b":[2]}`)
	assert.True(t, ok)
	assert.Equal(t, "to see", reason)
	assert.Equal(t, `{"a":1,"b":[2]}`, rest)

	rest, reason, ok = reasons.Strip(`{"reason":{"why":"x"}}`)
	assert.True(t, ok)
	assert.Equal(t, `{"why":"x"}`, reason, "a non-string reason is returned as its JSON text")
	assert.Equal(t, `{}`, rest)

	for name, in := range map[string]string{
		"no reason":          `{"a":1}`,
		"empty":              ``,
		"null":               `null`,
		"a string":           `"reason"`,
		"two objects":        `{"reason":"x"} {}`,
		"truncated":          `{"reason":"x"`,
		"invalid UTF-8":      "{\"reason\":\"\xff\"}",
		"reason in an array": `[{"reason":"x"}]`,
		"nested reason":      `{"a":{"reason":"x"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			rest, reason, ok := reasons.Strip(in)
			assert.False(t, ok)
			assert.Equal(t, in, rest)
			assert.Empty(t, reason)
		})
	}
}

func TestConcurrentUse(t *testing.T) {
	f := &fake{tools: []provider.Tool{tool("w", `{"type":"object"}`)}}
	r := reasons.New(f)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if i%2 == 0 {
				_, err := r.ToolsForLLM(context.Background())
				assert.NoError(t, err)
				return
			}
			res := r.ExecuteToolCalls(context.Background(), []provider.Call{testkit.Call("1", "w", `{"reason":"r","p":1}`)})
			assert.Equal(t, `{"p":1}`, res[0].Content)
		})
	}
	wg.Wait()
}
