package reasons_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcp-policy/mcp-policy/provider"
	"github.com/mcp-policy/mcp-policy/reasons"
)

// echoServer stands for the provider below Reasons: it lists the tools it
// is given and answers each call with the arguments text it received.
type echoServer struct{ tools []provider.Tool }

func (s echoServer) ToolsForLLM(context.Context) ([]provider.Tool, error) { return s.tools, nil }

func (s echoServer) ExecuteToolCalls(_ context.Context, calls []provider.Call) []provider.Result {
	out := make([]provider.Result, len(calls))
	for i, c := range calls {
		out[i] = provider.TextResult(c.ID, "server got "+c.Function.Arguments)
	}
	return out
}

// The model is offered an optional "reason" on every tool (never in
// "required"), and the server never sees it. A tool that declares a "reason"
// of its own keeps both its schema and its argument. Arguments that are not
// a JSON object go down byte for byte, for the server to refuse.
func ExampleNew() {
	r := reasons.New(echoServer{tools: []provider.Tool{
		{Type: "function", Function: provider.ToolFunction{Name: "fs_write",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
		{Type: "function", Function: provider.ToolFunction{Name: "label_issue",
			Parameters: json.RawMessage(`{"type":"object","properties":{"reason":{"enum":["bug","feature"]}}}`)}},
	}})
	ctx := context.Background()

	tools, err := r.ToolsForLLM(ctx)
	if err != nil {
		panic(err)
	}
	for _, t := range tools {
		fmt.Printf("%s: %s\n", t.Function.Name, t.Function.Parameters)
	}

	for _, res := range r.ExecuteToolCalls(ctx, []provider.Call{
		{ID: "1", Function: provider.CallFunction{Name: "fs_write", Arguments: `{"path":"notes.md","reason":"saving the plan"}`}},
		{ID: "2", Function: provider.CallFunction{Name: "label_issue", Arguments: `{"reason":"bug"}`}},
		{ID: "3", Function: provider.CallFunction{Name: "fs_write", Arguments: `{"path":`}},
	}) {
		fmt.Println(res.ToolCallID, res.Content)
	}
	// Output:
	// fs_write: {"type":"object","properties":{"path":{"type":"string"},"reason":{"type":"string","description":"Why you are making this call, in one sentence, for the human reviewing it."}},"required":["path"]}
	// label_issue: {"type":"object","properties":{"reason":{"enum":["bug","feature"]}}}
	// 1 server got {"path":"notes.md"}
	// 2 server got {"reason":"bug"}
	// 3 server got {"path":
}

// Strip is what Reasons does to each call: the reason comes out, and the
// other members keep their order and their values' text. Anything but one
// JSON object comes back unchanged, with ok false.
func ExampleStrip() {
	for _, args := range []string{
		`{"path": "a.md", "reason": "to read the plan", "limit": 10}`,
		`{"reason": {"why": "not a string"}}`,
		`{"path": "a.md"}`,
		`{"reason": "x"} {"reason": "y"}`,
	} {
		rest, reason, ok := reasons.Strip(args)
		fmt.Printf("ok=%v reason=%q rest=%s\n", ok, reason, rest)
	}
	// Output:
	// ok=true reason="to read the plan" rest={"path":"a.md","limit":10}
	// ok=true reason="{\"why\": \"not a string\"}" rest={}
	// ok=false reason="" rest={"path": "a.md"}
	// ok=false reason="" rest={"reason": "x"} {"reason": "y"}
}
