# METADATA
# title: Default rules
# description: |
#   The rules policy.DefaultRules returns and policy-eval decide loads unless
#   told not to: reads by tools their server marks read-only, on local paths,
#   the tools that exist to ask the human something, and the MCP requests
#   for a prompt and for completions.
package mcp.defaults

rules := [
	# A read-only tool may read anywhere the server lets it; the server's
	# sandbox is the hard boundary. A call naming no path (a web fetch) is
	# not a local read and is asked, and so is one naming a URL or host
	# beside its paths: this rule says nothing of hosts.
	{"tool": "*", "decision": "allow", "annotations": {"readOnlyHint": true}, "under": "/"},
	# Asking the user is what the policy would do anyway.
	{"tool": "user_ask", "decision": "allow"},
	{"tool": "*_user_ask", "decision": "allow"},
	# The proxy decides an MCP host's prompts/get and completion/complete as
	# calls to tools named so. They read nothing of the machine's: MCP has
	# the human pick a prompt and fill in its arguments, and the host asks
	# for completions as they type, where a question would stand between
	# every key and the next, and a host that cannot ask would lose its
	# prompts. A deny or ask rule still decides them (deny and ask beat
	# allow). resources/read is a read-only tool's read: on local paths
	# (file: URIs) the first rule allows it, on any other URI it is asked.
	{"tool": "prompts/get", "decision": "allow"},
	{"tool": "completion/complete", "decision": "allow"},
]
