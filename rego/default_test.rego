package mcp.defaults_test

import data.mcp.defaults
import data.mcp.engine
import data.mcp.helpers_test as h

test_the_default_rules if {
	defaults.rules == [
		{"tool": "*", "decision": "allow", "annotations": {"readOnlyHint": true}, "under": "/"},
		{"tool": "user_ask", "decision": "allow"},
		{"tool": "*_user_ask", "decision": "allow"},
		{"tool": "prompts/get", "decision": "allow"},
		{"tool": "completion/complete", "decision": "allow"},
	]
}

test_a_read_only_tool_may_read_local_paths if {
	every p in ["/etc/hosts", "/", "/home/u/README.md"] {
		d := engine.decision with input as h.call("fs_read", {"annotations": h.read_only, "paths": [p]})
			with data.mcp_data as h.mcp_data(defaults.rules)
		d.decision == "allow"
		d.reason == "rule"
		d.rule == h.rule(defaults.rules[0])
	}
	c := {"annotations": h.read_only, "root": "/r", "paths": ["a/b"]}
	relative := engine.decision with input as h.call("fs_read", c)
		with data.mcp_data as h.mcp_data(defaults.rules)
	relative.decision == "allow"
}

test_a_read_only_tool_naming_no_path_is_asked if {
	no_path := engine.decision with input as h.call("web_fetch", {"annotations": h.read_only, "urls": ["https://x.org/"]})
		with data.mcp_data as h.mcp_data(defaults.rules)
	no_path.decision == "ask"
	no_path.reason == "no-match"
	decoy := engine.decision with input as h.call("fetch", {
		"annotations": h.read_only, "paths": ["/tmp"],
		"urls": ["http://10.0.0.5/admin/"],
	})
		with data.mcp_data as h.mcp_data(defaults.rules)
	decoy.decision == "ask"
	decoy.reason == "no-match"
	nothing := engine.decision with input as h.call("clock", {"annotations": h.read_only})
		with data.mcp_data as h.mcp_data(defaults.rules)
	nothing.reason == "no-match"
}

test_a_read_only_tool_on_an_unevaluable_path_is_asked if {
	d := engine.decision with input as h.call("fs_read", {"annotations": h.read_only, "paths": ["~/notes"]})
		with data.mcp_data as h.mcp_data(defaults.rules)
	d.decision == "ask"
	d.reason == "unevaluable-path"
}

test_other_tools_are_asked if {
	every ann in [null, {}, {"readOnlyHint": false}, h.harmless] {
		d := engine.decision with input as h.call("fs_read", {"annotations": ann, "paths": ["/srv/notes.md"]})
			with data.mcp_data as h.mcp_data(defaults.rules)
		d.decision == "ask"
		d.reason == "no-match"
	}
}

test_asking_the_user_is_allowed if {
	every tool in ["user_ask", "srv_user_ask", "a_b_user_ask"] {
		d := engine.decision with input as h.call(tool, {})
			with data.mcp_data as h.mcp_data(defaults.rules)
		d.decision == "allow"
		d.reason == "rule"
	}
	every tool in ["user_ask_more", "xuser_ask", "user_asks"] {
		d := engine.decision with input as h.call(tool, {})
			with data.mcp_data as h.mcp_data(defaults.rules)
		d.reason == "no-match"
	}
}

test_prompts_and_completions_are_allowed_unless_a_rule_says_otherwise if {
	every tool in ["prompts/get", "completion/complete"] {
		d := engine.decision with input as h.call(tool, {"annotations": h.read_only, "urls": ["https://x.org/"]})
			with data.mcp_data as h.mcp_data(defaults.rules)
		d.decision == "allow"
		d.reason == "rule"
		deny_secret := [{"tool": "*", "decision": "deny", "under": "/srv/secret"}]
		denied := engine.decision with input as h.call(tool, {"annotations": h.read_only, "paths": ["/srv/secret/a"]})
			with data.mcp_data as h.mcp_data(array.concat(defaults.rules, deny_secret))
		denied.decision == "deny"
	}
	other := engine.decision with input as h.call("prompts/list", {})
		with data.mcp_data as h.mcp_data(defaults.rules)
	other.reason == "no-match"
}

test_a_resource_read_is_a_read_only_read if {
	local := engine.decision with input as h.call("resources/read", {"annotations": h.read_only, "paths": ["/srv/a.md"]})
		with data.mcp_data as h.mcp_data(defaults.rules)
	local.decision == "allow"
	remote_call := h.call("resources/read", {"annotations": h.read_only, "urls": ["https://x.org/a"]})
	remote := engine.decision with input as remote_call
		with data.mcp_data as h.mcp_data(defaults.rules)
	remote.decision == "ask"
	remote.reason == "no-match"
}
