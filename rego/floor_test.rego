package mcp.floor_test

import data.mcp.engine
import data.mcp.floor as danger
import data.mcp.helpers_test as h

# A data rule allowing everything: whatever the floor asks, no rule lowers.
allow_all := [{"tool": "*", "decision": "allow"}]

sensitive_paths := [
	"/r/.git/config",
	"/r/.git",
	"/r/sub/.git/hooks/pre-commit",
	"/home/u/.ssh/authorized_keys",
	"/home/u/.ssh",
	"/home/u/.bashrc",
	"/home/u/.bash_profile",
	"/home/u/.profile",
	"/home/u/.zshrc",
	"/home/u/.zshenv",
	"/home/u/.config/fish/config.fish",
	"/app/.env",
	"/app/.env.local",
	"/app/.envrc",
	"/r/.GIT/config",
	"/home/u/.BashRC",
	"/home/u/.bashrc.d/x",
	"/home/u/.gitconfig",
	"/home/u/.aws/credentials",
	"/etc/profile.d/evil.sh",
	"/r/.vscode/settings.json",
	"/r/.claude/settings.json",
	"/r/.mcp.json",
	"/home/u/.s\u200csh/config",
	"/home/u/.config/FISH/conf.d/x.fish",
	"/r/.github/workflows/ci.yml",
	"/r/.gitlab-ci.yml",
	"/r/Jenkinsfile",
	"/r/.circleci/config.yml",
	"/usr/bin/python3",
	"/bin/sh",
	"/lib64/ld-linux-x86-64.so.2",
	"/etc/ld.so.preload",
	"/etc/udev/rules.d/99-x.rules",
	"/proc/sys/kernel/core_pattern",
	"/var/run/systemd/transient/x.service",
	"/private/var/root/.npmrc",
]

ordinary_paths := [
	"/r/.gitignore",
	"/r/.github/dependabot.yml",
	"/r/.env.example",
	"/r/package.json",
	"/r/Makefile",
	"/r/Dockerfile",
	"/r/templates/ci.yml",
	"/r/x.git/objects/ab",
	"/home/u/bashrc",
	"/r/.bashrc.bak",
	"/r/.vscode/launch.json",
	"/r/etc/profile.d/x.sh",
	"/app/env",
	"/app/my.env.example",
	"/app/.env.d/x",
]

test_sensitive_paths_are_asked_for_a_tool_not_marked_read_only if {
	every p in sensitive_paths {
		every ann in [null, {}, {"readOnlyHint": false}, h.harmless] {
			d := engine.decision with input as h.call("fs_write", {"annotations": ann, "paths": [p]})
				with data.mcp_data as h.mcp_data(allow_all)
			d.decision == "ask"
			d.reason == "floor"
			d.floor == true
			d.rule.tool == "fs_write"
			contains(d.rule.message, p)
		}
	}
}

test_sensitive_paths_that_hold_no_secret_are_not_asked_for_a_read_only_tool if {
	no_secret := [p | some p in sensitive_paths; mcp.path.secret(p) == null]
	count(no_secret) > 10
	every p in no_secret {
		d := engine.decision with input as h.call("fs_read", {"annotations": h.read_only, "paths": [p]})
			with data.mcp_data as h.mcp_data(allow_all)
		d.decision == "allow"
		d.reason == "rule"
		d.floor == false
	}
}

# A read-only tool that writes a file its arguments name (a screenshot's
# or a log's filename) is asked about the files that run code, as any
# writer is; the same paths read are not.
test_a_sensitive_path_a_read_only_tool_writes_is_asked if {
	no_secret := [p | some p in sensitive_paths; mcp.path.secret(p) == null]
	count(no_secret) > 10
	every p in no_secret {
		read := h.call("browser_take_screenshot", {"annotations": h.read_only, "paths": [p]})
		written := object.union(read, {"paths": [object.union(read.paths[0], {"written": true})]})
		d := engine.decision with input as written with data.mcp_data as h.mcp_data(allow_all)
		d.decision == "ask"
		d.reason == "floor"
		contains(d.rule.message, "writes")
	}
}

# A file that runs code when changed, which a command line only reads
# (cat, grep: "read": true), is no question; the same path without the
# mark, or one that holds a secret, is asked.
test_a_sensitive_path_a_command_only_reads_is_not_asked if {
	no_secret := [p | some p in sensitive_paths; mcp.path.secret(p) == null]
	every p in no_secret {
		touched := h.call("run_command", {"paths": [p]})
		t := engine.decision with input as touched with data.mcp_data as h.mcp_data(allow_all)
		t.reason == "floor"
		read := object.union(touched, {"paths": [object.union(touched.paths[0], {"read": true})]})
		d := engine.decision with input as read with data.mcp_data as h.mcp_data(allow_all)
		d.decision == "allow"
	}
	secrets := [p | some p in sensitive_paths; mcp.path.secret(p) != null]
	count(secrets) > 3
	every p in secrets {
		touched := h.call("run_command", {"paths": [p]})
		read := object.union(touched, {"paths": [object.union(touched.paths[0], {"read": true})]})
		d := engine.decision with input as read with data.mcp_data as h.mcp_data(allow_all)
		d.reason == "floor"
	}
}

secret_paths := [
	"/home/u/.ssh/id_rsa",
	"/home/u/.ssh",
	"/tmp/id_ed25519",
	"/srv/app/.env",
	"/srv/app/.env.local",
	"/home/u/.aws/credentials",
	"/home/u/.config/gcloud/application_default_credentials.json",
	"/home/u/.kube/config",
	"/home/u/.netrc",
	"/home/u/.git-credentials",
	"/home/u/.docker/config.json",
	"/home/u/.npmrc",
	"/srv/app/tls/server.key",
	"/home/u/.bash_history",
	"/home/u/.local/share/fish/fish_history",
	"/home/u/.password-store/bank.gpg",
	"/home/u/.mozilla/firefox/x.default/cookies.sqlite",
	"/etc/shadow",
	"/proc/self/environ",
	"/proc/1/task/1/environ",
	"/Users/u/Library/Keychains/login.keychain-db",
	"/HOME/U/.SSH/ID_RSA",
]

not_secret_paths := [
	"/srv/app/.env.example",
	"/srv/app/.npmrc",
	"/srv/app/tls/server.crt",
	"/srv/app/ssh/notes.md",
	"/srv/app/src/history.ts",
	"/srv/app/keys.md",
	"/etc/passwd",
	"/proc/self/status",
]

test_secrets_are_asked_on_a_read if {
	every p in secret_paths {
		d := engine.decision with input as h.call("fs_read", {"annotations": h.read_only, "paths": [p]})
			with data.mcp_data as h.mcp_data(allow_all)
		d.decision == "ask"
		d.reason == "floor"
		d.floor == true
		contains(d.rule.message, "reads or touches")
	}
}

test_secrets_are_asked_whatever_the_tool_claims if {
	every hints in [h.read_only, {"readOnlyHint": true, "openWorldHint": false}, h.harmless, {}] {
		c := {"annotations": hints, "paths": ["/home/user/.ssh/id_ed25519"]}
		d := engine.decision with input as h.call("firecrawl_parse", c)
			with data.mcp_data as h.mcp_data(allow_all)
		d.decision == "ask"
		d.floor == true
	}
}

test_a_secret_spelt_so_it_cannot_be_evaluated_is_asked if {
	every raw in ["~/.ssh/id_rsa", "$HOME/.env", "../../.aws/credentials", "~user/.netrc"] {
		d := engine.decision with input as h.call("fs_read", {"annotations": h.read_only, "paths": [raw]})
			with data.mcp_data as h.mcp_data(allow_all)
		d.decision == "ask"
		d.reason == "floor"
		contains(d.rule.message, raw)
	}
}

test_harmless_reads_are_not_asked if {
	every p in not_secret_paths {
		d := engine.decision with input as h.call("fs_read", {"annotations": h.read_only, "paths": [p]})
			with data.mcp_data as h.mcp_data(allow_all)
		d.decision == "allow"
		d.floor == false
	}
}

test_ordinary_paths_are_not_asked if {
	every p in ordinary_paths {
		d := engine.decision with input as h.call("fs_write", {"annotations": h.harmless, "paths": [p]})
			with data.mcp_data as h.mcp_data(allow_all)
		d.decision == "allow"
		d.floor == false
	}
}

test_one_sensitive_path_among_others_is_enough if {
	c := {"annotations": h.harmless, "paths": ["/r/a", "/r/.git/HEAD", "/r/b"]}
	d := engine.decision with input as h.call("fs_write", c)
		with data.mcp_data as h.mcp_data(allow_all)
	d.reason == "floor"
}

test_a_relative_path_is_checked_once_resolved if {
	c := {"annotations": h.harmless, "root": "/r", "paths": [".git/config"]}
	d := engine.decision with input as h.call("fs_write", c)
		with data.mcp_data as h.mcp_data(allow_all)
	d.reason == "floor"
	d.paths == ["/r/.git/config"]
}

test_a_data_rule_cannot_lower_the_floor if {
	rules := [{"tool": "fs_write", "decision": "allow", "under": "/r"}]
	d := engine.decision with input as h.call("fs_write", {"paths": ["/r/.git/config"]})
		with data.mcp_data as h.mcp_data(rules)
	d.decision == "ask"
	d.reason == "floor"
}

# --- destructive tools on a whole tree ----------------------------------------

roots_data := h.mcp_data_with(allow_all, ["/proj", "/srv/data"], [])

test_a_destructive_tool_on_a_root_or_slash_is_asked if {
	every p in ["/proj", "/proj/", "/srv/data", "/", "/proj/sub/.."] {
		every ann in [null, {}, {"destructiveHint": true}] {
			d := engine.decision with input as h.call("fs_delete", {"annotations": ann, "paths": [p]})
				with data.mcp_data as roots_data
			d.decision == "ask"
			d.reason == "floor"
			contains(d.rule.message, "whole tree")
		}
	}
}

# Tools whose names delete, move or empty what they name, in each spelling
# a server writes a name in.
test_a_tree_tool_on_a_root_is_asked if {
	every tool in [
		"delete_file", "deleteFile", "DeleteFile", "fs_rm", "rmdir", "RMDir", "remove-directory", "move_file", "moveFile",
		"rename", "git_clean", "wipe_workspace", "purge_cache", "empty_directory", "clear_dir", "fs.trash", "MV",
	] {
		d := engine.decision with input as h.call(tool, {"annotations": destroys, "paths": ["/proj"]})
			with data.mcp_data as roots_data
		d.decision == "ask"
		d.reason == "floor"
	}
}

# A destructive tool that is no tree tool, on its own root: reference
# mcp-server-git's git_reset (destructive, it unstages; repo_path is the
# root), a container build with context ".", a formatter run on the tree.
test_a_destructive_tool_that_takes_no_tree_is_not_asked_on_a_root if {
	every tool in [
		"git_reset", "gitReset", "docker_build", "build_image", "git_checkout", "git_restore", "run_formatter",
		"deleted_items_report", "removal_notes", "remover",
	] {
		every ann in [null, {}, destroys] {
			d := engine.decision with input as h.call(tool, {"annotations": ann, "root": "/proj", "paths": ["."]})
				with data.mcp_data as roots_data
			d.decision == "allow"
			d.floor == false
		}
	}
}

# Above every root, and "/", any destructive tool asks: no tool's own work
# is there.
test_a_destructive_tool_above_a_root_is_asked_whatever_its_name if {
	every p in ["/", "/srv", "/SRV"] {
		every tool in ["git_reset", "docker_build"] {
			d := engine.decision with input as h.call(tool, {"annotations": destroys, "paths": [p]})
				with data.mcp_data as roots_data
			d.decision == "ask"
			d.reason == "floor"
			contains(d.rule.message, "a whole tree or one holding a root")
		}
	}
	harmless := engine.decision with input as h.call("git_reset", {"annotations": h.harmless, "paths": ["/srv"]})
		with data.mcp_data as roots_data
	harmless.decision == "allow"
}

# A working directory beside the path a tool acts on is where it acts
# from: the path is judged, not the directory (mcp-cli's deleteFile). Alone,
# or beside a path that is the tree itself, it is asked.
test_a_working_directory_beside_the_path_is_not_the_tree_destroyed if {
	base := h.call("deleteFile", {"annotations": destroys})
	wd := {"arg": "workingDirectory", "raw": "/proj", "path": "/proj"}
	file := {"arg": "path", "raw": "src/x.ts", "path": "/proj/src/x.ts"}
	beside := engine.decision with input as object.union(base, {"paths": [file, wd]})
		with data.mcp_data as roots_data
	beside.decision == "allow"
	every name in ["cwd", "working_directory", "workDir", "workingDirectory"] {
		alone := engine.decision with input as object.union(base, {"paths": [object.union(wd, {"arg": name})]})
			with data.mcp_data as roots_data
		alone.reason == "floor"
	}
	dot := {"arg": "path", "raw": ".", "path": "/proj"}
	tree := engine.decision with input as object.union(base, {"paths": [dot, wd]})
		with data.mcp_data as roots_data
	tree.reason == "floor"
}

# A root that is also above another root is a root: its own tools'
# ordinary work names it.
test_a_root_above_a_root_is_a_root if {
	nested := h.mcp_data_with(allow_all, ["/srv", "/srv/app"], [])
	reset := engine.decision with input as h.call("git_reset", {"annotations": destroys, "paths": ["/srv"]})
		with data.mcp_data as nested
	reset.decision == "allow"
	delete := engine.decision with input as h.call("fs_delete", {"annotations": destroys, "paths": ["/srv"]})
		with data.mcp_data as nested
	delete.reason == "floor"
	slash := engine.decision with input as h.call("git_reset", {"annotations": destroys, "paths": ["/"]})
		with data.mcp_data as h.mcp_data_with(allow_all, ["/"], [])
	slash.decision == "allow"
}

test_a_relative_dot_is_the_root if {
	d := engine.decision with input as h.call("fs_delete", {"root": "/proj", "paths": ["."]})
		with data.mcp_data as roots_data
	d.reason == "floor"
}

test_inside_a_root_is_not_a_whole_tree if {
	d := engine.decision with input as h.call("fs_delete", {"paths": ["/proj/sub"]})
		with data.mcp_data as roots_data
	d.decision == "allow"
}

test_a_root_is_not_asked_for_a_tool_marked_not_destructive_or_read_only if {
	every ann in [h.harmless, h.read_only] {
		d := engine.decision with input as h.call("fs_list", {"annotations": ann, "paths": ["/proj"]})
			with data.mcp_data as roots_data
		d.decision == "allow"
	}
}

# --- the policy's own files ------------------------------------------------

protected_data := h.mcp_data_with(allow_all, [], ["/srv/mcp/rules.json", "/srv/mcp/policies"])

test_the_policy_files_are_asked if {
	every p in ["/srv/mcp/rules.json", "/srv/mcp/policies", "/srv/mcp/policies/team.rego"] {
		d := engine.decision with input as h.call("fs_write", {"annotations": h.harmless, "paths": [p]})
			with data.mcp_data as protected_data
		d.decision == "ask"
		d.reason == "floor"
		contains(d.rule.message, "own rules or grants")
	}
}

test_the_policy_files_are_asked_on_a_read if {
	every p in ["/srv/mcp/rules.json", "/srv/mcp/policies/team.rego"] {
		d := engine.decision with input as h.call("fs_read", {"annotations": h.read_only, "paths": [p]})
			with data.mcp_data as protected_data
		d.decision == "ask"
		d.reason == "floor"
		contains(d.rule.message, "would read the policy's own")
	}
	d := engine.decision with input as h.call("fs_read", {"annotations": h.read_only, "paths": ["/srv/mcp/other.json"]})
		with data.mcp_data as protected_data
	d.decision == "allow"
}

test_beside_the_policy_files_is_not_asked if {
	every p in ["/srv/mcp/rules.json.bak", "/srv/mcp/other.json", "/srv/mcpx"] {
		d := engine.decision with input as h.call("fs_write", {"annotations": h.harmless, "paths": [p]})
			with data.mcp_data as protected_data
		d.decision == "allow"
	}
}

# --- paths that cannot be checked -------------------------------------------

test_an_unevaluable_path_might_be_sensitive if {
	d := engine.decision with input as h.call("fs_write", {"annotations": h.harmless, "paths": ["~/.bashrc"]})
		with data.mcp_data as h.mcp_data(allow_all)

	# The data rule allows surely; the floor might ask: the worlds disagree.
	d.decision == "ask"
	d.reason == "unevaluable-path"
	d.floor == true
}

test_an_unevaluable_path_is_no_concern_of_the_floor_for_a_read_only_tool if {
	d := engine.decision with input as h.call("fs_read", {"annotations": h.read_only, "paths": ["~/.bashrc"]})
		with data.mcp_data as h.mcp_data(allow_all)
	d.decision == "allow"
	d.floor == false
}

test_the_unknown_entry_is_marked_unknown if {
	asks := danger.ask with input as h.call("fs_write", {"paths": ["~/x"]}) with data.mcp_data as h.mcp_data([])
	count(asks) == 1
	some e in asks
	e.status == "unknown"
	contains(e.message, "~/x")
}

# --- the floor's own entries ------------------------------------------------

test_floor_entries_name_the_tool_and_path if {
	asks := danger.ask with input as h.call("fs_write", {"paths": ["/r/.git/config", "/r/.env"]})
		with data.mcp_data as h.mcp_data([])
	asks == {
		"'fs_write' touches /r/.git/config, version control configuration, which always needs a human's approval",
		"'fs_write' touches /r/.env, an environment file, which always needs a human's approval",
		"'fs_write' reads or touches /r/.env, an environment file, which always needs a human's approval",
	}
}

test_no_floor_entries_for_an_ordinary_call if {
	asks := danger.ask with input as h.call("fs_write", {"paths": ["/r/a"], "urls": ["https://x.org/"]})
		with data.mcp_data as h.mcp_data([])
	asks == set()
}

test_a_call_without_paths_is_no_concern_of_the_floor if {
	d := engine.decision with input as h.call("web_fetch", {"urls": ["https://x.org/.git/config"]})
		with data.mcp_data as h.mcp_data(allow_all)
	d.decision == "allow"
	d.floor == false
}

destroys := {"destructiveHint": true}

test_a_directory_holding_the_policy_files_is_asked if {
	d := engine.decision with input as h.call("fs_delete", {"paths": ["/srv/mcp"], "annotations": destroys})
		with data.mcp_data as protected_data
	d.decision == "ask"
	d.reason == "floor"
}

# A move that is not destructive (destructiveHint false) takes the files
# with it just the same.
test_a_directory_holding_the_policy_files_is_asked_for_any_change if {
	d := engine.decision with input as h.call("fs_move", {"paths": ["/srv/mcp", "/tmp/away"], "annotations": h.harmless})
		with data.mcp_data as protected_data
	d.decision == "ask"
	d.reason == "floor"
}

# Case and Unicode forms of the policy's files are the files.
test_the_policy_files_are_asked_folded if {
	every p in ["/SRV/MCP/rules.json", "/srv/mcp/Rules.JSON", "/srv/Mcp"] {
		d := engine.decision with input as h.call("fs_write", {"annotations": h.harmless, "paths": [p]})
			with data.mcp_data as protected_data
		d.reason == "floor"
	}
}

app_data := h.mcp_data_with(allow_all, ["/srv/app"], [])

delete_in_app(p) := h.call("fs_delete", {"root": "/srv/app", "paths": [p], "annotations": destroys})

# An ancestor of a root holds the root: deleting it deletes the root.
test_a_destructive_tool_on_an_ancestor_of_a_root_is_asked if {
	every p in ["/srv", "/srv/app", "/SRV/APP", ".."] {
		d := engine.decision with input as delete_in_app(p) with data.mcp_data as app_data
		d.decision == "ask"
		d.reason == "floor"
	}
	inside := engine.decision with input as delete_in_app("old") with data.mcp_data as app_data
	inside.decision == "allow"
	beside := engine.decision with input as delete_in_app("/srv/other") with data.mcp_data as app_data
	beside.decision == "allow"
}

test_a_sibling_of_the_policy_files_is_not_asked if {
	d := engine.decision with input as h.call("fs_delete", {"paths": ["/srv/other"], "annotations": destroys})
		with data.mcp_data as protected_data
	d.decision == "allow"
}

test_a_cloud_metadata_service_is_asked if {
	every host in ["169.254.169.254", "169.254.170.2", "[fd00:ec2::254]", "100.100.100.200"] {
		hosts := {"hosts": [{"arg": "url", "raw": host, "host": host}]}
		asks := danger.ask with input as object.union(h.call("query", {}), hosts)
			with data.mcp_data as h.mcp_data_with([], ["/r"], [])
		some e in asks
		contains(e, "metadata service")
	}
}

# A host that cannot be read is asked about when a lenient client may make
# the metadata address of it; what else it might be asks nothing here.
test_a_host_that_might_be_a_metadata_service_is_asked if {
	raw := "http://%31%36%39.254.169.254/latest/meta-data/"
	hosts := {"hosts": [{"arg": "url", "raw": raw, "host": null, "might": ["169.254.169.254"]}]}
	d := engine.decision with input as object.union(h.call("fetch", {}), hosts)
		with data.mcp_data as h.mcp_data(allow_all)
	d.decision == "ask"
	d.reason == "floor"
	contains(d.rule.message, "metadata service")

	other := {"hosts": [{"arg": "url", "raw": "http:docs.example.com/", "host": null, "might": ["docs.example.com"]}]}
	asks := danger.ask with input as object.union(h.call("fetch", {}), other)
		with data.mcp_data as h.mcp_data(allow_all)
	every e in asks {
		not contains(e, "metadata service")
	}
}

test_other_link_local_hosts_are_not_the_metadata_service if {
	hosts := {"hosts": [{"arg": "url", "raw": "169.254.1.1", "host": "169.254.1.1"}]}
	asks := danger.ask with input as object.union(h.call("query", {}), hosts)
		with data.mcp_data as h.mcp_data_with([], ["/r"], [])
	every e in asks {
		not contains(e, "metadata service")
	}
}

# --- writes outside the roots ------------------------------------------------

system_writes := [
	"/etc/supervisor/conf.d/x.conf", "/usr/share/bash-completion/completions/git", "/var/lib/dpkg/info/bash.postinst",
	"/home/u/.cache/p10k-instant-prompt-u.zsh", "/home/u/.config/helix/languages.toml", "/Users/u/.wasmer/wasmer.sh",
	"/root/.local/share/jupyter/kernels/python3/kernel.json", "/home/u/miniconda3/etc/profile.d/conda.sh",
	"/proc/sysrq-trigger",
]

test_a_write_into_the_system_or_a_homes_hidden_files_outside_the_roots_is_asked if {
	every p in system_writes {
		d := engine.decision with input as write_of(p) with data.mcp_data as h.mcp_data_with(allow_all, ["/r"], [])
		d.reason == "floor"
	}
}

test_a_root_covers_its_writes_but_a_home_root_not_its_hidden_files if {
	inside := engine.decision with input as write_of("/home/u/.dotfiles/zshrc.local")
		with data.mcp_data as h.mcp_data_with(allow_all, ["/home/u/.dotfiles"], [])
	inside.decision == "allow"
	home := engine.decision with input as write_of("/home/u/.cache/x")
		with data.mcp_data as h.mcp_data_with(allow_all, ["/home/u"], [])
	home.reason == "floor"
	project := engine.decision with input as write_of("/home/u/app/.cache/x")
		with data.mcp_data as h.mcp_data_with(allow_all, ["/home/u/app"], [])
	project.decision == "allow"
}

write_of(p) := h.call("write_file", {"annotations": h.harmless, "paths": [p]})

# A tool whose name does not say it writes (an sftp read, a vector store's
# upsert) is no writer of what it names; a read is no write.
test_a_read_of_the_system_is_not_asked if {
	every tool in ["sftp_read_file", "upsert_records", "list_dir"] {
		d := engine.decision with input as h.call(tool, {"annotations": h.harmless, "paths": ["/etc/nginx/nginx.conf"]})
			with data.mcp_data as h.mcp_data_with(allow_all, ["/r"], [])
		d.decision == "allow"
	}
}

# A command line's paths are asked only where it writes them.
test_a_command_writes_what_it_marks_written if {
	read := command_call("cat /etc/os-release", ["/etc/os-release"])
	d := engine.decision with input as read with data.mcp_data as h.mcp_data_with(allow_all, ["/r"], [])
	d.decision == "allow"
	written := object.union(read, {"paths": [{"arg": "command", "raw": "/etc/x", "path": "/etc/x", "written": true}]})
	w := engine.decision with input as written with data.mcp_data as h.mcp_data_with(allow_all, ["/r"], [])
	w.reason == "floor"
}
