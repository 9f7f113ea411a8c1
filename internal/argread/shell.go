package argread

import (
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

// Shell command lines are parsed with mvdan.cc/sh (the parser behind
// shfmt), as bash parses them, and read command by command: every simple
// command in lists, pipelines, subshells, groups, functions, conditionals
// and loops, in command and process substitutions, and in the strings a
// shell is handed to run (sh -c). What a command names is read by its
// program (shellprograms.go): a file a redirection writes or reads, each
// word that is not an option as a path relative to the working directory
// (cd changes it for what follows), a URL's or a network program's host.
// What the shell would change before the program sees it (a variable, a
// substitution, a glob, a brace, "~") is unknown, and so is code handed to
// an interpreter (python -c) and a line that does not parse.

// Bounds on one command line: past them it is unknown, not read at any
// cost.
const (
	maxShellBytes    = 64 << 10 // the line, and each line a shell is handed
	maxShellCommands = 1024     // simple commands in one argument, nested lines included
	maxShellDepth    = 8        // lines inside lines (bash -c "sh -c '...'")
	maxShellDirs     = 8        // working directories a command may run in
)

// parsers are bash parsers, reused: a parser's buffers are most of what a
// short line costs to parse. Parse resets one for each line.
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// shellReader reads the command lines of one argument.
type shellReader struct {
	w        *walker
	s        site
	commands int
	depth    int
	// ok is where the statement just read leaves the shell when it
	// succeeds (nil: where stmt says).
	ok   []string
	seen map[[2]string]bool // paths kept, with their resolution: a loop read twice adds nothing
	// cur is the index in the reading's Commands of the command whose
	// words are being read, -1 for none: the paths they name are its.
	cur int
	// homeSet: the line sets HOME itself, so "~" is not the home known;
	// pwdSet, PWD, so "$PWD" is not the working directory.
	homeSet, pwdSet bool
	// dotGlob: the line may make a glob match dot files (dotglob,
	// GLOBIGNORE), so no glob is plain.
	dotGlob bool
	// loops is how many loops around the one being read are read a
	// second time (loop).
	loops int
	// tree: the paths being read are trees the command reads every file
	// under (Value.Tree); follows, trees whose links it follows.
	tree, follows bool
	// piped is what the command being read gets on its standard input
	// from a pipeline (find . | xargs wc -l), read only when a command
	// asks (pipe.paths); nil outside a pipeline's right side.
	piped *pipe
	// written are the files the line has written so far (by redirection,
	// cp, mv, tee), resolved, and as written when where they are is
	// unknown: a later command that runs one runs what this line wrote,
	// which the decision does not see ("echo '...' > x.sh && sh x.sh").
	written map[string]bool
	// changed are the files it removes or changes the mode or owner of
	// (changedFile), resolved.
	changed map[string]bool
	// readOnly are the files a program that only reads named (cat x,
	// grep -n y x), resolved; otherUse those any other command named.
	// A file in the first and not the second is only read (Value.Read).
	readOnly, otherUse map[string]bool
	// xtrace: a "set -x" before made the shell print each command's
	// words expanded (tracesCommands).
	xtrace bool
	// named are the bind mounts of the containers the line started by
	// name (docker run --name w -v ...), for its later docker exec w;
	// mountsUnknown says the container whose command is being read was
	// not started by the line (docker exec web ...): its mounts are not
	// known.
	named         map[string][]mounted
	mountsUnknown bool
	// cover is what a rule allows the command whose words are being read
	// to run that cannot be read (DataMark.Commands); nil outside such a
	// command's own words (its assignments and redirections are read
	// outside them).
	cover *commandCover
	// file is the line being read, and namerefs says it may make a name
	// a reference to another: a for loop's name is bound to its items
	// only when nothing in the line can assign it otherwise.
	file     *syntax.File
	namerefs bool
	// stdinCode is the text of the here-document or here-string the
	// statement being read gives its command on standard input.
	stdinCode string
	// bound is a for loop's name and the item its body is being read
	// with ("for f in src/*.ts; do wc -l "$f"; done": $f is src/*.ts, a
	// plain glob, read as the glob itself is).
	bound map[string]shellWord
}

// pipe is a pipeline's left side, as its right side's standard input.
type pipe struct {
	from  *syntax.Stmt
	outer *pipe // what the left side reads in turn, when it is itself piped into
}

// paths are the directories under which every line the left side prints
// is a file (producedPaths); nil when that cannot be told.
func (p *pipe) paths() []shellWord {
	if p == nil {
		return nil
	}
	return producedPaths(p.from, p.outer.paths())
}

// producedPaths are the directories under which every line st prints is
// a file, given what it reads on its input (in): find's start points, fd's
// and rg --files' directories, git ls-files' "."; a filter of lines (grep,
// sort, head) passes in on. nil for anything else, or a word the shell
// changes.
func producedPaths(st *syntax.Stmt, in []shellWord) []shellWord {
	switch x := st.Cmd.(type) {
	case *syntax.BinaryCmd:
		if x.Op != syntax.Pipe && x.Op != syntax.PipeAll {
			return nil
		}
		return producedPaths(x.Y, producedPaths(x.X, in))
	case *syntax.CallExpr:
		if len(x.Args) == 0 || len(st.Redirs) > 0 {
			return nil
		}
		words := make([]string, len(x.Args))
		for i, a := range x.Args {
			t, ok := literalWord(a)
			if !ok {
				return nil
			}
			words[i] = t
		}
		return pathsPrinted(programName(words[0]), words[1:], in)
	}
	return nil
}

// pathsPrinted is producedPaths for one simple command.
func pathsPrinted(name string, args []string, in []shellWord) []shellWord {
	dot := []shellWord{{text: ".", known: true}}
	switch name {
	case "find":
		return findPrints(args)
	case "fd", "fdfind":
		if slices.ContainsFunc(args, func(a string) bool {
			return fdValues.has(a) || strings.HasPrefix(a, "-x") || strings.HasPrefix(a, "-X") || a == "--exec" || a == "--exec-batch"
		}) {
			return nil // an option's value would read as a directory
		}
		return printedOperands(args, 1)
	case "git":
		if len(args) > 0 && (args[0] == "ls-files" || args[0] == "diff" && slices.Contains(args, "--name-only")) {
			return dot
		}
	case "rg":
		if slices.Contains(args, "--files") || slices.Contains(args, "-l") || slices.Contains(args, "--files-with-matches") {
			if slices.Contains(args, "--files") {
				return printedOperands(args, 0)
			}
			return printedOperands(args, 1)
		}
		if in != nil {
			return in
		}
	case "grep", "egrep", "fgrep":
		return grepPrints(args, in)
	case "sort", "uniq", "head", "tail", "tac", "shuf":
		if in != nil && !slices.ContainsFunc(args, func(a string) bool { return !strings.HasPrefix(a, "-") && !isNumber(a) }) {
			return in
		}
	case "ls":
		if len(args) == 0 || !slices.ContainsFunc(args, func(a string) bool { return !strings.HasPrefix(a, "-") }) {
			return dot // names in the directory it runs in
		}
	}
	return nil
}

// printedOperands are the operands of args after the first skip (the
// directories fd and rg list under), "." when there are none.
func printedOperands(args []string, skip int) []shellWord {
	var out []shellWord
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "-"):
		case skip > 0:
			skip--
		default:
			out = append(out, shellWord{text: a, known: true})
		}
	}
	if len(out) == 0 {
		return []shellWord{{text: ".", known: true}}
	}
	return out
}

// findPrints is pathsPrinted for find: its start points ("." when none),
// unless it prints what it is told or picks the floor's files.
func findPrints(args []string) []shellWord {
	var starts []shellWord
	for _, a := range args {
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
			break
		}
		starts = append(starts, shellWord{text: a, known: true})
	}
	if slices.ContainsFunc(args, func(a string) bool {
		return strings.HasPrefix(a, "-printf") || strings.HasPrefix(a, "-fprint") || findExec[a]
	}) {
		return nil // prints what it is told, or what a command prints
	}
	for i := 0; i+1 < len(args); i++ {
		if findNames[args[i]] && fileGlobNamesFloor(strings.TrimPrefix(args[i+1], "*/")) {
			return nil // -name '.env*': the files it picks are the floor's
		}
	}
	if len(starts) == 0 {
		return []shellWord{{text: ".", known: true}}
	}
	return starts
}

// grepPrints is pathsPrinted for grep: the files it names (-l), or the
// lines it reads (in) when it only filters them.
func grepPrints(args []string, in []shellWord) []shellWord {
	if slices.Contains(args, "-l") || slices.Contains(args, "-rl") || slices.Contains(args, "-lr") || slices.Contains(args, "--files-with-matches") {
		return printedOperands(args, 1)
	}
	pattern := ""
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			if pattern != "" {
				return nil // a file it reads, not only a filter
			}
			pattern = a
		}
	}
	// A filter of the lines it reads: one that drops lines (-v) passes
	// the rest on; one that keeps them must not pick the floor's files
	// (grep .env, grep ssh).
	if in != nil && pattern != "" && (slices.Contains(args, "-v") || !picksSecrets(pattern)) {
		return in
	}
	return nil
}

// picksSecrets reports a pattern of grep's that may keep the lines naming
// a secret: its letters, digits and the characters names have, taken as
// written, are in one of the secrets list's names ("env" in .env, "ssh"
// in .ssh, "\.pem" in key.pem; one that ends with "$", at a name's end). A
// pattern with none of them picks any.
func picksSecrets(pattern string) bool {
	if strings.ContainsAny(pattern, "|[]()*+?{}") {
		return true // alternatives, classes, repeats: which names it keeps cannot be told by its letters
	}
	lit := strings.ToLower(strings.Map(func(c rune) rune {
		if c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return c
		}
		return -1
	}, pattern))
	if len(lit) < 2 {
		return true
	}
	atEnd := strings.HasSuffix(pattern, "$") // '\.py$': a name that ends so
	for _, n := range lexical.SecretNames() {
		if atEnd && strings.HasSuffix(n, lit) || !atEnd && strings.Contains(n, lit) {
			return true
		}
	}
	return false
}

// changedFile keeps a file the line removes or changes the mode or owner
// of: written, for the floor (Value.Written), but not for runsWritten.
func (r *shellReader) changedFile(w shellWord, dirs []string) {
	if r.changed == nil {
		r.changed = map[string]bool{}
	}
	for _, d := range dirs {
		if d != "" || strings.HasPrefix(w.text, "/") {
			r.changed[r.w.resolve(d, w.text)] = true
		}
	}
}

// wrote keeps a file the line writes.
func (r *shellReader) wrote(w shellWord, dirs []string) {
	if !w.known || w.text == "" || w.text == "-" {
		return
	}
	if r.written == nil {
		r.written = map[string]bool{}
	}
	r.written[w.text] = true
	for _, d := range dirs {
		if d != "" || strings.HasPrefix(w.text, "/") {
			r.written[r.w.resolve(d, w.text)] = true
		}
	}
}

// runsWritten reads a file a command runs (a script, a program named by
// its path, a project's manifest): unknown when the line wrote it.
func (r *shellReader) runsWritten(w shellWord, dirs []string) bool {
	if r.written == nil || !w.known {
		return false
	}
	hit := r.written[w.text]
	for _, d := range dirs {
		if d != "" || strings.HasPrefix(w.text, "/") {
			hit = hit || r.written[r.w.resolve(d, w.text)]
		}
	}
	if hit {
		r.unknown("what " + w.text + " runs, written by the same line")
	}
	return hit
}

// shellLine reads v, a command line, at s. Relative paths are relative to
// the directories the call's top level names (cwd, workdir), else to the
// tool's root.
func (w *walker) shellLine(s site, t *ast.Term, v string) {
	w.out.Acts = true
	r := &shellReader{w: w, s: s.as(Class{Kind: Path, Evidence: Name}), cur: -1}
	from := len(w.out.Paths)
	r.line(v, r.startDirs())
	r.markUses(from)
}

// markUses marks the paths the reader found from index from on that the
// line writes (written, by their resolved spelling), and those it only
// reads.
func (r *shellReader) markUses(from int) {
	if r.written == nil && r.changed == nil && r.readOnly == nil {
		return
	}
	for i := from; i < len(r.w.out.Paths); i++ {
		p := &r.w.out.Paths[i]
		if p.Resolved == "" {
			continue
		}
		if r.written[p.Resolved] || r.changed[p.Resolved] {
			p.Written = true
		}
		p.Read = !p.Written && r.readOnly[p.Resolved] && !r.otherUse[p.Resolved]
	}
}

// used keeps which kind of command named a resolved path (markUses).
func (r *shellReader) used(resolved string) {
	if resolved == "" {
		return
	}
	if r.readOnly == nil {
		r.readOnly, r.otherUse = map[string]bool{}, map[string]bool{}
	}
	if r.cur >= 0 && r.cur < len(r.w.out.Commands) && readsPlainly(r.w.out.Commands[r.cur].Words) && r.cover == nil {
		r.readOnly[resolved] = true
	} else {
		r.otherUse[resolved] = true
	}
}

// startDirs are the directories a command line starts in (shellDirs).
// When no argument names one, the command runs in the tool's root, and
// acts there: the root is a directory the call names, so that a rule
// "under" the project covers "git status".
func (r *shellReader) startDirs() []string {
	dirs := r.w.shellDirs()
	if len(r.w.dirs) == 0 && !r.w.rootNamed && r.w.root != "" {
		// With no root either, where it runs is unknown: its relative
		// paths are unknown, and a command that names none ("ls -la")
		// names nothing a rule could place.
		r.w.rootNamed = true
		r.w.addPath(r.s.as(Class{Kind: Dir, Evidence: Name}), ast.StringTerm("(where the command runs)"), r.w.root)
	}
	return dirs
}

// knownWords are words a server passes as they are, no shell changing
// them.
func knownWords(words []string) []shellWord {
	ws := make([]shellWord, len(words))
	for i, x := range words {
		ws[i] = shellWord{text: x, known: true}
	}
	return ws
}

// shellArgv reads words a server runs as one command, without a shell
// (["bash", "-lc", "..."]): the same reading as a parsed command's.
func (w *walker) shellArgv(s site, words []string) {
	w.out.Acts = true
	r := &shellReader{w: w, s: s.as(Class{Kind: Path, Evidence: Name}), cur: -1}
	ws := knownWords(words)
	from := len(w.out.Paths)
	r.command(ws, r.startDirs())
	r.markUses(from)
}

// isShellChoice reports a "shell" argument that names the shell to run a
// command in ("bash", "/bin/zsh", "powershell"), not a command line.
func isShellChoice(arg, v string) bool {
	if n := FoldName(arg); n != "shell" && n != "bash" {
		return false
	}
	p, ok := programs[programName(v)]
	return ok && p.kind == progShell && !strings.ContainsAny(v, " \t\n;&|") || v == "powershell" || v == "pwsh" || v == "cmd"
}

// shellArray reads an array under a shell command's name: under a plural
// name ("commands"), each string a command line; else the command's words
// (["bash", "-lc", "..."]), when they are all strings. It reports whether
// it read the array.
func (w *walker) shellArray(s site, v *ast.Array) bool {
	words, ok := arrayStrings(v)
	if !ok {
		return false
	}
	if f := FoldName(s.arg); strings.HasSuffix(f, "s") && f != "args" && f != "cmdargs" {
		for i, line := range words {
			w.shellLine(site{s.arg, s.class, &pointer{up: s.at, index: i}, s.depth + 1}, v.Elem(i), line)
		}
		return true
	}
	if len(words) > 0 {
		w.shellArgv(s, words)
	}
	return true
}

// shellDirs are the working directories a command starts in: each
// directory the call's top level names, else the root; "" is unknown.
func (w *walker) shellDirs() []string {
	if !w.dirsRead {
		w.dirs, w.dirsRead = w.dirsIn(w.out.Arguments), true
	}
	if len(w.dirs) == 0 {
		return []string{w.root}
	}
	out := make([]string, 0, len(w.dirs))
	for _, d := range w.dirs {
		out = addDir(out, d.resolved)
	}
	return out
}

// addDir adds d to a set of working directories; past maxShellDirs the
// set is unknown.
func addDir(set []string, d string) []string {
	for _, x := range set {
		if x == d {
			return set
		}
	}
	if len(set) >= maxShellDirs {
		return addDir(set[:0:0], "")
	}
	return append(set, d)
}

func unionDirs(sets ...[]string) []string {
	var out []string
	for _, s := range sets {
		for _, d := range s {
			out = addDir(out, d)
		}
	}
	return out
}

// unknown keeps an unknown path: what the shell or a program will make of
// word cannot be told here.
func (r *shellReader) unknown(word string) {
	r.w.addPath(r.s, ast.StringTerm(word), "")
	r.commandPath("")
}

// code is the code a program runs that this reader does not read: given
// to its option opt ("-c", "-e"), or on its standard input (opt ""). It is
// unknown, unless the user's command glob allows it (DataMark.Commands);
// nothing else a command raises is ever allowed so: not a line that does
// not parse, not an option the glob does not spell.
func (r *shellReader) code(opt, text string) {
	if r.cover.covers(opt) {
		return
	}
	r.unknown(text)
}

// commandPath gives a path to the command whose words named it.
func (r *shellReader) commandPath(resolved string) {
	if r.cur >= 0 && r.cur < len(r.w.out.Commands) {
		c := &r.w.out.Commands[r.cur]
		c.Paths = append(c.Paths, resolved)
	}
}

// path keeps word, a path, resolved against each working directory.
func (r *shellReader) path(word string, dirs []string, dir bool) {
	s := r.s
	if dir {
		s = s.as(Class{Kind: Dir, Evidence: Name})
	}
	if word == "" || word == "-" {
		return // no file, or standard input or output
	}
	if strings.HasPrefix(word, "/") {
		dirs = []string{"/"}
	}
	if strings.HasPrefix(word, "~") {
		// A "~" the shell left as it is (quoted: a directory named "~"),
		// or one in a part of a word ("k=~/x", which bash may expand):
		// which one cannot be told here. An unquoted one was expanded
		// already (tildeWord).
		dirs = []string{""}
	}
	for _, d := range dirs {
		resolved := ""
		if d != "" {
			resolved = r.w.resolve(d, word)
		}
		r.commandPath(resolved) // each command its own, though the call names it once
		r.used(resolved)
		key := [2]string{word, resolved}
		if r.tree {
			key[0] += "\x00tree" // read again as a tree, or one whose links are followed: the mark is kept
			if r.follows {
				key[0] += "\x00follows"
			}
		}
		if r.seen[key] {
			continue
		}
		if r.seen == nil {
			r.seen = map[[2]string]bool{}
		}
		r.seen[key] = true
		n := len(r.w.out.Paths)
		r.w.addPath(s, ast.StringTerm(word), resolved)
		if r.tree && len(r.w.out.Paths) > n {
			r.w.out.Paths[n].Tree, r.w.out.Paths[n].Follows = true, r.follows
		}
	}
}

// treeRead reads w as a tree the command reads every file under.
func (r *shellReader) treeRead(w shellWord, dirs []string) {
	r.tree = true
	r.read(w, dirs)
	r.tree = false
}

// followedTreeRead reads w as a tree the command reads every file under,
// following the links it finds (a file server's).
func (r *shellReader) followedTreeRead(w shellWord, dirs []string) {
	r.tree, r.follows = true, true
	r.read(w, dirs)
	r.tree, r.follows = false, false
}

// host keeps a host a network program reaches.
func (r *shellReader) host(word, h string) {
	r.w.addHost(r.s, ast.StringTerm(word), h)
}

// line parses src and reads its statements; it returns the working
// directories its commands may leave the shell in.
func (r *shellReader) line(src string, dirs []string) []string {
	if len(src) > maxShellBytes || r.depth >= maxShellDepth {
		r.unknown(src)
		return []string{""}
	}
	parser := parsers.Get().(*syntax.Parser)
	f, err := parser.Parse(strings.NewReader(src), "")
	parsers.Put(parser)
	if err != nil {
		r.unknown(src)
		return []string{""}
	}
	r.depth++
	defer func() { r.depth-- }()
	r.dotGlob = r.dotGlob || strings.Contains(src, "dotglob") || strings.Contains(src, "GLOBIGNORE")
	r.setsVariables(f)
	if strings.Contains(src, "$") {
		r.secretsExpanded(f)
	}
	outer, outerRefs := r.file, r.namerefs
	r.file, r.namerefs = f, namerefs.MatchString(src)
	defer func() { r.file, r.namerefs = outer, outerRefs }()
	return r.stmts(f.Stmts, dirs)
}

// namerefs matches a line that may make a name a reference to another
// (declare -n, typeset -n, local -n): what it assigns through the
// reference is another name's value, which no reading of names follows.
var namerefs = regexp.MustCompile(`\b(declare|typeset|local|readonly|export)\b[^;&|\n]*\s-[A-Za-z]*n`)

// setsVariables reads what a line assigns before its commands are read:
// a variable through which a program runs other code or finds its files
// (PATH, HOME, LD_PRELOAD...: codeVariable), set by any of the shell's
// ways (a for loop's name, read, printf -v, mapfile, getopts, declare,
// local, export, typeset, readonly, an assignment), makes the line
// unknown: "for PATH in /tmp/evil; do cat x; done" runs another cat, and
// "read HOME <<< /home/u/.aws; cat ~/credentials" reads another ~. A line
// that sets HOME reads no "~" as the known home.
func (r *shellReader) setsVariables(f *syntax.File) {
	set := func(name string) {
		if name == "?" {
			r.homeSet = true // a name the shell makes: it may be any
			r.unknown("a line that sets a variable the shell names")
			return
		}
		if name == "" || !codeVariable(name) {
			return
		}
		if strings.EqualFold(name, "HOME") {
			r.homeSet = true
		}
		r.unknown("a line that sets " + name)
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.WordIter:
			if x.Name != nil {
				set(x.Name.Value)
			}
		case *syntax.Assign:
			// An assignment is read with its command (codeVariable);
			// here only whether it moves the home or says another
			// working directory.
			if x.Name != nil && strings.EqualFold(x.Name.Value, "HOME") {
				r.homeSet = true
			}
			if x.Name != nil && x.Name.Value == "PWD" {
				r.pwdSet = true
			}
		case *syntax.CallExpr:
			for _, name := range assignedByBuiltin(x.Args) {
				set(name)
			}
		}
		return true
	})
}

// assignedByBuiltin are the variables a builtin's words assign: read's,
// mapfile's and readarray's names, printf -v's, getopts' second operand,
// and declare's, typeset's, local's, export's and readonly's NAME or
// NAME=value. A name the shell makes cannot be told: "?" stands for it.
func assignedByBuiltin(args []*syntax.Word) []string {
	if len(args) == 0 {
		return nil
	}
	first, ok := literalWord(args[0])
	if !ok {
		return nil
	}
	var out []string
	words := make([]string, 0, len(args)-1)
	for _, a := range args[1:] {
		w, ok := literalWord(a)
		if !ok {
			w = "?"
		}
		words = append(words, w)
	}
	switch programName(first) {
	case "read", "mapfile", "readarray":
		for i := 0; i < len(words); i++ {
			w := words[i]
			switch {
			case w == "-a" || w == "-d" || w == "-p" || w == "-n" || w == "-N" || w == "-t" || w == "-u" || w == "-C" || w == "-c" || w == "-O" || w == "-s" || w == "-i":
				if w == "-a" && i+1 < len(words) {
					out = append(out, words[i+1])
				}
				i++
			case strings.HasPrefix(w, "-"):
			default:
				out = append(out, w)
			}
		}
	case "printf":
		for i, w := range words {
			if w == "-v" && i+1 < len(words) {
				out = append(out, words[i+1])
			} else if v, ok := strings.CutPrefix(w, "-v"); ok && v != "" {
				out = append(out, v)
			}
		}
	case "getopts":
		if len(words) >= 2 {
			out = append(out, words[1])
		}
	case "declare", "typeset", "local", "export", "readonly", "let":
		for _, w := range words {
			if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "+") {
				continue
			}
			name, _, _ := strings.Cut(w, "=")
			out = append(out, name)
		}
	}
	return out
}

func (r *shellReader) stmts(list []*syntax.Stmt, dirs []string) []string {
	for _, st := range list {
		if r.commands > maxShellCommands || r.w.err != nil {
			return addDir(dirs, "") // past the bound: read no further
		}
		dirs = r.stmt(st, dirs)
	}
	return dirs
}

// stmt reads one statement run in dirs and returns the directories it may
// leave the shell in. A command that may fail (cd to a missing directory)
// leaves either, so both are kept; r.ok is then where it leaves the shell
// when it succeeds, which is where "&&" runs what follows.
func (r *shellReader) stmt(st *syntax.Stmt, dirs []string) []string {
	r.ok = nil
	out := r.statement(st, dirs)
	if r.ok == nil {
		r.ok = out
	}
	return out
}

func (r *shellReader) statement(st *syntax.Stmt, dirs []string) []string {
	if r.w.err != nil {
		return dirs
	}
	r.cur = -1 // a redirection's target is no operand of the command
	r.stdinCode = ""
	for _, rd := range st.Redirs {
		r.redirect(rd, dirs)
		if rd.Hdoc != nil && (rd.Op == syntax.Hdoc || rd.Op == syntax.DashHdoc) {
			r.stdinCode = syntaxString(rd.Hdoc)
		} else if rd.Op == syntax.WordHdoc && rd.Word != nil {
			r.stdinCode = syntaxString(rd.Word)
		}
	}
	if call, ok := st.Cmd.(*syntax.CallExpr); ok && appliesPatch(call) {
		r.stdinPatch(st, dirs)
	}
	r.ok = nil // a substitution read above ran in a subshell
	switch x := st.Cmd.(type) {
	case nil:
		return dirs
	case *syntax.CallExpr:
		after := r.call(x, dirs)
		r.stdinText(st)
		return after
	case *syntax.BinaryCmd:
		return r.binaryCmd(x, dirs)
	case *syntax.Subshell:
		r.stmts(x.Stmts, dirs)
		r.ok = nil
		return dirs
	case *syntax.Block:
		return r.stmts(x.Stmts, dirs)
	case *syntax.IfClause:
		out := dirs
		for c := x; c != nil; c = c.Else {
			cond := r.stmts(c.Cond, out)
			out = unionDirs(cond, r.stmts(c.Then, cond))
		}
		r.ok = nil
		return out
	case *syntax.WhileClause:
		out := r.loop(x.Cond, x.Do, dirs)
		r.ok = nil
		return out
	case *syntax.ForClause:
		return r.forClause(x, dirs)
	case *syntax.CaseClause:
		return r.caseClause(x, dirs)
	case *syntax.FuncDecl:
		return r.funcDecl(x, dirs)
	case *syntax.TimeClause:
		if x.Stmt == nil {
			return dirs
		}
		return r.stmt(x.Stmt, dirs)
	case *syntax.CoprocClause:
		r.stmt(x.Stmt, dirs)
		return dirs
	case *syntax.ArithmCmd, *syntax.TestClause, *syntax.LetClause:
		r.substitutions(x, dirs)             // what they compute runs nothing but their substitutions,
		r.laterSubstitution(syntaxString(x)) // and what a quoted subscript holds (let 'a[$(x)]')
		return dirs
	case *syntax.DeclClause:
		r.declClause(x, dirs)
		return dirs
	default:
		r.unknown(syntaxString(st))
		return addDir(dirs, "")
	}
}

// binaryCmd reads "&&", "||" and a pipeline: where each side runs, and
// where it leaves the shell.
func (r *shellReader) binaryCmd(x *syntax.BinaryCmd, dirs []string) []string {
	switch x.Op {
	case syntax.AndStmt:
		first := r.stmt(x.X, dirs)
		second := r.stmt(x.Y, r.ok) // only where the first succeeded
		ok := r.ok
		r.ok = ok
		return unionDirs(first, second)
	case syntax.OrStmt:
		first := r.stmt(x.X, dirs)
		okFirst := r.ok
		second := r.stmt(x.Y, first)
		r.ok = unionDirs(okFirst, r.ok)
		return unionDirs(first, second)
	default: // a pipeline: each side in a subshell of its own
		r.stmt(x.X, dirs)
		outer := r.piped
		r.piped = &pipe{from: x.X, outer: outer}
		r.stmt(x.Y, dirs)
		r.piped = outer
		r.ok = dirs
		return dirs
	}
}

// forClause reads a for loop: its items are data, what they substitute
// runs, and its body is a loop's.
func (r *shellReader) forClause(x *syntax.ForClause, dirs []string) []string {
	var items []shellWord
	if it, ok := x.Loop.(*syntax.WordIter); ok {
		for _, item := range it.Items {
			r.data(item, dirs)
		}
		items = r.loopItems(it, x.Do, dirs)
	} else {
		r.substitutions(x.Loop, dirs)
	}
	if items == nil {
		out := r.loop(nil, x.Do, dirs)
		r.ok = nil
		return out
	}
	it := x.Loop.(*syntax.WordIter)
	// The body once for each item, its name bound to the item: what the
	// body names through it is the item's path.
	name := it.Name.Value
	outer, had := r.bound[name]
	if r.bound == nil {
		r.bound = map[string]shellWord{}
	}
	out := dirs
	for _, item := range items {
		r.bound[name] = item
		out = unionDirs(out, r.loop(nil, x.Do, dirs))
	}
	if had {
		r.bound[name] = outer
	} else {
		delete(r.bound, name)
	}
	r.ok = nil
	return out
}

// maxLoopItems bounds the items a for loop's body is read with one by
// one; a longer list leaves its name unknown.
const maxLoopItems = 16

// unsafeLoopItem are the characters that keep a loop's item from being
// put in where its name is used: where the name is unquoted, the shell
// splits an item at blanks; quotes, "$", "`" and "\" would be read again.
const unsafeLoopItem = " \t\n$`\\'\""

// loopItems are a for loop's items as the shell reads them, when each is
// a word with no expansion but a glob (src/*.ts, a.txt, ~/x) and the body
// sets the loop's name nowhere; nil otherwise (the name is then unknown
// wherever it is used). A glob stands for the files it matches: the
// name's value is one of them, under the glob's directory.
func (r *shellReader) loopItems(it *syntax.WordIter, body []*syntax.Stmt, dirs []string) []shellWord {
	if it.Name == nil || len(it.Items) == 0 || len(it.Items) > maxLoopItems || codeVariable(it.Name.Value) || r.namerefs ||
		!userVariable(it.Name.Value) || shellSets(it.Name.Value) {
		return nil // "_" is the shell's (the last word before); a nameref assigns any name
	}
	items := make([]shellWord, 0, len(it.Items))
	for _, item := range it.Items {
		w := r.word(item, dirs)
		// A glob a program that only reads may take (src/*.py) is bound
		// too: where the name is used, read() says whether the program
		// takes it so.
		if _, glob := readGlob(w.text); !w.known && (!glob || r.dotGlob) || strings.ContainsAny(w.text, unsafeLoopItem) {
			return nil // split, or read again, where the name is used unquoted
		}
		items = append(items, w)
	}
	// Anywhere in the line, not only the body: a function defined before
	// the loop and called in it may assign the name.
	var scope syntax.Node = r.file
	if r.file == nil {
		scope = &syntax.File{Stmts: body}
	}
	if setsName(scope, it.Name.Value, it) {
		return nil
	}
	return items
}

// shellSets reports a name the shell itself assigns: BASH_REMATCH after
// [[ =~ ]], REPLY after read, OPTARG, PWD and the like.
func shellSets(name string) bool {
	switch name {
	case "REPLY", "MAPFILE", "OPTARG", "OPTIND", "OPTERR", "PWD", "OLDPWD", "RANDOM", "SRANDOM", "LINENO", "SECONDS", "EPOCHSECONDS",
		"EPOCHREALTIME", "PIPESTATUS", "COPROC", "FUNCNAME", "GROUPS", "HISTCMD", "UID", "EUID", "PPID", "SHLVL", "HOSTNAME", "HOSTTYPE",
		"MACHTYPE", "OSTYPE", "COLUMNS", "LINES", "COMPREPLY", "READLINE_LINE", "READLINE_POINT", "DIRSTACK", "PS1", "PS2", "PS3", "PS4":
		return true
	}
	return strings.HasPrefix(name, "BASH") || strings.HasPrefix(name, "COMP_")
}

// userVariable reports a variable name of the user's: letters, digits and
// "_", not "_" alone (the shell sets it after every command).
func userVariable(name string) bool {
	if name == "_" || name == "" {
		return false
	}
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// setsName reports that node may assign name other than by the loop
// self: an assignment, another loop of that name, or a builtin that
// assigns (read, declare...).
func setsName(node syntax.Node, name string, self *syntax.WordIter) bool {
	found := false
	syntax.Walk(node, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Assign:
			found = found || x.Name != nil && x.Name.Value == name
		case *syntax.WordIter:
			found = found || x != self && x.Name != nil && x.Name.Value == name
		case *syntax.CallExpr:
			names := assignedByBuiltin(x.Args)
			found = found || slices.Contains(names, name) || slices.Contains(names, "?")
		}
		return !found
	})
	return found
}

// caseClause reads a case statement: its word is data, its patterns'
// substitutions run, and any of its branches may.
func (r *shellReader) caseClause(x *syntax.CaseClause, dirs []string) []string {
	r.data(x.Word, dirs)
	out := dirs
	for _, item := range x.Items {
		for _, p := range item.Patterns {
			r.substitutions(p, dirs)
		}
		out = unionDirs(out, r.stmts(item.Stmts, dirs))
	}
	r.ok = nil
	return out
}

// funcDecl reads a function's definition.
func (r *shellReader) funcDecl(x *syntax.FuncDecl, dirs []string) []string {
	// Its body runs wherever it is called: read it here, and let a
	// cd in it make the directory unknown for what follows.
	after := r.stmt(x.Body, dirs)
	r.ok = nil
	if !slices.Equal(after, dirs) {
		return addDir(dirs, "")
	}
	return dirs
}

// declClause reads export, declare, local and the like.
func (r *shellReader) declClause(x *syntax.DeclClause, dirs []string) {
	// export -p, declare -x, a bare declare: the environment printed,
	// as printenv prints it (a command of its own for the floor); and
	// declare -p of a secret's variable.
	if printsEnvironment(x) {
		before := len(r.w.out.Commands)
		r.record([]shellWord{{text: x.Variant.Value, known: true}, {text: "-p", known: true}})
		if len(r.w.out.Commands) > before {
			r.w.out.Commands[before].Credentials = true
		}
	}
	nameref := false
	for _, a := range x.Args {
		r.assign(a, dirs)
		if a.Naked && a.Value != nil {
			if flag, ok := literalWord(a.Value); ok && strings.HasPrefix(flag, "-") && strings.Contains(flag, "n") {
				nameref = true // declare -n r=GITHUB_TOKEN: $r is the secret
			}
			continue
		}
		if a.Name == nil {
			continue
		}
		if v, ok := literalWord(a.Value); nameref && (!ok || printsSecretVariable("$"+v)) {
			r.unknown(a.Name.Value + ", a reference to " + v)
		}
	}
}

// loop reads a loop's condition and body twice: a second round starts in
// whatever directory the first left.
//
// The second round only when the first moved the shell somewhere new, and
// within maxLoopRounds nested loops: past them, where the loop leaves the
// shell is unknown. Nested loops read twice each would cost 2^depth.
func (r *shellReader) loop(cond, body []*syntax.Stmt, dirs []string) []string {
	c := r.stmts(cond, dirs)
	out := unionDirs(dirs, c, r.stmts(body, c))
	if slices.Equal(out, dirs) {
		return out // nowhere new: a second round reads the same
	}
	if r.loops >= maxLoopRounds {
		return addDir(out, "")
	}
	r.loops++
	defer func() { r.loops-- }()
	c = r.stmts(cond, out)
	return unionDirs(out, c, r.stmts(body, c))
}

// maxLoopRounds bounds the nested loops read a second time.
const maxLoopRounds = 4

// redirect reads a redirection's target: a file read or written. A here-
// document's or here-string's text is data, but what it substitutes runs.
func (r *shellReader) redirect(rd *syntax.Redirect, dirs []string) {
	if rd.Hdoc != nil {
		r.substitutions(rd.Hdoc, dirs)
	}
	switch rd.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		return // the word is the delimiter
	case syntax.WordHdoc:
		r.data(rd.Word, dirs)
		return
	}
	w := r.word(rd.Word, dirs)
	if (rd.Op == syntax.DplIn || rd.Op == syntax.DplOut) && w.known && (w.text == "-" || isNumber(w.text)) {
		return // a descriptor duplicated or closed
	}
	if rd.Op != syntax.RdrIn && rd.Op != syntax.DplIn {
		r.wrote(w, dirs)
	}
	switch w.text {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/zero":
		if w.known {
			return // no file
		}
	}
	if rest, ok := strings.CutPrefix(w.text, "/dev/tcp/"); ok || strings.HasPrefix(w.text, "/dev/udp/") {
		// bash opens a connection: /dev/tcp/HOST/PORT.
		if !ok {
			rest = strings.TrimPrefix(w.text, "/dev/udp/")
		}
		h, _, _ := strings.Cut(rest, "/")
		if hv, ok := weakHostValue(h, false); ok && w.known {
			r.host(w.text, hv)
		} else {
			r.host(w.text, "")
		}
		return
	}
	r.read(w, dirs)
}

// assign reads an assignment: what its value substitutes runs, and a
// variable that makes a program run other code or load other libraries
// makes the command unknown.
func (r *shellReader) assign(a *syntax.Assign, dirs []string) {
	if a.Value != nil {
		r.substitutions(a.Value, dirs)
		if v, ok := literalWord(a.Value); ok {
			r.laterSubstitution(v)
		}
	}
	if a.Array != nil {
		r.substitutions(a.Array, dirs)
	}
	if a.Name != nil && codeVariable(a.Name.Value) {
		r.unknown(a.Name.Value + "=")
	}
	if a.Name != nil && a.Value != nil {
		v, ok := literalWord(a.Value)
		r.assignedAddress(a.Name.Value, v, ok)
	}
}

// assignedAddress reads a variable's value as where a program connects,
// when its name says so (VAULT_ADDR=http://10.0.0.1 vault status,
// PGHOST=10.0.0.5 pg_dump) or its value is a URL (DB=postgresql://…);
// a list (ELASTICSEARCH_HOSTS=a:9200,b:9200) names each. known is false
// for a value the shell makes: unknown where the name says address.
func (r *shellReader) assignedAddress(name, v string, known bool) {
	named := addressVariable(name)
	if !known {
		if named {
			r.host(name+"=", "")
		}
		return
	}
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
		case readsAsURL(part):
			r.hostWord(shellWord{text: part, known: true})
		case !named:
			if h, ok := readsAsIPAddress(part); ok {
				r.host(part, h) // TARGET=10.0.0.5 make deploy: an address is where it goes
			}
		default:
			if h, ok := readsAsIPAddress(part); ok {
				r.host(part, h)
			} else {
				r.hostWord(shellWord{text: part, known: true})
			}
		}
	}
}

// addressVariable reports a variable whose value is where a program
// connects: a name that ends so (VAULT_ADDR, CONSUL_HTTP_ADDR,
// API_URL, DB_HOST, S3_ENDPOINT) or a proxy's.
func addressVariable(name string) bool {
	n := strings.ToUpper(name)
	for _, end := range []string{"_ADDR", "_ADDRESS", "_URL", "_URI", "HOST", "HOSTS", "_SERVER", "_SERVERS", "_REPO", "_REPOSITORY", "_DSN",
		"BROKERS", "_NODES", "_SEEDS"} {
		if strings.HasSuffix(n, end) {
			return true
		}
	}
	if strings.Contains(n, "ENDPOINT") { // ETCDCTL_ENDPOINTS, AWS_ENDPOINT_URL_S3
		return true
	}
	switch n {
	case "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "FTP_PROXY", "RSYNC_PROXY", "GIT_PROXY_COMMAND":
		return true
	}
	return false
}

// call reads a simple command.
func (r *shellReader) call(x *syntax.CallExpr, dirs []string) []string {
	for _, a := range x.Assigns {
		r.assign(a, dirs)
	}
	if len(x.Args) == 0 {
		return dirs
	}
	words := make([]shellWord, len(x.Args))
	for i, a := range x.Args {
		words[i] = r.word(a, dirs)
	}
	r.ok = nil // the substitutions read above ran in subshells
	if words[0].known && foundReaders[programName(words[0].text)] {
		if given, ok := substitutedPaths(x.Args[1:], words[1:]); ok {
			// wc -l $(git ls-files '*.py'): a program that only reads is
			// given the files a producer prints, as xargs would give them
			// (producedPaths): those directories, read as trees.
			r.tree, r.follows = true, true
			after := r.command(append([]shellWord{words[0]}, given...), dirs)
			r.tree, r.follows = false, false
			return after
		}
	}
	return r.command(words, dirs)
}

// substitutedPaths are words with each that is one command substitution
// of a producer of paths ($(git ls-files), $(find src -name '*.go'))
// put in place by the directories it prints the files of; ok is false
// when there is none, or another word the shell changes.
func substitutedPaths(args []*syntax.Word, words []shellWord) ([]shellWord, bool) {
	var out []shellWord
	found := false
	for i, w := range words {
		if w.known {
			out = append(out, w)
			continue
		}
		if len(args[i].Parts) != 1 {
			return nil, false
		}
		cs, ok := args[i].Parts[0].(*syntax.CmdSubst)
		if !ok || len(cs.Stmts) != 1 {
			return nil, false
		}
		paths := producedPaths(cs.Stmts[0], nil)
		if paths == nil {
			return nil, false
		}
		out = append(out, paths...)
		found = true
	}
	return out, found
}

// shellWord is a word of a command as the program will see it: its text
// when the shell leaves it as written (quotes and escapes removed), else
// known is false and text is the word as written.
type shellWord struct {
	text  string
	known bool
}

// word is a word's reading; what it substitutes is read as commands.
func (r *shellReader) word(w *syntax.Word, dirs []string) shellWord {
	r.substitutions(w, dirs)
	if s, ok := literalWord(w); ok {
		r.laterSubstitution(s)
		return shellWord{text: s, known: true}
	}
	if s, ok := r.tildeWord(w); ok {
		return shellWord{text: s, known: true}
	}
	if len(dirs) == 1 && dirs[0] != "" && !r.pwdSet {
		if s, ok := withWorkingDir(w, dirs[0]); ok {
			return shellWord{text: s, known: true}
		}
	}
	if bw, ok := r.boundWord(w); ok {
		return bw
	}
	return shellWord{text: syntaxString(w)}
}

// boundWord is a word whose only expansions are for loops' names being
// read ($f, "${f}", "$f.bak"), with their items put in; ok is false
// otherwise. A glob's name alone is the glob; with more around it, what
// it makes cannot be told.
func (r *shellReader) boundWord(w *syntax.Word) (shellWord, bool) {
	if len(r.bound) == 0 {
		return shellWord{}, false
	}
	if item, ok := r.boundAlone(w.Parts); ok {
		return item, true
	}
	parts, found := r.boundParts(w.Parts)
	if !found {
		return shellWord{}, false
	}
	c := *w
	c.Parts = parts
	s, ok := literalWord(&c)
	return shellWord{text: s, known: true}, ok
}

// boundAlone is the item of a word that is one bound name's plain
// expansion ($f, "$f", ${f}), nothing else.
func (r *shellReader) boundAlone(parts []syntax.WordPart) (shellWord, bool) {
	if len(parts) != 1 {
		return shellWord{}, false
	}
	switch x := parts[0].(type) {
	case *syntax.DblQuoted:
		return r.boundAlone(x.Parts)
	case *syntax.ParamExp:
		if plainParam(x) {
			item, ok := r.bound[x.Param.Value]
			return item, ok
		}
	}
	return shellWord{}, false
}

// plainParam reports $NAME or ${NAME} as it is: no operator, index,
// slice, length or indirection.
func plainParam(x *syntax.ParamExp) bool {
	return x.Param != nil && !x.Excl && !x.Length && !x.Width && x.Index == nil && x.Slice == nil && x.Repl == nil && x.Names == 0 && x.Exp == nil
}

// boundParts are parts with each plain expansion of a bound name replaced
// by its item, when every such item is a literal word; found says there
// was one.
func (r *shellReader) boundParts(parts []syntax.WordPart) ([]syntax.WordPart, bool) {
	out := slices.Clone(parts)
	found := false
	for i, p := range parts {
		switch x := p.(type) {
		case *syntax.DblQuoted:
			if inner, ok := r.boundParts(x.Parts); ok {
				// "$f" is the file's name, one word: its item as it is.
				d := *x
				d.Parts = inner
				out[i], found = &d, true
			}
		case *syntax.ParamExp:
			if !plainParam(x) {
				continue
			}
			if item, ok := r.bound[x.Param.Value]; ok && item.known {
				out[i], found = &syntax.Lit{Value: item.text}, true
			}
		}
	}
	return out, found
}

// withWorkingDir is a word whose only expansions are the working
// directory ($PWD, ${PWD}, $(pwd), `pwd`), with dir put in for them:
// "$PWD:/app" and "$(pwd)/src" are what the shell makes of them where
// it runs in dir. ok is false for a word with none, or with any other
// expansion (literalWord reads what is left).
func withWorkingDir(w *syntax.Word, dir string) (string, bool) {
	parts, found := workingDirParts(w.Parts, dir, false)
	if !found {
		return "", false
	}
	c := *w
	c.Parts = parts
	return literalWord(&c)
}

// workingDirParts are parts with each expansion of the working directory
// replaced by dir, as quoted text; found says there was one.
func workingDirParts(parts []syntax.WordPart, dir string, quoted bool) ([]syntax.WordPart, bool) {
	out := slices.Clone(parts)
	found := false
	for i, p := range parts {
		switch x := p.(type) {
		case *syntax.DblQuoted:
			if inner, ok := workingDirParts(x.Parts, dir, true); ok {
				d := *x
				d.Parts = inner
				out[i], found = &d, true
			}
		case *syntax.ParamExp, *syntax.CmdSubst:
			if !namesWorkingDir(p) {
				continue
			}
			found = true
			if quoted {
				out[i] = &syntax.Lit{Value: dir}
			} else {
				out[i] = &syntax.SglQuoted{Value: dir}
			}
		}
	}
	return out, found
}

// namesWorkingDir reports $PWD or ${PWD} as it is, or $(pwd) alone.
func namesWorkingDir(p syntax.WordPart) bool {
	switch x := p.(type) {
	case *syntax.ParamExp:
		return plainParam(x) && x.Param.Value == "PWD"
	case *syntax.CmdSubst:
		if len(x.Stmts) != 1 || x.Stmts[0].Redirs != nil || x.Stmts[0].Background || x.Stmts[0].Negated {
			return false
		}
		call, ok := x.Stmts[0].Cmd.(*syntax.CallExpr)
		if !ok || len(call.Assigns) != 0 || len(call.Args) != 1 {
			return false
		}
		name, ok := literalWord(call.Args[0])
		return ok && name == "pwd"
	}
	return false
}

// tildeWord is a word that starts with an unquoted "~" or "~/" and is
// otherwise literal, with the home directory put in, when the home is
// known (a server on this machine): "~/Downloads" is what bash makes of it.
// "~user" stays unknown.
func (r *shellReader) tildeWord(w *syntax.Word) (string, bool) {
	if r.w.home == "" || r.homeSet || len(w.Parts) == 0 {
		return "", false
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	if !ok || lit.Value != "~" && !strings.HasPrefix(lit.Value, "~/") {
		return "", false
	}
	if lit.Value == "~" && len(w.Parts) > 1 {
		return "", false // "~"$x, "~"'user': not the home
	}
	home := *lit
	home.Value = r.w.home + lit.Value[1:]
	c := *w
	c.Parts = append([]syntax.WordPart{&home}, w.Parts[1:]...)
	return literalWord(&c)
}

// laterSubstitution reads a literal that holds a substitution, which bash
// runs when the text is evaluated again: as an array's subscript in
// arithmetic ("a[$(cmd)]" in $((x)), [[ $x -eq 1 ]], printf -v, read,
// declare -i), or by eval. What it runs cannot be told: it is unknown.
func (r *shellReader) laterSubstitution(s string) {
	if strings.Contains(s, "$(") || strings.Contains(s, "`") || strings.Contains(s, "${") || strings.Contains(s, "<(") || strings.Contains(s, ">(") {
		r.unknown(s)
	}
}

// data reads a word that is no path (a case's subject, a for loop's
// items, a here-string): only what it substitutes.
func (r *shellReader) data(w *syntax.Word, dirs []string) {
	if w != nil {
		r.substitutions(w, dirs)
	}
}

// substitutions reads the commands node substitutes, each in a subshell.
func (r *shellReader) substitutions(node syntax.Node, dirs []string) {
	syntax.Walk(node, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			r.stmts(x.Stmts, dirs)
			return false
		case *syntax.ProcSubst:
			r.stmts(x.Stmts, dirs)
			return false
		}
		return true
	})
}

// read keeps a word that is a path: unknown when the shell changes it,
// but for a plain glob, read as the directory its matches are in.
func (r *shellReader) read(w shellWord, dirs []string) {
	if !w.known {
		dir, ok := plainGlob(w.text)
		if !ok && r.readsOnly() {
			dir, ok = readGlob(w.text)
		}
		if ok && !r.dotGlob {
			tree := r.tree
			r.tree = tree || strings.Contains(w.text, "**") // globstar: the directory's tree
			n := len(r.w.out.Paths)
			r.path(dir, dirs, true)
			r.tree = tree
			for i := n; i < len(r.w.out.Paths); i++ {
				// Its matches are opened through whatever links they
				// are (src/notes.txt to ~/.ssh/id_rsa): where the links
				// in the directory lead is read, where links are.
				r.w.out.Paths[i].Follows = true
			}
			return
		}
		r.unknown(w.text)
		return
	}
	r.path(w.text, dirs, false)
}

// onlyReaders are programs that only read the files they are given (and
// print what they find): a glob they take may end in readGlobExtensions.
// Not uniq (its second operand is written), less (-o writes a log), bat
// and ack (a pager of the caller's), nor the formatters and linters
// (options that write, plugins and configs that run code).
var onlyReaders = keySetExact("cat", "wc", "grep", "egrep", "fgrep", "rg", "ag", "head", "tail", "ls", "stat", "file",
	"diff", "cmp", "md5sum", "sha1sum", "sha256sum", "sha512sum", "du", "nl", "cut", "tokei", "cloc")

// plainReaders are the only readers no option of which writes a file, so
// every path they are given, option values too, is read and nothing else:
// not cloc (--out, --report-file), file (-C writes a compiled magic file),
// nor tokei (its output options).
var plainReaders = func() map[string]bool {
	m := maps.Clone(onlyReaders)
	for _, writes := range []string{"cloc", "file", "tokei"} {
		delete(m, writes)
	}
	return m
}()

// readsPlainly reports a command that only reads the files it names: a
// plain reader's, or git's diff, log, show, blame, status or grep right
// after "git" (no global option: -c can set a program to run), with no
// option that writes a file or runs a program (--output, -O, --ext-diff,
// --textconv).
func readsPlainly(words []string) bool {
	if len(words) == 0 || !systemProgram(words[0]) {
		return false // scripts/grep.py, ./git.sh, bin/ls: the project's own programs, which may do anything
	}
	program := programName(words[0])
	if plainReaders[program] {
		return true
	}
	if program != "git" || len(words) < 2 || !gitReaders[words[1]] {
		return false
	}
	return !slices.ContainsFunc(words[2:], func(w string) bool {
		return strings.HasPrefix(w, "-O") || strings.HasPrefix(w, "--o") || strings.HasPrefix(w, "--ext") || strings.HasPrefix(w, "--text")
	})
}

// systemProgram reports a program named bare (found on the PATH) or by its
// path in a system's directory of programs (/usr/bin/cat).
func systemProgram(word string) bool {
	dir, _ := path.Split(word)
	switch dir {
	case "", "/bin/", "/usr/bin/", "/usr/local/bin/", "/opt/homebrew/bin/":
		return true
	}
	return false
}

// gitReaders are git's subcommands that print what they read.
var gitReaders = keySetExact("diff", "log", "show", "blame", "status", "grep", "shortlog")

// readsOnly reports that the command whose words are being read is an
// only reader.
func (r *shellReader) readsOnly() bool {
	return r.cur >= 0 && r.cur < len(r.w.out.Commands) && onlyReaders[r.w.out.Commands[r.cur].Program]
}

// noEnv is the environment words are expanded in: none (a word that
// reads a variable is no literal word anyway). Read only, shared.
var noEnv = expand.FuncEnviron(func(string) string { return "" })

// literalWord is a word's text when the shell leaves it as written but for
// its quotes and escapes: no expansion, no substitution, no glob, no brace
// and no leading "~" (whose home is the server's).
func literalWord(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	for i, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			if unquotedChanges(x.Value, i == 0) {
				return "", false
			}
		case *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return "", false
				}
			}
		default:
			return "", false
		}
	}
	if text, ok := asWritten(w); ok {
		return text, true
	}
	return expandedLiteral(w)
}

// expandedLiteral is a literal word's text as mvdan.cc/sh's expand makes
// it: quote removal and escapes, no globbing without a file system.
func expandedLiteral(w *syntax.Word) (string, bool) {
	// A config of its own each time: with nil, mvdan.cc/sh's expand
	// prepares one package-wide config in place, shared by every
	// goroutine (a data race the proxy's concurrent calls met).
	fields, err := expand.Fields(&expand.Config{Env: noEnv}, w)
	if err != nil || len(fields) != 1 {
		return "", false
	}
	return fields[0], true
}

// unquotedSpecial are what the shell may read in an unquoted literal: an
// escape, a brace, a glob, a home, a dollar. asWritten leaves a word with
// one to expand.
const unquotedSpecial = "\\{}*?[~$"

// asWritten is a literal word's text when removing its quotes is all the
// shell does to it: no backslash in it, nothing special unquoted and no
// $'…' quoting. Most words of
// a command line are so, and expand's machinery costs a command line a
// third of its reading; FuzzLiteralWord holds the two to one answer.
func asWritten(w *syntax.Word) (string, bool) {
	if len(w.Parts) == 1 {
		if lit, ok := w.Parts[0].(*syntax.Lit); ok && !strings.ContainsAny(lit.Value, unquotedSpecial) {
			return lit.Value, true
		}
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(x.Value, unquotedSpecial) {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				return "", false
			}
			for _, q := range x.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok || strings.ContainsRune(lit.Value, '\\') {
					return "", false
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unquotedChanges reports an unquoted literal the shell would change: a
// glob ("*", "?", a bracket expression), a brace expansion ("{a,b}",
// "{1..3}"; a lone "{}" is find's and xargs' word), or "~" at the start
// of a word.
func unquotedChanges(lit string, first bool) bool {
	if first && strings.HasPrefix(lit, "~") {
		return true
	}
	brace, bracket := -1, false
	for i := 0; i < len(lit); i++ {
		switch lit[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			bracket = true
		case ']':
			if bracket {
				return true
			}
		case '{':
			brace = i
		case '}':
			if brace >= 0 && (strings.Contains(lit[brace:i], ",") || strings.Contains(lit[brace:i], "..")) {
				return true
			}
		}
	}
	return false
}

// syntaxString prints a node as the shell source it is.
func syntaxString(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter(syntax.Minify(true)).Print(&b, n); err != nil {
		return "?"
	}
	return b.String()
}

// appliesPatch reports a command that applies a patch it reads from its
// standard input or a file: Codex's apply_patch, patch, git apply and git
// am.
func appliesPatch(call *syntax.CallExpr) bool {
	if len(call.Args) == 0 {
		return false
	}
	first, ok := literalWord(call.Args[0])
	if !ok {
		return false
	}
	switch programName(first) {
	case "apply_patch", "applypatch", "patch":
		return true
	case "git":
		for _, a := range call.Args[1:] {
			if w, ok := literalWord(a); ok && (w == "apply" || w == "am") {
				return true
			}
		}
	}
	return false
}

// stdinPatch reads the patch a command applies: a here-document's or
// here-string's text, parsed as a patch, when the shell leaves it as
// written; else (a file, a pipe, a substitution) the files it changes are
// unknown.
// stdinText reads the text a here-document or here-string gives the
// command just recorded: a secret's variable given to a program that
// prints its input ("cat <<< "$GITHUB_TOKEN"") is a credential printed;
// the URLs given to a program that takes its targets on its input
// ("vegeta attack <<< 'GET http://x/'") are hosts it reaches.
func (r *shellReader) stdinText(st *syntax.Stmt) {
	if r.cur < 0 || len(st.Redirs) == 0 {
		return
	}
	c := &r.w.out.Commands[r.cur]
	for _, rd := range st.Redirs {
		w := stdinWord(rd)
		if w == nil {
			continue
		}
		text := syntaxString(w)
		if stdinPrinters[c.Program] && printsSecretVariable(text) {
			c.Credentials = true
		}
		if stdinTargets[c.Program] {
			for _, f := range strings.Fields(text) {
				f = strings.Trim(f, "'\"")
				if readsAsURL(f) {
					r.hostWord(shellWord{text: f, known: !strings.ContainsAny(f, "$`")})
				}
			}
		}
	}
}

// stdinPrinters copy their standard input to their output (or a file
// the model reads): filters, viewers, encoders.
var stdinPrinters = opts("cat tac rev tee base64 base32 basenc xxd od hexdump tr cut head tail sed gsed awk gawk mawk sort uniq nl fold fmt " +
	"grep egrep fgrep rg jq gojq jaq yq column paste expand unexpand strings less more bat batcat iconv dd")

// stdinTargets read the URLs they reach from their standard input: load
// generators and scanners.
var stdinTargets = opts("vegeta httpx nuclei katana hakrawler gau waybackurls httprobe ffuf")

// stdinWord is the text a redirection gives the command's input: a
// here-document's body or a here-string's word; nil for any other.
func stdinWord(rd *syntax.Redirect) *syntax.Word {
	switch rd.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		return rd.Hdoc
	case syntax.WordHdoc:
		return rd.Word
	}
	return nil
}

func (r *shellReader) stdinPatch(st *syntax.Stmt, dirs []string) {
	for _, rd := range st.Redirs {
		w := stdinWord(rd)
		if w == nil {
			continue
		}
		if text, ok := heredocText(w); ok {
			r.patch(text, dirs)
			return
		}
	}
	r.unknown("the files a patch changes (" + syntaxString(st.Cmd.(*syntax.CallExpr).Args[0]) + ")")
}

// heredocText is a here-document's or here-string's text when the shell
// leaves it as written: only literal parts, quoted or not.
func heredocText(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", true
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		default:
			return "", false
		}
	}
	return b.String(), true
}

// printsEnvironment reports a declaration that assigns nothing and prints
// variables: "export", "export -p", "declare -x", "declare -p", "typeset".
func printsEnvironment(x *syntax.DeclClause) bool {
	if x.Variant == nil || x.Variant.Value == "local" {
		return false
	}
	printing := false
	for _, a := range x.Args {
		if w, ok := literalWord(a.Value); ok && a.Name == nil && strings.HasPrefix(w, "-") && strings.Contains(w, "p") {
			printing = true
		}
	}
	for _, a := range x.Args {
		if printing && a.Naked && a.Name != nil && printsSecretVariable("$"+a.Name.Value) {
			return true // declare -p GITHUB_TOKEN: the secret's value printed
		}
	}
	for _, a := range x.Args {
		if a.Name != nil {
			return false // "export NAME", "declare x=1": a variable, not the list
		}
		if w, ok := literalWord(a.Value); !ok || !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "+") {
			return false
		}
	}
	return true
}
