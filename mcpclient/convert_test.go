package mcpclient

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/require"
)

// A tool whose server stated no hints keeps nil hint pointers but a non-nil
// Annotations: the catalogue is known, the hints are not.
func TestConvertToolWithoutHints(t *testing.T) {
	var tool mcp.Tool
	require.NoError(t, json.Unmarshal([]byte(`{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"p":{"type":"string","format":"path"}},"required":["p"]}}`), &tool))
	pt, err := convertTool(tool)
	require.NoError(t, err)
	a := pt.Annotations
	require.NotNil(t, a, "annotations")
	require.Nil(t, a.ReadOnlyHint, "readOnlyHint")
	require.Nil(t, a.DestructiveHint, "destructiveHint")
	require.Nil(t, a.IdempotentHint, "idempotentHint")
	require.Nil(t, a.OpenWorldHint, "openWorldHint")
	require.Empty(t, a.Hints(), "hints")
	var schema struct {
		Properties map[string]map[string]string `json:"properties"`
		Required   []string                     `json:"required"`
	}
	require.NoError(t, json.Unmarshal(pt.Function.Parameters, &schema))
	require.Equal(t, "path", schema.Properties["p"]["format"], "parameters %s", pt.Function.Parameters)
	require.Equal(t, []string{"p"}, schema.Required, "parameters %s", pt.Function.Parameters)

	// Only the stated hint is set.
	tool.Annotations.ReadOnlyHint = mcp.ToBoolPtr(true)
	pt, err = convertTool(tool)
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"readOnlyHint": true}, pt.Annotations.Hints(), "hints")
	// A copy, not an alias of mcp-go's value.
	*tool.Annotations.ReadOnlyHint = false
	require.True(t, *pt.Annotations.ReadOnlyHint, "annotation aliases the mcp.Tool")
}
