package rules

import "github.com/mcp-policy/mcp-policy/provider"

// The engine's own steps, for the external tests: which root a tool gets,
// and a call read into an input without a decision.

func (e *Engine) RootOf(tool string) string { return e.rootOf(tool) }

func (e *Engine) NewInput(call provider.Call, tool *provider.Tool) (*Input, error) {
	return e.newInput(call, tool)
}
