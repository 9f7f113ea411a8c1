// Package provider defines the duck type every piece of mcp-policy speaks:
// something that lists tools for a model and executes the model's tool calls.
//
// A Provider is to mcp-policy what an http.Handler is to net/http: an MCP
// client, a Registry of several, a Policy, Reasons and Leases all satisfy it,
// so they stack in any order a host needs.
package provider

import (
	"context"
	"encoding/json"
)

// Provider lists tools and executes calls.
//
// ToolsForLLM errors when the catalogue cannot be listed: silently
// publishing a shorter catalogue leaves a model wondering where a capability
// went. ExecuteToolCalls never errors and never panics: it returns exactly one
// Result per Call, in the same order, and reports every failure as an
// IsError result.
type Provider interface {
	ToolsForLLM(ctx context.Context) ([]Tool, error)
	ExecuteToolCalls(ctx context.Context, calls []Call) []Result
}

// Tool is one entry of the catalogue, in the shape chat-completion APIs take.
// It marshals to exactly {"type":"function","function":{...}}; Annotations
// travel beside it for the policy and are never shown to the model.
type Tool struct {
	Type        string       `json:"type"`
	Function    ToolFunction `json:"function"`
	Annotations *Annotations `json:"-"`
}

// ToolFunction is the model-facing description of a tool.
type ToolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Annotations are the MCP tool annotations. A nil pointer field means the
// server did not say; a nil *Annotations means the catalogue is unknown.
type Annotations struct {
	ReadOnlyHint    *bool `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool `json:"openWorldHint,omitempty"`
}

// Hints returns the hints the server stated, by their MCP names.
func (a *Annotations) Hints() map[string]bool {
	if a == nil {
		return nil
	}
	out := make(map[string]bool, 4)
	set := func(name string, v *bool) {
		if v != nil {
			out[name] = *v
		}
	}
	set("readOnlyHint", a.ReadOnlyHint)
	set("destructiveHint", a.DestructiveHint)
	set("idempotentHint", a.IdempotentHint)
	set("openWorldHint", a.OpenWorldHint)
	return out
}

// Call is one tool call as the model wrote it.
type Call struct {
	ID       string       `json:"id"`
	Type     string       `json:"type,omitempty"`
	Function CallFunction `json:"function"`
}

// CallFunction names the tool and carries the arguments as the model wrote
// them: JSON text, forwarded byte for byte when the call is allowed.
type CallFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Result is the answer to one Call. Role is always "tool".
type Result struct {
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id"`
	Content    string `json:"content"`
	IsError    bool   `json:"is_error"`
}

// ErrorResult is the IsError result for call id with the given content.
func ErrorResult(id, content string) Result {
	return Result{Role: "tool", ToolCallID: id, Content: content, IsError: true}
}

// TextResult is a successful result for call id.
func TextResult(id, content string) Result {
	return Result{Role: "tool", ToolCallID: id, Content: content}
}

// ElicitMethod is the JSON-RPC method of a server's elicitation request.
const ElicitMethod = "elicitation/create"

// ElicitRequest is a server's question for the human, as the server sent it.
type ElicitRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// ElicitResult is the human's answer: Action is accept, decline or cancel;
// Content carries the accepted form values.
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// ElicitFunc answers a server's elicitation. ctx derives from the call that
// provoked it where the transport allows that correlation.
type ElicitFunc func(ctx context.Context, req ElicitRequest) (ElicitResult, error)
