package mcpclient

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// resultText flattens a tool result for the model: text items joined with
// "\n", other items described in brackets. A result with no content but
// structured content shows the structured content as JSON.
func resultText(r *mcp.CallToolResult) string {
	parts := make([]string, 0, len(r.Content))
	for _, item := range r.Content {
		parts = append(parts, contentText(item))
	}
	if len(parts) == 0 && r.StructuredContent != nil {
		if raw := r.RawStructuredContent; len(raw) > 0 {
			return string(raw)
		}
		if b, err := json.Marshal(r.StructuredContent); err == nil {
			return string(b)
		}
	}
	return strings.Join(parts, "\n")
}

func contentText(item mcp.Content) string {
	switch v := item.(type) {
	case mcp.TextContent:
		return v.Text
	case *mcp.TextContent:
		return v.Text
	case mcp.ImageContent:
		return "[image: " + v.MIMEType + "]"
	case *mcp.ImageContent:
		return "[image: " + v.MIMEType + "]"
	case mcp.AudioContent:
		return "[audio: " + v.MIMEType + "]"
	case *mcp.AudioContent:
		return "[audio: " + v.MIMEType + "]"
	case mcp.ResourceLink:
		return "[resource link: " + v.URI + "]"
	case *mcp.ResourceLink:
		return "[resource link: " + v.URI + "]"
	case mcp.EmbeddedResource:
		return resourceText(v.Resource)
	case *mcp.EmbeddedResource:
		return resourceText(v.Resource)
	default:
		return fmt.Sprintf("[%T content]", item)
	}
}

func resourceText(r mcp.ResourceContents) string {
	switch v := r.(type) {
	case mcp.TextResourceContents:
		return v.Text
	case *mcp.TextResourceContents:
		return v.Text
	case mcp.BlobResourceContents:
		return fmt.Sprintf("[resource: %s (%s)]", v.URI, v.MIMEType)
	case *mcp.BlobResourceContents:
		return fmt.Sprintf("[resource: %s (%s)]", v.URI, v.MIMEType)
	default:
		return "[resource]"
	}
}
