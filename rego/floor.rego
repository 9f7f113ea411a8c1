# METADATA
# title: Danger floor
# description: |
#   Asks that no data rule and no allow grant can lower. A security team may
#   replace this module with one of its own in the same package; an
#   application's rules cannot remove it.
#
#   Paths are compared folded (case-folded, NFC, the characters HFS+
#   ignores removed), as every deny and ask is: "/home/u/.SSH/x" and
#   ".g\u200cit" are what a folding file system makes of them.
#
#   The floor runs on every call, so each rule's body starts with the test
#   that most calls fail, and tests the tool's hints last: a negation is
#   among the dearest things to evaluate. The exception is the sensitive
#   path rule, which asks first whether the tool is read-only, which most
#   calls (reads) are.
package mcp.floor

read_only if input.annotations.readOnlyHint == true

# A tool is destructive unless its server says otherwise: an unknown
# catalogue is destructive, as is MCP's own default.
destructive if {
	not read_only
	not input.annotations.destructiveHint == false
}

# Files whose change runs code (at login, at a shell's or a program's
# start, on a schedule) or redirects or leaks access (credentials, package
# sources, an AI agent's own permissions and MCP servers): .git/, .ssh/,
# shell start-up files, .env files and the rest of the table in
# docs/floor.md, which is the list mcp.path.sensitive looks paths up in.
#
# A file a command line only reads (cat, grep, wc: "read": true) is no
# change: the CI workflow read by grep is not asked about, a secret is
# (below).
ask contains sprintf("'%s' touches %s, %s, which always needs a human's approval", [input.tool, p.path, entry.why]) if {
	not read_only
	some p in input.paths
	entry := mcp.path.sensitive(p.path) # null for any other path, which the next line refutes at once
	entry != null
	not p.read == true
}

# The same files written by a tool that calls itself read-only: a path its
# arguments say it writes (a screenshot's or a PDF's filename, an
# outputPath) is a write whatever the tool's hints say, and a screenshot
# saved over ~/.bashrc runs at the next shell's start.
ask contains sprintf("'%s' writes %s, %s, which always needs a human's approval", [input.tool, p.path, entry.why]) if {
	input.annotations.readOnlyHint == true # a tool that is not is asked by the rule above
	some p in input.paths
	p.written == true # an equality, which the direct path's refuter reads: most paths have no mark
	entry := mcp.path.sensitive(p.path) # null for any other path: entry.why is then undefined
}

# A write outside every root into the system's own directories, /proc or
# /sys, or a home's hidden files (mcp.path.system_write): what is written
# there runs for every user, every shell or every program of a kind, and
# no list names all of it. A file tool's paths are what it writes; a
# command line's, those it writes (a redirection, cp, tee, sed -i, touch,
# rm, chmod): reading /etc/os-release is no question.
#
# Two rules, each made of tests the direct path's refuter reads up to the
# one most calls fail, so that a command line naming /etc or /usr to read
# is not handed to the evaluator for them: a path the line writes, and a
# file tool whose name says it writes.
ask contains sprintf(system_write_message, [input.tool, p.path, entry.why]) if {
	some p in input.paths
	p.written == true # an equality, which the direct path's refuter reads: most paths have no mark
	entry := mcp.path.system_write(p.path) # null for most paths, which the next line refutes at once
	entry != null
	not in_a_root(p.path)
}

ask contains sprintf(system_write_message, [input.tool, p.path, entry.why]) if {
	mcp.tool.writes(input.tool) == true # a builtin the refuter reads: most tools' names say no such thing
	some p in input.paths
	entry := mcp.path.system_write(p.path) # null for most paths, which the next line refutes at once
	entry != null
	not read_only
	not input.commands
	not in_a_root(p.path)
}

# Files that hold secrets (keys, credentials, .env files, password stores,
# histories: the secrets table in docs/floor.md), on any read as on any
# change, by any tool: a secret read into the model's context can leave
# through any later call, and a tool's read-only mark is its server's
# claim (a "read-only" parser may upload what it reads).
ask contains sprintf(secret_message, [input.tool, p.path, entry.why]) if {
	some p in input.paths
	entry := mcp.path.secret(p.path) # null for any other path: entry.why is then undefined
}

# A path that cannot be evaluated but names a secret however it resolves:
# "~/.ssh/id_rsa", "$HOME/.env", "../../.aws/credentials". Read as if it
# stood at "/", its names are matched as a known path's are, so an entry
# that matches anywhere matches it wherever "~" or "$HOME" leads.
ask contains sprintf(secret_message, [input.tool, p.raw, entry.why]) if {
	some p in input.paths
	p.path == null
	is_string(p.raw)
	count(p.raw) <= 4096 # longer, no file system's path: not copied to be read
	names := trim_left(regex.replace(trim_space(p.raw), `^(~[^/]*|\$\{?HOME\}?)`, ""), "/")
	entry := mcp.path.secret(concat("", ["/", names]))
}

# An unknown path that names a secret however it is read (a glob, ~/**,
# a Windows path): the reader marks it "secret": true.
ask contains sprintf(secret_message, [input.tool, p.raw, secret_pattern_why]) if {
	some p in input.paths
	p.secret == true # an equality, which the direct path's refuter reads
}

# A tree read whole (grep -r, tar c, cp -r, a search of contents) where
# secrets live (mcp.path.secret_tree), by any tool, as a secret's read is.
ask contains sprintf(tree_read_message, [input.tool, p.path, entry.why]) if {
	some p in input.paths
	p.tree == true # an equality, which the direct path's refuter reads: most paths have no mark
	entry := mcp.path.secret_tree(p.path) # null for any other directory: entry.why is then undefined
}

# The policy's own files, read: the grants say what is allowed, and the
# approvals queue holds the questions a human answers.
ask contains sprintf("'%s' would read the policy's own rules, grants or questions (%s)", [input.tool, p.path]) if {
	read_only
	some f in data.mcp_data.protected
	some p in input.paths
	mcp.path.within_folded(f, p.path) == "inside"
}

# The policy's own rules and grants files, and anything else the
# application protects.
ask contains sprintf("'%s' would change the policy's own rules or grants (%s)", [input.tool, p.path]) if {
	some f in data.mcp_data.protected
	some p in input.paths
	mcp.path.within_folded(f, p.path) == "inside"
	not read_only
}

# A tree read whole (grep -r, tar c, a search of contents) that holds the
# policy's files reads them, as naming them does.
ask contains sprintf("'%s' would read the policy's own rules, grants or questions (%s)", [input.tool, p.path]) if {
	count(holds_protected) > 0 # known before any call: with no protected files, the rule is gone
	some p in input.paths
	p.tree == true # an equality, which the direct path's refuter reads: most paths have no mark
	mcp.path.fold(p.path) in holds_protected
}

# What a command writes into a directory that holds the policy's files
# (an archive extracted there, git checkout of it from another commit)
# may be those files.
ask contains sprintf("'%s' would change %s, which holds the policy's own rules or grants", [input.tool, p.path]) if {
	count(holds_protected) > 0
	some p in input.paths
	p.written == true # an equality, which the direct path's refuter reads: most paths have no mark
	mcp.path.fold(p.path) in holds_protected
}

# Moving, deleting or renaming a directory takes the policy's files with
# it, destructive or not: the next start would find no grants, and every
# always-deny would be lost.
ask contains sprintf("'%s' would change %s, which holds the policy's own rules or grants", [input.tool, p.path]) if {
	count(holds_protected) > 0 # known before any call: with no protected files, the rule is gone
	some p in input.paths
	mcp.path.fold(p.path) in holds_protected
	not read_only
	not input.commands # a command line's: by the command that names it (below); ls / changes nothing
}

ask contains sprintf("'%s' would change %s, which holds the policy's own rules or grants", [input.tool, p]) if {
	count(holds_protected) > 0
	some c in input.commands
	c.program in changes_what_a_directory_holds
	some p in c.paths
	mcp.path.fold(p) in holds_protected
}

# A command run as another user (sudo, su, doas, pkexec, run0): whatever
# it names, it reaches with another's rights. A command's "program" is its
# base name in lower case ("/usr/bin/SUDO" is sudo); each rule tests it
# first, which nearly every command fails.
ask contains sprintf("'%s' runs a command as another user: %s", [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program in privileged_programs
}

# capsh --user=NAME runs its command as that user.
ask contains sprintf("'%s' runs a command as another user: %s", [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program == "capsh"
	some w in c.words
	startswith(w, "--user")
}

# A recursive delete, or a recursive change of mode or owner, of a whole
# tree (a root, "/", a directory above a root) or a home directory that
# the command itself names. GNU's option parser takes any unambiguous
# start of a long option: "--r" and "--re" are rm's --recursive.
ask contains sprintf(tree_message, [input.tool, concat(" ", c.words), p]) if {
	some c in input.commands
	c.program in tree_programs
	some flag in c.words
	regex.match(`^(-[A-Za-z]*[rR][A-Za-z]*|--r(e(c(u(r(s(i(ve?)?)?)?)?)?)?)?)$`, flag)
	some p in c.paths
	f := mcp.path.fold(p)
	is_string(f)
	tree_or_home(f)
}

# A command naming / or a directory above a root, but to read or list it
# (tar -C /, unzip -d /, a restore, a trash; not ls / or df -h /).
ask contains sprintf(tree_destroy_message, [input.tool, p]) if {
	some c in input.commands
	some p in c.paths
	mcp.path.fold(p) in above_roots
	not c.program in root_readers # last: the refuter reads up to here, and nearly every call fails above
}

# A change of mode or owner of a whole tree or a home, recursive or not.
ask contains sprintf(tree_message, [input.tool, concat(" ", c.words), p]) if {
	some c in input.commands
	c.program in {"chmod", "chown", "chgrp", "setfacl", "chattr"}
	some p in c.paths
	f := mcp.path.fold(p)
	is_string(f)
	tree_or_home(f)
}

# rsync --delete empties what it syncs into of everything else; mv
# takes a whole tree or home away.
ask contains sprintf(tree_message, [input.tool, concat(" ", c.words), p]) if {
	some c in input.commands
	c.program in {"rsync", "mv"}
	some w in c.words
	w in tree_wipers
	some p in c.paths
	f := mcp.path.fold(p)
	is_string(f)
	tree_or_home(f)
}

# find and fd walk every tree they are given ("-print" has an r in it);
# -delete, and what -exec or -x runs on each file found (find_changers).
ask contains sprintf(tree_message, [input.tool, concat(" ", c.words), p]) if {
	some c in input.commands
	c.program in {"find", "fd", "fdfind"}
	some w in c.words
	w in find_changers
	some p in c.paths
	f := mcp.path.fold(p)
	is_string(f)
	tree_or_home(f)
}

# A global install by a language's package manager (onto the PATH of
# every shell), and any change by the system's package manager. One
# rule per table, each of tests the direct path's refuter reads.
ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program in {"pip", "pip3", "uv"}
	some w in c.words
	w in pip_system_options # a set, which the direct path's refuter reads: pip is an everyday command
}

ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program in {"yarn", "composer", "dotnet", "deno"}
	some w in c.words
	w in {"global", "-g", "--global"}
}

ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program == "nix"
	"profile" in c.words
	some w in c.words
	w in {"install", "add", "upgrade"}
}

ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program == "nix-env"
	some w in c.words
	w in {"-i", "--install", "-iA", "-u", "--upgrade"}
}

ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program == "pipx"
	some w in c.words
	w in {"install", "inject", "ensurepath", "reinstall-all", "upgrade-all", "install-all"}
}

ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program in system_package_managers
	some w in c.words
	w in system_package_verbs
}

# A command that changes the system itself: its users and passwords, its
# services and schedules, its kernel, disks and network filter; one that
# installs a program on every user's PATH; a container given the host.
ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program in system_programs
}

# systemctl and service change the system by their verbs; status, show,
# list-units, is-active and the like only report. A verb of systemctl's
# that changes nothing and is not listed here is no question; one that
# changes something is (system_verbs).
ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program in {"systemctl", "service"}
	some w in c.words
	w in system_verbs
}

ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program in {"npm", "pnpm", "yarn", "bun"}
	some w in c.words
	w in npm_global_flags
}

ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program in {"cargo", "go", "pipx", "gem", "uv", "stack", "cabal", "opam", "nimble", "raco", "volta"}
	c.words[1] in {"install", "tool", "binstall"}
}

# What outlives the call and comes back by itself, or installs for every
# later shell: a container that restarts with the daemon, a process
# manager's boot script, a user's services kept after logout, a default
# handler of a file type; a language version or a tool's plugin
# installed for the user (nvm install, gcloud components install); a
# build installed into its prefix (make install, setup.py install), a
# package manager's shims (corepack enable), a swarm service: the
# program and one of its words (lasting_one), or two in a row
# (lasting_two). Strings in sets, not an object of lists: partial
# evaluation would unroll an object's entries into a rule each, which the
# direct path's refuter then reads for every command of every line.
ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program in lasting_programs
	some w in c.words
	concat(" ", [c.program, w]) in lasting_one
}

ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program in lasting_programs
	some i, w in c.words
	concat(" ", [c.program, w, c.words[i + 1]]) in lasting_two
}

# Installs onto every shell's PATH or into a tool that runs them, by
# other spellings: an editor's extension (code runs it), a kubectl
# plugin, a tool manager's global default, conda's base environment.
ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program in {"code", "code-insiders", "codium", "cursor", "windsurf", "positron"}
	some w in c.words
	startswith(w, "--install-extension")
}

ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program in {"mise", "rtx"}
	c.words[1] == "use"
	some w in c.words
	w in {"-g", "--global"}
}

ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program == "kubectl"
	c.words[1] == "krew"
	some w in c.words
	w == "install"
}

ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program == "asdf"
	c.words[1] == "global"
}

ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program in {"conda", "mamba", "micromamba"}
	c.words[1] == "install"
	some w in c.words
	w in {"base", "-n=base", "--name=base"}
}

ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program in {"docker", "podman", "nerdctl"}
	some w in c.words
	regex.match(container_host_flag, w)
}

ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program in {"docker", "podman", "nerdctl"}
	some i, w in c.words
	w in {"--pid", "--network", "--net", "--ipc", "--uts", "--userns", "--cgroupns"}
	c.words[i + 1] == "host"
}

# A command that prints or stores credentials: the environment (printenv,
# env with no command), a secret key's export, a CLI's tokens and keys, a
# secret manager's values, a cluster's secrets, and the logins and settings
# that write a CLI's credentials (the reader's table, credentials.go). On
# any tool, as a secret file's read is: what it prints is in the model's
# context.
ask contains sprintf(credential_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.credentials == true # an equality, which the direct path's refuter reads
}

# A cloud metadata service hands out the machine's cloud credentials (an
# instance's or a task's role): reaching one is reading a secret, by any
# tool (a SQL engine's url(), a fetch, a crawler). Names that point at one
# (metadata.google.internal) and IPv6 forms that carry its address are
# read as the address (docs/arguments.md).
ask contains sprintf(metadata_message, [input.tool, h.host]) if {
	some h in input.hosts
	is_string(h.host)
	some m in metadata_hosts
	mcp.host.match(m, h.host) == "match"
}

# The same for a host that cannot be read but that a lenient client may
# make one of these of: a percent-encoded host, "http:host", a DNS
# rebinding name with the address in it ("might", docs/arguments.md).
ask contains sprintf(metadata_message, [input.tool, sprintf("%v (as %v)", [h.raw, a])]) if {
	some h in input.hosts
	h.host == null # an equality, which the direct path's refuter reads: most hosts are known
	some a in h.might
	some m in metadata_hosts
	mcp.host.match(m, a) == "match"
}

# A container given a home directory or a tree above the roots by a
# mount: what runs inside reaches every file there, unread.
ask contains sprintf(system_message, [input.tool, concat(" ", c.words)]) if {
	some c in input.commands
	c.program in {"docker", "podman", "nerdctl"}
	some w in c.words
	regex.match(`^(-v|--volume|--mount)(=.*)?$|^-v.+`, w)
	some p in c.paths
	f := mcp.path.fold(p)
	is_string(f)
	home_or_above_roots(f)
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

# A whole tree the policy was given to guard: a root, "/", or a directory
# above a root. A destructive hint alone does not say a tool would take
# the tree: reference mcp-server-git marks git_reset destructive (it
# unstages) and its repo_path is the root on every call, and a container
# build's context is "." just as often, so asking each of those would
# teach the user to approve without reading. The floor asks when the tool
# can really destroy a tree:
#
#   - its name has a word that deletes, moves or empties what it names
#     (tree_verbs: delete, remove, rm, move, rename, clean, wipe, ...), and
#     the path is any whole tree, a root included;
#   - or the path is "/" or a directory above a root that is no root of
#     its own: no tool's ordinary work names it, so any destructive tool
#     there asks, whatever its name.
#
# The path's type (a directory argument) is not used: git's repo_path is a
# directory too. reset, restore and checkout are not tree_verbs: they
# change files in a tree, and the tree stays. A working directory given
# beside the path the tool acts on (deleteFile {"workingDirectory": root,
# "path": "src/x.ts"}) is where it acts from, not what it destroys
# (acts_from); the path is read against it, and asked if it is a tree.
#
# Two rules, each made of tests the direct path's refuter reads (a
# builtin, a membership), so that a command line, whose working directory
# is the root on every call, is not handed to the evaluator for them.
ask contains sprintf(tree_destroy_message, [input.tool, p.path]) if {
	destructive # first: for every other call, the lookups below would be wasted
	mcp.tool.destroys(input.tool) == true
	some p in input.paths
	mcp.path.fold(p.path) in whole_trees
	not input.commands # a command line's commands are judged by what each does (the rules on commands)
	not acts_from(p)
}

ask contains sprintf(tree_destroy_message, [input.tool, p.path]) if {
	destructive
	some p in input.paths
	mcp.path.fold(p.path) in above_roots
	not input.commands # ls / and df -h / change nothing; rm -rf / is asked by the rule on commands
	not acts_from(p)
}

# p is the call's working directory, and another argument names a path.
acts_from(p) if {
	lower(replace(replace(p.arg, "_", ""), "-", "")) in working_dir_args
	some q in input.paths
	q.arg != p.arg
}

working_dir_args := {"cwd", "workingdirectory", "workdir", "workingdir", "basedir", "basepath"}

# "/", every tool's root and every directory above one, folded: a set
# known before any call.
whole_trees contains dir if {
	some root in data.mcp_data.roots
	some dir in mcp.path.ancestors(mcp.path.fold(root))
}

whole_trees contains "/"

# The whole trees that are no root of any tool: "/" (unless it is a root)
# and the directories above the roots.
above_roots contains dir if {
	some dir in whole_trees
	not dir in folded_roots
}

folded_roots contains mcp.path.fold(root) if some root in data.mcp_data.roots

# The directories above the protected files, folded: a set known before
# any call, so the rule on them is one lookup.
holds_protected contains dir if {
	some f in data.mcp_data.protected
	some dir in array.slice(mcp.path.ancestors(mcp.path.fold(f)), 1, 4096)
}

# The secrets rules' question: a known path, or the raw one where it
# cannot be evaluated.
secret_message := "'%s' reads or touches %v, %s, which always needs a human's approval"

privileged_programs := {
	"sudo", "su", "doas", "pkexec", "run0", "runuser", "sudoedit",
	"gosu", "su-exec", "chpst", "setpriv", "setuidgid", "s6-setuidgid", "please", "sudo-rs",
	"dzdo", "pbrun", "pmrun", "pfexec", "ksu",
}

tree_message := "'%s' runs %s on %s, a whole tree or a home directory"

secret_pattern_why := "a pattern or a path of another system that names files holding secrets"

tree_read_message := "'%s' reads every file under %s, %s"

# Programs that change what a directory they name holds: they delete, move
# or change the mode of it, or put files in it under names they do not
# spell (cp s/grants.json .mcp/, tar xf s.tar -C .mcp, wget -P .mcp URL).
changes_what_a_directory_holds := {
	"rm", "rmdir", "mv", "shred", "rsync", "find", "fd", "unlink", "chmod", "chown", "chgrp", "chattr",
	"cp", "install", "ln", "tar", "bsdtar", "gtar", "unzip", "7z", "7za", "7zr", "cpio", "pax", "ditto",
	"rclone", "wget", "wget2", "curl", "aria2c", "patch", "scp", "sftp",
}

# pip's optparse takes any unambiguous start of a long option: "--br" is
# --break-system-packages (the starts of --user and --system are other
# options' too, and refused).
pip_system_options := {
	"--user", "--system", "--br", "--bre", "--brea", "--break", "--break-", "--break-s", "--break-sy", "--break-sys",
	"--break-syst", "--break-syste", "--break-system", "--break-system-", "--break-system-p", "--break-system-pa",
	"--break-system-pac", "--break-system-pack", "--break-system-packa", "--break-system-packag",
	"--break-system-package", "--break-system-packages",
}

tree_programs := {"rm", "rmdir", "shred", "wipe", "srm", "chmod", "chown", "chgrp", "setfacl"}

# The programs that only read, list or measure what they name.
root_readers := {
	"ls", "df", "du", "stat", "file", "tree", "find", "fd", "fdfind", "cat", "head", "tail", "wc", "grep", "rg",
	"ag", "ack", "echo", "printf", "test", "realpath", "readlink", "cd", "pushd", "basename", "dirname", "which",
	"findmnt", "lsblk", "ncdu", "exa", "eza", "lsd", "dust", "duf", "namei", "getfacl", "lsattr", "mountpoint",
}

# find's -delete, and what its -exec or fd's -x runs on every file found.
find_changers := {"-delete", "rm", "rmdir", "shred", "chmod", "chown", "chgrp", "setfacl", "unlink", "truncate"}

tree_or_home(f) if f in whole_trees

tree_or_home(f) if home_dir(f)

system_message := "'%s' runs %s, which changes the system itself"

system_programs := {
	"reboot", "shutdown", "halt", "poweroff", "init", "telinit", "passwd", "chpasswd", "usermod", "useradd",
	"userdel", "adduser", "deluser", "groupadd", "groupmod", "groupdel", "gpasswd", "visudo", "chsh", "chfn",
	"iptables", "ip6tables", "nft", "ufw", "firewall-cmd", "pfctl", "sysctl", "insmod", "rmmod", "modprobe",
	"kextload", "mount", "umount", "swapon", "swapoff", "fdisk", "parted", "wipefs", "mkswap",
	"systemd-run", "launchctl", "update-rc.d", "chkconfig", "setcap", "setenforce", "csrutil", "nvram",
	"dscl", "diskutil", "crontab", "mkfs", "mkfs.ext4", "mkfs.ext3", "mkfs.xfs", "mkfs.btrfs", "mkfs.vfat", "mkfs.fat",
	"mkfs.ntfs", "mke2fs", "newfs",
}

# rsync's options that delete what the source lacks; mv's own name (a
# move of the tree itself).
tree_wipers := {
	"mv", "--delete", "--delete-before", "--delete-during", "--delete-delay", "--delete-after", "--delete-excluded",
	"--del", "--remove-source-files",
}

# The system's package managers, and the words that make their run a
# change of its packages (a listing or a search is none).
system_package_managers := {
	"apt-get", "apt", "aptitude", "yum", "dnf", "microdnf", "apk", "pacman", "zypper", "brew", "port", "snap",
	"emerge", "xbps-install", "nix-env", "flatpak", "dpkg", "rpm",
}

system_package_verbs := {
	"install", "remove", "purge", "upgrade", "update", "dist-upgrade", "full-upgrade", "reinstall", "autoremove",
	"add", "del", "-S", "-Sy", "-Syu", "-R", "-Rs", "-Rns", "-U", "-i", "-e", "tap", "link", "refresh",
	"--install", "-r", "--remove", "-P", "--purge", "--upgrade", "--erase",
}

# npm's -g, alone or in a cluster of its flags (-gD, -Dg): a set, not a
# pattern, so that the direct path's refuter reads the rule.
# A container that restarts with the daemon, so at every boot.
lasting_programs := {
	"docker", "podman", "nerdctl", "pm2", "loginctl", "xdg-mime", "xdg-settings", "defaults", "update-alternatives",
	"nvm", "fnm", "sdk", "luarocks", "guix", "gcloud", "vagrant", "pulumi", "bun", "asdf", "pyenv", "rbenv", "nodenv",
	"rustup", "proto", "juliaup", "ghcup", "helm", "gh", "nix-env", "nix", "flatpak", "snap",
	"make", "gmake", "cmake", "meson", "ninja", "corepack", "python", "python3",
}

lasting_one := {
	"docker --restart=always", "docker --restart=unless-stopped", "podman --restart=always",
	"podman --restart=unless-stopped", "nerdctl --restart=always", "nerdctl --restart=unless-stopped",
	"pm2 startup", "loginctl enable-linger", "xdg-mime default", "xdg-settings set", "defaults write",
	"update-alternatives --set", "update-alternatives --install", "update-alternatives --config",
	"nvm install", "fnm install", "fnm default", "sdk install", "sdk default", "luarocks install", "guix install",
	"asdf install", "asdf global", "pyenv install", "pyenv global", "rbenv install", "rbenv global", "nodenv install",
	"nodenv global", "rustup default", "proto install", "juliaup add", "juliaup default", "ghcup install", "ghcup set",
	"nix-env -i", "nix-env --install", "nix-env -iA", "flatpak install", "snap install",
	"make install", "gmake install", "cmake --install", "meson install", "ninja install", "corepack enable",
	"corepack install", "corepack --activate",
}

lasting_two := {
	"docker --restart always", "docker --restart unless-stopped", "podman --restart always",
	"podman --restart unless-stopped", "nerdctl --restart always", "nerdctl --restart unless-stopped",
	"nvm alias default", "gcloud components install", "gcloud components update", "vagrant plugin install",
	"pulumi plugin install", "bun pm trust", "asdf plugin add", "asdf set --home", "rustup toolchain install",
	"helm plugin install", "gh extension install", "nix profile install", "nix profile add",
	"docker service create", "python setup.py install", "python3 setup.py install", "python setup.py develop",
	"python3 setup.py develop",
}

npm_global_flags := {
	"-g", "--global", "--location=global", "-g=true", "--global=true", "-g=1", "--global=1",
	"-gD", "-Dg", "-gS", "-Sg", "-gE", "-Eg", "-gO", "-Og", "-gP", "-Pg",
	"-gf", "-fg", "-gq", "-qg", "-gs", "-sg", "-gy", "-yg",
}

system_verbs := {
	"start", "stop", "restart", "reload", "try-restart", "reload-or-restart", "try-reload-or-restart", "force-reload",
	"condrestart", "kill", "clean", "freeze", "thaw", "enable", "disable", "reenable", "preset", "preset-all", "mask",
	"unmask", "link", "revert", "add-wants", "add-requires", "edit", "set-default", "isolate", "set-property", "bind",
	"mount-image", "daemon-reload", "daemon-reexec", "import-environment", "set-environment", "unset-environment",
	"reset-failed", "default", "rescue", "emergency", "halt", "poweroff", "reboot", "kexec", "soft-reboot", "exit",
	"switch-root", "suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate", "log-level", "log-target",
	"service-log-level", "service-log-target", "service-watchdogs",
}

# The metadata services' addresses: AWS, GCP, Azure, OCI and others'
# (169.254.169.254), AWS ECS's task credentials (169.254.170.2), AWS's
# IPv6 one, Alibaba's, Tencent's, Oracle Cloud Classic's and Azure's
# WireServer (168.63.129.16), which hands a VM its configuration.
metadata_hosts := [
	"169.254.169.254/32", "169.254.170.2/32", "[fd00:ec2::254]/128",
	"100.100.100.200/32", "169.254.0.23/32", "192.0.0.192/32", "168.63.129.16/32",
]

system_write_message := "'%s' writes %s, %s, outside the project; it always needs a human's approval"

metadata_message := concat("", [
	"'%s' reaches %v, a cloud metadata service, which hands out credentials; ",
	"it always needs a human's approval",
])

credential_message := concat("", [
	"'%s' runs %v, which prints or stores credentials; ",
	"it always needs a human's approval",
])

tree_destroy_message := "'%s' is destructive and names %s, a whole tree or one holding a root"

# A container flag that gives it the host.
container_host_flag := concat("", [
	`^--(privileged(=(true|1))?|(pid|network|net|ipc|uts|userns|cgroupns)=host|`,
	`cap-add.*|security-opt.*|device.*)$`,
])

home_or_above_roots(f) if f in above_roots

home_or_above_roots(f) if home_dir(f)

# f is in a root a tool was given; the home, which the floor counts as a
# whole tree whether or not it is one, keeps its hidden files out.
in_a_root(f) if {
	some root in data.mcp_data.roots
	not home_dir(mcp.path.fold(root))
	mcp.path.within_folded(root, f) == "inside"
}

# A home directory, folded.
home_dir(f) if regex.match(`^/(home|users|var/home|usr/home|export/home)/[^/]+$|^/(root|var/root)$`, f)
