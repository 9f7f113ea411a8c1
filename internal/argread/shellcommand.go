package argread

import (
	"cmp"
	"fmt"
	"maps"
	"net/netip"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

// How each command is read, by its program's row in the table
// (shellprograms.go): the options as getopt reads them, then the
// program's own reading of its words.

// shellArg is a word of a command after its program, as getopt reads it:
// an option (opt, with its value when it takes one) or an operand.
type shellArg struct {
	opt      string // "" for an operand
	value    shellWord
	hasValue bool
}

// parseArgs reads words (after the program) by p's options. With stop,
// the first operand ends the reading (a wrapper's command, an
// interpreter's script): rest is its index, len(words) when none.
func parseArgs(words []shellWord, p *program, stop bool) (args []shellArg, rest int) {
	endOpts := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		s := w.text
		// An option the shell globs (--include=*env, unquoted) reaches the
		// program as written when it matches no file: an option still,
		// its value unknown.
		globbed := !w.known && strings.HasPrefix(s, "-") && !strings.ContainsAny(s, "$`'\"\\")
		operand := !w.known && !globbed || endOpts || s == "-" || !strings.HasPrefix(s, "-") && !(p.kind == progShell && strings.HasPrefix(s, "+"))
		if operand {
			if stop {
				return args, i
			}
			args = append(args, shellArg{value: w})
			continue
		}
		if s == "--" {
			endOpts = true
			if stop {
				return args, i + 1
			}
			continue
		}
		if strings.HasPrefix(s, "--") || p.takes(s) || p.kind == progInterpreter && (p.code.has(s) || p.files.has(s)) || p.singleDash {
			name, val, has := strings.Cut(s, "=")
			if strings.HasPrefix(name, "--") {
				name = p.longOption(name)
			}
			a := shellArg{opt: name}
			switch {
			case has:
				a.value, a.hasValue = shellWord{text: val, known: w.known}, true
			case p.takes(name) && i+1 < len(words):
				i++
				a.value, a.hasValue = words[i], true
			}
			args = append(args, a)
			continue
		}
		// Short options, perhaps several in one word ("-lc", "-ofile").
		for j := 1; j < len(s); j++ {
			o := "-" + s[j:j+1]
			if !p.takes(o) {
				args = append(args, shellArg{opt: o})
				continue
			}
			a := shellArg{opt: o, hasValue: true}
			switch {
			case j+1 < len(s):
				a.value = shellWord{text: s[j+1:], known: true}
			case i+1 < len(words):
				i++
				a.value = words[i]
			default:
				a.hasValue = false
			}
			args = append(args, a)
			break
		}
	}
	return args, len(words)
}

// longOption is a long option as the program reads it: getopt_long and
// git's parser take any unambiguous start of one ("--rec" is
// --recursive, "--upload-pa" --upload-pack). A start of options the
// table knows is read as the one it would do most with (code, then a
// command line, a file, a host, a directory, a value): the program takes
// the one it names, or refuses an ambiguous start, and reading it the
// worst way asks rather than allows.
func (p *program) longOption(name string) string {
	if len(name) < 4 || p.knows(name) {
		return name
	}
	for _, s := range []set{p.code, p.lines, p.files, p.hosts, p.chdir, p.values} {
		found := ""
		for o := range s {
			if strings.HasPrefix(o, name) && (found == "" || o < found) {
				found = o // the first in order: one answer for one word
			}
		}
		if found != "" {
			return found
		}
	}
	return name
}

// takes reports an option that takes a value: one the table lists as
// taking one, or says reads a file, a host or a line.
func (p *program) takes(o string) bool {
	return p.values.has(o) || p.files.has(o) || p.hosts.has(o) || p.lines.has(o)
}

// knows reports an option the program's table names.
func (p *program) knows(o string) bool {
	return p.takes(o) || p.code.has(o) || p.chdir.has(o)
}

// has reports whether the set has o; a single-dash long option is also
// compared in lower case (PowerShell's are case-blind: -Command).
func (s set) has(o string) bool {
	return s[o] || len(o) > 2 && o[1] != '-' && s[strings.ToLower(o)]
}

// command reads one simple command: words[0] is its program.
func (r *shellReader) command(words []shellWord, dirs []string) []string {
	if len(words) == 0 {
		return dirs
	}
	if r.commands++; r.commands > maxShellCommands {
		if r.commands == maxShellCommands+1 {
			r.unknown(words[0].text) // once: more commands than are read
		}
		return addDir(dirs, "")
	}
	r.record(words)
	outer := r.cover
	r.cover = nil
	if r.cur >= 0 && r.cur < len(r.w.covered) {
		r.cover = r.w.covered[r.cur]
	}
	defer func() { r.cover = outer }()
	prog := words[0]
	if !prog.known {
		// A program the shell makes when it runs: any program, cd too.
		r.unknown(prog.text)
		r.operands(words[1:], dirs)
		return addDir(dirs, "")
	}
	if strings.ContainsAny(prog.text, "/\\") {
		r.path(prog.text, dirs, false) // a program named by its path is a file it runs
		r.runsWritten(prog, dirs)
	}
	name := programName(prog.text)
	r.byName(prog, name, words[1:], dirs)
	p, ok := programs[name]
	if !ok {
		r.defaultCommand(name, words[1:], dirs)
		return dirs
	}
	rest := words[1:]
	if p.runs != nil {
		return r.runner(&p, name, rest, dirs)
	}
	return r.byKind(&p, prog, name, rest, dirs)
}

// byName reads what a command does by its program's name, whatever its
// row: hooks installed, code given inline, an archive's members written
// outside the directory, a file the line wrote run, files written.
func (r *shellReader) byName(prog shellWord, name string, words []shellWord, dirs []string) {
	if installsHooks(name, words) {
		// pre-commit install, husky: git hooks written, which run on the
		// next commit.
		hooks := shellWord{text: ".git/hooks/pre-commit", known: true}
		r.wrote(hooks, dirs)
		r.path(hooks.text, dirs, false)
	}
	if runsInlineCode(name, words) {
		r.unknown(prog.text + " with code given inline") // rails runner 'puts ENV.to_h', manage.py shell -c
	}
	if unsafeArchive(name, words) {
		// Members named with ".." or from "/" are written where they
		// say, above the directory: which ones, the archive says.
		r.unknown(prog.text + "'s members outside the directory")
	}
	if why := runsLater(name, words); why != "" {
		r.unknown(why)
	}
	r.runsWrittenCode(name, words, dirs) // what earlier commands wrote, not what this one writes
	r.writes(name, words, dirs)
	r.listedFiles(name, words, dirs)
	if dir, ok := extractsInto(name, words); ok {
		// tar xf x.tar, unzip x.zip: members the line does not name are
		// written under the directory (the floor asks where it holds
		// the policy's files). Into a root, above one or a home, a
		// repository's .git/hooks or a home's .bashrc is as likely a
		// member as any: unknown.
		w := shellWord{text: dir, known: true}
		if dir != "" {
			r.wrote(w, dirs)
			r.path(dir, dirs, true)
		}
		for _, d := range dirs {
			if d == "" || dir == "" || r.w.holdsRootOrHome(r.w.resolve(d, dir)) {
				r.unknown("the members of " + name + "'s archive, written into " + dir)
				break
			}
		}
	}
}

// extractsWithNames reads the extractors that write what their archive
// names (unar, dtrx, atool -x, patool extract, ouch decompress, lha x, arj
// x, zpaq x, rar x, ditto -x, cabextract, innoextract) into the directory
// they run in or their -o/-d/-C; gunzip -N and its kin name their output
// as the archive says.
func extractsWithNames(name string, words []shellWord) (string, bool) {
	first := ""
	if len(words) > 0 {
		first = words[0].text
	}
	switch name {
	case "gunzip", "unxz", "unzstd", "bunzip2":
		if !slices.ContainsFunc(words, func(w shellWord) bool {
			return w.text == "--name" || inCluster(w.text, 'N')
		}) {
			return "", false // the archive's name without its suffix
		}
		return "", true
	case "rar", "lha", "lhasa", "arj", "zpaq":
		if first != "x" && first != "e" && !strings.HasPrefix(first, "-x") && first != "-e" {
			return "", false
		}
	case "atool":
		if !slices.ContainsFunc(words, func(w shellWord) bool { return w.text == "-x" || w.text == "--extract" }) {
			return "", false
		}
	case "patool":
		if first != "extract" {
			return "", false
		}
	case "ouch":
		if first != "decompress" && first != "d" {
			return "", false
		}
	case "ditto":
		if !slices.ContainsFunc(words, func(w shellWord) bool { return w.text == "-x" }) {
			return "", false
		}
		if len(words) > 0 {
			return words[len(words)-1].text, true
		}
	}
	for i, w := range words {
		switch {
		case (w.text == "-o" || w.text == "-d" || w.text == "-C" || w.text == "--output-dir" || w.text == "--outdir" || w.text == "--dir") && i+1 < len(words):
			return words[i+1].text, true
		case strings.HasPrefix(w.text, "--outdir=") || strings.HasPrefix(w.text, "--output-dir="):
			_, v, _ := strings.Cut(w.text, "=")
			return v, true
		}
	}
	return ".", true
}

// containerCopyInto reads docker cp's destination here (docker cp
// w:/x/. .) and a build's local output (-o DIR, --output
// type=local,dest=DIR).
func containerCopyInto(words []shellWord) (string, bool) {
	if i := slices.IndexFunc(words, func(w shellWord) bool { return w.known && !strings.HasPrefix(w.text, "-") }); i >= 0 && words[i].text == "cp" {
		var ops []shellWord
		for _, w := range words[i+1:] {
			if !strings.HasPrefix(w.text, "-") {
				ops = append(ops, w)
			}
		}
		if len(ops) == 2 && strings.Contains(ops[0].text, ":") && !strings.Contains(ops[1].text, ":") {
			return ops[1].text, true // from the container to here
		}
		return "", false
	}
	for i, w := range words {
		v, ok := "", false
		switch {
		case (w.text == "-o" || w.text == "--output") && i+1 < len(words):
			v, ok = words[i+1].text, true
		case strings.HasPrefix(w.text, "--output="):
			v, ok = strings.TrimPrefix(w.text, "--output="), true
		}
		if !ok {
			continue
		}
		if strings.Contains(v, "=") {
			if !strings.Contains(v, "type=local") {
				return "", false // an image, a tar file: no tree here
			}
			v = mountField(v, "dest")
		}
		return v, v != "" && v != "-"
	}
	return "", false
}

// holdsRootOrHome reports a directory that is the tool's root or above it,
// or the home: "/", /srv/app for the root /srv/app, /home/u.
func (w *walker) holdsRootOrHome(dir string) bool {
	switch {
	case dir == "":
		return true
	case dir == "/" || dir == w.home:
		return true
	case w.root != "" && (w.root == dir || strings.HasPrefix(w.root, strings.TrimSuffix(dir, "/")+"/")):
		return true
	}
	return false
}

// extractsInto reports a command that extracts an archive, or copies a
// tree out of a container or a build, and the directory what it holds is
// written under (-C, --directory, -d, -o; "." where it runs): tar and
// bsdtar x, unzip, 7z and 7zz x and e, unrar x, cpio and bsdcpio -i, pax
// -r, jar x, ar x, dpkg-deb -x, unsquashfs, python -m zipfile or tarfile
// -e, docker, podman and nerdctl cp to here and build -o. uudecode writes
// where the file says: nowhere the line names.
func extractsInto(name string, words []shellWord) (string, bool) {
	switch name {
	case "docker", "podman", "nerdctl", "buildah":
		return containerCopyInto(words)
	case "uudecode":
		return "", true
	case "unar", "dtrx", "cabextract", "innoextract", "patool", "atool", "aunpack", "ouch", "lha", "lhasa", "arj", "zpaq",
		"rar", "unace", "unalz", "ditto", "gunzip", "unxz", "unzstd", "bunzip2":
		return extractsWithNames(name, words)
	case "python", "python3":
		// python3 -m zipfile -e ARCHIVE DIR, -m tarfile -e ARCHIVE [DIR]
		for i := 0; i+3 < len(words); i++ {
			if words[i].text == "-m" && (words[i+1].text == "zipfile" || words[i+1].text == "tarfile") && words[i+2].text == "-e" {
				if i+4 < len(words) {
					return words[i+4].text, true
				}
				return ".", true
			}
		}
		return "", false
	case "dpkg-deb":
		for i, w := range words {
			if (w.text == "-x" || w.text == "-R" || w.text == "--extract" || w.text == "--raw-extract" || w.text == "-X") && i+2 < len(words) {
				return words[i+2].text, true
			}
		}
		return "", false
	case "unsquashfs":
		for i, w := range words {
			if (w.text == "-d" || w.text == "-dest") && i+1 < len(words) {
				return words[i+1].text, true
			}
		}
		return "squashfs-root", true
	case "jar", "ar":
		return ".", len(words) > 0 && strings.ContainsRune(strings.TrimPrefix(words[0].text, "-"), 'x')
	case "unrar":
		if len(words) > 0 && (words[0].text == "x" || words[0].text == "e") {
			last := words[len(words)-1].text
			if len(words) > 2 && strings.HasSuffix(last, "/") {
				return last, true
			}
			return ".", true
		}
		return "", false
	case "pax":
		return ".", slices.ContainsFunc(words, func(w shellWord) bool { return inCluster(w.text, 'r') })
	case "bsdcpio":
		name = "cpio"
	case "7zz":
		name = "7z"
	}
	dir, extract := ".", false
	for i, w := range words {
		if !w.known {
			continue
		}
		t := w.text
		next := ""
		if i+1 < len(words) && words[i+1].known {
			next = words[i+1].text
		}
		switch name {
		case "tar", "gtar", "bsdtar":
			switch {
			case t == "--extract" || t == "--get" || i == 0 && !strings.HasPrefix(t, "-") && strings.ContainsRune(t, 'x') && !strings.ContainsAny(t, "./"):
				extract = true // tar xf: the old style's first word
			case strings.HasPrefix(t, "--directory="):
				dir = strings.TrimPrefix(t, "--directory=")
			case (t == "-C" || t == "--directory") && next != "":
				dir = next
			case strings.HasPrefix(t, "-C") && len(t) > 2:
				dir = t[2:]
			case inCluster(t, 'x'):
				extract = true
			}
		case "unzip":
			extract = true
			switch {
			case t == "-l" || t == "-t" || t == "-v" || t == "-Z" || t == "-p":
				return "", false // lists, tests, or prints: nothing written
			case t == "-d" && next != "":
				dir = next
			case strings.HasPrefix(t, "-d") && len(t) > 2:
				dir = t[2:]
			}
		case "7z", "7za", "7zr":
			switch {
			case i == 0 && (t == "x" || t == "e"):
				extract = true
			case strings.HasPrefix(t, "-o") && len(t) > 2:
				dir = t[2:]
			}
		case "cpio":
			switch {
			case t == "--extract" || inCluster(t, 'i'):
				extract = true
			case (t == "-D" || t == "--directory") && next != "":
				dir = next
			}
		}
	}
	return dir, extract
}

// listedFiles reads the options that hand a program the names of the files
// it reads in a list, a file's or standard input's (sort --files0-from=-,
// tar -T l, xargs -a l, rsync --files-from=l, cpio -o, zip -@): which files
// those are the line does not say (printf '/home/u/.ssh/id_rsa\0' | sort
// --files0-from=- prints the key), so they are unknown; the list's own
// file is read.
func (r *shellReader) listedFiles(name string, words []shellWord, dirs []string) {
	for i, w := range words {
		if !w.known {
			continue // unknown already
		}
		list, ok := fileListOption(name, w.text)
		if !ok {
			continue
		}
		if list == "?" {
			list = "" // in a later word, which words are read as paths anyway
		} else if list == "" && i+1 < len(words) {
			list = words[i+1].text
		}
		r.unknown("the files " + name + " reads the names of from " + cmp.Or(list, "its standard input"))
		if list != "" && list != "-" {
			r.read(shellWord{text: list, known: true}, dirs)
		}
	}
}

// responseFilePrograms take "@FILE" for more arguments read from FILE.
var responseFilePrograms = keySetExact("gcc", "g++", "cc", "c++", "clang", "clang++", "javac", "java", "ld", "ar", "nm",
	"objdump", "strip", "as", "rustc", "kotlinc", "scalac", "csc", "dotnet", "msbuild", "clang-cl", "cl")

// fileListOption reports word as an option of program that gives it a list
// of files to read, and the list's file when the word holds it ("" for the
// next word, "-" for standard input). GNU's and rsync's long options are
// taken by any unambiguous start ("--files0").
func fileListOption(program, word string) (string, bool) {
	if name, value, _ := strings.Cut(word, "="); program == "zstd" && name == "--filelist" ||
		program == "xz" && (name == "--files" || name == "--files0") {
		return value, true // zstd --filelist F, xz --files=F
	}
	if name, value, found := strings.Cut(word, "="); strings.HasPrefix(name, "--") || program == "find" && name == "-files0-from" {
		if len(name) >= len("--files") && (strings.HasPrefix("--files0-from", name) || strings.HasPrefix("--files-from", name)) ||
			name == "-files0-from" || name == "--pathspec-from-file" || name == "--names-stdin" && (program == "zip" || program == "7z") ||
			program == "xargs" && len(name) >= len("--arg") && strings.HasPrefix("--arg-file", name) {
			if name == "--names-stdin" {
				return "-", true
			}
			if !found {
				return "", true
			}
			return cmp.Or(value, "-"), true
		}
		return "", false
	}
	tar := program == "tar" || program == "bsdtar" || program == "gtar"
	switch {
	case responseFilePrograms[program] && strings.HasPrefix(word, "@") && len(word) > 1:
		return word[1:], true // gcc @rsp: a file of more arguments, files among them
	case (program == "ctags" || program == "etags" || program == "universal-ctags") && word == "-L",
		program == "cscope" && word == "-i":
		return "", true
	case program == "pax" && inCluster(word, 'w'):
		return "-", true // pax -w with no file operands reads their names on standard input
	case tar && strings.HasPrefix(word, "-T"):
		return strings.TrimPrefix(word, "-T"), true
	case tar && strings.ContainsRune(word, 'T') && !strings.HasPrefix(word, "--") && !strings.ContainsAny(word, "./=") &&
		strings.Trim(word, "-abcdfhijklmoprstuvwxzABCDGHJKLMNOPRSTUVWZ") == "":
		// A cluster with T (-cT list, or the old style's first word,
		// cfT): its list is a later word.
		return "?", true
	case (program == "7z" || program == "7za" || program == "7zr") && (strings.HasPrefix(word, "@") || strings.Contains(word, "@") && strings.HasPrefix(word, "-i")):
		return strings.TrimLeft(word[strings.IndexByte(word, '@'):], "@"), true // @list, -i@list, -ir@list
	case program == "rar" && strings.HasPrefix(word, "@") && len(word) > 1:
		return word[1:], true // rar a out.rar @list
	case program == "mksquashfs" && (word == "-pf" || word == "-pd" || word == "-p"),
		(program == "genisoimage" || program == "mkisofs" || program == "xorriso") && (word == "-path-list" || strings.HasPrefix(word, "-path-list=")),
		program == "afio" && inCluster(word, 'o'):
		return "", true // a definition or a list of what to take, files and commands among them
	case program == "zip" && strings.HasPrefix(word, "-i@"):
		return strings.TrimPrefix(word, "-i@"), true // the names listed in the file are the ones taken
	case program == "xargs" && strings.HasPrefix(word, "-a"):
		return strings.TrimPrefix(word, "-a"), true
	case (program == "zip" || program == "7z") && word == "-@":
		return "-", true
	case program == "cpio" && (inCluster(word, 'o') || inCluster(word, 'p')):
		return "-", true // -o and -p read the names on standard input
	}
	return "", false
}

// agentCLIs are the coding agents whose "mcp add" registers a server
// they start in every later session.
var agentCLIs = keySetExact("claude", "codex", "gemini", "cursor-agent", "amp", "qwen", "opencode", "goose", "copilot", "crush",
	"q", "kiro-cli", "kiro", "auggie", "droid", "cline", "roo", "continue", "aider", "cursor", "windsurf", "zed", "warp")

// runsLater says what a command sets up to run code later, or fetches and
// runs now, by its program's words, "" for neither: a package manager's
// setting (npm set script-shell x, the alias of npm config set), a
// desktop setting (gsettings set: a default terminal, a handler), an
// agent's MCP server registered (claude mcp add x -- node x.js), a
// remote module run (go run example.com/x@latest). The words after
// the program.
func runsLater(name string, words []shellWord) string {
	if !laterPrograms[name] && !agentCLIs[name] {
		return "" // every other command: nothing to look for
	}
	// The operands, an option's separate value left out where it can be
	// told (npm --userconfig x set, go run -tags x mod@v): a word after an
	// option that takes none is counted too, which only asks more.
	ops := make([]string, 0, 3)
	for i := 0; i < len(words) && len(ops) < 3; i++ {
		w := words[i]
		if !w.known {
			continue
		}
		if strings.HasPrefix(w.text, "-") {
			if !strings.Contains(w.text, "=") && separateValue[w.text] {
				i++
			}
			continue
		}
		ops = append(ops, w.text)
	}
	first := func(s ...string) bool { return len(ops) >= len(s) && slices.Equal(ops[:len(s)], s) }
	switch {
	case (name == "npm" || name == "pnpm" || name == "yarn" || name == "bun") && (first("set") || first("c", "set") || first("config", "set")):
		return name + " set: a setting of what later commands run"
	case name == "gsettings" && (first("set") || first("reset")), name == "dconf" && first("write"):
		return name + ": a desktop setting (a default terminal or handler runs later)"
	case agentCLIs[name] && (first("mcp", "add") || first("mcp", "add-json") || first("mcp", "add-from-claude-desktop") || first("mcp", "install") ||
		first("extensions", "install") || first("extension", "install") || first("plugin", "install") || first("plugins", "install") ||
		first("plugin", "add") || first("extensions", "link")):
		return name + " " + strings.Join(ops[:2], " ") + ": code its every later session runs"
	case name == "go" && first("run") && len(ops) >= 2 && remoteModule(ops[1]):
		return "go run " + ops[1] + ": a module fetched and run"
	}
	return ""
}

// laterPrograms are the programs other than agentCLIs whose words
// runsLater reads.
var laterPrograms = keySetExact("npm", "pnpm", "yarn", "bun", "gsettings", "dconf", "go")

// separateValue are options, of the programs runsLater reads, whose value
// is the next word.
var separateValue = map[string]bool{"--userconfig": true, "--globalconfig": true, "--prefix": true, "-C": true, "--workspace": true,
	"-w": true, "--filter": true, "--cwd": true, "-tags": true, "--tags": true, "-ldflags": true, "-gcflags": true, "-o": true,
	"-mod": true, "-modfile": true, "-p": true, "-exec": true, "-toolexec": true, "--scope": true, "-s": true}

// remoteModule reports a Go package path that is fetched, not the
// module's own: a version (x@latest), or a first element that is a
// domain (github.com/x/y), not ./x, ../x, /x or a file.go.
func remoteModule(p string) bool {
	if strings.Contains(p, "@") {
		return true
	}
	if strings.HasPrefix(p, ".") || strings.HasPrefix(p, "/") || strings.HasSuffix(p, ".go") {
		return false
	}
	head, _, _ := strings.Cut(p, "/")
	return strings.Contains(head, ".")
}

// runner reads a program whose row says which of its subcommands run a
// command (p.runs).
func (r *shellReader) runner(p *program, name string, rest []shellWord, dirs []string) []string {
	// uv run CMD, mise exec TOOL -- CMD: the command after the
	// subcommand (and its options, and a "--" when there is one).
	args, at := parseArgs(rest, p, true)
	r.options(p, args, dirs)
	if at < len(rest) && rest[at].known && p.runs.has(rest[at].text) {
		after := rest[at+1:]
		for i, w := range after {
			if w.known && w.text == "--" {
				if name == "nix" {
					// nix run INSTALLABLE -- ARGS: the installable is the
					// program run, the words after "--" its arguments.
					after = append(slices.Clone(after[:i]), after[i+1:]...)
				} else {
					after = after[i+1:]
				}
				break
			}
		}
		run := program{kind: progWrapper, values: p.values}
		return r.wrapper(&run, after, dirs)
	}
	r.defaultCommand(name, rest, dirs) // uv sync, poetry install: read as any program is
	return dirs
}

// byKind reads a command by its program's kind of row.
func (r *shellReader) byKind(p *program, prog shellWord, name string, rest []shellWord, dirs []string) []string {
	switch p.kind {
	case progWrapper:
		return r.wrapper(p, rest, dirs)
	case progShell:
		r.shell(p, rest, dirs)
	case progInterpreter:
		r.interpreter(p, name, rest, dirs)
	case progScript:
		r.script(p, rest, dirs)
	case progNetwork:
		r.network(p, name, rest, dirs)
	case progRemote:
		r.remote(p, rest, dirs)
	case progCopy:
		r.copying(p, rest, dirs)
	case progCd:
		return r.cd(rest, dirs)
	case progUnknown:
		r.unknown(prog.text)
		r.operands(rest, dirs)
		if name == "popd" || name == "source" || name == "." || name == "eval" {
			return addDir(dirs, "")
		}
	case progContainer:
		r.container(p, name, rest, dirs)
	case progGit:
		r.git(p, rest, dirs)
	case progLookup:
	case progData:
		r.dataProgram(p, name, rest, dirs)
	case progPattern:
		r.pattern(p, rest, dirs)
	case progFind:
		r.find(rest, dirs)
	case progJq:
		r.jq(rest, dirs)
	case progCLI:
		r.cli(p, rest, dirs)
	case progSQL:
		r.sqlClient(p, name, rest, dirs)
	}
	return dirs
}

// dataProgram reads a program that takes data: only its file options
// (what its words substitute was read with them).
func (r *shellReader) dataProgram(p *program, name string, words []shellWord, dirs []string) {
	args, _ := parseArgs(words, p, false)
	r.options(p, args, dirs)
	if !pgClients[name] {
		return
	}
	for _, a := range args {
		switch {
		case a.opt != "":
		case name == "pg_restore":
			r.read(a.value, dirs) // the archive it restores
		default:
			r.connection(a.value) // pg_dump DBNAME, or a connection string or URI
		}
	}
}

// pattern reads grep's and rg's words: the pattern (the first operand,
// unless -e or -f gives it) is data, the other operands files.
func (r *shellReader) pattern(p *program, words []shellWord, dirs []string) {
	args, _ := parseArgs(words, p, false)
	dirs = r.options(p, args, dirs)
	given := false
	// rg, ag and ack search a directory's tree; grep with -r, -R or
	// --directories=recurse.
	recursive := p.recurses
	for _, a := range args {
		switch a.opt {
		case "-e", "--regexp":
			given = true
		case "-f", "--file":
			given = given || p.files.has(a.opt) // grep's file of patterns; ag's -f is --follow
		case "-r", "-R", "--recursive", "--dereference-recursive":
			recursive = true
		case "-d", "--directories":
			recursive = recursive || a.value.text == "recurse"
		}
		r.follows = r.follows || p.follow.has(a.opt) // grep -R, rg -L
	}
	files := 0
	for _, a := range args {
		switch {
		case searchGlobs.has(a.opt) && (a.value.known || !strings.ContainsAny(a.value.text, "$`")) && !strings.HasPrefix(a.value.text, "!") &&
			fileGlobNamesFloor(a.value.text):
			// grep --include=.env, rg -g '.ssh/id_*': the files searched,
			// and printed, are the floor's. Which ones cannot be told. An
			// unquoted glob that matches no file here reaches grep as
			// written (--include=*env).
			r.unknown(a.value.text)
		case a.opt != "":
		case !given:
			given = true // the pattern
		case recursive:
			files++
			r.treeRead(a.value, dirs)
		default:
			files++
			r.read(a.value, dirs)
		}
	}
	if recursive && files == 0 {
		r.treeRead(shellWord{text: ".", known: true}, dirs) // the tree where it runs
	}
	r.follows = false
}

// searchGlobs are the options of search programs whose value is a glob
// of the files searched (a "!" before it leaves them out).
var searchGlobs = opts("--include -g --glob --iglob --include-dir")

// findValues are find's tests and actions that take a value, and those
// whose value is a file (read or written).
var (
	findValues = opts("-name -iname -path -ipath -wholename -iwholename -regex -iregex -type -xtype -maxdepth -mindepth -perm -user -group -uid -gid " +
		"-size -mtime -mmin -atime -amin -ctime -cmin -newer -anewer -cnewer -samefile -inum -links -fstype -printf -fprint -fprint0 -fprintf -fls " +
		"-lname -ilname -context -used -regextype -newerXY -D -files0-from")
	findFiles = opts("-newer -anewer -cnewer -samefile -fprint -fprint0 -fprintf -fls -files0-from")
	findExec  = opts("-exec -execdir -ok -okdir")
	findNames = opts("-name -iname -path -ipath -wholename -iwholename")
	// foundReaders only read the files find or fd gives them: "{}" is a
	// file under a start point, read with it. Any other program's "{}"
	// (cp x {}, sed -i, rm) is unknown.
	foundReaders = opts("cat tac head tail wc grep egrep fgrep rg file stat ls du md5sum sha1sum sha256sum sha512sum b2sum cksum " +
		"basename dirname echo printf realpath readlink jq xxd od hexdump strings sort uniq nl less more bat batcat diff cmp")
)

// find reads find's words: its start points (paths; "." when none), its
// file-valued tests, and each -exec's command, whose "{}" is a file found
// under the start points (read as them).
func (r *shellReader) find(words []shellWord, dirs []string) {
	execs := false
	for _, w := range words {
		execs = execs || w.known && findExec[w.text]
		r.follows = r.follows || w.known && (w.text == "-L" || w.text == "-follow")
	}
	defer func() { r.follows = false }()
	starts, i := r.findStarts(words, dirs, execs)
	for ; i < len(words); i++ {
		w := words[i]
		switch {
		case !w.known:
			r.unknown(w.text)
		case findExec[w.text]:
			i = r.findExec(words, i, starts, dirs)
		case findFiles[w.text] && i+1 < len(words):
			i++
			r.read(words[i], dirs)
		case findValues[w.text] && i+1 < len(words):
			i++
			if !words[i].known {
				r.unknown(words[i].text)
			} else if execs && findNames[w.text] && fileGlobNamesFloor(strings.TrimPrefix(words[i].text, "*/")) {
				// -name '.env*' -exec cat {} +: the files found, and read,
				// are the floor's.
				r.unknown(words[i].text)
			}
		}
		// Anything else is a test or an action on what was found (-delete
		// among them): the start points were read.
	}
}

// findStarts reads find's start points (its global options skipped):
// each a tree when an -exec is given its files. It returns them ("."
// when none) and the index of the first word after them.
func (r *shellReader) findStarts(words []shellWord, dirs []string, execs bool) (starts []shellWord, i int) {
	for ; i < len(words); i++ {
		w := words[i]
		if w.known && (w.text == "-H" || w.text == "-L" || w.text == "-P" || w.text == "--" || strings.HasPrefix(w.text, "-O")) {
			continue
		}
		if w.known && w.text == "-D" && i+1 < len(words) {
			i++ // -D debugopts
			continue
		}
		if w.known && (strings.HasPrefix(w.text, "-") || w.text == "(" || w.text == "!" || w.text == ")") {
			break
		}
		starts = append(starts, w)
		if execs {
			r.treeRead(w, dirs) // what -exec runs is given every file under it
		} else {
			r.read(w, dirs)
		}
	}
	if len(starts) == 0 {
		// GNU find starts where it runs: "find -delete" is "find . -delete".
		starts = []shellWord{{text: ".", known: true}}
		if execs {
			r.treeRead(starts[0], dirs)
		} else {
			r.read(starts[0], dirs)
		}
	}
	return starts, i
}

// findExec reads the command of the -exec (or -execdir, -ok, -okdir) at
// words[at], up to its ";" or "+", and returns that end's index.
func (r *shellReader) findExec(words []shellWord, at int, starts []shellWord, dirs []string) int {
	w := words[at]
	end := at + 1
	for end < len(words) && !(words[end].known && (words[end].text == ";" || words[end].text == "+")) {
		end++
	}
	cmd := make([]shellWord, 0, end-at-1)
	reads := at+1 < end && words[at+1].known && foundReaders[programName(words[at+1].text)] && !strings.HasSuffix(w.text, "dir")
	for _, c := range words[at+1 : end] {
		switch {
		case c.known && c.text == "{}" && reads:
			// Each file found, read: one under a start point,
			// which the command is read with, as a tree.
			cmd = append(cmd, starts...)
			continue
		case c.known && strings.Contains(c.text, "{}"):
			// A file found, changed (cp x {}, sed -i), which may
			// be .git/config; or a path made of one ({}/../x,
			// -execdir's ./name). Which cannot be told.
			r.unknown(c.text)
			continue
		}
		cmd = append(cmd, c)
	}
	inner := dirs
	if strings.HasSuffix(w.text, "dir") {
		inner = []string{""} // run in each found file's directory
	}
	// The files given it are the trees' (read above as trees). A
	// program that opens each one follows a link it is given
	// (find . -type l -exec cat {} +).
	r.tree, r.follows = true, r.follows || reads
	r.command(cmd, inner)
	r.tree = false
	return end
}

// jq reads jq's words: the filter is data (a file with -f), the rest
// files; --arg and --argjson take a name and a value, --slurpfile and
// --rawfile a name and a file.
func (r *shellReader) jq(words []shellWord, dirs []string) {
	filter := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case !w.known:
			r.unknown(w.text)
		case w.text == "--arg" || w.text == "--argjson":
			i += 2
		case w.text == "--slurpfile" || w.text == "--rawfile":
			if i+2 < len(words) {
				r.read(words[i+2], dirs)
			}
			i += 2
		case w.text == "-f" || w.text == "--from-file":
			if i+1 < len(words) {
				r.read(words[i+1], dirs)
			}
			i++
			filter = true
		case w.text == "-L" || w.text == "--library-path":
			// Where "import" and "include" read modules and data: a
			// directory of files the filter may read.
			if i+1 < len(words) {
				r.read(words[i+1], dirs)
			}
			i++
		case strings.HasPrefix(w.text, "-L") && len(w.text) > 2:
			r.read(shellWord{text: w.text[2:], known: w.known}, dirs)
		case w.text == "--indent":
			i++
		case w.text == "--args" || w.text == "--jsonargs":
			return // the rest are values
		case strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "--") && strings.Contains(w.text[1:], "f"):
			if i+1 < len(words) {
				r.read(words[i+1], dirs) // -nrf FILE: the filter is a file
			}
			i++
			filter = true
		case strings.HasPrefix(w.text, "-") && w.text != "-":
		case !filter && (w.text == "eval" || w.text == "e" || w.text == "eval-all" || w.text == "ea"):
			// yq's subcommand before its expression
		case !filter:
			filter = true
			if filterReadsFiles(w.text) {
				r.unknown(w.text)
			}
		default:
			r.read(w, dirs)
		}
	}
}

// filterReadsFiles reports a yq filter that opens files or reads the
// environment by names only it knows: load, load_str, load_xml,
// load_props and load_base64, env and strenv. What it reads cannot be
// told. (jq's env and $ENV are the credentials rule's.)
func filterReadsFiles(f string) bool {
	return strings.Contains(f, "load") || strings.Contains(f, "strenv") || strings.Contains(f, "env(")
}

// record keeps a command for the rules that match commands.
func (r *shellReader) record(words []shellWord) {
	c := SimpleCommand{Arg: r.s.arg, Pointer: r.s.at.String(), Words: make([]string, len(words)), Program: programName(words[0].text)}
	for i, w := range words {
		c.Words[i] = w.text
		c.Unknown = c.Unknown || !w.known
		if !c.Unknown {
			c.Known = i + 1
		}
	}
	if len(r.w.out.Commands) >= MaxValues {
		r.w.err = fmt.Errorf("the call holds more than %d commands", MaxValues)
		return
	}
	if c.Program == "set" {
		r.xtrace = tracesCommands(c.Words[1:], r.xtrace)
	}
	c.Credentials = printsCredentials(c.Program, c.Words) || r.xtrace && printsSecretVariables(c.Words)
	if r.cur >= 0 && r.cur < len(r.w.out.Commands) {
		c.By = r.cur + 1 // read from that command's words
	}
	r.w.out.Commands = append(r.w.out.Commands, c)
	r.cur = len(r.w.out.Commands) - 1
	if len(r.w.tool.coveredCommands) > 0 {
		for len(r.w.covered) < r.cur {
			r.w.covered = append(r.w.covered, nil) // commands recorded elsewhere (reader.go's program words)
		}
		var cover *commandCover
		if !c.Unknown {
			cover = coverOf(r.w.tool.coveredCommands, c.Words)
		}
		r.w.covered = append(r.w.covered, cover)
	}
	r.listens(c)
	if h, ok := remoteActionHost(c.Program, c.Words); ok {
		line := strings.Join(c.Words, " ")
		if len(line) > maxShownAction {
			line = strings.ToValidUTF8(line[:maxShownAction], "") + "…"
		}
		r.host(line, h) // what it changes or runs remotely
	}
}

// commandCover is what the user's command globs that match a command
// allow it to run that cannot be read: everything, for a glob with no
// wildcard ("python3": the command exactly as written, its standard
// input included); else only what the options the glob spells out bring
// ("python3 -c *" allows -c's code, "git fetch*" no --upload-pack).
type commandCover struct {
	exact bool
	words map[string]bool // the words a matching glob spells before its first wildcard, the program's left out
}

// covers reports that c allows the code given to the option opt ("" for
// code on standard input, which only an exact glob allows).
func (c *commandCover) covers(opt string) bool {
	if c == nil {
		return false
	}
	return c.exact || opt != "" && c.words[opt]
}

// coverOf is what globs allow a command, all of whose words are known, to
// run; nil when none matches it as a rule's command glob does (its words
// joined by one space).
func coverOf(globs []string, words []string) *commandCover {
	line := strings.Join(words, " ")
	var c *commandCover
	for _, g := range globs {
		if !lexical.MatchTool(g, line) {
			continue
		}
		if c == nil {
			c = &commandCover{words: map[string]bool{}}
		}
		at := strings.IndexAny(g, "*?\\")
		if at < 0 {
			c.exact = true
			continue
		}
		// The words before the wildcard, but one it is written onto
		// ("fetch*" may be "fetch-pack").
		spelt := strings.Fields(g[:at])
		if at > 0 && g[at-1] != ' ' && len(spelt) > 0 {
			spelt = spelt[:len(spelt)-1]
		}
		for i, w := range spelt {
			if i > 0 {
				c.words[w] = true
			}
		}
	}
	return c
}

// maxShownAction bounds the words a remote action's host is shown with.
const maxShownAction = 200

// options reads the options of args by p's table: files, hosts, code and
// lines; it returns the working directories after any chdir option.
func (r *shellReader) options(p *program, args []shellArg, dirs []string) []string {
	for _, a := range args {
		switch {
		case a.opt == "":
		case p.code.has(a.opt):
			r.code(a.opt, a.opt+" "+a.value.text) // code run by the program
			if a.hasValue && a.value.known {
				// What the code names in its literals is read still, as a
				// code runner's is: a rule that allows the code does not
				// allow open('/home/u/.ssh/id_rsa') or the metadata service.
				r.w.codeLiterals(r.s, a.value.text)
			}
		case p.lines.has(a.opt) && a.hasValue:
			r.lineWord(a.value, dirs)
		case p.chdir.has(a.opt):
			r.read(a.value, dirs)
			dirs = addDir(nil, "")
		case a.hasValue && a.value.known && namedFile(a.value.text) != "":
			// kubectl -o custom-columns-file=F, go-template-file=F: a
			// value that names the file it reads under a name for one.
			r.read(shellWord{text: namedFile(a.value.text), known: true}, dirs)
		case p.files.has(a.opt) && a.hasValue && a.value.known && a.value.text == "-":
			if readsStdin[a.opt] {
				r.unknown(a.opt + " -") // what it reads from standard input: curl -K -, wget -i -
			} // else standard output: wget -O -

		case p.files.has(a.opt) && a.hasValue && p.kind == progCLI:
			r.cliFiles(a.value, dirs)
		case p.files.has(a.opt) && a.hasValue:
			r.read(a.value, dirs)
		case p.hosts.has(a.opt) && a.hasValue:
			r.hostWord(a.value)
		case p.conn.has(a.opt) && a.hasValue:
			r.connection(a.value)
		case a.hasValue && a.value.known && readsAsURL(a.value.text):
			r.hostWord(a.value) // kubectl --server=https://x: any option's URL is a host reached
		case p.kind == progContainer && containerSide[a.opt]:
			// The container's own directory, or a mount, whose source the
			// container reader reads (r.volume, r.mount).
		case a.hasValue && a.value.known && (strings.HasPrefix(a.value.text, "/") || strings.HasPrefix(a.value.text, "@/")):
			// An option the table says takes a value, whose value is an
			// absolute path: a wrong row must not hide it (grep --color
			// /etc/x, git diff -b /etc/x, curl -w @/etc/x).
			r.path(strings.TrimPrefix(a.value.text, "@"), dirs, false)
		}
	}
	return dirs
}

// namedFile is the file an option's value names as NAME=FILE where NAME
// ends in "file", "-path" or "_path" (custom-columns-file=x.txt,
// jsonpath-file=/x, config_path=~/y; not jsonpath={...}, a format); ""
// for another value, and for curl's form fields' "@file" and "<file",
// which its own reader reads.
func namedFile(v string) string {
	k, f, ok := strings.Cut(v, "=")
	k = strings.ToLower(k)
	if !ok || f == "" || strings.ContainsAny(k, "/ ") || strings.HasPrefix(f, "@") || strings.HasPrefix(f, "<") ||
		!strings.HasSuffix(k, "file") && !strings.HasSuffix(k, "-path") && !strings.HasSuffix(k, "_path") {
		return ""
	}
	return f
}

// taskRunners are the programs whose operands name tasks, targets,
// scripts or owners with colons in them (npm run build:prod, artisan
// route:list, rake db:migrate, gradle app:build, nx run app:build,
// chown app:app).
var taskRunners = keySetExact("npm", "yarn", "pnpm", "bun", "deno", "php", "artisan", "rails", "rake", "bin/rails", "gradle", "gradlew",
	"mvn", "mvnw", "sbt", "mix", "composer", "symfony", "console", "nx", "turbo", "lerna", "just", "task", "make", "gmake", "cake",
	"grunt", "gulp", "ng", "nest", "chown", "chgrp", "flask", "django-admin", "manage.py", "drush", "wp", "craft", "pnpx", "npx")

// runsTasks reports that the command whose words are being read is a
// task runner's (taskRunners).
func (r *shellReader) runsTasks() bool {
	if r.cur < 0 || r.cur >= len(r.w.out.Commands) {
		return false
	}
	c := r.w.out.Commands[r.cur]
	return taskRunners[c.Program] || len(c.Words) > 1 && (c.Words[1] == "artisan" || strings.HasSuffix(c.Words[1], "manage.py") ||
		strings.HasSuffix(c.Words[1], "console"))
}

// colonName reports a word of names joined by colons (npm run
// build:prod, artisan route:list, rails db:migrate:status, chown
// user:group): no "/", "\\" or "@" (a remote path, a URL), no known URL
// scheme first ("http:host"), no drive letter ("C:x"), and no host
// before it.
func colonName(t string) bool {
	first, _, ok := strings.Cut(t, ":")
	last := t[strings.LastIndexByte(t, ':')+1:]
	if !ok || len(first) < 2 || lexical.KnownScheme(strings.ToLower(first)) || last == "" || strings.Contains(first, ".") ||
		strings.Trim(last, "0123456789") == "" {
		return false // a host and a port (0.0.0.0:8000, localhost:3000), a host's path (example.com:x)
	}
	return !strings.ContainsFunc(t, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == ':' || c == '-' || c == '_' || c == '.' || c == '+')
	})
}

// containerSide are a container tool's options whose value is in the
// container (its working directory) or a mount read apart.
var containerSide = map[string]bool{"-w": true, "--workdir": true, "-v": true, "--volume": true, "--mount": true}

// readsStdin are the file options whose "-" is standard input, which
// says what to do (a config, a list of URLs, a body), not output.
var readsStdin = map[string]bool{"-K": true, "--config": true, "-i": true, "--input-file": true, "--post-file": true,
	"--body-file": true, "-T": true, "--upload-file": true, "-f": true, "--file": true, "-F": true}

// lineWord reads a word that is itself a command line.
func (r *shellReader) lineWord(w shellWord, dirs []string) {
	if !w.known {
		r.unknown(w.text)
		return
	}
	r.line(w.text, dirs)
}

// wrapper reads a program that runs the command after its options.
func (r *shellReader) wrapper(p *program, words []shellWord, dirs []string) []string {
	args, rest := parseArgs(words, p, true)
	if p.shellBuiltin {
		for _, a := range args {
			if a.opt == "-v" || a.opt == "-V" {
				return dirs // command -v: a lookup
			}
		}
	}
	for _, a := range args {
		if a.opt == "-s" || a.opt == "-i" || a.opt == "--shell" || a.opt == "--login" {
			if p.privileged && rest == len(words) {
				return dirs // an interactive shell: nothing run here
			}
		}
	}
	inner := r.options(p, args, dirs)
	if p.skip < 0 {
		// su's operands are a user and a shell's arguments: its command
		// is the -c option's, read above.
		for _, w := range words[rest:] {
			if !w.known {
				r.unknown(w.text)
			}
		}
		return dirs
	}
	rest, inner, ok := r.wrapperSkip(p, words, rest, inner, dirs)
	if !ok || rest >= len(words) {
		return dirs
	}
	return r.wrappedCommand(p, args, words[rest:], inner, dirs)
}

// wrapperSkip reads what comes between a wrapper's options and its
// command: env's assignments, the words its row skips, and the options
// after them. It returns the command's index and where it runs; not ok
// when one of those options gave the command line (read with it).
func (r *shellReader) wrapperSkip(p *program, words []shellWord, rest int, inner, dirs []string) (int, []string, bool) {
	// env's assignments before the command.
	for rest < len(words) && words[rest].known && strings.Contains(words[rest].text, "=") && !strings.HasPrefix(words[rest].text, "=") {
		if name, _, _ := strings.Cut(words[rest].text, "="); codeVariable(name) {
			r.unknown(words[rest].text)
		}
		rest++
	}
	for k := 0; k < p.skip && rest < len(words); k++ {
		if p.skipPaths {
			r.read(words[rest], dirs)
		} else if !words[rest].known {
			r.unknown(words[rest].text)
		}
		rest++
	}
	if p.skip > 0 && rest < len(words) {
		// Options may follow what was skipped (flock FILE -c LINE).
		more, after := parseArgs(words[rest:], p, true)
		inner = r.options(p, more, inner)
		for _, a := range more {
			if p.lines.has(a.opt) {
				return rest, inner, false
			}
		}
		rest += after
	}
	return rest, inner, true
}

// wrappedCommand reads the command a wrapper runs (cmd, not empty), in
// inner; it returns the directories the wrapper leaves the shell in.
func (r *shellReader) wrappedCommand(p *program, args []shellArg, cmd []shellWord, inner, dirs []string) []string {
	if p.stdin {
		// xargs given the files under known directories (find . | xargs
		// wc -l) by a program that only reads them: those directories,
		// read as trees. Else its arguments are unknown.
		if piped := r.piped.paths(); piped != nil && !p.joined && cmd[0].known && foundReaders[programName(cmd[0].text)] && !replaces(args) {
			files := append(slices.Clip(cmd), piped...)
			r.tree, r.follows = true, true // it opens each file, a link's target too
			r.command(files, inner)
			r.tree, r.follows = false, false
			return dirs
		}
		r.unknown("the arguments it reads from its standard input")
	}
	if p.each {
		for _, w := range cmd {
			r.lineWord(w, inner)
		}
		return dirs
	}
	if p.shellArgs {
		// capsh's "--": what follows is bash's.
		r.command(append([]shellWord{{text: "bash", known: true}}, cmd...), inner)
		return dirs
	}
	if p.joined {
		texts := make([]string, 0, len(cmd))
		for _, w := range cmd {
			if !w.known {
				r.unknown(w.text)
				return dirs
			}
			texts = append(texts, w.text)
		}
		r.line(strings.Join(texts, " "), inner)
		return dirs
	}
	after := r.command(cmd, inner)
	if p.shellBuiltin {
		return after // builtin cd, command cd: the shell's own
	}
	return dirs // the command's own cd changes nothing after it: it is a program, not the shell
}

// shell reads a shell's words: a command line after -c, else a script and
// its arguments, else commands from standard input (unknown).
func (r *shellReader) shell(p *program, words []shellWord, dirs []string) {
	args, rest := parseArgs(words, p, true)
	dirs = r.options(p, args, dirs)
	command, stdin := false, false
	for _, a := range args {
		switch a.opt {
		case "-c":
			command = true
		case "-s":
			stdin = true
		}
	}
	switch {
	case command && rest < len(words):
		r.lineWord(words[rest], dirs) // the words after it are $0, $1, ...: data
		for _, w := range words[rest+1:] {
			if !w.known {
				r.unknown(w.text)
			}
		}
	case command || stdin || rest >= len(words):
		r.unknown("the commands " + "on standard input")
	case words[rest].known && (words[rest].text == "-" || words[rest].text == "/dev/stdin"):
		r.unknown("the commands on standard input")
	default:
		r.read(words[rest], dirs) // the script
		r.operands(words[rest+1:], dirs)
	}
}

// inPlace reports an editor's option that rewrites its files in place:
// -i, a cluster with i in it (-pi, -ie), --in-place.
func inPlace(words []shellWord) bool {
	for _, w := range words {
		t := w.text
		if strings.HasPrefix(t, "--in-place") || len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.ContainsRune(t, 'i') {
			return true
		}
	}
	return false
}

// replaces reports xargs's -I, -i or --replace: its command's words are
// made of each line, not given them.
func replaces(args []shellArg) bool {
	return slices.ContainsFunc(args, func(a shellArg) bool {
		return a.opt == "-I" || a.opt == "-i" || strings.HasPrefix(a.opt, "--replace")
	})
}

// writes keeps the files cp, mv, install and tee write: the last operand
// of the first three (a file, or a directory, whose name is kept as a
// file's too), every operand of tee.
func (r *shellReader) writes(name string, words []shellWord, dirs []string) {
	switch {
	case name == "touch" || name == "truncate" || name == "mkdir":
		// Each operand is made or emptied.
		for _, w := range words {
			if !w.known || !strings.HasPrefix(w.text, "-") {
				r.wrote(w, dirs)
			}
		}
		return
	case name == "rm" || name == "unlink" || name == "shred" || name == "chmod" || name == "chown" || name == "chgrp" ||
		name == "chattr" || name == "setfacl":
		// Each operand is removed, or its mode or owner changed: a change
		// of the file (Value.Written), but no new content a later command
		// could run (chmod +x x.sh && ./x.sh runs what was there). A mode's
		// or an owner's word names no file, and marking it changes nothing.
		for _, w := range words {
			if w.known && !strings.HasPrefix(w.text, "-") {
				r.changedFile(w, dirs)
			}
		}
		return
	case name == "dd":
		for _, w := range words {
			if of, ok := strings.CutPrefix(w.text, "of="); ok && w.known {
				r.wrote(shellWord{text: of, known: true}, dirs)
			}
		}
		return
	case name == "cp", name == "mv", name == "install", name == "tee", name == "ln", name == "rsync":
	case (name == "sed" || name == "gsed" || name == "perl" || name == "yq" || name == "ruby") && inPlace(words):
		// sed -i, perl -pi, yq -i: every operand but the script is
		// rewritten in place.
		for _, w := range words[1:] {
			if !strings.HasPrefix(w.text, "-") {
				r.wrote(w, dirs)
			}
		}
		return
	case (name == "npm" || name == "pnpm" || name == "yarn" || name == "bun") && (hasWord(words, "set-script") || hasWord(words, "pkg") && hasWord(words, "set")):
		r.wrote(shellWord{text: "package.json", known: true}, dirs) // npm pkg set scripts.test=...
		return
	default:
		return
	}
	var operands []shellWord
	for _, w := range words {
		if !w.known || !strings.HasPrefix(w.text, "-") {
			operands = append(operands, w)
		}
	}
	if len(operands) == 0 {
		return
	}
	if name != "tee" {
		operands = operands[len(operands)-1:]
	}
	for _, w := range operands {
		r.wrote(w, dirs)
	}
}

// runsWrittenCode reads a command that may run a file the line wrote:
// an interpreter, a shell or a runner given it by name, anywhere in its
// words (deno run x.ts, make -f x.mk); and any program but one that only
// reads, prints or moves files, run after the line wrote source or
// configuration a program loads by itself (conftest.py then pytest,
// setup.py then pip install ., main.tf then terraform apply, compose.yaml
// then docker compose up). Either runs text the decision did not read:
// unknown.
func (r *shellReader) runsWrittenCode(name string, words []shellWord, dirs []string) {
	if r.written == nil {
		return
	}
	p, known := programs[name]
	if known && (p.kind == progInterpreter || p.kind == progShell) || projectRunners[name] {
		for _, w := range words {
			if r.runsWritten(w, dirs) {
				return // said once
			}
		}
	}
	if foundReaders[name] || known && (p.kind == progData || p.kind == progLookup || p.kind == progCd || p.kind == progPattern) || copiers[name] {
		return // it only reads, prints or moves what the line wrote
	}
	for _, f := range slices.Sorted(maps.Keys(r.written)) {
		if loadedByRunner(f) {
			r.unknown("what " + name + " loads, written by the same line (" + path.Base(f) + ")")
			return
		}
	}
}

// copiers move or copy files, and run none of them.
var copiers = opts("cp mv install tee chmod mkdir touch ln rm git")

// projectRunners build, test or run a project from its files: what they
// load is the project's source and configuration.
var projectRunners = opts("npm npx yarn pnpm bun deno make gmake just task rake bundle cargo go pytest py.test tox nox " +
	"mvn gradle gradlew sbt dotnet cmake ninja meson composer mix jest vitest mocha phpunit rspec tsc ant")

// loadedByRunner reports a file a project's runner may load: source in a
// language one compiles or runs, or a build's or a tool's configuration.
func loadedByRunner(f string) bool {
	base := strings.ToLower(path.Base(f))
	if runnerFiles[base] || strings.HasPrefix(base, ".npmrc") || strings.HasPrefix(base, "makefile") || strings.HasSuffix(base, ".mk") {
		return true
	}
	return codeExtensions[strings.TrimPrefix(path.Ext(base), ".")]
}

var (
	// runnerFiles are the files a runner reads its tasks or settings from.
	runnerFiles = opts("package.json .npmrc .yarnrc .yarnrc.yml gnumakefile justfile taskfile.yml taskfile.yaml rakefile gemfile " +
		"snakefile dockerfile containerfile vagrantfile jenkinsfile procfile tiltfile earthfile .gitlab-ci.yml " +
		"cargo.toml build.rs go.mod pyproject.toml setup.py setup.cfg tox.ini noxfile.py pytest.ini conftest.py pom.xml build.gradle " +
		"build.gradle.kts settings.gradle cmakelists.txt meson.build composer.json mix.exs deno.json deno.jsonc jest.config.js vitest.config.ts " +
		".mocharc.js tsconfig.json build.xml build.sbt .env")
	// codeExtensions are the source files runners compile or load.
	codeExtensions = opts("py js mjs cjs ts mts cts jsx tsx rs go rb java kt kts scala groovy cs fs vb php pl pm lua ex exs erl " +
		"c cc cpp cxx h hpp m mm swift dart sh bash zsh ps1 r jl clj cljs nim zig vue svelte " +
		// and the configuration runners, deployers and orchestrators load
		"yml yaml toml tf tfvars hcl nix m4 smk cfg ini mk cmake gradle bzl bazel star")
)

// interpreter reads an interpreter's words: code given inline is unknown;
// a module is no path; a script and its arguments are.
func (r *shellReader) interpreter(p *program, name string, words []shellWord, dirs []string) {
	if (name == "deno" || name == "crystal") && len(words) > 0 && words[0].known && words[0].text == "eval" {
		r.unknown(name + " eval")
		return
	}
	if name == "vim" || name == "nvim" || name == "view" || name == "vi" || name == "ex" {
		for _, w := range words {
			if w.known && strings.HasPrefix(w.text, "+") {
				r.unknown(w.text) // +CMD: an editor command, which may run a program
			}
		}
	}
	args, rest := parseArgs(words, p, true)
	dirs = r.options(p, args, dirs)
	for _, a := range args {
		// node --inspect=0.0.0.0:9229, before or after -e's code: a
		// debugger anyone who reaches the port can run code through.
		if opt, addr, ok := strings.Cut(a.opt, "="); ok && strings.HasPrefix(opt, "--inspect") && inspectsOpen(addr) ||
			strings.HasPrefix(a.opt, "--inspect") && a.hasValue && a.value.known && inspectsOpen(a.value.text) {
			r.unknown(a.opt)
		}
	}
	for _, a := range args {
		if p.code.has(a.opt) {
			// The code is the command: unknown, read above. The words
			// after it are its arguments (sys.argv, process.argv): the
			// files it is given; node reads options among them too
			// (node -e x --inspect=0.0.0.0:9229).
			for _, w := range words[rest:] {
				if opt, addr, ok := strings.Cut(w.text, "="); w.known && strings.HasPrefix(opt, "--inspect") && (!ok || inspectsOpen(addr)) {
					r.unknown(w.text)
				}
			}
			r.operands(words[rest:], dirs)
			return
		}
		switch a.opt {
		case "--version", "-V", "--help", "-h":
			return // it prints and exits
		case "-v":
			if name == "node" || name == "nodejs" || name == "bun" || name == "deno" {
				return // node -v: its version
			}
		}
		if a.opt == "-m" {
			if servesFiles[a.value.text] {
				r.served(words, dirs, "--directory", "-d") // python -m http.server: the tree it serves
			}
			if moduleCommands[a.value.text] && a.value.known {
				// python -m pip install --user x is pip install --user
				// x: read as a command of its own too, as a wrapper's.
				r.command(append([]shellWord{a.value}, words[rest:]...), dirs)
				return
			}
			r.operands(words[rest:], dirs) // a module, then its arguments
			return
		}
		if a.opt == "-S" && name == "php" {
			r.served(words, dirs, "-t", "") // php -S: the document root's tree, served
		}
	}
	if rest >= len(words) || words[rest].known && (words[rest].text == "-" || words[rest].text == "/dev/stdin") {
		// Code on standard input; a here-document's or here-string's is
		// in the line, and its literals are read as a -c's are.
		r.code("", "the code "+name+" reads from its standard input")
		if r.stdinCode != "" {
			r.w.codeLiterals(r.s, r.stdinCode)
		}
		return
	}
	r.read(words[rest], dirs)
	r.operands(words[rest+1:], dirs)
}

// installsHooks reports a program that writes git hooks, or that trusts a
// file to run later on its own (direnv allow, mise trust: the .envrc or
// the config runs at the next cd).
func installsHooks(name string, words []shellWord) bool {
	switch name {
	case "pre-commit", "lefthook", "overcommit", "git-hooks", "prek", "dvc", "ggshield", "nbstripout", "talisman":
		return hasWord(words, "install") || hasWord(words, "install-hooks") || hasWord(words, "--install")
	case "husky", "simple-git-hooks", "husky-init":
		return true // husky, husky install, husky init: hooks in .husky wired into git
	case "npx", "pnpx", "bunx", "yarn", "pnpm", "npm":
		// npx husky, yarn husky install, pnpm exec simple-git-hooks
		return hasWord(words, "husky") || hasWord(words, "husky-init") || hasWord(words, "simple-git-hooks")
	case "git":
		return hasWord(words, "secrets") && hasWord(words, "--install") // git secrets --install: its hooks
	case "mise", "rtx":
		return hasWord(words, "trust") || hasWord(words, "generate") && (hasWord(words, "git-pre-commit") || hasWord(words, "pre-commit"))
	case "direnv":
		return hasWord(words, "allow") || hasWord(words, "permit") || hasWord(words, "grant")
	}
	return false
}

// runsInlineCode reports a framework's runner given code to run inline:
// rails runner CODE and console, artisan tinker --execute, Django's
// manage.py shell -c, flask shell, cmake -E env's command.
func runsInlineCode(name string, words []shellWord) bool {
	switch name {
	case "rails", "bin/rails":
		return hasWord(words, "runner") || hasWord(words, "r") || hasWord(words, "console") || hasWord(words, "c")
	case "php":
		return hasWord(words, "artisan") && hasWord(words, "tinker")
	case "artisan":
		return hasWord(words, "tinker")
	case "python", "python3", "django-admin":
		return hasWord(words, "shell") && (hasWord(words, "manage.py") || name == "django-admin")
	case "flask":
		return hasWord(words, "shell")
	case "cmake":
		return hasWord(words, "-E") && hasWord(words, "env")
	}
	return false
}

// unsafeArchive reports an extraction told to write members outside its
// directory: unzip -: and tar -P (--absolute-names).
func unsafeArchive(name string, words []shellWord) bool {
	switch name {
	case "unzip":
		return hasWord(words, "-:")
	case "tar", "gtar", "bsdtar":
		return hasWord(words, "-P") || hasWord(words, "--absolute-names")
	}
	return false
}

// inspectsOpen reports a debugger's address (node's --inspect=HOST:PORT)
// that is not this machine's loopback: the port is open to others.
func inspectsOpen(v string) bool {
	host := v
	if i := strings.LastIndexByte(v, ':'); i >= 0 {
		host = v[:i]
	}
	host = strings.Trim(host, "[]")
	if host == "0.0.0.0" || host == "::" || host == "0" {
		return true // every interface: to a listener, the unspecified address is everyone's
	}
	return host != "" && !lexical.IsLoopback(host) && !isNumber(v)
}

// moduleCommands are the modules that are a program of the table too
// (the package managers): python -m pip is pip.
var moduleCommands = opts("pip pip3 pipx uv conda ensurepip")

// servesFiles are the modules that serve a directory over HTTP.
var servesFiles = opts("http.server SimpleHTTPServer uploadserver twisted RangeHTTPServer")

// served reads the directory a file server serves, named by an option
// (long, and short when given) or where it runs: every file under it is
// read by whoever asks, links followed.
func (r *shellReader) served(words []shellWord, dirs []string, long, short string) {
	for i, w := range words {
		switch {
		case !w.known:
		case (w.text == long || short != "" && w.text == short) && i+1 < len(words):
			r.followedTreeRead(words[i+1], dirs)
			return
		case strings.HasPrefix(w.text, long+"="):
			r.followedTreeRead(shellWord{text: w.text[len(long)+1:], known: true}, dirs)
			return
		}
	}
	r.followedTreeRead(shellWord{text: ".", known: true}, dirs)
}

// script reads awk's and sed's words: the script, checked (run by -f, a
// file), then the files it reads or edits.
func (r *shellReader) script(p *program, words []shellWord, dirs []string) {
	for _, w := range words {
		if !p.inPlace {
			break
		}
		// sed -i'SUFFIX' and --in-place=SUFFIX: a suffix with a "/" in it
		// is a directory the original is moved into ("-i'.git/hooks/*'"
		// installs the file as a hook, its mode kept).
		t := w.text
		opt, suffix, _ := strings.Cut(t, "=")
		if len(opt) >= 5 && strings.HasPrefix("--in-place", opt) && strings.ContainsAny(suffix, "/\\") ||
			len(t) > 2 && t[0] == '-' && t[1] != '-' && strings.Contains(t, "i") && strings.ContainsAny(t[strings.Index(t, "i"):], "/\\") {
			r.unknown(t)
		}
	}
	args, _ := parseArgs(words, p, false)
	dirs = r.options(p, args, dirs)
	haveScript := false
	for _, a := range args {
		switch {
		case p.files.has(a.opt):
			haveScript = true // -f FILE: the script is a file, read above
		case a.opt == "-e" || a.opt == "--expression":
			haveScript = true // sed -e SCRIPT: checked
			r.scriptText(p, a.value)
		case a.opt == "-f" || a.opt == "--file" || a.opt == "--source" || a.opt == "-E" || a.opt == "--exec":
			haveScript = true // sed's and awk's -f FILE, gawk's --source TEXT: the program, read as code above
		}
	}
	for _, a := range args {
		switch {
		case a.opt == "" && !haveScript:
			haveScript = true
			r.scriptText(p, a.value)
		case a.opt == "" && a.value.known && p.check != nil && strings.Contains(a.value.text, "=") && !strings.ContainsAny(a.value.text, "/"):
			// awk's var=value operand
		case a.opt == "":
			r.read(a.value, dirs)
		}
	}
}

// scriptText checks a script given inline.
func (r *shellReader) scriptText(p *program, w shellWord) {
	if !w.known || !p.check(w.text) {
		r.unknown(w.text)
	}
}

// network reads a network program's words: its operands are URLs or hosts,
// its file options local paths.
func (r *shellReader) network(p *program, name string, words []shellWord, dirs []string) {
	args, _ := parseArgs(words, p, false)
	dirs = r.options(p, args, dirs)
	switch name {
	case "curl", "wget", "wget2", "http", "https", "xh", "aria2c":
		r.downloads(name, args, dirs)
	}
	globs := name == "curl" && !slices.ContainsFunc(args, func(a shellArg) bool { return a.opt == "-g" || a.opt == "--globoff" })
	for _, a := range args {
		switch {
		case a.opt == "" && globs && a.value.known && urlGlob(a.value.text):
			// curl expands {a,b} and [0-9] in a URL into many: which
			// hosts it reaches cannot be told from the text.
			r.host(a.value.text, "")
		case a.opt == "" && a.value.known && name == "ssh-keyscan" && strings.Contains(a.value.text, ","):
			for _, h := range strings.Split(a.value.text, ",") {
				r.networkOperand(shellWord{text: h, known: true}, dirs, p.sends) // ssh-keyscan a,b: each host
			}
		case a.opt == "" && a.value.known && strings.HasPrefix(name, "snmp") && snmpTransport.MatchString(a.value.text):
			// udp:10.0.0.5:161, tcp6:[::1]: the agent, after its transport
			m := snmpTransport.FindStringSubmatch(a.value.text)
			r.networkOperand(shellWord{text: m[1], known: true}, dirs, p.sends)
		case a.opt == "":
			r.networkOperand(a.value, dirs, p.sends)
		case a.hasValue && a.value.known && (a.opt == "-d" || strings.HasPrefix(a.opt, "--data") || a.opt == "-F" || strings.HasPrefix(a.opt, "--form") || a.opt == "--json" || a.opt == "-T" || a.opt == "-b" || a.opt == "--cookie"):
			r.uploads(a.value.text, dirs)
		case (a.opt == "-w" || a.opt == "--write-out") && a.hasValue && a.value.known:
			r.uploads(a.value.text, dirs) // -w @file reads its format from a file
		case a.opt == "--resolve" || a.opt == "--connect-to":
			r.resolveForm(a.value)
		case a.opt == "--abstract-unix-socket":
			// A socket in Linux's abstract namespace (a container runtime's
			// shim, a daemon's API): no file to name, a local service
			// whose rights are its own.
			r.unknown(a.opt + " " + a.value.text)
		case a.hasValue && !a.value.known:
			r.unknown(a.value.text)
		}
	}
}

// snmpTransport is an SNMP agent's address with its transport in front
// (udp:host:port, tcp6:[::1]:161): the host, port left on.
var snmpTransport = regexp.MustCompile(`(?i)^(?:udp|tcp|udp6|tcp6|dtlsudp|tlstcp|ipx):(.+)$`)

// urlGlob reports a URL with curl's globbing in its scheme or host part
// ({a,b}, [0-9]); an IPv6 address's brackets are none.
func urlGlob(t string) bool {
	head := t
	if i := strings.Index(t, "://"); i >= 0 {
		head = t[i+3:]
	}
	if i := strings.IndexAny(head, "/?#"); i >= 0 {
		head = head[:i]
	}
	if strings.Contains(head, "{") {
		return true
	}
	if i := strings.Index(head, "["); i >= 0 {
		if _, err := netip.ParseAddr(strings.SplitN(head[i+1:], "]", 2)[0]); err != nil {
			return true
		}
	}
	return false
}

// downloads reads the files curl and wget write by names they take from
// the URL or the server: curl -O (the URL's last name, in --output-dir or
// where it runs), wget without -O (the same, in -P's directory); a name
// the server gives (curl -J, wget --content-disposition), a recursive
// wget's tree (-r, -m, -x) and curl's "%output{file}" write-out are
// unknown, and so are the URLs and outputs a config file (-K, -i, -e)
// names.
func (r *shellReader) downloads(name string, args []shellArg, dirs []string) {
	has := func(opts ...string) bool {
		for _, a := range args {
			for _, o := range opts {
				if a.opt == o {
					return true
				}
			}
		}
		return false
	}
	value := func(opts ...string) (shellWord, bool) {
		for _, a := range args {
			for _, o := range opts {
				if a.opt == o && a.hasValue {
					return a.value, true
				}
			}
		}
		return shellWord{}, false
	}
	var urls []string
	for _, a := range args {
		if a.opt == "" && a.value.known && readsAsURL(a.value.text) {
			urls = append(urls, a.value.text)
		}
	}
	outDirs := dirs
	switch name {
	case "http", "https", "xh", "aria2c":
		// HTTPie's --download and aria2c name the file after the
		// server's Content-Disposition when it sends one, else the URL:
		// a name the decision cannot see, unless -o gives it.
		if name != "aria2c" && !has("-d", "--download") {
			return
		}
		if v, ok := value("-i", "--input-file"); ok {
			r.unknown("what " + v.text + " names")
		}
		if _, ok := value("-o", "--output", "--out"); !ok && len(urls) > 0 {
			r.unknown("a file the server names (" + name + ")")
		}
		return
	}
	if name == "curl" {
		if v, ok := value("-K", "--config"); ok && v.text != "-" {
			r.unknown("what " + v.text + " configures")
		}
		if v, ok := value("-w", "--write-out"); ok && strings.Contains(v.text, "%output{") {
			r.unknown(v.text) // writes its report to a file it names
		}
		if has("-J", "--remote-header-name") {
			r.unknown("a file the server names (curl -J)")
		}
		if !has("-O", "--remote-name", "--remote-name-all") {
			return
		}
		if d, ok := value("--output-dir"); ok {
			outDirs = r.dirsAt(d, dirs)
		}
	} else {
		if v, ok := value("-i", "--input-file", "-e", "--execute", "--config"); ok {
			r.unknown("what " + v.text + " names")
		}
		if has("-r", "--recursive", "-m", "--mirror", "-x", "--force-directories", "--content-disposition", "--trust-server-names", "-p", "--page-requisites") {
			r.unknown("the files " + name + " names from what it downloads")
			return
		}
		if _, ok := value("-O", "--output-document"); ok {
			return // the file named, read with the options
		}
		if d, ok := value("-P", "--directory-prefix"); ok {
			outDirs = r.dirsAt(d, dirs)
		}
	}
	for _, u := range urls {
		r.path(urlFileName(u), outDirs, false)
	}
}

// dirsAt are the directories a directory option names, against dirs.
func (r *shellReader) dirsAt(d shellWord, dirs []string) []string {
	if !d.known {
		return []string{""}
	}
	var out []string
	for _, base := range dirs {
		res := ""
		if base != "" || strings.HasPrefix(d.text, "/") {
			res = r.w.resolve(base, d.text)
		}
		out = addDir(out, res)
	}
	return out
}

// urlFileName is the name curl -O and wget give a URL's download: its
// path's last name, "index.html" for none.
func urlFileName(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "index.html"
	}
	name := path.Base(p.Path)
	if name == "" || name == "." || name == "/" {
		return "index.html"
	}
	if unescaped, err := url.PathUnescape(name); err == nil {
		name = unescaped
	}
	return "./" + name
}

// networkOperand reads an operand of a network program: a URL (a file:
// URL is a path), an HTTPie request item that sends a file ("f@x.txt",
// "x=@file"), or a host.
func (r *shellReader) networkOperand(w shellWord, dirs []string, sends bool) {
	if !w.known {
		r.unknown(w.text)
		r.host(w.text, "")
		return
	}
	t := w.text
	switch {
	case strings.HasPrefix(strings.ToLower(t), "file:"):
		r.unknown(t)
	case readsAsURL(t):
		h, _ := urlHost(t)
		r.host(t, h)
	case sends && strings.HasPrefix(t, ":") && (len(t) == 1 || t[1] == '/' || t[1] >= '0' && t[1] <= '9'):
		r.host(t, "localhost") // HTTPie's and xh's ":8080/x": this machine
	case strings.HasPrefix(t, "@") && !sends:
		r.hostWord(shellWord{text: t[1:], known: true}) // dig's @server
	case strings.Contains(t, "@") && sends && (strings.Contains(t, "=@") || strings.Contains(t, ":=@") || !strings.Contains(t, ".") || strings.Index(t, "@") > strings.IndexAny(t+"=", "=:")):
		r.uploads(t, dirs) // HTTPie's name@file, name=@file
	case strings.Contains(t, "@"):
		// user@host/path: a URL with its user (curl reads it so), or an
		// address.
		if h, ok := schemelessHost(t); ok {
			r.host(t, h)
		} else {
			r.host(t, "")
		}
	default:
		if h, ok := schemelessHost(t); ok {
			r.host(t, h)
		} else if h, ok := weakHostValue(t, true); ok {
			r.host(t, h)
		}
	}
}

// uploads reads the files a value sends: curl's "@file" and "name=@file",
// "name=<file", HTTPie's "name@file".
func (r *shellReader) uploads(v string, dirs []string) {
	i := strings.IndexAny(v, "@<")
	if i < 0 {
		return
	}
	f := v[i+1:]
	if j := strings.IndexByte(f, ';'); j >= 0 {
		f = f[:j] // ";type=text/plain"
	}
	if f != "" && f != "-" {
		r.path(f, dirs, false)
	}
}

// resolveForm reads curl's --resolve and --connect-to: "host:port:addr",
// "host:port:host2:port2", whose addresses are where curl connects.
func (r *shellReader) resolveForm(w shellWord) {
	if !w.known {
		r.host(w.text, "")
		return
	}
	parts := strings.Split(w.text, ":")
	for _, part := range parts {
		part = strings.Trim(part, "[]+")
		if part == "" || isNumber(part) || part == "*" {
			continue
		}
		if h, ok := weakHostValue(part, false); ok {
			r.host(w.text, h)
		} else {
			r.host(w.text, "")
		}
	}
}

// hostWord reads a word that is a host or a URL.
func (r *shellReader) hostWord(w shellWord) {
	if !w.known {
		r.host(w.text, "")
		return
	}
	if readsAsURL(w.text) {
		h, _ := urlHost(w.text)
		r.host(w.text, h)
		return
	}
	h, ok := weakHostValue(w.text, false)
	if !ok {
		h = ""
	}
	r.host(w.text, h)
}

// remote reads ssh's words: its destination is a host; what follows is a
// command run there, no local path.
func (r *shellReader) remote(p *program, words []shellWord, dirs []string) {
	args, rest := parseArgs(words, p, true)
	r.options(p, args, dirs)
	for _, a := range args {
		if a.opt == "-o" && a.value.known && !sshOptionRunsNothing(a.value.text) {
			r.unknown(a.value.text)
		}
		if a.opt == "-R" || a.opt == "-L" {
			r.forwardHost(a.value)
		}
		if a.opt == "-W" && a.value.known {
			// -W host:port: stdio forwarded to it, from the remote end.
			h, _, _ := strings.Cut(a.value.text, ":")
			r.hostWord(shellWord{text: h, known: true})
		}
	}
	if rest < len(words) {
		w := words[rest]
		if !w.known {
			r.host(w.text, "")
			return
		}
		h, ok := sshRemoteHost(w.text)
		if !ok {
			h, ok = weakHostValue(w.text, false)
		}
		if !ok {
			h = ""
		}
		r.host(w.text, h)
	}
}

// forwardHost reads ssh's -R and -L forward, "[bind:]port:host:hostport":
// one end connects to host (this machine, for -R), a host as any other. A
// forward to a socket ("port:/path"), or one with no host, names none.
func (r *shellReader) forwardHost(w shellWord) {
	if !w.known {
		r.host(w.text, "")
		return
	}
	parts := strings.Split(w.text, ":")
	if strings.HasPrefix(w.text, "[") || strings.Contains(w.text, "/") {
		if strings.Contains(w.text, "[") {
			r.host(w.text, "") // an IPv6 address in brackets: not read here
		}
		return
	}
	if len(parts) >= 3 {
		h, ok := weakHostValue(parts[len(parts)-2], false)
		if !ok {
			h = ""
		}
		r.host(w.text, h)
	}
}

// sshOptionRunsNothing reports an ssh -o option that starts no local
// command: ProxyCommand, LocalCommand and the like do.
func sshOptionRunsNothing(o string) bool {
	name, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(o)), "=")
	name, _, _ = strings.Cut(name, " ")
	switch name {
	case "proxycommand", "localcommand", "permitlocalcommand", "knownhostscommand", "remotecommand", "proxyjump", "include", "identityagent", "pkcs11provider", "securitykeyprovider", "controlpath", "identityfile", "userknownhostsfile", "certificatefile":
		return false
	}
	return true
}

// copying reads scp's, sftp's and rsync's operands: "host:path" and
// "user@host:path" are remote (their host), the rest local paths.
func (r *shellReader) copying(p *program, words []shellWord, dirs []string) {
	args, _ := parseArgs(words, p, false)
	dirs = r.options(p, args, dirs)
	for _, a := range args {
		if a.opt == "-r" || a.opt == "-a" || longStart(a.opt, "--recursive") || longStart(a.opt, "--archive") {
			r.tree = true // every file under each local operand, copied
			defer func() { r.tree, r.follows = false, false }()
		}
		r.follows = r.follows || p.follow.has(a.opt) // scp -r, rsync -L
	}
	for _, a := range args {
		if a.opt == "-o" && a.value.known && !sshOptionRunsNothing(a.value.text) {
			r.unknown(a.value.text)
		}
		if a.opt != "" {
			continue
		}
		w := a.value
		if !w.known {
			r.unknown(w.text)
			continue
		}
		if readsAsURL(w.text) {
			h, _ := urlHost(w.text)
			r.host(w.text, h)
			continue
		}
		if h, _, ok := splitRemote(w.text); ok && !strings.HasPrefix(w.text, "/") && !strings.HasPrefix(w.text, ".") {
			if rh, ok := remoteHost(w.text); ok {
				h = rh
			}
			r.host(w.text, h)
			continue
		}
		r.path(w.text, dirs, false)
	}
}

// cd changes the working directory: to its operand, resolved against each
// directory; a cd with no operand (home), "-" or an unknown operand makes
// it unknown. A cd that fails leaves the shell where it was: both are
// kept.
func (r *shellReader) cd(words []shellWord, dirs []string) []string {
	p := programs["cd"]
	args, _ := parseArgs(words, &p, false)
	var target *shellWord
	for i := range args {
		if args[i].opt == "" {
			target = &args[i].value
			break
		}
	}
	if target == nil || !target.known || target.text == "-" || strings.HasPrefix(target.text, "+") {
		if target != nil && !target.known {
			r.unknown(target.text)
		}
		return addDir(dirs, "")
	}
	r.path(target.text, dirs, true)
	out := dirs
	var ok []string
	defer func() { r.ok = ok }()
	for _, d := range dirs {
		next := ""
		if d != "" || strings.HasPrefix(target.text, "/") {
			base := d
			if base == "" {
				base = "/"
			}
			next = r.w.resolve(base, target.text)
		}
		out = addDir(out, next)
		ok = addDir(ok, next)
	}
	return out
}

// container reads docker's, podman's and kubectl's words: images,
// containers, resources and what runs inside are no local paths; file
// options, a bind mount's source, a build's context and a copy's local
// side are.
func (r *shellReader) container(p *program, name string, words []shellWord, dirs []string) {
	if name == "kubectl" || name == "oc" || name == "helm" {
		// Their -o is an output format (json, jsonpath='{…}'), no file as
		// docker's is: a template file is read below.
		k := *p
		k.files = maps.Clone(p.files)
		delete(k.files, "-o")
		delete(k.files, "--output")
		p = &k
	}
	args, _ := parseArgs(words, p, false)
	dirs = r.options(p, args, dirs)
	sub, image := "", ""
	// Docker's and Podman's options end at the subcommand's first
	// operand (what follows is the container's command, "sh -c ...");
	// kubectl's and helm's may come anywhere.
	interspersed := name == "kubectl" || name == "oc" || name == "helm"
	operands := 0
	templateFile := false // kubectl -o jsonpath-file: the template is a file, which it prints
	for _, a := range args {
		ours := a.opt != "" && (interspersed || operands == 0)
		if a.opt == "" && sub != "" {
			operands++
		}
		if templateFile && (a.opt == "" || a.opt == "--template") && a.value.known {
			templateFile = false
			r.read(a.value, dirs)
			continue
		}
		// An option and an operand are read apart: no case reads both.
		if a.opt != "" {
			if r.containerOption(p, a, sub, interspersed, ours, dirs) {
				templateFile = true
			}
			continue
		}
		sub, image = r.containerOperand(name, a, sub, image, dirs)
	}
	if (sub == "run" || sub == "create") && image != "" && (name == "docker" || name == "podman" || name == "nerdctl" || name == "docker-compose") {
		// docker compose run: the service's mounts are the compose
		// file's, which the call does not hold.
		unknown := r.mountsUnknown
		r.mountsUnknown = unknown || name == "docker-compose" || slices.ContainsFunc(args, func(a shellArg) bool {
			return a.opt == "" && a.value.known && a.value.text == "compose"
		})
		r.containerCommand(args, words, sub, image, dirs)
		r.mountsUnknown = unknown
	}
	if sub == "exec" && (name == "docker" || name == "podman" || name == "nerdctl") {
		r.execInNamed(words)
	}
}

// containerOption reads one of a container tool's options, given the
// subcommand so far; ours says it is the tool's own (not the command's
// it runs in a container). It reports -o's template named as a file by
// the next word.
func (r *shellReader) containerOption(p *program, a shellArg, sub string, interspersed, ours bool, dirs []string) (templateNext bool) {
	switch {
	case interspersed && (a.opt == "-o" || a.opt == "--output") && a.value.known && templateOutput(a.value.text):
		// -o jsonpath-file=FILE, go-template-file: kubectl reads the
		// template from FILE and prints what it cannot parse of it.
		if _, file, ok := strings.Cut(a.value.text, "="); ok {
			r.read(shellWord{text: file, known: true}, dirs)
		} else {
			return true
		}
	case interspersed && (a.opt == "-o" || a.opt == "--output") && a.value.known:
		// Any other output format (json, wide, jsonpath='{…}',
		// custom-columns=…): a format, no file.
	case ours && !interspersed && (a.opt == "-e" || a.opt == "--env") && a.value.known:
		// docker run -e AWS_SECRET_ACCESS_KEY img: this machine's secret
		// handed to whatever the image runs, as Compose's environment
		// (handsOver); NAME=$TOKEN the same, the shell expanding it.
		if handsOnSecret(a.value.text) {
			r.w.out.Acts = true
			r.w.credentialCommand(r.s, []string{"docker", "environment " + a.value.text})
		}
	case ours && !interspersed && a.opt == "--volumes-from":
		// Another container's mounts, which may bind any directory of
		// this machine's: which, the line does not say.
		r.unknown(a.opt + " " + a.value.text)
	case a.opt == "-v" || a.opt == "--volume":
		r.volume(a.value, dirs)
	case a.opt == "--mount" || a.opt == "--opt" || sub == "volume" && a.opt == "-o":
		r.mount(a.value, dirs) // a bind mount's source; a volume's device=
	case a.opt == "--build-context" && a.value.known:
		// "name=path", or "name=docker-image://x", "name=https://...".
		_, v, _ := strings.Cut(a.value.text, "=")
		if readsAsURL(v) {
			r.hostWord(shellWord{text: v, known: true})
		} else {
			r.read(shellWord{text: v, known: true}, dirs)
		}
	case a.opt == "--docker" && a.value.known:
		// docker context create --docker host=tcp://...: the daemon it
		// talks to.
		for _, v := range fieldValues(a.value.text, "host") {
			r.hostWord(shellWord{text: v, known: true})
		}
	case (a.opt == "-o" || a.opt == "--output" || a.opt == "--cache-to") && a.value.known && strings.Contains(a.value.text, "="):
		// docker build's "type=local,dest=/x": where it writes.
		for _, v := range fieldValues(a.value.text, "dest", "destination") {
			if v != "" {
				r.path(v, dirs, true)
			}
		}
	case a.opt == "--secret" || a.opt == "--ssh" || a.opt == "--build-context":
		r.mount(a.value, dirs) // "id=x,src=path", "default=path"
	case a.opt == "--overrides" && a.value.known && givesHostText(a.value.text):
		r.unknown("--overrides " + a.value.text) // a pod given the host (hostPID, privileged, hostPath)
	case ours && (a.opt == "--post-renderer" || a.opt == "--exec-command"):
		r.unknown(a.opt + " " + a.value.text) // a program it runs here
	case ours && a.opt == "--kubeconfig" && a.value.known && !strings.Contains(a.value.text, ".kube/"):
		// A kubeconfig's exec plugin runs the program it names, as
		// KUBECONFIG's does: one outside a .kube directory (written by
		// the agent, say) runs what the call cannot read.
		r.unknown(a.opt + " " + a.value.text)
	case ours && a.hasValue && (containerFiles[a.opt] || optionNamesFile(a.opt)):
		r.cliFiles(a.value, dirs) // --from-file=key=path, --set-file k=path
	case ours && a.hasValue && !p.files.has(a.opt) && !p.hosts.has(a.opt) && !containerSide[a.opt]:
		r.byShape(a.value, dirs) // a value that reads as a file's name
	}
	return false
}

// containerOperand reads one of a container tool's operands, given the
// subcommand and the image so far, and returns them after it.
func (r *shellReader) containerOperand(name string, a shellArg, sub, image string, dirs []string) (string, string) {
	switch {
	case (sub == "load" || sub == "import" || sub == "save") && a.value.known:
		r.read(a.value, dirs) // an image's archive: docker load -i FILE
	case sub == "debug" && a.value.known && (strings.HasPrefix(a.value.text, "node/") || strings.HasPrefix(a.value.text, "nodes/")):
		r.unknown("kubectl debug " + a.value.text) // a pod in the node's namespaces, its root mounted
	case sub == "" && a.value.known:
		sub = a.value.text
		if sub == "unshare" {
			// podman unshare CMD runs CMD here, on the host, as root of
			// a user namespace that owns the user's files.
			r.unknown(name + " unshare")
		}
	case image == "" && a.value.known && readsAsURL(a.value.text):
		// helm's repo add NAME URL, install REL oci://..., plugin
		// install URL: where it connects.
		r.hostWord(a.value)
	case (sub == "container" || sub == "compose") && image == "" && a.value.known &&
		(a.value.text == "run" || a.value.text == "create" || a.value.text == "exec"):
		sub = a.value.text // docker container run, docker compose run: run's words
	case (sub == "pull" || sub == "push" || sub == "run" || sub == "create") && image == "" && a.value.known:
		image = a.value.text
		if reg, _, ok := strings.Cut(image, "/"); ok && (strings.ContainsAny(reg, ".:") || reg == "localhost") {
			r.hostWord(shellWord{text: reg, known: true}) // the registry the daemon reaches
		}
	case image != "" && a.value.known:
		// What runs in the container reaches the network from here:
		// its URLs and addresses are hosts (its paths are its own).
		if readsAsURL(a.value.text) {
			r.hostWord(a.value)
		} else if h, ok := readsAsIPAddress(a.value.text); ok {
			r.host(a.value.text, h)
		}
	case (sub == "build" || sub == "buildx") && a.value.known && strings.Contains(a.value.text, "@") && strings.Contains(a.value.text, ":") &&
		!strings.HasPrefix(a.value.text, "/") && !strings.HasPrefix(a.value.text, "."):
		h, _ := remoteHost(a.value.text) // a git context over ssh: git@host:repo ("" when unread)
		r.host(a.value.text, h)
	case sub == "build" || sub == "buildx":
		r.treeRead(a.value, dirs) // the context: every file under it sent to the daemon (a URL is a host)
	case sub == "cp":
		if a.value.known && strings.Contains(a.value.text, ":") && !strings.HasPrefix(a.value.text, "/") && !strings.HasPrefix(a.value.text, ".") {
			return sub, image // container:path
		}
		r.read(a.value, dirs)
	case !a.value.known:
		r.unknown(a.value.text)
	}
	return sub, image
}

// templateOutput reports kubectl's output formats whose template is a
// file: jsonpath-file, go-template-file, template-file.
func templateOutput(v string) bool {
	f, _, _ := strings.Cut(v, "=")
	return f == "jsonpath-file" || f == "go-template-file" || f == "template-file"
}

// containerFiles are the options of docker, kubectl and helm whose value
// is a local file or directory, or a list of key=file (beyond the row's
// files, which take one path).
var containerFiles = map[string]bool{"--from-file": true, "--from-env-file": true, "--set-file": true, "--key": true, "--cert": true,
	"--ca-file": true, "--cert-file": true, "--key-file": true, "-k": true, "--kustomize": true, "--values": true, "--keyring": true,
	"--certificate-authority": true, "--client-certificate": true, "--client-key": true, "--token-file": true, "--tls-cert": true,
	"--tls-key": true, "--tlscacert": true, "--tlscert": true, "--tlskey": true, "--label-file": true, "--password-file": true,
	"--repository-config": true, "--repository-cache": true, "--registry-config": true, "--output-dir": true, "--destination": true,
	"-d": true, "--untardir": true, "--context": true, "--filename": true}

// fieldValues are the values of the named keys in a list of key=value
// fields ("type=local,dest=/x"), in order.
func fieldValues(list string, keys ...string) []string {
	var out []string
	for _, field := range strings.Split(list, ",") {
		if k, v, ok := strings.Cut(field, "="); ok && slices.Contains(keys, k) {
			out = append(out, v)
		}
	}
	return out
}

// volume reads "-v SRC:DST[:opts]": a source that is a path is a bind
// mount (a bare name is a named volume).
func (r *shellReader) volume(w shellWord, dirs []string) {
	if !w.known {
		r.unknown(w.text)
		return
	}
	src, _, _ := strings.Cut(strings.TrimPrefix(w.text, "="), ":") // -v=/x:/y
	if strings.ContainsAny(src, "/\\") || strings.HasPrefix(src, ".") || strings.HasPrefix(src, "~") || strings.HasPrefix(src, "$") {
		if strings.HasPrefix(src, "~") || strings.HasPrefix(src, "$") {
			r.unknown(src)
			return
		}
		r.path(src, dirs, true)
	}
}

// mount reads "--mount type=bind,source=X,...": its source (src, from).
func (r *shellReader) mount(w shellWord, dirs []string) {
	if !w.known {
		r.unknown(w.text)
		return
	}
	for _, field := range strings.Split(w.text, ",") {
		k, v, ok := strings.Cut(field, "=")
		if !ok {
			continue
		}
		switch strings.ToLower(strings.Trim(k, " \"'")) {
		case "source", "src", "from", "default", "context", "device", "o":
			r.volume(shellWord{text: strings.Trim(v, " \"'"), known: true}, dirs)
		case "volume-opt":
			r.mount(shellWord{text: v, known: true}, dirs) // volume-opt=device=/etc
		}
	}
}

// git reads git's words: -C changes where it runs, -c and the options
// that name a program make it unknown, a remote's URL is a host, and
// every other operand a path.
func (r *shellReader) git(p *program, words []shellWord, dirs []string) {
	args, rest := parseArgs(words, p, true)
	dirs = r.gitGlobalOptions(args, dirs)
	dirs = r.options(p, args, dirs)
	for _, d := range dirs {
		if d != "" && r.inWritten(d) {
			// tar xf x.tar -C src/x && git -C src/x status: a repository
			// whose config the line may have written (core.fsmonitor,
			// hooks) runs what it says.
			r.unknown("git in " + d + ", which the line wrote")
		}
	}
	if rest >= len(words) {
		return
	}
	sub := words[rest]
	if !sub.known {
		r.unknown(sub.text) // an alias or subcommand made when it runs
		return
	}
	sp := gitSubcommand
	if sub.text == "clone" {
		sp = gitClone
	}
	subArgs, _ := parseArgs(words[rest+1:], &sp, false)
	dirs = r.options(&sp, subArgs, dirs)
	r.gitOperands(sub.text, subArgs, dirs)
	r.gitActions(sub.text, words, subArgs, dirs)
}

// inWritten reports a directory the line wrote, or one under it.
func (r *shellReader) inWritten(d string) bool {
	for w := range r.written {
		if path.IsAbs(w) && (d == w || strings.HasPrefix(d, w+"/")) {
			return true
		}
	}
	return false
}

// gitGlobalOptions reads git's --work-tree and -C, before its
// subcommand; it returns the directories git runs in after -C.
func (r *shellReader) gitGlobalOptions(args []shellArg, dirs []string) []string {
	for _, a := range args {
		if a.opt == "--git-dir" && (!a.value.known || path.Base(strings.TrimSuffix(a.value.text, "/")) != ".git") {
			// A repository elsewhere (src/d): its config may run a
			// program (core.fsmonitor, diff.external), and no floor
			// entry guards it.
			r.unknown("--git-dir " + a.value.text)
		}
		if a.opt == "--work-tree" && a.hasValue {
			r.treeRead(a.value, dirs) // add -A, stash -u, reset --hard: every file under it
		}
		if a.opt == "-C" {
			r.read(a.value, dirs)
			if a.value.known {
				next := []string{}
				for _, d := range dirs {
					if d == "" && !strings.HasPrefix(a.value.text, "/") {
						next = addDir(next, "")
						continue
					}
					if d == "" {
						d = "/"
					}
					next = addDir(next, r.w.resolve(d, a.value.text))
				}
				dirs = next
			} else {
				dirs = []string{""}
			}
		}
	}
	return dirs
}

// gitOperands reads the options and operands of git's subcommand sub:
// an option that names a program makes it unknown, a remote's URL is a
// host, and every other operand a path.
func (r *shellReader) gitOperands(sub string, subArgs []shellArg, dirs []string) {
	for _, a := range subArgs {
		if a.opt != "" {
			if gitRunsProgram(a.opt) {
				r.unknown(a.opt) // a program git runs
			}
			continue
		}
		w := a.value
		if sub == "ls-files" && strings.ContainsAny(w.text, "*?[") && !strings.ContainsAny(w.text, "$`") {
			r.path(".", dirs, true) // git ls-files '*.py': the names of the repository's files that match, nothing read
			continue
		}
		if !w.known {
			r.unknown(w.text)
			continue
		}
		t := w.text
		switch {
		case readsAsURL(t):
			h, _ := urlHost(t)
			r.host(t, h)
		case isUserAtHost(t) || strings.Contains(t, ":") && !strings.HasPrefix(t, "/") && !strings.HasPrefix(t, "."):
			h, remote := remoteHost(t)
			file := t[strings.LastIndexByte(t, ':')+1:] // ":0:.env", ":/msg:.env": what follows the last colon
			revPath := file != "" && !strings.HasPrefix(file, "/") && !isUserAtHost(t) && !gitReachesRemotes.has(sub)
			switch {
			case remote:
				r.host(t, h)
			case !revPath:
				r.path(t, dirs, false)
			}
			if revPath {
				// REV:PATH ("HEAD~1:.env", "origin/main:id_rsa"): a file
				// of the repository as a commit holds it, which show and
				// cat-file print. (A refspec's "main:refs/heads/x" names
				// branches, which read as harmless file names.)
				r.path(file, dirs, false)
			}
		default:
			r.path(t, dirs, false)
		}
	}
}

// gitWrites reads the files git's subcommand writes from another commit or
// the stash: checkout's and restore's paths (checkout's after its first
// operand, or after "--"; a pathspec with magic, ":/", ":(top)", is the
// whole tree), and the whole work tree where it runs for a switch of
// branch, a hard reset, read-tree -u, stash pop or apply, a merge, pull,
// rebase, cherry-pick or revert. The floor asks where such a write holds
// the policy's files.
func (r *shellReader) gitWrites(sub string, words []shellWord, subArgs []shellArg, dirs []string) {
	var operands []shellWord
	for _, a := range subArgs {
		if a.opt == "" && a.value.text != "--" {
			operands = append(operands, a.value)
		}
	}
	tree := false
	switch sub {
	case "checkout", "restore":
		paths := operands
		if i := slices.IndexFunc(words, func(w shellWord) bool { return w.known && w.text == "--" }); i >= 0 {
			paths = words[i+1:]
		} else if sub == "checkout" && len(operands) > 0 {
			paths = operands[1:] // checkout TREE-ISH PATHS...: its first operand is the commit
		}
		for _, w := range paths {
			if !w.known || strings.HasPrefix(w.text, ":") {
				tree = true // a pathspec's magic (":/", ":(top)"): from the top, any files
				continue
			}
			r.wrote(w, dirs)
			r.path(w.text, dirs, false)
		}
		tree = tree || sub == "checkout" && len(paths) == 0 && len(operands) > 0 // a switch of branch
	case "switch", "merge", "pull", "rebase", "cherry-pick", "revert", "am", "checkout-index":
		tree = true
	case "sparse-checkout":
		tree = len(operands) > 0 && operands[0].text != "list"
	case "reset":
		tree = slices.ContainsFunc(words, func(w shellWord) bool {
			return w.known && (w.text == "--hard" || w.text == "--merge" || w.text == "--keep")
		})
	case "read-tree":
		tree = slices.ContainsFunc(words, func(w shellWord) bool { return w.known && inCluster(w.text, 'u') })
	case "stash":
		tree = len(operands) > 0 && (operands[0].text == "pop" || operands[0].text == "apply" || operands[0].text == "branch")
	}
	if tree {
		dot := shellWord{text: ".", known: true}
		r.wrote(dot, dirs)
		r.path(".", dirs, true)
	}
}

// gitActions reads what git's subcommand sub does beyond its operands:
// a setting written, a remote fetched from, a server or a schedule
// started, hooks or a patch's files written, every file of the work tree
// taken, ignored files deleted, a file's history printed, commands run.
func (r *shellReader) gitActions(sub string, words []shellWord, subArgs []shellArg, dirs []string) {
	r.gitWrites(sub, words, subArgs, dirs)
	if sub == "config" && countOperands(subArgs) >= 2 {
		r.unknown("git config") // a setting: an alias or a core program runs later
	}
	for _, a := range subArgs {
		if a.opt == "--remote" && a.value.known {
			// git archive --remote=HOST:PATH: where it fetches from.
			if h, ok := remoteHost(a.value.text); ok {
				r.host(a.value.text, h)
			} else {
				r.hostWord(a.value)
			}
		}
	}
	if sub == "instaweb" {
		r.unknown("git instaweb") // starts a web server and a browser it is told of
	}
	if sub == "lfs" && hasWord(words, "install") {
		r.unknown("git lfs install") // writes the repository's hooks
	}
	if sub == "add" && hasWord(words, "-A", "--all", ".", ":/", "-f", "--force") || sub == "stash" && hasWord(words, "-u", "--include-untracked", "-a", "--all") ||
		sub == "commit" && hasWord(words, "-a", "--all", "-am") {
		// Every file of the work tree, staged, stashed or committed:
		// git init then add -A at / or a home takes it all.
		r.treeRead(shellWord{text: ".", known: true}, dirs)
	}
	if sub == "grep" && hasWord(words, "--no-index", "--untracked") {
		// git grep --no-index: a search of the files under each path, as
		// grep -r's, in or out of a repository.
		for i, a := range subArgs {
			if i > 0 && a.opt == "" { // the first is the pattern
				r.treeRead(a.value, dirs)
			}
		}
		if countOperands(subArgs) <= 1 {
			r.treeRead(shellWord{text: ".", known: true}, dirs)
		}
	}
	if sub == "maintenance" && hasWord(words, "start", "register") {
		r.unknown("git maintenance") // installs a schedule (cron, a systemd timer) that runs git later
	}
	if sub == "clean" {
		for _, a := range subArgs {
			if a.opt == "-x" || a.opt == "-X" {
				r.unknown("git clean " + a.opt) // deletes the ignored files too (.env, keys): which ones cannot be told
				break
			}
		}
	}
	for _, a := range subArgs {
		if a.opt == "-L" && a.hasValue && a.value.known && strings.Contains(a.value.text, ":") {
			// log -L:func:FILE, -L1,5:FILE: the file whose history it prints.
			r.path(a.value.text[strings.LastIndexByte(a.value.text, ':')+1:], dirs, false)
		}
	}
	if sub == "submodule" || sub == "bisect" || sub == "filter-branch" || sub == "daemon" || sub == "apply" || sub == "am" ||
		sub == "rebase" && hasWord(words, "--exec", "-x") {
		r.unknown("git " + sub) // runs commands of its own, or writes the files a patch names
	}
}

// gitReachesRemotes are git's subcommands whose "x:y" operand may be a
// remote ("host:repo.git") or a refspec, never a file of a commit.
var gitReachesRemotes = opts("clone fetch pull push remote ls-remote archive request-pull send-pack fetch-pack submodule")

// gitSubcommand is what git's subcommands' options take: messages,
// refs, formats (no paths), a file for -F, programs for the rest.
var (
	gitSubcommand = program{values: opts("-m --message -F --file -C --reuse-message -c --reedit-message -b -B --author --date -n --max-count --format --pretty " +
		"--since --until --after --before --grep -S -G -L -U --depth --branch -o --output --origin --shallow-since --shallow-exclude -j --jobs --upload-pack --receive-pack " +
		"--exec --template --extcmd -x --tool --gpg-program --sequence-editor --onto --strategy -s -X --strategy-option --abbrev --encoding " +
		"--prefix --directory --output-directory --exec-path -O --open-files-in-pager --smtp-server --sendmail-cmd --to-cmd --cc-cmd --format-patch"),
		files: opts("-F --file -o --output --prefix --directory --output-directory"),
		code: opts("--upload-pack --receive-pack --exec --template --extcmd -x --tool --gpg-program --sequence-editor --exec-path -O --open-files-in-pager " +
			"--smtp-server --sendmail-cmd --to-cmd --cc-cmd")}
	gitClone = func() program {
		p := gitSubcommand
		p.code = opts("--upload-pack -u --template --config -c")
		p.values = opts("-b --branch -o --origin --depth -j --jobs --upload-pack -u --template --config -c --reference --separate-git-dir --filter --shallow-since --shallow-exclude")
		p.files = opts("--reference --separate-git-dir")
		return p
	}()
)

// gitRunsProgram reports a git option that runs a program of its own.
func gitRunsProgram(opt string) bool {
	return opt == "--ext-diff" || opt == "--textconv" || strings.HasSuffix(opt, "-callback") // filter-repo's Python callbacks
}

func countOperands(args []shellArg) int {
	n := 0
	for _, a := range args {
		if a.opt == "" {
			n++
		}
	}
	return n
}

func hasWord(words []shellWord, names ...string) bool {
	for _, w := range words {
		for _, n := range names {
			if w.text == n || strings.HasPrefix(w.text, n+"=") {
				return true
			}
		}
	}
	return false
}

// runsOtherCode are options of programs read by default that make them
// run a program or script of the caller's: tar's --to-command, zip's
// -TT, npm exec's -c.
var runsOtherCode = map[string][]string{
	"tar":  {"--to-command", "--use-compress-program", "-I", "--checkpoint-action", "--rsh-command", "--info-script", "--new-volume-script", "-F", "-P", "--absolute-names"},
	"gtar": {"--to-command", "--use-compress-program", "-I", "--checkpoint-action", "--rsh-command", "--info-script", "--new-volume-script", "-F"},
	"zip":  {"-TT", "--unzip-command"},
	// npm's and pnpm's config files and node's options: a script-shell or
	// node-options setting runs what it says.
	"npm":  {"-c", "--call", "--script-shell", "--userconfig", "--globalconfig", "--node-options"},
	"pnpm": {"-c", "--script-shell", "--userconfig", "--globalconfig", "--node-options"}, "yarn": {"exec"},
	"less": {"-+", "--lesskey", "+"}, "more": {"+"},
	"sort": {"--compress-program"}, "go": {"-exec", "-toolexec", "-vettool"}, "make": {"--eval", "-E"},
	"cargo": {"--config"},                                          // --config build.rustc-wrapper=x, or a file of such settings
	"hg":    {"--config"}, "sl": {"--config"}, "chg": {"--config"}, // --config hooks.pre-status=printenv, ui.editor=...
	"bat": {"--pager"}, "batcat": {"--pager"}, // a pager, run by a shell
	"gcc": {"-wrapper", "-fplugin", "-specs", "--specs", "-B"}, "g++": {"-wrapper", "-fplugin", "-specs", "--specs", "-B"},
	"cc": {"-wrapper", "-fplugin", "-specs", "--specs", "-B"}, "c++": {"-wrapper", "-fplugin", "-specs", "--specs", "-B"},
	"clang": {"-fplugin", "-fpass-plugin", "-Xclang", "-B", "--gcc-toolchain"}, "clang++": {"-fplugin", "-fpass-plugin", "-Xclang", "-B"},
}

// defaultCommand reads a program the table does not know: each operand a
// path (a URL or a remote path a host), an option's "=" value a path when
// it reads as a file's name, and from a later word naming a shell or an
// interpreter on, the command that word starts.
func (r *shellReader) defaultCommand(name string, words []shellWord, dirs []string) {
	if name == "fd" || name == "fdfind" {
		r.fd(words, dirs)
		return
	}
	if name == "entr" && hasWord(words, "-s") {
		for _, w := range words {
			if !strings.HasPrefix(w.text, "-") || !w.known {
				r.lineWord(w, dirs) // entr -s 'make test': a shell runs it
				return
			}
		}
	}
	if strings.HasPrefix(name, "ansible") {
		r.inventory(words)
	}
	if tree, follows := treeCopy(name, words); tree {
		// tar c, zip -r, cp -r: every file under each operand is read
		// (and copied where another call can read it).
		r.tree, r.follows = true, follows
		defer func() { r.tree, r.follows = false, false }()
	}
	if name == "tar" || name == "gtar" || name == "bsdtar" {
		local := hasWord(words, "--force-local")
		for i, w := range words {
			letters := strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "--") || i == 0 && !strings.HasPrefix(w.text, "-")
			if w.known && letters && strings.ContainsAny(w.text, "PIF") {
				// -P: members' absolute names, written where they say; -I
				// and -F in a cluster ("-cI./x"): a program tar runs.
				r.unknown(w.text)
			}
			// An archive named HOST:FILE is on another machine, reached
			// through rsh or ssh (GNU tar, unless --force-local).
			archive := strings.TrimPrefix(w.text, "--file=")
			if w.known && !local && strings.Contains(archive, ":") && !strings.HasPrefix(archive, "-") &&
				!strings.HasPrefix(archive, "/") && !strings.HasPrefix(archive, ".") {
				if h, ok := remoteHost(archive); ok {
					r.host(w.text, h)
				}
			}
		}
	}
	if risky := runsOtherCode[name]; risky != nil {
		for _, w := range words {
			opt, _, _ := strings.Cut(w.text, "=")
			for _, prefix := range risky {
				// The option, or a start of it a long option's parser
				// takes ("--use-compress=./x").
				if w.known && (strings.HasPrefix(w.text, prefix) || strings.HasPrefix(opt, "--") && len(opt) >= 5 && strings.HasPrefix(prefix, opt)) {
					r.unknown(w.text) // a program the command runs
				}
			}
		}
	}
	// A word that reads as code, not a file's name ("(display (file->string
	// x))", "print(open('k').read())"): a program the table does not know
	// may run it.
	for i, w := range words {
		if w.known && looksLikeCode(w.text) {
			r.unknown(w.text)
		}
		// raku -e 'shell q[rm -rf ~]', qjs --std -e 'std.system("id")':
		// an option that gives an interpreter the table does not know
		// its code, with a value that is more than a word.
		if opt, value, glued := strings.Cut(w.text, "="); w.known && inlineCodeOptions[opt] {
			code := w.text
			if !glued && i+1 < len(words) {
				value = words[i+1].text
				code += " " + value
			}
			if strings.ContainsAny(value, " \t\n;([{'\"`$") {
				r.unknown(code)
			}
		}
	}
	// Every word by default; and from each later word that names a
	// program the table reads otherwise, that program's command too (an
	// unknown wrapper: "taskset 1 awk '...'", "mywrap sh -c '...'"). Both
	// readings stand: the words are read as paths whatever the program
	// makes of them. A lone "." is the directory far more often than the
	// source builtin.
	r.operands(words, dirs)
	for i, w := range words {
		if !w.known || w.text == "." || strings.HasPrefix(w.text, "-") || !inProgramDir(w.text) {
			continue
		}
		if p, ok := programs[programName(w.text)]; ok && p.kind != progData && p.kind != progLookup && p.kind != progCd && p.kind != progPattern {
			r.command(words[i:], dirs)
			return
		}
	}
}

// inlineCodeOptions are the options by which interpreters take their code
// on the command line (perl's, ruby's, node's and their kin's spellings).
var inlineCodeOptions = keySetExact("-e", "-E", "--eval", "--execute", "--exec", "-c", "--command", "--code", "--run", "-r", "-p", "--print")

// inProgramDir reports a word that can name a program to run: a bare
// name, or a path in a directory of programs (/usr/bin/sh,
// ./node_modules/.bin/jest): "df -h /var/lib/docker" runs no docker.
func inProgramDir(w string) bool {
	i := strings.LastIndexByte(w, '/')
	if i < 0 {
		return true
	}
	dir := w[:i]
	return strings.HasSuffix(dir, "bin") || strings.HasSuffix(dir, "/libexec") || dir == "."
}

// inventory reads Ansible's -i: a list of hosts when it has a comma
// ("10.0.0.1," is one host), else a file (read with the operands).
func (r *shellReader) inventory(words []shellWord) {
	for i, w := range words {
		v, ok := "", false
		switch {
		case w.known && (w.text == "-i" || w.text == "--inventory" || w.text == "--inventory-file") && i+1 < len(words):
			v, ok = words[i+1].text, words[i+1].known
		case w.known && strings.HasPrefix(w.text, "-i") && !strings.HasPrefix(w.text, "--"):
			v, ok = w.text[2:], true
		case w.known && (strings.HasPrefix(w.text, "--inventory=") || strings.HasPrefix(w.text, "--inventory-file=")):
			_, v, _ = strings.Cut(w.text, "=")
			ok = true
		default:
			continue
		}
		if !strings.Contains(v, ",") {
			continue
		}
		for _, h := range strings.Split(v, ",") {
			if h = strings.TrimSpace(h); h != "" {
				r.hostWord(shellWord{text: h, known: ok})
			}
		}
	}
}

// treeCopy reports a command that reads every file under its operands
// into an archive, a copy or a comparison: tar creating, appending or
// updating (c, r, u; --create), zip -r, cp -r, -R or -a (or a start of
// --recursive, --archive), 7z a, pax -w, mksquashfs and the image makers,
// borg create, restic backup, rclone copy and sync, a compressor's -r,
// diff -r; and whether it follows the links it finds (tar -h, zip unless
// -y, cp -L).
func treeCopy(name string, words []shellWord) (tree, follows bool) {
	switch name {
	case "mksquashfs", "mkisofs", "genisoimage", "xorrisofs", "mkfs.erofs", "duplicity", "rdiff-backup":
		return true, true
	case "miniserve", "darkhttpd", "http-server", "serve", "webfsd", "updog", "sfz", "simple-http-server", "static-web-server", "dufs", "httpd":
		// a file server: every file under the directory it serves, to
		// whoever asks, links followed
		return true, true
	case "7z", "7za", "7zr", "borg", "restic", "rclone", "kopia":
		for _, w := range words {
			if w.known && !strings.HasPrefix(w.text, "-") {
				switch w.text {
				case "a", "u", "create", "backup", "copy", "sync", "move", "copyto", "snapshot", "serve":
					return true, name == "7z" || name == "7za" || name == "7zr" || name == "rclone" && hasWord(words, "-L", "--copy-links")
				}
				return false, false // the subcommand is another
			}
		}
		return false, false
	}
	storesLinks := false // zip -y
	for i, w := range words {
		if !w.known {
			continue
		}
		t := w.text
		short := len(t) > 1 && t[0] == '-' && t[1] != '-'
		letters := short || i == 0 && !strings.HasPrefix(t, "-") // tar's first word: "czf", "chf"
		switch name {
		case "tar", "gtar", "bsdtar", "star":
			tree = tree || t == "--create" || t == "--append" || t == "--update" || letters && strings.ContainsAny(t, "cru")
			follows = follows || t == "--dereference" || letters && strings.ContainsRune(t, 'h') || name == "bsdtar" && short && strings.ContainsRune(t, 'L')
		case "zip":
			tree = tree || t == "--recurse-paths" || short && strings.ContainsAny(t, "rR")
			storesLinks = storesLinks || t == "--symlinks" || short && strings.ContainsRune(t, 'y')
			follows = !storesLinks
		case "cp", "gcp":
			tree = tree || longStart(t, "--recursive") || longStart(t, "--archive") || short && strings.ContainsAny(t, "rRa")
			follows = follows || longStart(t, "--dereference") || short && strings.ContainsRune(t, 'L')
		case "pax":
			tree = tree || short && strings.ContainsRune(t, 'w')
			follows = follows || short && strings.ContainsAny(t, "LH")
		case "diff", "colordiff":
			tree = tree || longStart(t, "--recursive") || short && strings.ContainsRune(t, 'r')
			follows = !hasWord(words, "--no-dereference") // GNU diff reads a link's target unless told not to
		case "gzip", "pigz", "zstd", "bzip2", "xz", "brotli", "lz4":
			tree = tree || longStart(t, "--recursive") || short && strings.ContainsRune(t, 'r')
		}
	}
	return tree, tree && follows
}

// longStart reports a long option written whole or as a start of it that
// getopt_long takes ("--rec" for --recursive).
func longStart(w, full string) bool {
	return len(w) >= 5 && strings.HasPrefix(full, w)
}

// givesHostText reports a container's or a pod's settings, as text, that
// give it the host.
func givesHostText(s string) bool {
	l := strings.ToLower(strings.ReplaceAll(s, " ", ""))
	for _, w := range []string{`"hostpid":true`, `"hostnetwork":true`, `"hostipc":true`, `"privileged":true`, `"hostpath"`, `"pidmode":"host"`, `"networkmode":"host"`, `sys_admin`} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// fdValues are fd's options that take a value.
var fdValues = opts("-e --extension -t --type -E --exclude -d --max-depth --min-depth --exact-depth -S --size " +
	"--changed-within --changed-before -o --owner -j --threads -c --color --ignore-file --base-directory --search-path " +
	"--path-separator --max-results --format --batch-size")

// fd reads fd's words: a pattern, then the directories it searches
// (where it runs when none); --base-directory moves it, and -x or -X runs
// a command given each file found ({} and its forms), read with the
// directories as trees.
func (r *shellReader) fd(words []shellWord, dirs []string) {
	r.follows = hasWord(words, "-L", "--follow")
	defer func() { r.follows = false }()
	var starts []shellWord
	pattern := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !w.known {
			r.unknown(w.text)
			continue
		}
		t := w.text
		opt, val, has := strings.Cut(t, "=")
		switch {
		case t == "-x" || t == "--exec" || t == "-X" || t == "--exec-batch":
			end := i + 1
			for end < len(words) && !(words[end].known && words[end].text == ";") {
				end++
			}
			if len(starts) == 0 {
				starts = []shellWord{{text: ".", known: true}}
			}
			for _, s := range starts {
				r.treeRead(s, dirs)
			}
			var cmd []shellWord
			reads := i+1 < end && words[i+1].known && foundReaders[programName(words[i+1].text)]
			placeholder := false
			for _, c := range words[i+1 : end] {
				placeholder = placeholder || strings.Contains(c.text, "{")
				switch {
				case reads && c.known && (c.text == "{}" || c.text == "{.}" || c.text == "{//}"):
					cmd = append(cmd, starts...) // a file found, read: under one of them
				case strings.Contains(c.text, "{"):
					r.unknown(c.text) // a file found, changed; {/}: its name, where the command runs
				default:
					cmd = append(cmd, c)
				}
			}
			switch {
			case !placeholder && reads:
				cmd = append(cmd, starts...) // fd puts the file found last
			case !placeholder:
				r.unknown("each file fd finds") // given a command that may change it (cp x, sed -i)
			}
			r.tree, r.follows = true, r.follows || reads // a reader opens each file found, a link's target too
			r.command(cmd, dirs)
			r.tree = false
			return
		case opt == "--base-directory" && has || t == "--base-directory" && i+1 < len(words):
			if !has {
				i++
				val = words[i].text
			}
			r.read(shellWord{text: val, known: words[i].known}, dirs)
			dirs = []string{""}
		case opt == "--search-path" && has:
			starts = append(starts, shellWord{text: val, known: true})
			r.read(starts[len(starts)-1], dirs)
		case fdValues.has(t) && i+1 < len(words):
			i++
			if t == "--search-path" {
				starts = append(starts, words[i])
				r.read(words[i], dirs)
			} else if t == "--ignore-file" {
				r.read(words[i], dirs)
			}
		case strings.HasPrefix(t, "-") && t != "-":
		case !pattern:
			pattern = true
			if fileGlobNamesFloor(strings.Trim(strings.ReplaceAll(t, `\.`, "."), "^$")) && hasWord(words, "-x", "--exec", "-X", "--exec-batch") {
				r.unknown(t) // fd -H '^\.env$' -x cat: the files found, and read, are the floor's
			}
		default:
			starts = append(starts, w)
			r.read(w, dirs)
		}
	}
}

// looksLikeCode reports a word with white space and a character code uses
// and a file's name rarely does: a bracket, a semicolon, a quote, an
// operator.
func looksLikeCode(s string) bool {
	return strings.ContainsAny(s, " \t\n") && strings.ContainsAny(s, "(){};|&<>=\"'`")
}

// operands reads words by default: options skipped (their "=" values read
// when they name files), the rest paths, URLs' and remote paths' hosts.
func (r *shellReader) operands(words []shellWord, dirs []string) {
	endOpts := false
	for i, w := range words {
		if i > 0 && words[i-1].known && changesDirectory(words[i-1].text) {
			r.read(w, dirs)
			dirs = []string{""} // tar -C DIR, make -C DIR: what follows is relative to DIR
			continue
		}
		if !w.known {
			r.read(w, dirs) // unknown, or a plain glob's directory
			continue
		}
		t := w.text
		if !endOpts && t == "--" {
			endOpts = true
			continue
		}
		if strings.HasPrefix(t, "-") && t != "-" {
			if endOpts {
				// A file whose name starts with "-": in the directory, or
				// unknown when it has a separator (-/../x).
				if strings.ContainsAny(t, "/\\") {
					r.unknown(t)
				} else {
					r.path("./"+t, dirs, false)
				}
				continue
			}
			if _, val, ok := strings.Cut(t, "="); ok && namesSomething(val) {
				r.operand(val, dirs) // --output=/x, --server=https://x
			} else if !strings.HasPrefix(t, "--") && len(t) > 2 && namesSomething(t[2:]) {
				r.operand(t[2:], dirs) // a short option's value written on to it: -o/x, -C../y
			}
			if strings.Contains(t, "=") && changesDirectory(t) || strings.HasPrefix(t, "-C") && len(t) > 2 {
				dirs = []string{""}
			}
			continue
		}
		r.operand(t, dirs)
		if k, val, ok := strings.Cut(t, "="); ok && k != "" && (namesSomething(val) || k == "if" || k == "of") {
			r.operand(val, dirs) // dd's if=/etc/x and of=notes.txt, make's SHELL=/tmp/y
		}
		if k, _, ok := strings.Cut(t, "="); ok && k != "" && codeVariable(k) {
			r.unknown(t) // make test SHELL=/tmp/x, CC=...: a variable through which it runs another program
		}
	}
	// "npm config set registry x", "git config alias.x '!sh'": a setting
	// that changes what runs later.
	for i := 0; i+1 < len(words); i++ {
		if words[i].known && words[i].text == "config" && words[i+1].known && (words[i+1].text == "set" || words[i+1].text == "add") {
			r.unknown("config " + words[i+1].text)
		}
	}
}

// namesSomething reports a value that reads as a file's path or a URL:
// an option's value written on to it, or a KEY=VALUE operand's value.
func namesSomething(v string) bool {
	_, ip := readsAsIPAddress(v)
	return ip || readsAsCommandFile(v) || looksLikePath(v) || readsAsURL(v) || strings.ContainsAny(v, "/\\")
}

// changesDirectory reports an option of a program read by default that
// makes it work in another directory (tar -C, make -C, terraform -chdir).
func changesDirectory(opt string) bool {
	switch opt {
	case "-C", "--directory", "--chdir", "-chdir", "--cwd", "--workdir", "--prefix":
		return true
	}
	return strings.HasPrefix(opt, "--directory=") || strings.HasPrefix(opt, "--chdir=") || strings.HasPrefix(opt, "-chdir=") || strings.HasPrefix(opt, "--cwd=")
}

// operand reads one word that is no option: a URL's host, an IP
// address (a program that takes one reaches it), else a path.
func (r *shellReader) operand(t string, dirs []string) {
	switch {
	case strings.HasPrefix(strings.ToLower(t), "file:"):
		r.unknown(t)
	case colonName(t) && r.runsTasks():
		// build:prod, route:list, db:migrate:status, user:group: a
		// task's, a target's or an owner's name, which names no file.
		// (To tar, rclone or borg, "host:file" is another machine's.)
	case readsAsURL(t) && !looksLikePath(t):
		h, _ := urlHost(t)
		r.host(t, h)
	default:
		if h, ok := readsAsIPAddress(t); ok {
			r.host(t, h)
		}
		r.path(t, dirs, false)
	}
}
