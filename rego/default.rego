# METADATA
# title: Default rules
# description: |
#   The rules policy.DefaultRules returns and policy-eval decide loads unless
#   told not to: reads by tools their server marks read-only, on local paths,
#   and the tools that exist to ask the human something.
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
]
