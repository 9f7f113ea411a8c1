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
	"fmt"
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
	// DefinitionChange, when not "", says the tool's definition is not the
	// one a human approved (grants.PinStore): what changed, for the
	// question. The policy then trusts nothing the server says of the
	// tool (its annotations and schema are read as unknown) and no allow
	// grant answers its calls, until the change is approved.
	DefinitionChange string `json:"-"`
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
	// Content is the text the model reads.
	Content string `json:"content"`
	IsError bool   `json:"is_error"`
	// MCP is the tool result as an MCP server sent it: its CallToolResult
	// object, with every content block (images, audio, resource links,
	// embedded resources, their annotations), structuredContent, isError
	// and _meta, where Content is only their text. Nil when the result did
	// not come from an MCP server (a refusal, a provider that is not MCP).
	// A Policy, a Registry and Forward pass it on untouched.
	MCP json.RawMessage `json:"mcp,omitempty"`
}

// ContentBlock is one MCP content block of a result: Type is "text",
// "image", "audio", "resource_link" or "resource" (or whatever a newer
// server sends), Raw the block as the server sent it.
type ContentBlock struct {
	Type string
	Raw  json.RawMessage
}

// Blocks returns the content blocks of the MCP result, in order: nil when
// the result has none or did not come from an MCP server.
func (r Result) Blocks() ([]ContentBlock, error) {
	if len(r.MCP) == 0 {
		return nil, nil
	}
	var res struct {
		Content []json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(r.MCP, &res); err != nil {
		return nil, fmt.Errorf("mcp result: %w", err)
	}
	out := make([]ContentBlock, 0, len(res.Content))
	for i, raw := range res.Content {
		var b struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, fmt.Errorf("mcp result: content block %d: %w", i+1, err)
		}
		out = append(out, ContentBlock{Type: b.Type, Raw: raw})
	}
	return out, nil
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

// ElicitAction is MCP's answer to an elicitation.
type ElicitAction string

// The elicitation actions, as MCP spells them.
const (
	ElicitAccept  ElicitAction = "accept"  // the human filled in the form: Content holds it
	ElicitDecline ElicitAction = "decline" // the human said no
	ElicitCancel  ElicitAction = "cancel"  // the human dismissed the question without answering
)

// ElicitResult is the human's answer: Action is accept, decline or cancel;
// Content carries the accepted form values.
type ElicitResult struct {
	Action  ElicitAction   `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// ElicitFunc answers a server's elicitation. ctx derives from the call that
// provoked it where the transport allows that correlation.
type ElicitFunc func(ctx context.Context, req ElicitRequest) (ElicitResult, error)

// callKey carries, in a ctx, the call being executed.
type callKey struct{}

// WithCall returns a ctx that says call is the one being executed: a
// provider that runs a call hands its elicitation hook a ctx carrying it, so
// whoever answers a server's question knows which call asked.
func WithCall(ctx context.Context, call Call) context.Context {
	return context.WithValue(ctx, callKey{}, call)
}

// CallFrom returns the call WithCall put in ctx.
func CallFrom(ctx context.Context) (Call, bool) {
	c, ok := ctx.Value(callKey{}).(Call)
	return c, ok
}
