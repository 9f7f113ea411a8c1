package mcp.floor_test

import data.mcp.engine
import data.mcp.floor as danger
import data.mcp.helpers_test as h

# --- commands ---------------------------------------------------------------

# The reader gives a command's program as its base name in lower case.
program(line) := lower(regex.replace(split(line, " ")[0], `^.*/`, ""))

command_call(line, paths) := object.union(
	h.call("run_command", {"paths": paths}),
	{"commands": [{
		"arg": "command", "words": split(line, " "), "program": program(line),
		"unknown": false, "paths": paths,
	}]},
)

test_a_command_as_another_user_is_asked if {
	lines := [
		"sudo apt-get install jq", "/usr/bin/SUDO ls", "doas cat x", "su -c id root",
		"gosu app id", "su-exec app ls", "chpst -u app ls",
	]
	every line in lines {
		asks := danger.ask with input as command_call(line, ["/r"])
			with data.mcp_data as h.mcp_data_with([], ["/r"], [])
		some e in asks
		contains(e, "as another user")
	}
}

test_a_recursive_delete_of_a_tree_or_home_is_asked if {
	trees := [
		["rm -rf /", "/"], ["rm -r /home/u", "/home/u"],
		["chmod -R 777 /r", "/r"], ["chown --recursive u /root", "/root"],
		["rm --rec /home/u", "/home/u"], ["chmod --recur 777 /r", "/r"],
	]
	every c in trees {
		asks := danger.ask with input as command_call(c[0], [c[1]])
			with data.mcp_data as h.mcp_data_with([], ["/r"], [])
		some e in asks
		contains(e, "whole tree or a home directory")
	}
}

test_find_asks_when_it_deletes_a_tree if {
	every c in [["find /r -delete", "/r"], ["find /home/u -name x -delete", "/home/u"]] {
		asks := danger.ask with input as command_call(c[0], [c[1]])
			with data.mcp_data as h.mcp_data_with([], ["/r"], [])
		some e in asks
		contains(e, "whole tree or a home directory")
	}
}

test_find_that_only_walks_a_tree_is_not_asked if {
	walks := ["find /r -type f -print", "find /r -user bob", "find /r -newer /r/go.mod", "find /r -name x -printf %p"]
	every line in walks {
		asks := danger.ask with input as command_call(line, ["/r"])
			with data.mcp_data as h.mcp_data_with([], ["/r"], [])
		every e in asks {
			not contains(e, "whole tree")
		}
	}
}

test_ordinary_commands_are_not_asked if {
	ordinary := [
		["rm -rf build", "/r/build"], ["chmod +x /r/run.sh", "/r/run.sh"],
		["git status", "/r"], ["rm /home/u/x", "/home/u/x"],
	]
	every c in ordinary {
		d := engine.decision with input as command_call(c[0], [c[1]])
			with data.mcp_data as h.mcp_data_with(allow_all, ["/r"], [])
		d.decision == "allow"
		d.floor == false
	}
}

test_a_command_that_changes_the_system_is_asked if {
	every line in [
		"systemctl --user enable x.service", "npm i -g x", "cargo install x", "usermod -aG docker u",
		"mkfs.ext4 /dev/sdb", "docker run --privileged alpine", "docker run --pid=host alpine", "/sbin/reboot",
	] {
		asks := danger.ask with input as command_call(line, ["/r"])
			with data.mcp_data as h.mcp_data_with([], ["/r"], [])
		some e in asks
		contains(e, "changes the system itself")
	}
}

test_a_service_changed_is_asked_and_one_reported_on_is_not if {
	changes := [
		"systemctl restart nginx", "systemctl daemon-reload",
		"service nginx restart", "systemctl --user disable x",
	]
	every line in changes {
		asks := danger.ask with input as command_call(line, ["/r"])
			with data.mcp_data as h.mcp_data_with([], ["/r"], [])
		some e in asks
		contains(e, "changes the system itself")
	}
	reports := [
		"systemctl status nginx", "systemctl list-units --failed", "systemctl is-active x",
		"service nginx status", "systemctl",
	]
	every line in reports {
		asks := danger.ask with input as command_call(line, ["/r"])
			with data.mcp_data as h.mcp_data_with([], ["/r"], [])
		every e in asks {
			not contains(e, "changes the system itself")
		}
	}
}

test_global_and_system_installs_are_asked if {
	lines := [
		"pip install --user x", "uv pip install --system x", "yarn global add x", "composer global require x",
		"dotnet tool install -g x", "deno install -g x", "pipx install x", "apt-get install jq", "brew install jq",
		"dpkg -i x.deb", "npm i -gD x",
	]
	every line in lines {
		asks := danger.ask with input as command_call(line, ["/r"])
			with data.mcp_data as h.mcp_data_with([], ["/r"], [])
		some e in asks
		contains(e, "changes the system itself")
	}
}

test_a_tree_emptied_or_moved_away_is_asked if {
	every c in [["rsync -a --delete /tmp/empty/ /home/u/", "/home/u"], ["mv /home/u /tmp/x", "/home/u"]] {
		asks := danger.ask with input as command_call(c[0], [c[1]])
			with data.mcp_data as h.mcp_data_with([], ["/r"], [])
		some e in asks
		contains(e, "whole tree or a home directory")
	}
}

test_ordinary_installs_are_not_asked_as_system_changes if {
	ordinary := [
		"npm install x", "npm i", "cargo build", "go build ./...", "docker run --rm alpine ls", "pip install x",
		"yarn add x", "apt list --installed", "brew list", "rsync -a src/ dst/",
	]
	every line in ordinary {
		asks := danger.ask with input as command_call(line, ["/r"])
			with data.mcp_data as h.mcp_data_with([], ["/r"], [])
		every e in asks {
			not contains(e, "changes the system itself")
		}
	}
}

test_a_command_that_prints_or_stores_credentials_is_asked if {
	plain := command_call("gh auth token", ["/r"])
	marked := object.union(plain.commands[0], {"credentials": true})
	c := object.union(plain, {"commands": [marked]})
	asks := danger.ask with input as c
		with data.mcp_data as h.mcp_data_with([], ["/r"], [])
	some e in asks
	contains(e, "credentials")
}

test_a_container_given_a_home_or_the_host_is_asked if {
	every c in [
		["docker run --privileged=true alpine id", ["/r"]],
		["docker run -v /home/u:/h alpine sh", ["/home/u"]],
		["podman run --volume=/:/host alpine sh", ["/"]],
	] {
		asks := danger.ask with input as command_call(c[0], c[1])
			with data.mcp_data as h.mcp_data_with([], ["/r"], [])
		some e in asks
		contains(e, "changes the system")
	}
}

test_a_container_given_the_project_is_not_asked if {
	asks := danger.ask with input as command_call("docker run -v /r:/app node npm test", ["/r"])
		with data.mcp_data as h.mcp_data_with([], ["/r"], [])
	every e in asks {
		not contains(e, "changes the system")
	}
}

# --- trees read whole ---------------------------------------------------------

tree_call(tool, p, annotations) := {
	"tool": tool, "root": null, "annotations": annotations, "arguments": {}, "hosts": [],
	"paths": [{"arg": "path", "raw": p, "path": p, "tree": true}],
}

test_a_tree_read_where_secrets_live_is_asked_even_of_a_read_only_tool if {
	every p in ["/home/u", "/home/u/.config", "/", "/etc", "/proc", "/proc/self", "/root", "/Users/u"] {
		asks := danger.ask with input as tree_call("grep_search", p, h.read_only)
			with data.mcp_data as h.mcp_data_with([], ["/r"], [])
		some e in asks
		contains(e, "reads every file under")
	}
}

test_a_tree_read_of_a_project_is_not_asked if {
	every p in ["/r", "/r/src", "/home/u/proj", "/tmp/x", "/srv"] {
		asks := danger.ask with input as tree_call("grep_search", p, h.read_only)
			with data.mcp_data as h.mcp_data_with([], ["/r"], [])
		every e in asks {
			not contains(e, "reads every file under")
		}
	}
}

test_a_named_path_without_the_tree_mark_is_not_read_as_a_tree if {
	c := h.call("grep_search", {"paths": ["/home/u"], "annotations": h.read_only})
	asks := danger.ask with input as c with data.mcp_data as h.mcp_data_with([], ["/r"], [])
	every e in asks {
		not contains(e, "reads every file under")
	}
}

test_find_and_fd_that_remove_what_they_find_under_a_home_are_asked if {
	every c in [["find /home/u -exec rm {} +", "/home/u"], ["fd -H . /home/u -x rm", "/home/u"]] {
		asks := danger.ask with input as command_call(c[0], [c[1]])
			with data.mcp_data as h.mcp_data_with([], ["/r"], [])
		some e in asks
		contains(e, "whole tree or a home directory")
	}
}

test_a_pattern_the_reader_marks_secret_is_asked_even_of_a_read_only_tool if {
	c := {
		"tool": "read_file", "root": null, "annotations": h.read_only, "arguments": {}, "hosts": [],
		"paths": [{"arg": "path", "raw": "/home/u/.ssh/*", "path": null, "secret": true}],
	}
	asks := danger.ask with input as c with data.mcp_data as h.mcp_data_with([], ["/r"], [])
	some e in asks
	contains(e, "names files holding secrets")
}

test_a_command_that_only_names_the_root_is_not_asked if {
	every line in ["ls /", "df -h /", "stat /"] {
		asks := danger.ask with input as command_call(line, ["/"])
			with data.mcp_data as h.mcp_data_with([], ["/r"], [])
		count(asks) == 0
	}
}

test_a_change_of_mode_or_owner_of_a_tree_or_home_is_asked_recursive_or_not if {
	every c in [["chmod 000 /", "/"], ["chown u /home/u", "/home/u"]] {
		asks := danger.ask with input as command_call(c[0], [c[1]])
			with data.mcp_data as h.mcp_data_with([], ["/r"], [])
		some e in asks
		contains(e, "whole tree or a home directory")
	}
}

# What outlives the call (lasting_words), and the same programs' ordinary
# work, which is no question.
test_what_outlives_the_call_is_asked if {
	every line in [
		"docker run -d --restart=always alpine", "docker run --restart unless-stopped pg", "pm2 startup",
		"loginctl enable-linger", "xdg-mime default x.desktop text/html", "nvm install 20",
		"gcloud components install beta", "vagrant plugin install x", "bun pm trust --all", "pyenv install 3.12",
		"nix profile install nixpkgs#hello",
	] {
		asks := danger.ask with input as command_call(line, ["/r"])
			with data.mcp_data as h.mcp_data_with([], ["/r"], [])
		some e in asks
		contains(e, "changes the system itself")
	}
	every line in [
		"docker run --rm alpine", "docker run --restart no alpine", "pm2 list", "nvm use 20", "gcloud components list",
		"vagrant up", "bun install", "pyenv local 3.12",
	] {
		asks := danger.ask with input as command_call(line, ["/r"])
			with data.mcp_data as h.mcp_data_with([], ["/r"], [])
		every e in asks {
			not contains(e, "changes the system itself")
		}
	}
}

# Every program with entries is in lasting_programs, which the direct
# path's refuter reads.
test_lasting_programs_are_the_entries if {
	{split(e, " ")[0] | some e in (danger.lasting_one | danger.lasting_two)} == danger.lasting_programs
}
