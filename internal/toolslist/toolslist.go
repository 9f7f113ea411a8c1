// Package toolslist reads an MCP tools/list result into the provider's
// tools: the one reader of the proxy's catalogue and of the tests that
// replay real servers' catalogues.
//
// It reads the result as every host reads it, or refuses it: a JavaScript
// host reads member names exactly and keeps one value per name, where Go's
// encoding/json (and so a Go host) matches a struct field in any case and
// takes the last of repeated names (and makes U+FFFD of a lone surrogate
// escape). So a result with a repeated name, two names equal but for case
// in one object, or a lone surrogate is refused. A
// tools/list result is what the model is shown, so a reading of it that
// differs from the host's (a "description" and a "DESCRIPTION") would pin
// and decide by one definition while the model reads another.
package toolslist

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/strictjson"
	"github.com/mcp-policy/mcp-policy/provider"
)

// Page is one tools/list result, read.
type Page struct {
	// Tools are the tools as a policy reads them (a tool listed without
	// annotations has none, which is known, not unknown).
	Tools []provider.Tool
	// Definitions are the same tools as a human approves them (their
	// pins): the name, title, description, input schema and annotations
	// as the server wrote them.
	Definitions []grants.Definition
	// Next is the cursor of the next page, "" for the last.
	Next string
}

// Decode reads a tools/list result. A result with a repeated member name
// or a lone surrogate escape anywhere, or whose tools, names,
// descriptions, schemas, annotations or cursor are not of their types, is
// an error: a host may read it otherwise.
func Decode(result []byte) (Page, error) {
	tools, defs, next, err := decode(result)
	if err != nil {
		return Page{}, fmt.Errorf("tools/list result: %w", err)
	}
	return Page{Tools: tools, Definitions: defs, Next: next}, nil
}

func decode(result []byte) ([]provider.Tool, []grants.Definition, string, error) {
	if err := strictjson.CheckFolded(result); err != nil {
		return nil, nil, "", err
	}
	var r map[string]json.RawMessage // exact member names, as a host reads them
	if err := json.Unmarshal(result, &r); err != nil || r == nil {
		return nil, nil, "", errors.New("not an object")
	}
	var next string
	if raw, ok := r["nextCursor"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &next); err != nil {
			return nil, nil, "", errors.New(`"nextCursor" is not a string`)
		}
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(r["tools"], &list); err != nil || list == nil {
		return nil, nil, "", errors.New(`"tools" is not an array of objects`)
	}
	out := make([]provider.Tool, 0, len(list))
	defs := make([]grants.Definition, 0, len(list))
	for i, t := range list {
		tool, err := decodeTool(t)
		if err != nil {
			return nil, nil, "", fmt.Errorf("tool %d: %w", i+1, err)
		}
		out = append(out, tool)
		defs = append(defs, grants.Definition{Name: tool.Function.Name, Title: title(t), Description: tool.Function.Description,
			InputSchema: tool.Function.Parameters, Annotations: t["annotations"]})
	}
	return out, defs, next, nil
}

func decodeTool(t map[string]json.RawMessage) (provider.Tool, error) {
	if t == nil {
		return provider.Tool{}, errors.New("not an object")
	}
	var name, description string
	if err := json.Unmarshal(t["name"], &name); err != nil || name == "" {
		return provider.Tool{}, errors.New(`"name" is not a string that names a tool`)
	}
	if raw, ok := t["description"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &description); err != nil {
			return provider.Tool{}, fmt.Errorf("%s: \"description\" is not a string", name)
		}
	}
	schema := t["inputSchema"]
	if schema != nil && !isNull(schema) && !isObject(schema) {
		return provider.Tool{}, fmt.Errorf("%s: \"inputSchema\" is not an object", name)
	}
	a := &provider.Annotations{} // listed without hints: known to have none
	if raw, ok := t["annotations"]; ok && !isNull(raw) {
		var hints map[string]json.RawMessage
		if err := json.Unmarshal(raw, &hints); err != nil || hints == nil {
			return provider.Tool{}, fmt.Errorf("%s: \"annotations\" is not an object", name)
		}
		for key, field := range map[string]**bool{
			"readOnlyHint": &a.ReadOnlyHint, "destructiveHint": &a.DestructiveHint,
			"idempotentHint": &a.IdempotentHint, "openWorldHint": &a.OpenWorldHint,
		} {
			v, ok := hints[key]
			if !ok || isNull(v) {
				continue
			}
			var b bool
			if err := json.Unmarshal(v, &b); err != nil {
				return provider.Tool{}, fmt.Errorf("%s: annotation %q is not a boolean", name, key)
			}
			*field = &b
		}
	}
	return provider.Tool{Type: "function", Annotations: a,
		Function: provider.ToolFunction{Name: name, Description: description, Parameters: schema}}, nil
}

// title is the tool's title, a host's name for it ("" when there is none
// or it is not a string: hosts show it, and then show the name).
func title(t map[string]json.RawMessage) string {
	var s string
	if raw, ok := t["title"]; ok && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}
