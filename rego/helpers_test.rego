# METADATA
# title: Test helpers
# description: |
#   Builds the engine's input and data.mcp_data the way internal/rules does,
#   for the _test.rego files: data rules with every field present, and
#   calls whose paths and URLs are
#   resolved by the same builtins the Go side uses.
package mcp.helpers_test

# rule is a data rule as internal/rules stores it: every field present.
rule(r) := object.union(
	{"decision": "allow", "under": "", "host": "", "annotations": {}, "arguments": {}, "message": ""},
	r,
)

# mcp_data is data.mcp_data for a list of (partial) rules, with no roots and
# no protected files.
mcp_data(rules) := mcp_data_with(rules, [], [])

# mcp_data_with is data.mcp_data with roots and protected files.
mcp_data_with(rules, roots, protected) := {
	"rules": [rule(r) | some r in rules],
	"roots": roots,
	"protected": protected,
}

# call is the input document for a call of tool. c may give "root" (none by
# default), "annotations" (null by default: the catalogue is unknown),
# "paths" and "urls" (the values as the model wrote them).
call(tool, c) := {
	"tool": tool,
	"root": root,
	"annotations": object.get(c, "annotations", null),
	"paths": [path_value(root, p) | some p in object.get(c, "paths", [])],
	"hosts": [url_value(u) | some u in object.get(c, "urls", [])],
	"arguments": {},
} if {
	root := object.get(c, "root", null)
}

path_value(root, p) := {"arg": "path", "raw": p, "path": mcp.path.resolve(root, p)}

url_value(u) := {"arg": "url", "raw": u, "host": mcp.url.host(u)}

# Annotations of a tool its server marks read-only, and of one it marks
# neither read-only nor destructive.
read_only := {"readOnlyHint": true}

harmless := {"readOnlyHint": false, "destructiveHint": false}
