package lexical

import (
	"slices"
	"strings"
)

// The danger floor's list of files whose change runs code (at login, at a
// shell's start, on a schedule, when a tool starts) or redirects or leaks
// access (credentials, package sources, an agent's own permissions). Each
// entry says where a path must be to match:
//
//   - anywhere: a directory (and everything in it) or a file name, at any
//     depth; a name of several parts (".vscode/settings.json") matches the
//     path's last parts;
//   - home: directly in a home directory (/home/U, /Users/U, /root,
//     /var/root), for names that are ordinary project files elsewhere; a
//     name of several parts ("go/bin") is that path under the home;
//   - system: an absolute path, matched under every standard alias of its
//     directories (pathAliases: /private/etc is /etc, /lib is /usr/lib);
//     a directory's path may have "*" for one whole name of any spelling
//     ("/run/user/*/systemd": a user's id).
//
// Names are lower case: a path is matched folded (FoldPath), so case,
// Unicode normalisation and the characters HFS+ ignores make no
// difference. The floor page's table (docs/floor.md) is made from this one, and a test
// holds the two together; each entry has its own test. Unexported, so that
// nothing can change the floor at run time: SensitiveEntries is a copy.
var sensitiveList = []SensitiveEntry{
	// Shells.
	{"SH1", shellStart, Anywhere, File, []string{".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".bash_aliases", ".bash_completion"}},
	{"SH2", shellStart, Anywhere, Dir, []string{".bashrc.d", ".local/share/bash-completion"}},
	{"SH3", shellStart, System, File, []string{"/etc/profile", "/etc/bash.bashrc", "/etc/bashrc", "/etc/bash.bash_logout", "/etc/bash.bash.logout", "/etc/bash_completion", "/etc/environment", "/etc/inputrc",
		"/etc/bashrc_"}}, // macOS's /etc/bashrc sources /etc/bashrc_$TERM_PROGRAM, this one when it is unset
	{"SH4", shellStart, System, Dir, []string{"/etc/profile.d", "/etc/bash_completion.d", "/etc/paths.d"}},
	{"SH5", shellStart, System, File, []string{"/etc/paths"}},
	{"SH6", shellStart, System, Prefix, []string{"/etc/bashrc_", "/etc/zshrc_"}}, // /etc/bashrc_Apple_Terminal, /etc/zshrc_iTerm.app: any $TERM_PROGRAM
	{"SH7", shellStart, Anywhere, File, []string{".p10k.zsh", ".fzf.bash", ".fzf.zsh", ".zpreztorc", ".zimrc", ".config/starship.toml"}},
	{"SH8", shellStart, Anywhere, Dir, []string{".nvm", ".sdkman", ".asdf", ".fzf", ".zprezto", ".zim", ".zinit", ".local/share/zinit", ".antigen", ".zplug",
		".oh-my-bash", ".bash_it"}},
	{"SH9", shellStart, Home, Dir, []string{"powerlevel10k"}}, // its manual install: git clone ~/powerlevel10k, sourced by .zshrc
	{"ZS1", shellStart, Anywhere, File, []string{".zshenv", ".zprofile", ".zshrc", ".zlogin", ".zlogout", ".zshenv.zwc", ".zprofile.zwc", ".zshrc.zwc", ".zlogin.zwc", ".zlogout.zwc"}},
	{"ZS2", shellStart, Anywhere, Prefix, []string{".zcompdump"}},
	{"ZS3", shellStart, Anywhere, Dir, []string{".config/zsh", ".oh-my-zsh"}},
	{"ZS4", shellStart, System, File, []string{"/etc/zshenv", "/etc/zprofile", "/etc/zshrc", "/etc/zlogin", "/etc/zlogout", "/etc/zshrc_"}},
	{"ZS5", shellStart, System, Dir, []string{"/etc/zsh"}},
	{"CS1", shellStart, Anywhere, File, []string{".tcshrc", ".cshrc", ".login", ".logout", ".cshdirs", ".kshrc", ".mkshrc"}},
	{"CS2", shellStart, System, File, []string{"/etc/csh.cshrc", "/etc/csh.login", "/etc/csh.logout", "/etc/ksh.kshrc", "/etc/mkshrc", "/etc/suid_profile"}},
	{"CS3", shellStart, System, Dir, []string{"/etc/csh"}},
	{"FI1", shellStart, Anywhere, Dir, []string{".config/fish", "fish/vendor_conf.d", "fish/vendor_functions.d", "fish/vendor_completions.d"}},
	{"FI2", shellStart, Anywhere, File, []string{"config.fish"}},
	{"FI3", shellStart, System, Dir, []string{"/etc/fish"}},
	{"NU1", shellStart, Anywhere, Dir, []string{".config/nushell", "application support/nushell", "nushell/vendor/autoload", ".local/share/nushell/vendor", ".config/xonsh", ".config/powershell", ".config/elvish", ".elvish", ".config/ion"}},
	{"NU2", shellStart, Anywhere, File, []string{".xonshrc", "profile.ps1", ".inputrc"}},
	{"NU3", shellStart, Anywhere, Suffix, []string{"_profile.ps1"}},
	{"NU4", shellStart, System, Dir, []string{"/etc/xonsh"}},
	{"PA1", onPath, Anywhere, Dir, []string{".local/bin"}},
	{"PA2", onPath, Home, Dir, []string{"bin", ".cargo"}},
	{"PA3", onPath, System, Dir, []string{"/usr/local/bin", "/usr/local/sbin", "/opt/homebrew/bin", "/opt/homebrew/sbin", "/usr/local/go/bin"}},
	{"PA4", onPath, Home, Dir, []string{"go/bin", ".dotnet", ".yarn"}}, // GOPATH's bin; dotnet-install's root and global tools; Yarn 1's bin and itself
	{"PA5", onPath, Anywhere, Dir, []string{".pyenv", ".rbenv", ".nodenv", ".goenv", ".jenv", ".volta", ".bun", ".deno", ".rustup", ".ghcup", ".cabal", ".opam",
		".juliaup", ".nimble", ".pub-cache", ".krew", ".npm-global", ".local/share/pnpm", "library/pnpm", ".local/share/mise", ".config/yarn/global",
		".local/share/pipx", ".local/pipx", "application support/pipx", ".local/share/uv"}}, // shims and bin directories, and what their links run

	// Graphical sessions, services, schedules, boot.
	{"X1", sessionStart, Anywhere, File, []string{".xprofile", ".xinitrc", ".xsession", ".xsessionrc", ".xserverrc", ".startxrc"}},
	{"X2", sessionStart, System, Dir, []string{"/etc/x11", "/etc/xdg/autostart", "/etc/xdg/systemd"}},
	{"X3", sessionStart, System, File, []string{"/etc/xprofile"}},
	{"DA1", sessionStart, Anywhere, Dir, []string{".config/autostart", ".config/autostart-scripts", ".config/plasma-workspace/env", ".config/plasma-workspace/shutdown"}},
	{"DA2", sessionStart, Anywhere, Dir, []string{".config/i3", ".config/sway", ".config/hypr", ".config/openbox", ".config/awesome", ".config/bspwm"}},
	{"DA3", sessionStart, Anywhere, Dir, []string{".config/qtile", ".config/river", ".config/labwc", ".config/niri", ".config/herbstluftwm", ".config/xmonad", ".xmonad",
		".fluxbox", ".config/sxhkd", ".hammerspoon", ".config/karabiner", ".config/skhd", ".config/yabai", ".config/aerospace"}}, // window managers, key daemons
	{"DA4", sessionStart, Anywhere, File, []string{".xbindkeysrc", ".xbindkeysrc.scm", ".skhdrc", ".yabairc", ".aerospace.toml", ".config/wayfire.ini"}},
	{"DA5", sessionStart, Anywhere, Dir, []string{".local/share/gnome-shell/extensions", ".local/share/applications", ".local/share/dbus-1"}},
	{"DA6", sessionStart, System, Dir, []string{"/usr/share/gnome-shell/extensions", "/usr/local/share/gnome-shell/extensions", "/usr/share/applications",
		"/usr/local/share/applications", "/usr/share/dbus-1", "/usr/local/share/dbus-1", "/etc/dbus-1", "/etc/lightdm", "/etc/gdm", "/etc/gdm3", "/etc/sddm.conf.d"}},
	{"DA7", sessionStart, System, File, []string{"/etc/sddm.conf"}},
	{"TE1", sessionStart, Anywhere, Dir, []string{".config/wezterm", ".config/kitty", ".config/alacritty", ".config/ghostty", "application support/com.mitchellh.ghostty"}},
	{"TE2", sessionStart, Anywhere, File, []string{".wezterm.lua", ".alacritty.toml", ".alacritty.yml"}}, // a terminal's config names the program it starts
	{"SD1", sessionStart, Anywhere, Dir, []string{".config/systemd", ".local/share/systemd", ".config/environment.d"}},
	{"SD2", sessionStart, System, Dir, []string{"/etc/systemd", "/run/systemd", "/usr/lib/systemd", "/usr/local/lib/systemd", "/share/systemd", "/usr/share/systemd", "/usr/local/share/systemd",
		"/etc/environment.d", "/usr/lib/environment.d", "/usr/local/lib/environment.d", "/usr/share/environment.d", "/usr/local/share/environment.d",
		"/run/environment.d"}},
	{"SD3", sessionStart, System, Dir, []string{"/run/user/*/systemd"}}, // $XDG_RUNTIME_DIR/systemd: runtime, transient and generated user units
	{"LD1", sessionStart, Anywhere, Dir, []string{"library/launchagents", "library/launchdaemons", "library/startupitems", "library/privilegedhelpertools"}},
	{"CR1", scheduled, System, Dir, []string{"/var/spool/cron", "/var/spool/at", "/var/at", "/usr/lib/cron", "/etc/periodic", "/usr/local/etc/periodic"}},
	{"CR2", scheduled, System, File, []string{"/etc/crontab", "/etc/anacrontab", "/etc/periodic.conf", "/etc/periodic.conf.local"}},
	{"CR3", scheduled, System, Prefix, []string{"/etc/cron."}}, // cron.d, cron.daily, cron.allow, ...
	{"IN1", bootStart, System, Dir, []string{"/etc/init.d", "/etc/rc0.d", "/etc/rc1.d", "/etc/rc2.d", "/etc/rc3.d", "/etc/rc4.d", "/etc/rc5.d", "/etc/rc6.d", "/etc/rcs.d", "/etc/update-motd.d",
		"/etc/rc.d", "/etc/init", "/etc/rc.conf.d", "/usr/local/etc/rc.d", "/etc/local.d", "/etc/conf.d", "/etc/default", "/etc/defaults", "/etc/grub.d", "/etc/initramfs-tools"}},
	{"IN2", bootStart, System, File, []string{"/etc/rc.local", "/etc/rc.conf", "/etc/rc.conf.local", "/etc/rc.shutdown", "/etc/rc.shutdown.local", "/etc/inittab"}},

	// Mail delivery and mail clients.
	{"MA1", mail, Anywhere, File, []string{".forward", ".procmailrc", ".qmail", ".mailfilter", ".mailcap", ".muttrc", ".neomuttrc"}},
	{"MA2", mail, Anywhere, Prefix, []string{".qmail-"}},
	{"MA3", mail, Anywhere, Dir, []string{".mutt", ".config/mutt", ".config/neomutt"}},
	{"MA4", mail, System, File, []string{"/etc/procmailrc", "/etc/mailcap", "/etc/muttrc", "/etc/neomuttrc"}},

	// Version control.
	{"GI1", vcs, Anywhere, Dir, []string{".git", ".hg", ".config/git", ".config/hg", ".jj", ".config/jj"}},
	{"GI2", vcs, Anywhere, File, []string{".gitconfig", ".git-credentials", ".hgrc", "etc/gitconfig"}},
	{"GI3", vcs, System, Dir, []string{"/etc/mercurial"}},
	{"GI4", vcs, Anywhere, Dir, []string{".husky", ".lefthook", ".lefthook-local", ".githooks", ".git-hooks", "share/git-core/templates"}},
	{"GI5", vcs, Anywhere, File, []string{".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yml",
		"lefthook.yaml", ".lefthook.yaml", "lefthook.toml", ".lefthook.toml", "lefthook.json", ".lefthook.json", "lefthook.jsonc", ".lefthook.jsonc",
		"lefthook-local.yml", ".lefthook-local.yml", "lefthook-local.yaml", ".lefthook-local.yaml", "lefthook-local.toml", ".lefthook-local.toml",
		"lefthook-local.json", ".lefthook-local.json", "lefthook-local.jsonc", ".lefthook-local.jsonc"}},
	{"GI6", vcs, Anywhere, UnderSuffix, []string{".git/hooks", ".git/config"}}, // a bare repository's

	// SSH and remote login.
	{"SS1", sshAccess, Anywhere, Dir, []string{".ssh"}},
	{"SS2", sshAccess, Anywhere, File, []string{"authorized_keys", "authorized_keys2", ".rhosts", ".shosts"}},
	{"SS3", sshAccess, System, Dir, []string{"/etc/ssh"}},
	{"SS4", sshAccess, System, File, []string{"/etc/hosts.equiv"}},

	// Package managers, build tools, language start-up hooks.
	{"PM1", packages, Home, File, []string{".npmrc", ".yarnrc", ".yarnrc.yml"}},
	{"PM2", packages, Anywhere, File, []string{"etc/npmrc", ".pypirc", "pip.conf", "pip.ini", ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
		".gradle/init.gradle", ".gradle/init.gradle.kts", ".gradle/gradle.properties"}},
	{"PM3", packages, Anywhere, Dir, []string{".m2", ".gradle/init.d", ".docker", ".config/containers"}},
	{"PY1", langStart, Anywhere, File, []string{"sitecustomize.py", "usercustomize.py"}},
	{"PY2", langStart, Anywhere, InDirSuffix, []string{"site-packages/.pth", "dist-packages/.pth"}},
	{"PY3", langStart, Anywhere, Dir, []string{".ipython", ".jupyter", ".julia/config", ".config/gdb", ".config/irb", ".config/pry"}},
	{"PY4", langStart, Anywhere, File, []string{".irbrc", ".pryrc", ".rprofile", ".gdbinit", ".pdbrc", ".pythonrc", ".pythonrc.py"}},
	{"PY5", langStart, Anywhere, File, []string{".lldbinit", ".psqlrc", "etc/psqlrc", "postgresql-common/psqlrc", ".sqliterc", ".config/sqlite3/sqliterc",
		".ghci", ".ghc/ghci.conf", ".erlang", ".iex.exs", ".ocamlinit", ".config/ocaml/init.ml", ".renviron", "rprofile.site", "renviron.site",
		".perldb", ".octaverc", ".sbclrc", ".guile", ".mongoshrc.js", ".bunfig.toml", ".mongorc.js", ".config/ptpython/config.py",
		".lesskey", ".config/lesskey", ".subversion/config"}}, // debuggers', REPLs' and runtimes' init files; less's LESSOPEN, svn's diff-cmd
	{"PY7", langStart, Home, File, []string{".pylintrc"}},                    // its init-hook runs in every lint of every project
	{"PY6", langStart, Anywhere, Prefix, []string{".lldbinit-", ".psqlrc-"}}, // .lldbinit-Xcode, .psqlrc-16
	{"PM4", packages, Anywhere, File, []string{".condarc", ".curlrc", ".wgetrc"}},
	{"PM5", packages, Anywhere, File, []string{".gemrc", "etc/gemrc", ".config/go/env", "application support/go/env"}}, // go env -w: GOPROXY, GOFLAGS
	{"PM6", packages, Anywhere, Dir, []string{".config/uv", ".config/composer", ".composer", ".config/pnpm", "library/preferences/pnpm", ".config/pypoetry",
		"application support/pypoetry", ".nuget", ".config/nuget", ".sbt", ".lein", ".stack"}},
	{"PM7", packages, Home, Dir, []string{".bundle", "go/pkg/mod"}}, // a project's .bundle/config is its own
	{"PM8", packages, System, Dir, []string{"/etc/apt/sources.list.d", "/etc/apt/trusted.gpg.d", "/etc/apt/keyrings", "/etc/apt/auth.conf.d", "/etc/apt/preferences.d",
		"/etc/yum.repos.d", "/etc/dnf", "/etc/zypp", "/etc/pacman.d", "/etc/apk", "/etc/pki/rpm-gpg", "/etc/uv", "/etc/xdg/uv",
		"/etc/containers", "/etc/docker", "/run/containers", "/run/user/*/containers"}}, // the last two: podman's auth.json
	{"PM9", packages, System, File, []string{"/etc/apt/sources.list", "/etc/apt/trusted.gpg", "/etc/apt/auth.conf", "/etc/apt/preferences", "/etc/yum.conf", "/etc/pacman.conf"}},

	// Credentials and cloud tools.
	{"CL1", credentials, Anywhere, Dir, []string{".aws", ".kube", ".config/gcloud", ".azure", ".config/gh", ".gnupg", ".terraform.d"}},
	{"CL2", credentials, Anywhere, File, []string{".netrc", "_netrc", ".pgpass", ".my.cnf", ".mylogin.cnf", ".terraformrc", ".tofurc", ".vault-token", ".erlang.cookie"}},

	// .env and direnv.
	{"DE1", envFiles, Anywhere, Prefix, []string{".env"}},
	{"DE2", envFiles, Anywhere, Dir, []string{".config/direnv", ".local/share/direnv/allow", ".config/mise", ".mise"}},
	{"DE4", envFiles, Anywhere, File, []string{"mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml"}}, // mise's hooks and environment run on cd, trusted by path, not by content
	{"DE3", envFiles, Anywhere, File, []string{".direnvrc"}},                                                      // direnv's stdlib sources it when there is no direnvrc in .config/direnv

	// Editors and terminal multiplexers.
	{"ED1", editors, Anywhere, File, []string{".vimrc", ".gvimrc", ".exrc", ".nvimrc", ".nvim.lua", ".emacs", ".emacs.el", ".emacs.elc", ".tmux.conf", ".screenrc"}},
	{"ED2", editors, Anywhere, Dir, []string{".vim", ".config/vim", ".config/nvim", ".local/share/nvim", ".emacs.d", ".config/emacs", ".config/tmux", ".tmux",
		".config/kak", ".config/micro", ".config/sublime-text", "application support/sublime text"}},
	{"ED3", editors, System, Dir, []string{"/etc/vim"}},
	{"ED4", editors, System, File, []string{"/etc/tmux.conf", "/etc/screenrc"}},

	// System privilege and login.
	{"SY1", privilege, System, File, []string{"/etc/ld.so.preload", "/etc/ld.so.conf", "/etc/ld.so.cache", "/etc/sudoers", "/etc/sudo.conf", "/etc/doas.conf",
		"/etc/passwd", "/etc/shadow", "/etc/group", "/etc/gshadow"}},
	{"SY2", privilege, System, Dir, []string{"/etc/ld.so.conf.d", "/etc/sudoers.d", "/etc/pam.d", "/etc/security", "/etc/polkit-1"}},
	{"SY3", privilege, Anywhere, File, []string{".pam_environment"}},
	{"SY4", privilege, System, Dir, []string{"/etc/apt/apt.conf.d", "/etc/logrotate.d", "/etc/networkmanager/dispatcher.d",
		"/etc/network", "/etc/dhcp/dhclient-enter-hooks.d", "/etc/dhcp/dhclient-exit-hooks.d", "/usr/share/polkit-1",
		"/etc/tmpfiles.d", "/run/tmpfiles.d", "/usr/lib/tmpfiles.d", "/usr/local/lib/tmpfiles.d", "/etc/binfmt.d", "/run/binfmt.d", "/usr/lib/binfmt.d", "/usr/local/lib/binfmt.d"}},
	{"SY5", privilege, System, File, []string{"/etc/hosts", "/etc"}},
	{"SY6", privilege, System, Prefix, []string{"/etc/ld-musl-"}}, // musl's loader path: /etc/ld-musl-x86_64.path

	// System programs, libraries and kernel settings: what runs with the
	// privileges of whoever starts it (the server's own, root's at boot).
	// The /bin, /sbin and /lib spellings are pathAliases'.
	{"BI1", programs, System, Dir, []string{"/usr/bin", "/usr/sbin", "/usr/libexec", "/usr/local/libexec"}},
	{"BI2", programs, System, Dir, []string{"/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libx32", "/usr/local/lib", "/usr/local/lib64"}},
	{"BI3", programs, System, Dir, []string{"/opt/homebrew/lib", "/opt/homebrew/cellar", "/opt/homebrew/opt", "/usr/local/cellar", "/usr/local/opt"}}, // Homebrew's kegs and the links to them
	{"KE1", kernel, System, Dir, []string{"/etc/udev", "/run/udev/rules.d", "/usr/lib/udev", "/etc/sysctl.d", "/run/sysctl.d", "/usr/lib/sysctl.d",
		"/etc/modprobe.d", "/run/modprobe.d", "/usr/lib/modprobe.d", "/etc/modules-load.d", "/run/modules-load.d", "/usr/lib/modules-load.d", "/proc/sys"}},
	{"KE2", kernel, System, File, []string{"/etc/sysctl.conf", "/etc/modprobe.conf", "/etc/modules", "/sys/kernel/uevent_helper"}},

	// CI: a pipeline runs with the repository's secrets and deploy rights,
	// on the next push, from the files its service reads by default.
	{"CI1", ci, Anywhere, Dir, []string{".github/workflows", ".github/actions", ".gitea/workflows", ".forgejo/workflows", ".circleci", ".buildkite",
		".azure-pipelines", ".woodpecker", ".semaphore", ".tekton"}},
	{"CI2", ci, Anywhere, File, []string{".gitlab-ci.yml", "jenkinsfile", "azure-pipelines.yml", "azure-pipelines.yaml", "bitbucket-pipelines.yml",
		".travis.yml", ".drone.yml", ".woodpecker.yml", ".woodpecker.yaml", "buildkite.yml", "buildkite.yaml", "buildkite.json", "appveyor.yml",
		".appveyor.yml", ".cirrus.yml", ".cirrus.star", "codemagic.yaml", "bitrise.yml", "buildspec.yml", "cloudbuild.yaml", "cloudbuild.yml",
		".gitpod.yml", ".gitpod.dockerfile", "codefresh.yml", "codefresh.yaml", ".buildkite.yml", "wercker.yml", ".semaphore.yml"}}, // Gitpod runs its tasks when a workspace opens

	// AI agents and IDEs: what an agent would edit to widen its own
	// permissions or add an MCP server.
	{"AI1", agents, Anywhere, Dir, []string{".claude", ".cursor", ".codex", ".gemini", ".copilot", ".codeium", ".continue", ".vscode-server", ".vscode/extensions", ".config/zed",
		"application support/claudecode", ".config/code/user", ".config/code - insiders/user", ".config/vscodium/user", ".config/cursor/user", ".config/windsurf/user",
		"application support/code/user", "application support/code - insiders/user", "application support/vscodium/user", "application support/cursor/user", "application support/windsurf/user",
		".config/goose", ".config/opencode", "application support/qwencode", ".clinerules/hooks", "documents/cline/hooks"}},
	{"AI2", agents, Anywhere, File, []string{".claude.json", ".mcp.json", "claude_desktop_config.json", ".vscode/settings.json", ".vscode/tasks.json", ".vscode/mcp.json",
		".aider.conf.yml", "application support/windsurf/hooks.json"}},
	{"AI3", agents, Anywhere, Suffix, []string{".code-workspace"}},
	{"AI4", agents, System, Dir, []string{"/etc/claude-code", "/etc/gemini-cli", "/etc/codex", "/etc/cursor", "/etc/windsurf", "/etc/qwen-code"}},
	{"AI5", agents, Anywhere, Dir, []string{".devcontainer", ".github/hooks", ".zed", ".kiro", ".roo",
		".amazonq", ".windsurf", ".qwen", ".junie", ".augment", ".cline", ".opencode", ".kilocode", ".devin"}},
	{"AI6", agents, Anywhere, File, []string{"opencode.json", "opencode.jsonc", ".devcontainer.json"}},
	{"AI7", agents, Anywhere, Dir, []string{".cursor-server", ".windsurf-server", ".vscode-server-insiders"}},

	// The directories a home entry's names start with: renaming one makes
	// or unmakes the entry.
	{"HO1", sessionStart, Home, File, []string{"library", "library/application support"}},
}

// prefixTemplates are the endings that take a name off a prefix entry: a
// template of the file (.env.example), which nothing reads as the file and
// agents write every day, and a key's public half (id_rsa_deploy.pub).
var prefixTemplates = map[string][]string{".env": {".example", ".sample", ".template"},
	"id_rsa": {".pub"}, "id_dsa": {".pub"}, "id_ecdsa": {".pub"}, "id_ed25519": {".pub"}} // a key's public half is public

// SensitiveTemplates are the endings that take a name of a prefix entry
// off the floor (a copy).
func SensitiveTemplates(name string) []string { return slices.Clone(prefixTemplates[name]) }

// isTemplate reports whether base, a name starting with the prefix
// entry's name, ends as a template of it.
func isTemplate(name, base string) bool {
	for _, t := range prefixTemplates[name] {
		if strings.HasSuffix(base, t) {
			return true
		}
	}
	return false
}

// pathAliases are the standard second names of system directories: each
// alias is its directory on the systems that have both (a link from one
// to the other), so a system entry or a home is matched under every
// spelling the table makes of it, in either direction and through chains
// (/private/var/run is /var/run is /run). Lower case, as folded paths are.
var pathAliases = []struct{ alias, dir string }{
	{"/private/etc", "/etc"}, // macOS: /etc, /var and /tmp are links into /private
	{"/private/var", "/var"},
	{"/private/tmp", "/tmp"},
	{"/var/run", "/run"}, // the FHS's /var/run and /var/lock, links to /run on Linux
	{"/var/lock", "/run/lock"},
	{"/bin", "/usr/bin"}, // merged /usr: Debian, Ubuntu, Fedora, Arch, openSUSE, ...
	{"/sbin", "/usr/sbin"},
	{"/lib", "/usr/lib"},
	{"/lib32", "/usr/lib32"},
	{"/lib64", "/usr/lib64"},
	{"/libx32", "/usr/libx32"},
	{"/usr/sbin", "/usr/bin"}, // Arch and Fedora 42 merged sbin into bin
	{"/usr/local/sbin", "/usr/local/bin"},
}

// SensitiveAliases returns the floor's table of directory aliases, each
// as {alias, directory}: what the floor page's alias table is made from.
func SensitiveAliases() [][2]string {
	out := make([][2]string, len(pathAliases))
	for i, a := range pathAliases {
		out[i] = [2]string{a.alias, a.dir}
	}
	return out
}

// aliasSpellings is p (absolute, lower case) under every spelling
// pathAliases makes of it, p first.
func aliasSpellings(p string) []string {
	out := []string{p}
	for i := 0; i < len(out); i++ {
		for _, a := range pathAliases {
			for _, from := range [2][2]string{{a.alias, a.dir}, {a.dir, a.alias}} {
				rest, ok := strings.CutPrefix(out[i], from[0])
				if !ok || rest != "" && rest[0] != '/' {
					continue
				}
				if q := from[1] + rest; !slices.Contains(out, q) {
					out = append(out, q)
				}
			}
		}
	}
	return out
}

// Why a path is on the list, as the floor's question says it.
const (
	shellStart   = "a shell start-up file"
	onPath       = "a directory on the user's PATH"
	sessionStart = "a session or service start-up file"
	scheduled    = "a scheduled job"
	bootStart    = "a boot or login script"
	mail         = "mail delivery or mail client configuration that runs commands"
	vcs          = "version control configuration"
	sshAccess    = "SSH access"
	packages     = "package manager configuration or credentials"
	langStart    = "a language start-up hook"
	credentials  = "credentials"
	envFiles     = "an environment file"
	editors      = "editor configuration that runs code"
	privilege    = "system login or privilege configuration"
	agents       = "AI agent or IDE configuration"
	programs     = "a system program or library, which runs with the privileges of whoever starts it"
	kernel       = "kernel, module or device configuration that runs programs as root"
	ci           = "a CI pipeline definition, which runs with the repository's secrets"
)

// SensitiveEntries returns a copy of the floor's list, in order: what the
// floor page's table (docs/floor.md) is made from.
func SensitiveEntries() []SensitiveEntry { return copyEntries(sensitiveList) }

// FloorNames are the names the floor's two lists spell, each once, in
// order: what a glob's wildcard may complete to a floor file ("~/.bash*" is
// ~/.bashrc). A prefix entry's name stands for a name that starts so.
func FloorNames() []string { return slices.Clone(floorNames) }

// SecretNames are the names of the secrets list's entries, each once:
// the names a filter of file names must not pick for a reader.
func SecretNames() []string { return slices.Clone(secretNames) }

var (
	floorNames  = namesOf(sensitiveList, secretList)
	secretNames = namesOf(secretList)
)

// namesOf is every name in the lists' entries, each name of a path on
// its own (".config/gh" is .config and gh), each once.
func namesOf(lists ...[]SensitiveEntry) []string {
	var out []string
	seen := map[string]bool{}
	for _, list := range lists {
		for _, e := range list {
			for _, n := range e.Names {
				for _, name := range strings.Split(n, "/") {
					if name != "" && name != "*" && !seen[name] {
						seen[name] = true
						out = append(out, name)
					}
				}
			}
		}
	}
	return out
}

// copyEntries is a deep copy of a list: nothing can change the floor at
// run time.
func copyEntries(list []SensitiveEntry) []SensitiveEntry {
	out := make([]SensitiveEntry, len(list))
	for i, e := range list {
		e.Names = append([]string(nil), e.Names...)
		out[i] = e
	}
	return out
}

// SensitiveEntry is one line of the floor's list.
type SensitiveEntry struct {
	ID    string
	Why   string
	Where Where
	Kind  Kind
	Names []string
}

// Where a Sensitive entry's names are.
type Where int

const (
	Anywhere Where = iota // at any depth
	Home                  // directly in a home directory
	System                // an absolute path
)

// Kind of a Sensitive entry's names.
type Kind int

const (
	File        Kind = iota // exactly this file (its last names)
	Dir                     // this directory, or anything in it
	Prefix                  // a file whose name starts so (System: a path, and anything in it)
	Suffix                  // a file whose name ends so
	InDirSuffix             // "d/.x": a file ending ".x" directly in a directory named d
	UnderSuffix             // "x/y": a name y (and anything in it) directly in a directory whose name ends in x
	Infix                   // a file whose name has this in it
)

// sensitiveIndex is Sensitive by what a lookup has in hand.
type sensitiveIndex struct {
	anyDir, anyFile, homeDir, homeFile, sysDir, sysFile map[string]*SensitiveEntry
	prefixes, suffixes, inDirSuffixes, sysPrefixes      []nameEntry
	infixes                                             []nameEntry
	underSuffixes                                       []nameEntry
	// sysWildDirs are the system directories with a "*" name.
	sysWildDirs []wildDir
	// anyStart are the proper starts of anywhere entries of several names
	// whose first name is a dot-name (".vscode" of ".vscode/tasks.json"):
	// the directory itself, whose renaming makes or unmakes the entry.
	anyStart map[string]*SensitiveEntry
	// firstNames are the names anywhere entries (and their starts) begin
	// with: a run of a path's names is looked up only from one of them.
	firstNames map[string]bool
	// homeStart are the proper starts of home entries of several names
	// ("go" of "go/bin"), as anyStart is for anywhere entries.
	homeStart map[string]*SensitiveEntry
	// sysFirst are the first names of system entries ("etc"): a path whose
	// first name is none of them is no system entry's.
	sysFirst map[string]bool
	// homes are the home directories (/root/) and the directories
	// homes are in (/home/), each under every spelling pathAliases makes.
	homes        [][]string
	maxParts     int // the most names in an anywhere entry
	maxHomeParts int // the most names in a home directory entry
	maxSysLen    int // the longest system entry
}

type nameEntry struct {
	name string
	e    *SensitiveEntry
}

// wildDir is a system directory with a "*" name, and what it starts with
// up to its first "*": a path must start so to be in it.
type wildDir struct {
	nameEntry
	literal string
}

// sensitive and secrets are the floor's two lists, indexed: what a change
// of runs code or leaks access, and what a read of leaks a secret.
var (
	sensitive = newSensitiveIndex(sensitiveList)
	secrets   = newSensitiveIndex(secretList)
)

// newSensitiveIndex indexes a list of entries for lookups by path.
func newSensitiveIndex(list []SensitiveEntry) *sensitiveIndex {
	ix := &sensitiveIndex{anyDir: map[string]*SensitiveEntry{}, anyFile: map[string]*SensitiveEntry{},
		homeDir: map[string]*SensitiveEntry{}, homeFile: map[string]*SensitiveEntry{},
		sysDir: map[string]*SensitiveEntry{}, sysFile: map[string]*SensitiveEntry{},
		anyStart: map[string]*SensitiveEntry{}, firstNames: map[string]bool{}, homeStart: map[string]*SensitiveEntry{},
		sysFirst: map[string]bool{}}
	for _, homes := range [][]string{{"/root", "/var/root"}, {"/home", "/users", "/var/home", "/usr/home", "/export/home"}} {
		var spelt []string
		for _, h := range homes {
			for _, a := range aliasSpellings(h) {
				spelt = append(spelt, a+"/")
			}
		}
		ix.homes = append(ix.homes, spelt)
	}
	for i := range list {
		e := &list[i]
		var names []string
		for _, n := range e.Names {
			if e.Where == System {
				names = append(names, aliasSpellings(n)...)
			} else {
				names = append(names, n)
			}
		}
		for _, n := range names {
			ix.add(n, e)
		}
	}
	return ix
}

// add indexes entry e under the name n, one of its names (a system
// entry's under every alias spelling).
func (ix *sensitiveIndex) add(n string, e *SensitiveEntry) {
	switch {
	case e.Kind == Prefix && e.Where == System:
		ix.sysPrefixes = append(ix.sysPrefixes, nameEntry{n, e})
	case e.Kind == Prefix:
		ix.prefixes = append(ix.prefixes, nameEntry{n, e})
	case e.Kind == Suffix:
		ix.suffixes = append(ix.suffixes, nameEntry{n, e})
	case e.Kind == Infix:
		ix.infixes = append(ix.infixes, nameEntry{n, e})
	case e.Kind == InDirSuffix:
		ix.inDirSuffixes = append(ix.inDirSuffixes, nameEntry{n, e})
	case e.Kind == UnderSuffix:
		ix.underSuffixes = append(ix.underSuffixes, nameEntry{n, e})
	case e.Where == Anywhere && e.Kind == Dir:
		ix.anyDir[n] = e
	case e.Where == Anywhere:
		ix.anyFile[n] = e
	case e.Where == Home && e.Kind == Dir:
		ix.homeDir[n] = e
		ix.maxHomeParts = max(ix.maxHomeParts, strings.Count(n, "/")+1)
	case e.Where == Home:
		ix.homeFile[n] = e
	case e.Kind == Dir && strings.Contains(n, "/*/"):
		ix.sysWildDirs = append(ix.sysWildDirs, wildDir{nameEntry{n, e}, n[:strings.Index(n, "/*/")+1]})
	case e.Kind == Dir:
		ix.sysDir[n] = e
		ix.maxSysLen = max(ix.maxSysLen, len(n))
	default:
		ix.sysFile[n] = e
	}
	if e.Where == System {
		first, _, _ := strings.Cut(n[1:], "/")
		ix.sysFirst[first] = true
	}
	if e.Where == Home {
		for j := range len(n) {
			if _, taken := ix.homeStart[n[:j]]; n[j] == '/' && !taken {
				ix.homeStart[n[:j]] = e
			}
		}
	}
	if e.Where == Anywhere {
		first, _, _ := strings.Cut(n, "/")
		ix.firstNames[first] = true
		ix.maxParts = max(ix.maxParts, strings.Count(n, "/")+1)
		names := strings.Split(n, "/")
		if len(names) > 1 && e.Kind != UnderSuffix && (strings.HasPrefix(names[0], ".") || strings.HasSuffix(names[0], "-packages")) {
			for j := 1; j < len(names); j++ {
				if _, taken := ix.anyStart[strings.Join(names[:j], "/")]; !taken {
					ix.anyStart[strings.Join(names[:j], "/")] = e
				}
			}
		}
	}
}

// SensitiveFile is the floor's entry a path falls under, nil for none. p is
// a clean absolute path, folded (FoldPath); anything else matches nothing.
// It looks each of the path's runs of names up in maps: a handful of
// lookups, whatever the length of the list. The entry is a copy.
func SensitiveFile(p string) *SensitiveEntry {
	if e := sensitive.file(p); e != nil {
		c := *e
		return &c
	}
	return nil
}

// file is the entry of ix a path falls under, nil for none: anywhere
// entries first, then those a file's own name says, then the home's, then
// the system's.
func (ix *sensitiveIndex) file(p string) *SensitiveEntry {
	if len(p) < 2 || p[0] != '/' {
		return nil
	}
	if e := ix.anywhere(p); e != nil {
		return e
	}
	if e := ix.byName(p); e != nil {
		return e
	}
	if rest, ok := inHome(ix, p); ok {
		if e := ix.home(rest); e != nil {
			return e
		}
	}
	return ix.system(p)
}

// nameEnd is where the name of p starting at i ends: the next "/" or the
// end.
func nameEnd(p string, i int) int {
	if j := strings.IndexByte(p[i:], '/'); j >= 0 {
		return i + j
	}
	return len(p)
}

// anywhere is the anywhere entry p falls under: a directory is any run of
// its names, a file the last ones. One walk over the names, allocating
// nothing, whatever their number.
func (ix *sensitiveIndex) anywhere(p string) *SensitiveEntry {
	prev := ""
	for i := 1; i <= len(p); {
		e := nameEnd(p, i)
		name := p[i:e]
		if ix.firstNames[name] {
			runEnd := e
			for k := 1; k <= ix.maxParts; k++ {
				run := p[i:runEnd]
				if found := ix.anyDir[run]; found != nil {
					return found
				}
				if runEnd == len(p) {
					if found := ix.anyFile[run]; found != nil {
						return found
					}
					if found := ix.anyStart[run]; found != nil {
						return found
					}
					break
				}
				runEnd = nameEnd(p, runEnd+1)
			}
		}
		// A name directly in a directory whose name ends so: a bare
		// repository's hooks and config.
		if name == "hooks" || name == "config" {
			for _, ne := range ix.underSuffixes {
				suffix, child, _ := strings.Cut(ne.name, "/")
				if name == child && strings.HasSuffix(prev, suffix) && len(prev) > len(suffix) {
					return ne.e
				}
			}
		}
		prev = name
		i = e + 1
	}
	return nil
}

// byName is the entry p's own name says, by its start, end or middle, or
// by its end and its directory's name.
func (ix *sensitiveIndex) byName(p string) *SensitiveEntry {
	last := strings.LastIndexByte(p, '/')
	base := p[last+1:]
	for _, ne := range ix.prefixes {
		if strings.HasPrefix(base, ne.name) && !isTemplate(ne.name, base) {
			return ne.e
		}
	}
	for _, ne := range ix.suffixes {
		if strings.HasSuffix(base, ne.name) {
			return ne.e
		}
	}
	for _, ne := range ix.infixes {
		if strings.Contains(base, ne.name) {
			return ne.e
		}
	}
	if last > 0 {
		dir := p[strings.LastIndexByte(p[:last], '/')+1 : last]
		for _, ne := range ix.inDirSuffixes {
			d, suffix, _ := strings.Cut(ne.name, "/")
			if dir == d && strings.HasSuffix(base, suffix) {
				return ne.e
			}
		}
	}
	return nil
}

// home is the home entry of rest, what follows /home/U/, /users/U/, /root/
// or /var/root/ (or an alias: /private/var/root/): a directory is any run
// of its first names.
func (ix *sensitiveIndex) home(rest string) *SensitiveEntry {
	end := 0
	for k := 0; k < ix.maxHomeParts; k++ {
		j := strings.IndexByte(rest[end:], '/')
		if j < 0 {
			end = len(rest)
		} else {
			end += j
		}
		if e := ix.homeDir[rest[:end]]; e != nil {
			return e
		}
		if end == len(rest) {
			break
		}
		end++
	}
	if e := ix.homeFile[rest]; e != nil {
		return e
	}
	return ix.homeStart[rest]
}

// system is the system entry of sys: the path, or a directory above it,
// by its absolute name (every alias of an entry is in the index).
func (ix *sensitiveIndex) system(sys string) *SensitiveEntry {
	if first, _, _ := strings.Cut(sys[1:], "/"); !ix.sysFirst[first] {
		return nil
	}
	if e := ix.sysFile[sys]; e != nil {
		return e
	}
	for _, ne := range ix.sysPrefixes {
		if rest, ok := strings.CutPrefix(sys, ne.name); ok && rest != "" && rest[0] != '/' {
			return ne.e
		}
	}
	// The deepest directory listed answers: /usr/lib/systemd/x is a
	// service's file more than it is a library.
	var inDir *SensitiveEntry
	for i := 0; i < len(sys) && i < ix.maxSysLen; i++ {
		if i+1 == len(sys) || sys[i+1] == '/' {
			if e := ix.sysDir[sys[:i+1]]; e != nil {
				inDir = e
			}
		}
	}
	if inDir != nil {
		return inDir
	}
	for _, w := range ix.sysWildDirs {
		if strings.HasPrefix(sys, w.literal) && inWildDir(sys, w.name) {
			return w.e
		}
	}
	return nil
}

// inWildDir reports whether the absolute path p is the directory dir, or
// in it, where a name "*" of dir stands for any one name.
func inWildDir(p, dir string) bool {
	for {
		d, _, dirMore := strings.Cut(dir[1:], "/")
		n, _, pMore := strings.Cut(p[1:], "/")
		if n == "" || (d != "*" && d != n) {
			return false
		}
		if !dirMore {
			return true
		}
		if !pMore {
			return false
		}
		dir, p = dir[1+len(d):], p[1+len(n):] // each "/" and the rest
	}
}

// inHome is what follows a home directory at the start of p.
func inHome(ix *sensitiveIndex, p string) (string, bool) {
	for _, home := range ix.homes[0] {
		if rest, ok := strings.CutPrefix(p, home); ok {
			return rest, true
		}
	}
	for _, homes := range ix.homes[1] {
		if rest, ok := strings.CutPrefix(p, homes); ok {
			if _, after, ok := strings.Cut(rest, "/"); ok {
				return after, true
			}
		}
	}
	return "", false
}
