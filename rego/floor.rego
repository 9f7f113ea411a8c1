# METADATA
# title: Danger floor
# description: |
#   Asks that no data rule and no grant can lower. A security team may
#   replace this module with one of its own in the same package; an
#   application's rules cannot remove it.
package mcp.floor

# Paths whose change runs code or leaks access: anything in .git/ or .ssh/,
# shell start-up files, .env files. Matched on the lower-cased path, since
# some file systems fold case.
sensitive := concat("|", [
	`(^|/)(\.git|\.ssh)(/|$)`,
	`/(\.bashrc|\.bash_profile|\.bash_login|\.bash_logout|\.profile)$`,
	`/(\.zshrc|\.zprofile|\.zshenv|\.zlogin|\.zlogout)$`,
	`/(\.cshrc|\.tcshrc|\.kshrc|\.inputrc|config\.fish)$`,
	`/\.env[^/]*$`,
])

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
	regex.match(sensitive, lower(p.path))
}

ask contains sprintf("'%s' would change the policy's own rules or grants (%s)", [input.tool, p.path]) if {
	not read_only
	some p in input.paths
	some f in data.mcp_data.protected
	mcp.path.within(f, p.path) == "inside"
}

# Deleting or moving a directory takes the policy's own files with it.
ask contains sprintf("'%s' would change %s, which holds the policy's own rules or grants", [input.tool, p.path]) if {
	destructive
	some p in input.paths
	some f in data.mcp_data.protected
	mcp.path.within(p.path, f) == "inside"
	p.path != f
}

# A path that cannot be evaluated might be any of the above.
ask contains {
	"message": sprintf("'%s' names a path that cannot be checked: %v", [input.tool, p.raw]),
	"status": "unknown",
} if {
	not read_only
	some p in input.paths
	p.path == null
}

ask contains sprintf("'%s' is destructive and names %s, a whole tree", [input.tool, p.path]) if {
	destructive
	some p in input.paths
	is_root(p.path)
}

is_root("/")

is_root(p) if p in data.mcp_data.roots
