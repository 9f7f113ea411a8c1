# METADATA
# title: Decision engine
# description: |
#   Turns one tool call (input) into one decision document, from the data
#   rules (data.mcp_data.rules, looked up through data.mcp_data.index with
#   mcp.rules.match), the danger floor (data.mcp.floor) and security teams'
#   modules (data.mcp.custom). Unknowns are decided twice, once as matching
#   and once as not: only an answer both worlds agree on stands, else the
#   call is asked as "unevaluable-path".
package mcp.engine

# METADATA
# description: |
#   The whole answer: decision, reason, rule, paths, hosts, suggestion, and
#   floor (whether the floor took part in either world, so that no allow
#   grant answers it).
# entrypoint: true
decision := object.union(verdict, {
	"paths": [shown(p, "path") | some p in input.paths],
	"hosts": [shown(h, "host") | some h in input.hosts],
	"suggestion": suggestion,
	"floor": floor_involved,
})

# --- entries -------------------------------------------------------------

# Everything that may decide this call, in order: the floor first, then
# security teams' modules, then the data rules in their order. status is
# "match", or "unknown" when it matches only if an unknown is what it might
# be.
entries contains {"order": i, "decision": r.decision, "reason": "rule", "rule": r, "status": status} if {
	some [i, status] in mcp.rules.match(data.mcp_data.rules, data.mcp_data.index, input)
	r := data.mcp_data.rules[i]
}

entries contains module_entry(-2, "floor", "deny", e, input.tool) if some e in data.mcp.floor.deny

entries contains module_entry(-2, "floor", "ask", e, input.tool) if some e in data.mcp.floor.ask

entries contains module_entry(-1, "rule", "deny", e, input.tool) if some e in data.mcp.custom.deny

entries contains module_entry(-1, "rule", "ask", e, input.tool) if some e in data.mcp.custom.ask

entries contains module_entry(-1, "rule", "allow", e, input.tool) if some e in data.mcp.custom.allow

# A module entry is a message, or an object with "message" and "status".
module_entry(order, reason, decision, e, tool) := {
	"order": order,
	"decision": decision,
	"reason": reason,
	"rule": {"tool": tool, "decision": decision, "message": object.get(e, "message", "")},
	"status": entry_status(object.get(e, "status", "match")),
} if {
	is_object(e)
}

else := {
	"order": order,
	"decision": decision,
	"reason": reason,
	"rule": {"tool": tool, "decision": decision, "message": e},
	"status": "match",
} if {
	is_string(e)
}

# A module entry's status may be any tri-state word the builtins give:
# sure words match, unknown is unknown, and a word for "no" (or anything
# else) drops the entry, since it did not match.
entry_status(word) := "match" if {
	word in {"match", "inside"}
} else := "unknown" if {
	word == "unknown"
}

default floor_involved := false

floor_involved if {
	some e in entries
	e.reason == "floor"
}

# --- the two worlds ----------------------------------------------------

# In the "known" world only a sure match counts; in the "unknown" world an
# unknown entry counts as matching too.
known_entries := [e | some e in entries; e.status == "match"]

known_decision := world_decision(known_entries)

unknown_decision := world_decision(entries)

# deny > ask > allow; "none" when nothing matched.
world_decision(es) := "deny" if {
	some e in es
	e.decision == "deny"
} else := "ask" if {
	some e in es
	e.decision == "ask"
} else := "allow" if {
	some e in es
	e.decision == "allow"
} else := "none"

# A world where nothing matched asks.
answer(d) := "ask" if d == "none"

else := d

# Nothing matched in either world.
default verdict := {"decision": "ask", "reason": "no-match", "rule": null}

verdict := {"decision": "ask", "reason": "unevaluable-path", "rule": null} if {
	answer(known_decision) != answer(unknown_decision)
} else := {"decision": first.decision, "reason": first.reason, "rule": first.rule} if {
	known_decision != "none"

	# The first entry in order among the known world's winners.
	winners := [e | some e in known_entries; e.decision == known_decision]

	# Entries of one module share an order: take the first of them as the
	# set orders them, so that two floor asks do not conflict.
	lowest := min([e.order | some e in winners])
	first := [e | some e in winners; e.order == lowest][0]
} else := {"decision": "ask", "reason": "unevaluable-path", "rule": null} if {
	# Both worlds ask, but only because an unknown might match.
	unknown_decision != "none"
}

# --- what the human is shown -------------------------------------------

# A value as shown: resolved if it could be, else as written.
shown(v, field) := v[field] if v[field] != null

else := v.raw if is_string(v.raw)

else := json.marshal(v.raw)

known_paths := [p.path | some p in input.paths; p.path != null]

known_hosts contains h.host if {
	some h in input.hosts
	h.host != null
}

# The suggestion is the narrowest honest scope for an "always" answer: the
# deepest directory containing every path, else the one host, else the bare
# tool. Any unknown path or URL leaves the bare tool.
suggestion := {"tool": input.tool, "under": mcp.path.common_dir(known_paths)} if {
	count(input.paths) > 0
	count(known_paths) == count(input.paths)
	every h in input.hosts {
		h.host != null
	}
} else := {"tool": input.tool, "host": host} if {
	count(input.paths) == 0
	every h in input.hosts {
		h.host != null
	}
	[host] := [h | some h in known_hosts]
} else := {"tool": input.tool}
