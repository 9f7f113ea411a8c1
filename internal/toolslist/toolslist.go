// Package toolslist reads an MCP tools/list result into the provider's
// tools: the one reader of the proxy's catalogue and of the tests that
// replay real servers' catalogues.
package toolslist

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-policy/mcp-policy/provider"
)

// Decode reads a tools/list result: its tools, as a policy reads them (a
// tool listed without annotations has none, which is known, not unknown),
// and the cursor of the next page ("" for the last).
func Decode(result []byte) ([]provider.Tool, string, error) {
	var r struct {
		Tools []struct {
			Name        string                `json:"name"`
			Description string                `json:"description"`
			InputSchema json.RawMessage       `json:"inputSchema"`
			Annotations *provider.Annotations `json:"annotations"`
		} `json:"tools"`
		NextCursor string `json:"nextCursor"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return nil, "", fmt.Errorf("tools/list result: %w", err)
	}
	out := make([]provider.Tool, 0, len(r.Tools))
	for _, t := range r.Tools {
		a := t.Annotations
		if a == nil {
			a = &provider.Annotations{} // listed without hints: known to have none
		}
		out = append(out, provider.Tool{Type: "function", Annotations: a,
			Function: provider.ToolFunction{Name: t.Name, Description: t.Description, Parameters: t.InputSchema}})
	}
	return out, r.NextCursor, nil
}
