# METADATA
# title: Danger floor
# description: |
#   Asks that no data rule and no grant can lower. A security team may
#   replace this module with one of its own in the same package; an
#   application's rules cannot remove it.
#
#   The floor runs on every call, so each rule's body starts with the test
#   that most calls fail, and tests the tool's hints last: a negation is
#   among the dearest things to evaluate. The exception is the sensitive
#   path rule, whose type test and pattern cost many negations: it asks
#   first whether the tool is read-only, which most calls (reads) are.
package mcp.floor

# Paths whose change runs code or leaks access, matched case-blind (some
# file systems fold case):
#   - anything in a .git/ or .ssh/ directory;
#   - shell start-up files: .bashrc .bash_profile .bash_login .bash_logout
#     .profile .zshrc .zprofile .zshenv .zlogin .zlogout .cshrc .tcshrc
#     .kshrc .inputrc config.fish;
#   - .env files (.env, .env.local, ...).
# One literal pattern: OPA compiles a constant once, a computed one (concat)
# costs microseconds on every call. It starts with "/" (a resolved path is
# absolute) so that Go's matcher only tries it at each "/", and folds case
# itself rather than through lower(), which copies the path.
# regal ignore:line-length
sensitive := `(?i)/(\.(git|ssh)(/|$)|\.(bashrc|bash_profile|bash_login|bash_logout|profile|zshrc|zprofile|zshenv|zlogin|zlogout|cshrc|tcshrc|kshrc|inputrc|env[^/]*)$|config\.fish$)`

read_only if input.annotations.readOnlyHint == true

# A tool is destructive unless its server says otherwise: an unknown
# catalogue is destructive, as is MCP's own default.
destructive if {
	not read_only
	not input.annotations.destructiveHint == false
}

ask contains sprintf("'%s' touches %s, which always needs a human's approval", [input.tool, p.path]) if {
	not read_only
	some p in input.paths
	is_string(p.path)
	regex.match(sensitive, p.path)
}

ask contains sprintf("'%s' would change the policy's own rules or grants (%s)", [input.tool, p.path]) if {
	some f in data.mcp_data.protected
	some p in input.paths
	mcp.path.within(f, p.path) == "inside"
	not read_only
}

# Deleting or moving a directory takes the policy's own files with it.
ask contains sprintf("'%s' would change %s, which holds the policy's own rules or grants", [input.tool, p.path]) if {
	some f in data.mcp_data.protected
	some p in input.paths
	mcp.path.within(p.path, f) == "inside"
	p.path != f
	destructive
}

# A path that cannot be evaluated might be any of the above.
ask contains {
	"message": sprintf("'%s' names a path that cannot be checked: %v", [input.tool, p.raw]),
	"status": "unknown",
} if {
	some p in input.paths
	p.path == null
	not read_only
}

ask contains sprintf("'%s' is destructive and names %s, a whole tree", [input.tool, p.path]) if {
	some p in input.paths
	p.path in whole_trees
	destructive
}

# "/" and every tool's root: one set, so the test above is one lookup.
whole_trees := {"/"} | {r | some r in data.mcp_data.roots}
