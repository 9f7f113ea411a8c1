package mcp.engine_test

import data.mcp.engine
import data.mcp.helpers_test as h

# --- precedence ------------------------------------------------------------

precedence_rules := [
	{"tool": "fs_write", "decision": "allow", "under": "/w"},
	{"tool": "fs_write", "decision": "ask", "under": "/w"},
	{"tool": "fs_write", "decision": "deny", "under": "/w/x"},
]

test_deny_beats_ask_and_allow if {
	d := engine.decision with input as h.call("fs_write", {"paths": ["/w/x/a"]})
		with data.mcp_data as h.mcp_data(precedence_rules)
	d.decision == "deny"
	d.reason == "rule"
	d.rule == h.rule(precedence_rules[2])
}

test_ask_beats_allow if {
	d := engine.decision with input as h.call("fs_write", {"paths": ["/w/a"]})
		with data.mcp_data as h.mcp_data(precedence_rules)
	d.decision == "ask"
	d.reason == "rule"
	d.rule == h.rule(precedence_rules[1])
}

test_allow if {
	d := engine.decision with input as h.call("fs_write", {"paths": ["/w/a"]})
		with data.mcp_data as h.mcp_data([precedence_rules[0]])
	d.decision == "allow"
	d.reason == "rule"
	d.rule == h.rule(precedence_rules[0])
}

test_first_rule_in_order_among_winners_is_reported if {
	rules := [
		{"tool": "fs_*", "decision": "allow", "message": "allow first"},
		{"tool": "fs_write", "decision": "deny", "message": "deny first"},
		{"tool": "*", "decision": "deny", "message": "deny second"},
		{"tool": "fs_write", "decision": "allow", "message": "allow second"},
	]
	d := engine.decision with input as h.call("fs_write", {"paths": ["/w/a"]})
		with data.mcp_data as h.mcp_data(rules)
	d.decision == "deny"
	d.rule.message == "deny first"

	a := engine.decision with input as h.call("fs_write", {"paths": ["/w/a"]})
		with data.mcp_data as h.mcp_data([rules[3], rules[0]])
	a.decision == "allow"
	a.rule.message == "allow second"
}

test_no_match if {
	rules := [{"tool": "fs_read", "decision": "allow"}, {"tool": "fs_write", "decision": "deny", "under": "/w"}]
	d := engine.decision with input as h.call("fs_write", {"paths": ["/elsewhere/a"]})
		with data.mcp_data as h.mcp_data(rules)
	d.decision == "ask"
	d.reason == "no-match"
	d.rule == null
	d.floor == false
}

test_no_rules_at_all if {
	d := engine.decision with input as h.call("anything", {}) with data.mcp_data as h.mcp_data([])
	d.decision == "ask"
	d.reason == "no-match"
}

test_tool_globs if {
	rules := [{"tool": "fs_?ead", "decision": "allow"}]
	allowed := engine.decision with input as h.call("fs_read", {}) with data.mcp_data as h.mcp_data(rules)
	allowed.decision == "allow"
	asked := engine.decision with input as h.call("fs_bread", {}) with data.mcp_data as h.mcp_data(rules)
	asked.reason == "no-match"
	prefixed := engine.decision with input as h.call("xfs_read", {}) with data.mcp_data as h.mcp_data(rules)
	prefixed.reason == "no-match"
}

# --- under -------------------------------------------------------------------

test_under_matches_only_a_call_naming_a_path if {
	rules := [{"tool": "fs_write", "decision": "allow", "under": "/w"}]
	d := engine.decision with input as h.call("fs_write", {}) with data.mcp_data as h.mcp_data(rules)
	d.reason == "no-match"
}

test_under_equal_counts_and_every_path_must_be_inside if {
	rules := [{"tool": "fs_write", "decision": "allow", "under": "/w"}]
	same := engine.decision with input as h.call("fs_write", {"paths": ["/w"]})
		with data.mcp_data as h.mcp_data(rules)
	same.decision == "allow"
	both := engine.decision with input as h.call("fs_write", {"paths": ["/w/a", "/w/b/c"]})
		with data.mcp_data as h.mcp_data(rules)
	both.decision == "allow"
	one_out := engine.decision with input as h.call("fs_write", {"paths": ["/w/a", "/var/data/x"]})
		with data.mcp_data as h.mcp_data(rules)
	one_out.reason == "no-match"
	sibling := engine.decision with input as h.call("fs_write", {"paths": ["/wx/a"]})
		with data.mcp_data as h.mcp_data(rules)
	sibling.reason == "no-match"
}

test_paths_are_cleaned_lexically if {
	rules := [{"tool": "fs_write", "decision": "allow", "under": "/w"}]
	d := engine.decision with input as h.call("fs_write", {"paths": ["/w/../var/data"]})
		with data.mcp_data as h.mcp_data(rules)
	d.reason == "no-match"
	d.paths == ["/var/data"]
}

test_relative_under_resolves_against_the_root if {
	rules := [{"tool": "fs_write", "decision": "allow", "under": "scratch"}]
	relative := engine.decision with input as h.call("fs_write", {"root": "/proj", "paths": ["scratch/a.txt"]})
		with data.mcp_data as h.mcp_data(rules)
	relative.decision == "allow"
	relative.paths == ["/proj/scratch/a.txt"]
	absolute := engine.decision with input as h.call("fs_write", {"root": "/proj", "paths": ["/proj/scratch/b"]})
		with data.mcp_data as h.mcp_data(rules)
	absolute.decision == "allow"
	outside := engine.decision with input as h.call("fs_write", {"root": "/proj", "paths": ["other/c"]})
		with data.mcp_data as h.mcp_data(rules)
	outside.reason == "no-match"
	other_root := engine.decision with input as h.call("fs_write", {"root": "/elsewhere", "paths": ["/proj/scratch/b"]})
		with data.mcp_data as h.mcp_data(rules)
	other_root.reason == "no-match"
}

test_relative_under_without_a_root_is_unevaluable if {
	rules := [{"tool": "fs_read", "decision": "allow", "under": "scratch"}]
	d := engine.decision with input as h.call("fs_read", {"annotations": h.read_only, "paths": ["/proj/scratch/a"]})
		with data.mcp_data as h.mcp_data(rules)
	d.decision == "ask"
	d.reason == "unevaluable-path"
}

# --- the two worlds ----------------------------------------------------------

test_allow_under_a_dir_and_an_unevaluable_path_asks if {
	rules := [{"tool": "fs_read", "decision": "allow", "under": "/home/u"}]
	d := engine.decision with input as h.call("fs_read", {"annotations": h.read_only, "paths": ["~/x"]})
		with data.mcp_data as h.mcp_data(rules)
	d.decision == "ask"
	d.reason == "unevaluable-path"
	d.rule == null
	d.floor == false
	d.paths == ["~/x"]
	d.suggestion == {"tool": "fs_read"}
}

test_every_unevaluable_path_form_asks if {
	rules := [{"tool": "fs_read", "decision": "allow", "under": "/"}]
	every p in ["~/x", "$HOME/x", "${HOME}/x", "C:/x", `a\b`, "//server/share/x", "", "relative"] {
		d := engine.decision with input as h.call("fs_read", {"annotations": h.read_only, "paths": [p]})
			with data.mcp_data as h.mcp_data(rules)
		d.reason == "unevaluable-path"
	}
}

test_a_path_that_is_not_a_string_asks if {
	rules := [{"tool": "fs_read", "decision": "allow", "under": "/"}]
	d := engine.decision with input as h.call("fs_read", {"annotations": h.read_only, "paths": [42]})
		with data.mcp_data as h.mcp_data(rules)
	d.reason == "unevaluable-path"
	d.paths == ["42"]
}

test_a_deny_that_might_match_beats_a_sure_allow if {
	rules := [
		{"tool": "fs_read", "decision": "allow"},
		{"tool": "fs_read", "decision": "deny", "under": "/secret"},
	]
	unknown := engine.decision with input as h.call("fs_read", {"annotations": h.read_only, "paths": ["~/x"]})
		with data.mcp_data as h.mcp_data(rules)
	unknown.decision == "ask"
	unknown.reason == "unevaluable-path"
	known := engine.decision with input as h.call("fs_read", {"annotations": h.read_only, "paths": ["/tmp/x"]})
		with data.mcp_data as h.mcp_data(rules)
	known.decision == "allow"
	known.rule == h.rule(rules[0])
}

test_a_sure_deny_stands_whatever_the_unknowns if {
	rules := [
		{"tool": "fs_read", "decision": "deny", "message": "never"},
		{"tool": "fs_read", "decision": "allow", "under": "/"},
	]
	d := engine.decision with input as h.call("fs_read", {"annotations": h.read_only, "paths": ["~/x"]})
		with data.mcp_data as h.mcp_data(rules)
	d.decision == "deny"
	d.reason == "rule"
	d.rule.message == "never"
}

test_one_path_outside_is_no_match_even_beside_an_unknown if {
	rules := [{"tool": "fs_read", "decision": "allow", "under": "/w"}]
	d := engine.decision with input as h.call("fs_read", {"annotations": h.read_only, "paths": ["/etc/x", "~/y"]})
		with data.mcp_data as h.mcp_data(rules)
	d.reason == "no-match"
}

test_an_unknown_ask_alone_is_unevaluable_not_no_match if {
	rules := [{"tool": "fs_read", "decision": "ask", "under": "/w"}]
	d := engine.decision with input as h.call("fs_read", {"annotations": h.read_only, "paths": ["~/y"]})
		with data.mcp_data as h.mcp_data(rules)
	d.decision == "ask"
	d.reason == "unevaluable-path"
}

test_a_sure_ask_is_reported_even_beside_an_unknown_ask if {
	rules := [
		{"tool": "fs_read", "decision": "ask", "under": "/w"},
		{"tool": "fs_read", "decision": "ask", "message": "always"},
	]
	d := engine.decision with input as h.call("fs_read", {"annotations": h.read_only, "paths": ["~/y"]})
		with data.mcp_data as h.mcp_data(rules)
	d.decision == "ask"
	d.reason == "rule"
	d.rule.message == "always"
}

# --- hosts -------------------------------------------------------------------

test_exact_host if {
	rules := [{"tool": "web_fetch", "decision": "allow", "host": "docs.raku.org"}]
	every u in ["https://docs.raku.org/x", "HTTP://Docs.Raku.Org.:8080/y?q=1"] {
		d := engine.decision with input as h.call("web_fetch", {"urls": [u]}) with data.mcp_data as h.mcp_data(rules)
		d.decision == "allow"
		d.hosts == ["docs.raku.org"]
	}
	every u in ["https://raku.org/", "https://a.docs.raku.org/", "https://docs.raku.org.evil.com/"] {
		d := engine.decision with input as h.call("web_fetch", {"urls": [u]}) with data.mcp_data as h.mcp_data(rules)
		d.reason == "no-match"
	}
}

test_wildcard_host_matches_subdomains_not_the_apex if {
	rules := [{"tool": "web_fetch", "decision": "allow", "host": "*.raku.org"}]
	every u in ["https://docs.raku.org/", "https://a.b.raku.org/"] {
		d := engine.decision with input as h.call("web_fetch", {"urls": [u]}) with data.mcp_data as h.mcp_data(rules)
		d.decision == "allow"
	}
	apex := engine.decision with input as h.call("web_fetch", {"urls": ["https://raku.org/"]})
		with data.mcp_data as h.mcp_data(rules)
	apex.reason == "no-match"
	lookalike := engine.decision with input as h.call("web_fetch", {"urls": ["https://notraku.org/"]})
		with data.mcp_data as h.mcp_data(rules)
	lookalike.reason == "no-match"
}

test_host_rule_needs_every_host_and_at_least_one if {
	rules := [{"tool": "web_fetch", "decision": "allow", "host": "*.raku.org"}]
	mixed := engine.decision with input as h.call("web_fetch", {"urls": ["https://docs.raku.org/", "https://evil.com/"]})
		with data.mcp_data as h.mcp_data(rules)
	mixed.reason == "no-match"
	none := engine.decision with input as h.call("web_fetch", {}) with data.mcp_data as h.mcp_data(rules)
	none.reason == "no-match"
}

test_a_url_without_an_http_host_is_unevaluable if {
	rules := [{"tool": "web_fetch", "decision": "allow", "host": "docs.raku.org"}]
	every u in ["ftp://docs.raku.org/", "not a url", "https:///nohost"] {
		d := engine.decision with input as h.call("web_fetch", {"urls": [u]}) with data.mcp_data as h.mcp_data(rules)
		d.decision == "ask"
		d.reason == "unevaluable-path"
		d.hosts == [u]
		d.suggestion == {"tool": "web_fetch"}
	}
}

test_under_and_host_must_both_hold if {
	rules := [{"tool": "fetch_to", "decision": "allow", "under": "/dl", "host": "docs.raku.org"}]
	both := engine.decision with input as h.call("fetch_to", {"paths": ["/dl/a"], "urls": ["https://docs.raku.org/a"]})
		with data.mcp_data as h.mcp_data(rules)
	both.decision == "allow"
	path_only := engine.decision with input as h.call("fetch_to", {"paths": ["/dl/a"]})
		with data.mcp_data as h.mcp_data(rules)
	path_only.reason == "no-match"
	wrong_host := engine.decision with input as h.call("fetch_to", {"paths": ["/dl/a"], "urls": ["https://x.org/"]})
		with data.mcp_data as h.mcp_data(rules)
	wrong_host.reason == "no-match"
}

# --- annotations -------------------------------------------------------------

test_annotations if {
	rules := [{"tool": "*", "decision": "allow", "annotations": {"readOnlyHint": true}}]
	yes := engine.decision with input as h.call("fs_read", {"annotations": h.read_only})
		with data.mcp_data as h.mcp_data(rules)
	yes.decision == "allow"
	every ann in [{"readOnlyHint": false}, {}, {"destructiveHint": true}] {
		d := engine.decision with input as h.call("fs_read", {"annotations": ann}) with data.mcp_data as h.mcp_data(rules)
		d.reason == "no-match"
	}
}

test_an_unknown_catalogue_never_matches_annotations if {
	rules := [{"tool": "*", "decision": "deny", "annotations": {"destructiveHint": true}}]
	d := engine.decision with input as h.call("fs_delete", {}) with data.mcp_data as h.mcp_data(rules)

	# Not matched, and not unknown either: the call is simply unmatched.
	d.reason == "no-match"
}

# --- modules in package mcp.custom -------------------------------------------

test_custom_deny_beats_a_data_allow if {
	d := engine.decision with input as h.call("fs_write", {"paths": ["/w/a"]})
		with data.mcp_data as h.mcp_data([{"tool": "fs_write", "decision": "allow"}])
		with data.mcp.custom.deny as {"no writes today"}
	d.decision == "deny"
	d.reason == "rule"
	d.rule == {"tool": "fs_write", "decision": "deny", "message": "no writes today"}
}

test_custom_entries_come_before_data_rules if {
	d := engine.decision with input as h.call("fs_write", {"paths": ["/w/a"]})
		with data.mcp_data as h.mcp_data([{"tool": "fs_write", "decision": "deny", "message": "data"}])
		with data.mcp.custom.deny as {{"message": "custom"}}
	d.rule.message == "custom"
}

test_custom_allow_and_ask if {
	allowed := engine.decision with input as h.call("fs_write", {"paths": ["/w/a"]})
		with data.mcp_data as h.mcp_data([])
		with data.mcp.custom.allow as {"fine"}
	allowed.decision == "allow"
	allowed.rule.message == "fine"
	asked := engine.decision with input as h.call("fs_write", {"paths": ["/w/a"]})
		with data.mcp_data as h.mcp_data([])
		with data.mcp.custom.allow as {"fine"}
		with data.mcp.custom.ask as {"check"}
	asked.decision == "ask"
	asked.reason == "rule"
	asked.rule.message == "check"
}

test_custom_unknown_entry_takes_part_in_the_unknown_world_only if {
	d := engine.decision with input as h.call("fs_write", {"paths": ["/w/a"]})
		with data.mcp_data as h.mcp_data([{"tool": "fs_write", "decision": "allow"}])
		with data.mcp.custom.deny as {{"message": "maybe", "status": "unknown"}}
	d.decision == "ask"
	d.reason == "unevaluable-path"
}

test_two_custom_entries_do_not_conflict if {
	d := engine.decision with input as h.call("fs_write", {"paths": ["/w/a"]})
		with data.mcp_data as h.mcp_data([])
		with data.mcp.custom.deny as {"one", "two"}
	d.decision == "deny"
	d.rule.message in {"one", "two"}
}

# --- the floor in the engine -------------------------------------------------

test_the_floor_comes_first_in_order if {
	d := engine.decision with input as h.call("fs_write", {"paths": ["/w/x"]})
		with data.mcp_data as h.mcp_data([{"tool": "fs_write", "decision": "ask", "message": "data"}])
		with data.mcp.floor.ask as {"floor says"}
	d.decision == "ask"
	d.reason == "floor"
	d.rule == {"tool": "fs_write", "decision": "ask", "message": "floor says"}
	d.floor == true
}

test_a_deny_beats_the_floor_ask if {
	d := engine.decision with input as h.call("fs_write", {"paths": ["/w/.git/config"]})
		with data.mcp_data as h.mcp_data([{"tool": "fs_write", "decision": "deny", "message": "data"}])
	d.decision == "deny"
	d.reason == "rule"

	# The floor still took part.
	d.floor == true
}

test_floor_deny_entries if {
	d := engine.decision with input as h.call("fs_write", {"paths": ["/w/x"]})
		with data.mcp_data as h.mcp_data([{"tool": "fs_write", "decision": "deny", "message": "data"}])
		with data.mcp.floor.deny as {"floor denies"}
	d.decision == "deny"
	d.reason == "floor"
	d.rule.message == "floor denies"
}

test_two_floor_asks_do_not_conflict if {
	d := engine.decision with input as h.call("fs_write", {"paths": ["/r/.git/config", "/r/.ssh/id_rsa"]})
		with data.mcp_data as h.mcp_data([{"tool": "*", "decision": "allow"}])
	d.decision == "ask"
	d.reason == "floor"
}

# --- what is shown -----------------------------------------------------------

test_the_decision_document if {
	c := {"root": "/r", "paths": ["a", "~/b", 7], "urls": ["https://X.org/", 8]}
	d := engine.decision with input as h.call("fs_write", c) with data.mcp_data as h.mcp_data([])
	object.keys(d) == {"decision", "reason", "rule", "paths", "hosts", "suggestion", "floor", "might"}
	d.paths == ["/r/a", "~/b", "7"]
	d.hosts == ["x.org", "8"]
}

# "might" is the decision where every unknown matches: a deny that might
# apply, which no allow grant may then answer.
test_might_is_the_decision_where_unknowns_match if {
	rules := [{"tool": "*", "decision": "deny", "under": "/srv/secret"}]
	maybe := engine.decision with input as h.call("t", {"paths": ["~/x"]}) with data.mcp_data as h.mcp_data(rules)
	maybe.reason == "unevaluable-path"
	maybe.might == "deny"
	sure := engine.decision with input as h.call("t", {"paths": ["/srv/other"]}) with data.mcp_data as h.mcp_data(rules)
	sure.might == null
}

# --- the suggestion ----------------------------------------------------------

# Each case: the call (for tool "t") and the suggestion for it.
suggestion_cases := [
	# The deepest directory containing every path's parent, as wide as "/".
	[{"paths": ["/w/a/x.txt"]}, {"tool": "t", "under": "/w/a"}],
	[{"paths": ["/w/a/x.txt", "/w/b/y.txt"]}, {"tool": "t", "under": "/w"}],
	[{"paths": ["/w/a/x.txt", "/w/a/b/y.txt"]}, {"tool": "t", "under": "/w/a"}],
	[{"paths": ["/etc/x", "/w/y"]}, {"tool": "t", "under": "/"}],
	[{"paths": ["/x"]}, {"tool": "t", "under": "/"}],
	[{"paths": ["/"]}, {"tool": "t", "under": "/"}],
	[{"root": "/r", "paths": ["sub/f"]}, {"tool": "t", "under": "/r/sub"}],
	# Both a directory and a host: both (see rule_dims_test.rego).
	[{"paths": ["/w/a/x"], "urls": ["https://docs.raku.org/"]}, {"tool": "t", "under": "/w/a", "host": "docs.raku.org"}],
	# No path: the one host, else the bare tool.
	[{"urls": ["https://docs.raku.org/a", "http://DOCS.raku.org:80/b"]}, {"tool": "t", "host": "docs.raku.org"}],
	[{"urls": ["https://docs.raku.org/", "https://raku.org/"]}, {"tool": "t"}],
	# Nothing named, or anything unknown: the bare tool.
	[{}, {"tool": "t"}],
	[{"paths": ["/w/a", "~/b"]}, {"tool": "t"}],
	[{"paths": ["relative"]}, {"tool": "t"}],
	[{"paths": ["/w/a"], "urls": ["not a url"]}, {"tool": "t"}],
	[{"urls": ["https://docs.raku.org/", "ftp://x/"]}, {"tool": "t"}],
]

test_suggestions if {
	every case in suggestion_cases {
		d := engine.decision with input as h.call("t", case[0]) with data.mcp_data as h.mcp_data([])
		d.suggestion == case[1]
	}
}

test_module_entry_status_takes_builtin_words if {
	d := engine.decision with input as h.call("fs_write", {"paths": ["/w/a"]})
		with data.mcp_data as h.mcp_data([])
		with data.mcp.custom.allow as {{"message": "in /w", "status": mcp.path.within_all("/w", ["/w/a"])}}
	d.decision == "allow"
	d.reason == "rule"
}

test_module_entry_that_says_outside_does_not_count if {
	d := engine.decision with input as h.call("fs_write", {"paths": ["/x/a"]})
		with data.mcp_data as h.mcp_data([])
		with data.mcp.custom.deny as {{"message": "in /w", "status": mcp.path.within_all("/w", ["/x/a"])}}
	d.reason == "no-match"
}

# --- hand-written documents ---------------------------------------------------

# A rule written by hand in data may name its directory as a person would;
# it means the clean directory.
test_an_unclean_under_is_its_clean_directory if {
	rules := [{"tool": "fs_write", "decision": "allow", "under": "/w/./x/"}]
	d := engine.decision with input as h.call("fs_write", {"paths": ["/w/x/a"]})
		with data.mcp_data as h.mcp_data(rules)
	d.decision == "allow"
}

# An input written by hand may hold a path that was never resolved. An
# absolute one means its clean self ("/w/../etc" is not inside /w); any
# other is nowhere known, so nothing is allowed on it.
hand_written(p) := object.union(h.call("fs_write", {}), {"paths": [{"arg": "path", "raw": p, "path": p}]})

test_an_unclean_input_path_is_its_clean_self if {
	rules := [{"tool": "fs_write", "decision": "allow", "under": "/w"}]
	inside := engine.decision with input as hand_written("/w/x/../a") with data.mcp_data as h.mcp_data(rules)
	inside.decision == "allow"
	outside := engine.decision with input as hand_written("/w/../var/data") with data.mcp_data as h.mcp_data(rules)
	outside.reason == "no-match"
}

test_a_relative_input_path_is_unknown if {
	rules := [{"tool": "fs_write", "decision": "allow", "under": "/w"}]
	every p in ["rel/a", "~/a", "w/a"] {
		d := engine.decision with input as hand_written(p) with data.mcp_data as h.mcp_data(rules)
		d.decision == "ask"
		d.reason == "unevaluable-path"
	}
}

test_an_unevaluable_under_fails_the_decision if {
	rules := [{"tool": "fs_write", "decision": "allow", "under": "~/w"}]
	not engine.decision with input as h.call("fs_write", {"paths": ["/w/a"]})
		with data.mcp_data as h.mcp_data(rules)
}
