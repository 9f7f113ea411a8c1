# METADATA
# title: Decision engine
# description: |
#   Turns one tool call (input) into one decision document, from the data
#   rules (data.mcp_data.rules), the danger floor (data.mcp.floor) and
#   security teams' modules (data.mcp.custom). The rules are Rego and data;
#   combining what matched is the builtin mcp.engine.decide, written down
#   once, top to bottom, in internal/verdict/verdict.go (the package comment; how
#   grants then answer an ask is there too): deny > ask > allow, the first
#   in order (floor, modules, data rules) among the winners, and unknowns
#   decided twice, once as matching and once as not, so that only an answer
#   both worlds agree on stands, else the call is asked as
#   "unevaluable-path".
package mcp.engine

# METADATA
# description: |
#   The whole answer: decision, reason, rule, paths, hosts, suggestion, and
#   floor (whether the floor took part in either world, so that no allow
#   grant answers it).
#
#   The entries of each module set are a message, or an object with
#   "message" and "status" (a tri-state word from the builtins: "match" or
#   "inside", "unknown", or "outside"/"mismatch"/"no" to drop the entry). A
#   package with no such rule has none. The sets are built inline, not as
#   rules of their own: each rule evaluation costs microseconds per call.
#   The sets follow input and data.mcp_data in this order: floor deny,
#   floor ask, custom deny, custom ask, custom allow.
# entrypoint: true
decision := mcp.engine.decide(
	input,
	data.mcp_data,
	{e | some e in data.mcp.floor.deny},
	{e | some e in data.mcp.floor.ask},
	{e | some e in data.mcp.custom.deny},
	{e | some e in data.mcp.custom.ask},
	{e | some e in data.mcp.custom.allow},
)
