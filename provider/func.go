package provider

import (
	"context"
	"fmt"
)

// Func is a Provider made of a catalogue and one Go function, the way an
// http.HandlerFunc is a Handler made of a function: for tools written in Go
// beside the agent, and for trying a policy out. Run executes one call
// (ctx carries it, see CallFrom) and returns the text the model reads; an
// error becomes an is_error result with the error's text.
//
// Func keeps the Provider contract for Run: a call of a tool not in Tools
// is an is_error result and never reaches Run, a panic in Run is an
// is_error result for that call only, and every result carries its call's
// id. Calls of a batch run one after another, in order.
type Func struct {
	Tools []Tool
	Run   func(ctx context.Context, call Call) (string, error)
}

// ToolsForLLM returns a copy of f.Tools.
func (f Func) ToolsForLLM(context.Context) ([]Tool, error) {
	return append([]Tool{}, f.Tools...), nil
}

// ExecuteToolCalls runs each call of a listed tool through f.Run.
func (f Func) ExecuteToolCalls(ctx context.Context, calls []Call) []Result {
	out := make([]Result, len(calls))
	for i, c := range calls {
		out[i] = f.run(ctx, c)
	}
	return out
}

func (f Func) run(ctx context.Context, c Call) (res Result) {
	listed := false
	for _, t := range f.Tools {
		listed = listed || t.Function.Name == c.Function.Name
	}
	switch {
	case !listed:
		return ErrorResult(c.ID, fmt.Sprintf("unknown tool '%s'", c.Function.Name))
	case f.Run == nil:
		return ErrorResult(c.ID, fmt.Sprintf("tool '%s' failed: the provider has no Run function", c.Function.Name))
	}
	defer func() {
		if v := recover(); v != nil {
			res = ErrorResult(c.ID, fmt.Sprintf("tool '%s' failed: it panicked: %v", c.Function.Name, v))
		}
	}()
	text, err := f.Run(WithCall(ctx, c), c)
	if err != nil {
		return ErrorResult(c.ID, fmt.Sprintf("tool '%s' failed: %v", c.Function.Name, err))
	}
	return TextResult(c.ID, text)
}
