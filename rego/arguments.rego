# METADATA
# title: Argument specs of the reference MCP servers
# description: |
#   How the official reference servers' tools name paths and URLs, beyond
#   what the engine reads by default (see the README's "Paths and URLs in a
#   call"): rules.ServerArguments returns them, and policy-eval decide and
#   mcp-policy proxy take them with --arguments NAME. Each entry is an
#   ArgumentSpec: the tools it is for (a glob), and which argument names
#   hold paths, directories the tool acts on, URLs, paths relative to
#   another argument, or nothing to check. Surveyed from the servers'
#   sources (modelcontextprotocol/servers, src/*).
package mcp.arguments

servers := {
	# @modelcontextprotocol/server-filesystem: paths are "path", "paths",
	# "source" and "destination", read by default. The directory tools act
	# on their path itself; search and tree patterns are globs under it.
	"filesystem": [
		{"tool": "list_directory", "directories": ["path"]},
		{"tool": "list_directory_with_sizes", "directories": ["path"]},
		{"tool": "directory_tree", "directories": ["path"], "ignore": ["excludePatterns"]},
		{"tool": "create_directory", "directories": ["path"]},
		{"tool": "search_files", "directories": ["path"], "ignore": ["pattern", "excludePatterns"]},
	],
	# mcp-server-git: every tool works in repo_path; git_add's files are
	# relative to it; target, revisions and branch names are git refs.
	"git": [{
		"tool": "git_*",
		"directories": ["repo_path"],
		"relative": {"files": "repo_path"},
		"ignore": [
			"target", "branch_name", "base_branch", "revision", "contains", "not_contains",
			"branch_type", "start_timestamp", "end_timestamp",
		],
	}],
	# mcp-server-fetch: one URL.
	"fetch": [{"tool": "fetch", "urls": ["url"]}],
	# @modelcontextprotocol/server-memory: no argument is a path or URL;
	# "from" and "to" are entity names.
	"memory": [
		{"tool": "create_entities", "ignore": ["name", "entityType", "observations"]},
		{"tool": "create_relations", "ignore": ["from", "to", "relationType"]},
		{"tool": "add_observations", "ignore": ["entityName", "contents"]},
		{"tool": "delete_entities", "ignore": ["entityNames"]},
		{"tool": "delete_observations", "ignore": ["entityName", "observations"]},
		{"tool": "delete_relations", "ignore": ["from", "to", "relationType"]},
		{"tool": "search_nodes", "ignore": ["query"]},
		{"tool": "open_nodes", "ignore": ["names"]},
	],
}
