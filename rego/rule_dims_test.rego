package mcp.rule_dims_test

import data.mcp.engine
import data.mcp.helpers_test as h

# call is a call of tool "t" by a read-only tool (so the floor stays out),
# with the paths and URLs of c.
call(c) := h.call("t", object.union({"annotations": h.read_only}, c))

metadata := "http://10.0.0.5/admin/" # an internal address; the metadata service itself is the floor's

docs := "https://docs.raku.org/"

# An allow covers a call only in the dimensions it names: one with under and
# no host covers no call naming a URL, known or not; one with host and no
# under none naming a path. A deny or ask still matches on any path or host.
test_an_allow_covers_every_dimension_the_call_names if {
	under := h.mcp_data([{"tool": "t", "decision": "allow", "under": "/"}])
	every urls in [[metadata], ["not a url"]] {
		d := engine.decision with input as call({"paths": ["/w/x"], "urls": urls}) with data.mcp_data as under
		d.decision == "ask"
		d.reason == "no-match"
	}
	host := h.mcp_data([{"tool": "t", "decision": "allow", "host": "docs.raku.org"}])
	every paths in [["/w/x"], ["~/x"]] {
		d := engine.decision with input as call({"paths": paths, "urls": [docs]}) with data.mcp_data as host
		d.decision == "ask"
		d.reason == "no-match"
	}
	both := call({"paths": ["/w/x"], "urls": [docs]})
	whole := engine.decision with input as both
		with data.mcp_data as h.mcp_data([{"tool": "t", "decision": "allow"}])
	whole.decision == "allow"
	deny := h.mcp_data([
		{"tool": "t", "decision": "deny", "under": "/tmp"},
		{"tool": "t", "decision": "ask", "host": "docs.raku.org"},
	])
	denied := engine.decision with input as call({"paths": ["/tmp/x"], "urls": [docs]}) with data.mcp_data as deny
	denied.decision == "deny"
	asked := engine.decision with input as both with data.mcp_data as deny
	asked.decision == "ask"
	asked.reason == "rule"
}

# The suggestion names what the call names; URLs of two hosts, or anything
# unknown, leave the bare tool.
test_the_suggestion_names_every_dimension if {
	every c in [
		{"paths": ["/w/a/x"], "urls": [docs, "https://raku.org/"]},
		{"paths": ["~/x"], "urls": [docs]},
		{"paths": ["/w/a/x"], "urls": ["not a url"]},
	] {
		d := engine.decision with input as call(c) with data.mcp_data as h.mcp_data([])
		d.suggestion == {"tool": "t"}
	}
}

with_arguments(args) := object.union(h.call("gh_issue", {}), {"arguments": args})

argument_rules := h.mcp_data([
	{"tool": "gh_*", "decision": "deny", "arguments": {"owner": "evil*"}},
	{"tool": "gh_*", "decision": "allow", "arguments": {"owner": "acme", "private": "false"}},
])

# A rule's arguments: names compared folded (case, "_" and "-" left out),
# a glob over a scalar's text. An allow needs every named argument, each
# spelling matching; a deny any, and a value that is no scalar might be.
test_rule_arguments if {
	every args in [{"owner": "acme", "private": false}, {"OWNER": "acme", "Pri_vate": "false"}] {
		d := engine.decision with input as with_arguments(args) with data.mcp_data as argument_rules
		d.decision == "allow"
	}
	every args in [
		{"owner": "acme"},
		{"owner": "acme", "Owner": "x", "private": false},
		{"owner": "acme", "private": null},
	] {
		d := engine.decision with input as with_arguments(args) with data.mcp_data as argument_rules
		d.reason == "no-match"
	}
	every args in [{"owner": "evil-corp"}, {"owner": "acme", "Owner": "EVIL"}, {"owner": ["evil"]}] {
		d := engine.decision with input as with_arguments(args) with data.mcp_data as argument_rules
		d.decision == "deny"
	}
	every args in [{"owner": [{"login": "evil"}]}, {"owner": null, "private": false}] {
		d := engine.decision with input as with_arguments(args) with data.mcp_data as argument_rules
		d.reason == "unevaluable-path"
		d.might == "deny"
	}
}

# A deny's or ask's exception leaves out the calls an allow with its fields
# would match: every path inside, every dimension covered. One that might
# match (a path that cannot be evaluated) leaves the rule unknown.
test_rule_exception if {
	rules := h.mcp_data([
		{"tool": "t", "decision": "allow", "under": "/"},
		{"tool": "t", "decision": "ask", "except": {"under": "/proj"}},
	])
	inside := engine.decision with input as call({"paths": ["/proj/a"]}) with data.mcp_data as rules
	inside.decision == "allow"
	every paths in [["/etc/hosts"], ["/proj/a", "/etc/hosts"]] {
		d := engine.decision with input as call({"paths": paths}) with data.mcp_data as rules
		d.decision == "ask"
		d.reason == "rule"
	}
	unknown := engine.decision with input as call({"paths": ["~/a"]}) with data.mcp_data as rules
	unknown.decision == "ask"
}
