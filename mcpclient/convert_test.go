package mcpclient

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// A tool whose server stated no hints keeps nil hint pointers but a non-nil
// Annotations: the catalogue is known, the hints are not.
func TestConvertToolWithoutHints(t *testing.T) {
	var tool mcp.Tool
	if err := json.Unmarshal([]byte(`{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"p":{"type":"string","format":"path"}},"required":["p"]}}`), &tool); err != nil {
		t.Fatal(err)
	}
	pt, err := convertTool(tool)
	if err != nil {
		t.Fatal(err)
	}
	a := pt.Annotations
	if a == nil || a.ReadOnlyHint != nil || a.DestructiveHint != nil || a.IdempotentHint != nil || a.OpenWorldHint != nil {
		t.Fatalf("annotations %+v", a)
	}
	if len(a.Hints()) != 0 {
		t.Fatalf("hints %v", a.Hints())
	}
	var schema struct {
		Properties map[string]map[string]string `json:"properties"`
		Required   []string                     `json:"required"`
	}
	if err := json.Unmarshal(pt.Function.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Properties["p"]["format"] != "path" || len(schema.Required) != 1 {
		t.Fatalf("parameters %s", pt.Function.Parameters)
	}

	// Only the stated hint is set.
	tool.Annotations.ReadOnlyHint = mcp.ToBoolPtr(true)
	pt, _ = convertTool(tool)
	if h := pt.Annotations.Hints(); len(h) != 1 || !h["readOnlyHint"] {
		t.Fatalf("hints %v", h)
	}
	// A copy, not an alias of mcp-go's value.
	*tool.Annotations.ReadOnlyHint = false
	if !*pt.Annotations.ReadOnlyHint {
		t.Fatal("annotation aliases the mcp.Tool")
	}
}
