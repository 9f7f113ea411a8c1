# METADATA
# title: Argument specs of the reference MCP servers
# description: |
#   How popular MCP servers' tools name paths and URLs, beyond what the
#   engine reads by default (docs/arguments.md): rules.ServerArguments
#   returns them, and policy-eval decide and mcp-policy proxy take them
#   with --arguments NAME. Each entry is an ArgumentSpec: the tools it is
#   for (a glob), and which argument names hold local paths, directories
#   the tool acts on, URLs the server fetches, paths relative to another
#   argument, text that is none of these (a path inside a remote
#   repository, a Kubernetes name, a query), or names to ignore but for
#   options. Within a server's list a later entry wins for a name, so the
#   catch-all "*" entries come first. Surveyed from each server's source
#   and its tools/list: the reference servers (modelcontextprotocol/
#   servers), github/github-mcp-server, zereight/gitlab-mcp,
#   microsoft/playwright-mcp, the archived puppeteer and google-maps
#   servers, ckreiling/mcp-server-docker, containers/kubernetes-mcp-server,
#   Flux159/mcp-server-kubernetes and sooperset/mcp-atlassian.
package mcp.arguments

servers := {
	# @modelcontextprotocol/server-filesystem: paths are "path", "paths",
	# "source" and "destination" (move_file's, whatever they read as). The
	# directory tools act on their path itself; search and tree patterns
	# are globs under it.
	"filesystem": [
		{"tool": "move_file", "paths": ["source", "destination"]},
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
	# github/github-mcp-server: every tool goes to GitHub's API. "path",
	# "files" and "filename" are in the remote repository or gist, refs
	# may read "HEAD~3" or "alice:branch"; nothing is local.
	"github": [{"tool": "*", "text": [
		"owner", "repo", "path", "ref", "sha", "branch", "base", "head", "from_branch", "base_ref",
		"tree_sha", "tag", "path_filter", "filename", "files", "resource_id",
	]}],
	# zereight/gitlab-mcp: file_path, path and the refs are in the remote
	# project (project_id may be "group/sub/project"), target_url and
	# external_url are URLs GitLab stores, not ones this server fetches;
	# upload_markdown reads a local file_path, and the download tools
	# write to local_path.
	"gitlab": [
		{"tool": "*", "text": [
			"project_id", "file_path", "previous_path", "path", "artifact_path", "direct_asset_path", "file_paths",
			"ref", "source_branch", "target_branch", "from", "to", "excluded_file_patterns", "filename",
			"target_url", "external_url",
		]},
		{"tool": "upload_markdown", "paths": ["file_path"]},
		{"tool": "download_attachment", "directories": ["local_path"]},
		{"tool": "download_job_artifacts", "directories": ["local_path"]},
	],
	# microsoft/playwright-mcp: "target" is an element reference ("e42")
	# or a selector, route patterns and filters are globs and regular
	# expressions, cookie path and domain are cookie attributes; the local
	# files are the uploads and the files a tool writes or reads by name
	# (relative to its output directory).
	"playwright": [
		{"tool": "browser_*", "text": [
			"element", "target", "startTarget", "endTarget", "startElement", "endElement", "ref", "fields",
			"pattern", "filter", "regex", "path", "domain", "location", "key", "values",
		]},
		{"tool": "browser_file_upload", "paths": ["paths"]},
		{"tool": "browser_drop", "paths": ["paths"], "text": ["data"]},
		{"tool": "browser_navigate", "urls": ["url"]},
		{"tool": "browser_tabs", "urls": ["url"]},
		{"tool": "browser_take_screenshot", "writes": ["filename"]},
		{"tool": "browser_snapshot", "writes": ["filename"]},
		{"tool": "browser_pdf_save", "writes": ["filename"]},
		{"tool": "browser_console_messages", "writes": ["filename"]},
		{"tool": "browser_network_request*", "writes": ["filename"]},
		{"tool": "browser_evaluate", "writes": ["filename"]},
		{"tool": "browser_find", "writes": ["filename"]},
		{"tool": "browser_storage_state", "writes": ["filename"]},
		{"tool": "browser_set_storage_state", "paths": ["filename"]},
		{"tool": "browser_start_video", "writes": ["filename"]},
		{"tool": "browser_run_code_unsafe", "paths": ["filename"]},
	],
	# The archived puppeteer server: a screenshot's "name" is a resource's
	# name, not a file.
	"puppeteer": [
		{"tool": "puppeteer_*", "text": ["name", "selector"]},
		{"tool": "puppeteer_navigate", "urls": ["url"]},
	],
	# The archived google-maps server: places are addresses, "lat,lng" or
	# "place_id:..."; it only calls Google's API.
	"google-maps": [{"tool": "maps_*", "text": map_places}],
	# ckreiling/mcp-server-docker: build_image's path is the local build
	# context; images and repositories are read by their shape (a registry
	# at an address, "10.0.0.1:5000/x", is a host the daemon reaches); a
	# container's environment, entrypoint, command and ports are the
	# container's. Volumes are left to the default reading: a host path in
	# them is read as an unknown path.
	"docker": [
		{
			"tool": "*",
			"text": [
				"tag", "container_id", "network_id", "volume_name", "name",
				"environment", "ports", "labels",
			],
			"contained": ["entrypoint", "command"],
		},
		{"tool": "build_image", "directories": ["path"], "relative": {"dockerfile": "path"}},
	],
	# containers/kubernetes-mcp-server: names, API versions ("apps/v1"),
	# selectors and a pod's command are the cluster's, not local. A helm
	# chart may be a local directory ("./charts/web"), a repository's
	# chart ("bitnami/nginx") or a URL ("oci://..."): a path, and a URL's
	# host.
	"kubernetes": [
		{
			"tool": "*",
			"text": [
				"name", "namespace", "apiVersion", "kind", "labelSelector", "fieldSelector", "label_selector",
				"container", "image",
			],
			"contained": ["command"],
		},
		{"tool": "helm_install", "paths": ["chart"]},
	],
	# Flux159/mcp-server-kubernetes: manifests are read from local files;
	# output is kubectl's -o, a format (json, wide), not a file.
	"kubernetes-flux159": [
		{"tool": "*", "text": [
			"resourceType", "resourceName", "name", "namespace", "context", "labelSelector", "fieldSelector",
			"nodeName", "output",
		]},
		{"tool": "exec_in_pod", "contained": ["command"]},
		# kubectl_generic's command and subCommand are kubectl's words,
		# read with its other fields as one kubectl command.
		{"tool": "kubectl_generic", "text": ["command", "subCommand"]},
		{"tool": "kubectl_apply", "paths": ["filename"]},
		{"tool": "kubectl_create", "paths": ["filename", "fromFile"]},
		{"tool": "kubectl_delete", "paths": ["filename"]},
		{"tool": "kubectl_patch", "paths": ["patchFile"]},
		{"tool": "install_helm_chart", "paths": ["valuesFile", "chart"], "urls": ["repo"]},
		{"tool": "upgrade_helm_chart", "paths": ["valuesFile", "chart"], "urls": ["repo"]},
	],
	# sooperset/mcp-atlassian: keys, ids and JQL/CQL are Jira's and
	# Confluence's; content_file and file_path are read from local disk. A
	# remote link's url is stored, not fetched.
	"atlassian": [
		{"tool": "*", "text": [
			"jql", "cql", "issue_key", "project_key", "page_id", "space_key", "title", "url", "icon_url",
			"attachment_id", "content_id", "parent_id",
		]},
		{"tool": "confluence_create_page", "paths": ["content_file"]},
		{"tool": "confluence_update_page", "paths": ["content_file"]},
		{"tool": "confluence_upload_attachment", "paths": ["file_path"]},
	],
	# The time server: IANA zones ("America/Argentina/Buenos_Aires") read
	# like relative paths.
	"time": [{"tool": "*", "text": ["timezone", "source_timezone", "target_timezone", "time"]}],
	# The sqlite and postgres servers: their SQL is read as SQL (a file an
	# ATTACH or a COPY names is a path); a table's name is a name.
	"sqlite": [{"tool": "*", "text": ["table_name"]}],
	"postgres": [{"tool": "*", "text": ["table_name"]}],
	# Slack: channels, users and timestamps.
	"slack": [{"tool": "*", "text": ["channel_id", "thread_ts", "timestamp", "user_id"]}],
}

# The places a map tool takes: addresses, "lat,lng" or "place_id:...".
map_places := ["address", "origin", "destination", "origins", "destinations", "place_id", "location", "locations"]

# The servers whose specs the proxy applies by the name they give in
# initialize (serverInfo.name), when --arguments names none: the names the
# servers gave a real initialize, or set in their source.
server_names := {
	"secure-filesystem-server": "filesystem",
	"mcp-git": "git",
	"mcp-fetch": "fetch",
	"memory-server": "memory",
	"mcp-time": "time",
	"github-mcp-server": "github",
	"zereight-gitlab-mcp-server": "gitlab",
	"Playwright": "playwright",
	"example-servers/puppeteer": "puppeteer",
	"mcp-server/google-maps": "google-maps",
	"example-servers/postgres": "postgres",
	"Slack MCP Server": "slack",
}
