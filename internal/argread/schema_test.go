package argread

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A property the schema declares a string (or a string or null) holds
// text: JSON in it is not read. Any other type, or none, is parsed by
// FastMCP, and is read (red team 4).
func TestSchemaDeclaredStrings(t *testing.T) {
	keys := parseSchemaKeys(json.RawMessage(`{"type": "object", "properties": {
		"content": {"type": "string"}, "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "both": {"type": ["string", "null"]},
		"list": {"type": "array"}, "either": {"anyOf": [{"type": "string"}, {"type": "array"}]}, "untyped": {},
		"twice": {"type": "string"}, "nested": {"type": "object", "properties": {"twice": {"type": "object"}, "inner": {"type": "string"},
		"Folded": {"type": "object"}}}, "folded": {"type": "string"}, "nulls": {"anyOf": [{"type": "null"}]}}}`))
	for name, want := range map[string]bool{"content": true, "maybe": true, "both": true, "inner": true,
		"list": false, "either": false, "untyped": false, "twice": false, "absent": false, "nulls": false} {
		assert.Equal(t, want, keys.strings[name], name)
	}
	ta := compileTool(nil, nil, "t", keys, false, nil)
	assert.True(t, ta.declaresString("CONTENT"))
	assert.False(t, ta.declaresString("folded"), "a spelling that folds to it is an object")
	assert.False(t, ta.declaresString("twice"))
}

// A format on an object's additionalProperties or patternProperties is its
// values': the keys are names (red team 4).
func TestSchemaValueMaps(t *testing.T) {
	keys := parseSchemaKeys(json.RawMessage(`{"type": "object", "properties": {
		"mounts": {"type": "object", "additionalProperties": {"type": "string", "format": "path"}},
		"pp": {"type": "object", "patternProperties": {"^a": {"format": "directory"}, "^b": {"type": "integer"}}},
		"deep": {"type": "object", "additionalProperties": {"type": "array", "items": {"$ref": "#/$defs/p"}}},
		"hooks": {"type": "object", "unevaluatedProperties": {"format": "uri"}},
		"named": {"type": "object", "propertyNames": {"format": "path"}},
		"own": {"type": "string", "format": "path"}}, "$defs": {"p": {"type": "string", "format": "file-path"}}}`))
	assert.Equal(t, map[string]bool{"mounts": true, "deep": true}, keys.valuePaths)
	assert.Equal(t, map[string]bool{"pp": true}, keys.valueDirs, "a format directory is a directory")
	assert.Equal(t, map[string]bool{"hooks": true}, keys.valueURLs)
	assert.Equal(t, map[string]bool{"named": true, "own": true}, keys.paths)
	ta := compileTool(nil, nil, "t", keys, false, nil)
	assert.Equal(t, Class{Kind: Path, Evidence: Format, Values: true}, ta.classOf("mounts"))
	assert.Equal(t, Class{Kind: URL, Evidence: Format, Values: true}, ta.classOf("hooks"))
}

// The whole schema is read (red team 5): the root's additionalProperties
// and patternProperties class the arguments it does not declare; a $ref
// is followed for every name it is reached under, and a cycle ends; a
// name declared two ways is read both ways; dependentSchemas and
// additionalItems count.
func TestSchemaReadWhole(t *testing.T) {
	keys := parseSchemaKeys(json.RawMessage(`{"type": "object",
		"properties": {"a": {"$ref": "#/$defs/loc"}, "b": {"$ref": "#/$defs/loc"}, "tree": {"$ref": "#/$defs/node"},
			"spot": {"type": "string", "format": "path"}, "opts": {"properties": {"spot": {"format": "hostname"}}},
			"list": {"items": [{"type": "string"}], "additionalItems": {"format": "uri"}}},
		"dependentSchemas": {"a": {"properties": {"dep": {"format": "path"}}}},
		"additionalProperties": {"type": "string", "format": "path"},
		"$defs": {"loc": {"type": "string", "format": "path"},
			"node": {"type": "object", "properties": {"kids": {"items": {"$ref": "#/$defs/node"}}, "where": {"format": "path"}}}}}`))
	for _, n := range []string{"a", "b", "spot", "dep", "where"} {
		assert.True(t, keys.paths[n], n)
	}
	assert.True(t, keys.urls["list"])
	assert.True(t, keys.hosts["spot"])
	assert.True(t, keys.restPaths)
	ta := compileTool(nil, nil, "t", keys, false, nil)
	assert.Equal(t, Class{Kind: Path, Evidence: Format}, ta.classOf("spot"))
	// Red team 6: anchors, $dynamicRef, the document's own $id, a
	// percent-encoded pointer, formats in capitals and draft 3's.
	more := parseSchemaKeys(json.RawMessage(`{"$id": "https://x/s", "type": "object",
		"properties": {"an": {"$ref": "#Pth"}, "dyn": {"$dynamicRef": "#meta"}, "abs": {"$ref": "https://x/s#/$defs/P"},
			"pct": {"$ref": "#/$defs/My%20P"}, "caps": {"format": "Path"}, "h3": {"format": "host-name"}, "i3": {"format": "ip-address"},
			"other": {"$ref": "https://y/s#/$defs/P"}},
		"$defs": {"P": {"$anchor": "Pth", "format": "path"}, "D": {"$dynamicAnchor": "meta", "format": "path"}, "My P": {"format": "path"}}}`))
	for _, n := range []string{"an", "dyn", "abs", "pct", "caps"} {
		assert.True(t, more.paths[n], n)
	}
	assert.False(t, more.paths["other"], "another document is not followed")
	assert.True(t, more.hosts["h3"])
	assert.True(t, more.hosts["i3"])
	assert.Equal(t, []Class{{Kind: Host, Evidence: Format}}, ta.moreOf("spot"))
	assert.Equal(t, Class{Kind: Path, Evidence: Format}, ta.topClassOf("undeclared"))
	assert.Equal(t, Class{Kind: Path, Evidence: Format}, ta.topClassOf("a"))
	assert.Equal(t, nameClass("tree"), ta.topClassOf("tree"), "declared: not the rest")
	assert.Equal(t, nameClass("undeclared"), ta.classOf("undeclared"), "the rest is the top level's only")
}
