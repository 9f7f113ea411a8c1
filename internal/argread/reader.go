package argread

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/reasons"
)

// Limits on what one call may hold: past them the call is refused, with
// the limit named, rather than read at any cost.
const (
	// MaxValues bounds the paths and hosts found in one call.
	MaxValues = 10_000
	// MaxDepth bounds how deep arguments nest (objects and arrays, JSON
	// inside strings included).
	MaxDepth = 64
)

// ReasonArgument is the argument package reasons adds to every tool: the
// model's sentence for the human, never read as a path or host, unless the
// tool's schema declares a "reason" of its own.
const ReasonArgument = reasons.Argument

// Value is one path or host a call names.
type Value struct {
	Arg     string    // the name of the argument it came from (the nearest key)
	Pointer string    // where it is in the arguments, as a JSON Pointer ("/edits/0/path")
	Raw     *ast.Term // the JSON value as written (for a key, the key)
	// Resolved is the clean absolute path, or the host in its canonical
	// form; "" when it cannot be evaluated.
	Resolved string
	// Dir says the tool acts on this path as a directory.
	Dir bool
	// Tree says the tool reads every file under the path (grep -r, rg,
	// tar c, cp -r, find -exec, a content search tool): a secret in it is
	// read though the call never names it.
	Tree bool
	// Secret says a path that cannot be evaluated names a file that holds
	// secrets however it is read: a pattern whose matches include one
	// ("/home/u/.ssh/*", "~/**"), a Windows path to one
	// ("C:\\Users\\u\\.ssh\\id_rsa", for a server on another system).
	Secret bool
	// Follows says the tree's symbolic links are followed as it is read
	// (grep -R, cp -rL, tar -h, zip -r), or, for the directory a glob's
	// matches are in, that each match is opened through whatever link it
	// is: what they point to is read too.
	Follows bool
	// Might are the hosts a lenient client may make of a host that
	// cannot be evaluated (lexical.LenientHosts): read by the floor, not
	// by rules.
	Might []string
	// Written says the call writes the path: a command line does (a
	// redirection, cp, mv, tee, sed -i, touch), or an argument names the
	// file the tool writes (outputPath, a screenshot tool's filename),
	// whatever its annotations say. A file tool's paths are all what it
	// may write; a command's and a read-only tool's, only these.
	Written bool
	// Read says the call only reads the path: each command of its
	// command lines that names it is a program that only reads what it
	// is given (cat, grep, wc), and none writes it; or the tool's name
	// says it only reads (read_file, listDirectory) and nothing in the
	// call says it writes the path. Reading a file whose
	// change runs code (.github/workflows/ci.yml) is no question of the
	// floor's; reading a secret still is.
	Read bool
}

// SimpleCommand is one simple command of a shell command line the call holds,
// as its program will see it: each command a wrapper runs is one too
// ("sudo rm -rf x" and "rm -rf x").
type SimpleCommand struct {
	Arg     string // the argument it came from
	Pointer string // where the argument is, as a JSON Pointer
	// Words are the command's words, quotes and escapes removed; a word
	// the shell changes (a variable, a substitution, a glob) is as written.
	Words []string
	// Program is the program's name as the table looks it up: its base
	// name in lower case, without a version ("python3.12" is python3).
	Program string
	// Unknown says a word is one the shell changes: what the program
	// sees cannot be told here.
	Unknown bool
	// Known is how many of the words, from the first, are as the
	// program sees them: all of them unless Unknown.
	Known int
	// Paths are what its own words name, resolved ("" for unknown): not
	// where it runs, nor its redirections.
	Paths []string
	// Credentials says it prints or stores credentials (the environment,
	// a CLI's token, a secret manager's value: credentials.go).
	Credentials bool
	// By is the index, plus one, in the reading's Commands of the command
	// whose words this one was read from (a wrapper's: sudo, npx, env,
	// xargs), 0 for a command of its own.
	By int
}

// Reading is what one call's arguments name.
type Reading struct {
	Paths, Hosts []Value
	// Commands are the simple commands of the call's shell command lines.
	Commands []SimpleCommand
	// Acts says the call carries a command line, a program's words or a
	// patch: what such a call does to files is in the call itself, so a
	// tool's read-only mark (its server's claim) does not say it.
	Acts bool
	// Arguments are the call's top-level arguments without the reason;
	// Reason is the reason's value, nil when the call gave none.
	Arguments [][2]*ast.Term
	Reason    *ast.Term
}

// Call is what the reader needs of a call.
type Call struct {
	Tool string
	// Known says the tool's catalogue entry is known; Schema is its input
	// schema (JSON), if any.
	Known  bool
	Schema json.RawMessage
	// Annotations are the tool's catalogue hints (readOnlyHint...), for
	// the data marks that name them.
	Annotations map[string]bool
	// Root is the tool's root, clean and absolute, "" for none.
	Root string
	// RootAliases are the root's other spellings, clean and absolute: the
	// path a symbolic link in it leads to, macOS's /private/tmp for /tmp.
	// A path under one is read under Root, so that rules, grants and the
	// floor see one spelling of what the server reaches by either.
	RootAliases []string
	// Home is the directory a leading "~" names, clean and absolute; ""
	// for none known, and "~" is then unknown.
	Home string
	// Arguments are the top-level members of the arguments object. Read
	// keeps Reading.Arguments in the same backing array.
	Arguments [][2]*ast.Term
}

// Reader reads calls' arguments under a set of argument specs. It is safe
// for concurrent use.
type Reader struct {
	specs []Spec
	marks []DataMark
	// marksNameHints: a mark names annotations, so a tool's classes
	// depend on its hints too.
	marksNameHints bool
	tools          sync.Map // tool name -> *compiled
	count          atomic.Int64
}

// compiled is a tool's compiled classes, for the schema they were compiled
// from.
type compiled struct {
	known  bool
	schema string
	hints  string // the annotations the marks were matched against, when a mark names any
	tool   *tool
}

// maxCachedTools bounds the tools a Reader keeps compiled, so that ever new
// tool names cannot fill memory.
const maxCachedTools = 4096

// NewReader validates specs and marks and returns a reader for them. A
// mark outranks a spec: it is the user's word on the call's tool.
func NewReader(specs []Spec, marks ...DataMark) (*Reader, error) {
	if err := ValidateSpecs(specs); err != nil {
		return nil, err
	}
	for i, m := range marks {
		if err := lexical.ValidateToolGlob(m.Tool); m.Tool == "" || err != nil {
			return nil, fmt.Errorf("data mark %d: tool %q: not a tool glob", i+1, m.Tool)
		}
		for _, loc := range m.Locations {
			if err := ValidateDataLocation(loc); err != nil {
				return nil, fmt.Errorf("data mark %d: %v", i+1, err)
			}
		}
		for _, g := range m.Commands {
			if err := lexical.ValidateToolGlob(g); g == "" || err != nil {
				return nil, fmt.Errorf("data mark %d: command %q: not a glob", i+1, g)
			}
		}
	}
	r := &Reader{specs: slices.Clone(specs), marks: slices.Clone(marks)}
	for _, m := range marks {
		r.marksNameHints = r.marksNameHints || len(m.Annotations) > 0
	}
	return r, nil
}

// hintsKey spells a tool's hints as one string, in order.
func hintsKey(h map[string]bool) string {
	keys := slices.Sorted(maps.Keys(h))
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%t;", k, h[k])
	}
	return b.String()
}

// toolOf is the compiled classes of a tool: the specs that match its name
// and its schema's formats, compiled once per schema. Read without a lock:
// every call reads it.
func (r *Reader) toolOf(c *Call) *tool {
	hints := ""
	if r.marksNameHints {
		hints = hintsKey(c.Annotations)
	} else if c.Annotations["readOnlyHint"] {
		hints = "readOnlyHint" // a read-only claim makes a file name a save (tool.savesQuietly)
	}
	if v, ok := r.tools.Load(c.Tool); ok {
		if v := v.(*compiled); v.known == c.Known && v.schema == string(c.Schema) && v.hints == hints {
			return v.tool
		}
	}
	var schema schemaKeys
	if c.Known {
		schema = parseSchemaKeys(c.Schema)
	}
	v := &compiled{known: c.Known, schema: string(c.Schema), hints: hints,
		tool: compileTool(r.specs, r.marks, c.Tool, schema, c.Known, c.Annotations)}
	if _, had := r.tools.Swap(c.Tool, v); !had && r.count.Add(1) > maxCachedTools {
		r.tools.Delete(c.Tool)
		r.count.Add(-1)
	}
	return v.tool
}

// Read finds the paths and hosts a call names. The error says which limit
// the call passed, or that the reader failed on it: a panic of a
// program's reader is an error, and the call is refused as unreadable,
// never read as naming nothing.
func (r *Reader) Read(c Call) (out Reading, err error) {
	defer func() {
		if v := recover(); v != nil {
			out, err = Reading{}, fmt.Errorf("its arguments could not be read (internal error: %v)", v)
		}
	}()
	t := r.toolOf(&c)
	w := &walker{root: c.Root, aliases: c.RootAliases, home: c.Home, tool: t}
	w.shellCode = codeInShell(c.Arguments)
	w.out.Arguments = c.Arguments[:0]
	for _, item := range c.Arguments {
		if string(item[0].Value.(ast.String)) == ReasonArgument && !t.ownReason {
			w.out.Reason = item[1]
			continue
		}
		w.out.Arguments = append(w.out.Arguments, item) // in place: the caller handed them over
	}
	if t.relative != nil {
		w.bases = w.basesIn(w.out.Arguments)
	}

	w.mounts = w.mountsIn(w.out.Arguments)
	together, readTogether := w.programArgv(w.out.Arguments)
	w.programCall(w.out.Arguments)
	shellCode := w.shellCode
	otherCode := !shellCode && (codeInOtherLanguage(t, w.out.Arguments) || t.runsCode)
	remote := t.crawl && namesWebURL(t, w.out.Arguments)
	for _, item := range w.out.Arguments {
		k := string(item[0].Value.(ast.String))
		if readTogether && (k == together[0] || k == together[1]) {
			continue // read as one command's words: "npm" alone is not what runs
		}
		c := t.topClassOf(k)
		w.clusterSecret(site{k, c, nil, 0}, k, item[1]) // {"kind": "Secret", "name": "db"}
		if shellCode && isCodeName(FoldName(k)) && c.Evidence < Specified && c.Kind != Shell {
			c = shellName // {"code": "...", "languageId": "shellscript"}: a shell runs it
		}
		if remote && sitePatternNames[FoldName(k)] && c.Evidence < Specified {
			c = Class{Kind: Text, Evidence: Name} // a crawler's URL-path patterns on the site its url names
		}
		if otherCode && isCodeName(FoldName(k)) && c.Evidence < Specified {
			// {"language": "python", "code": "..."}: code in a language of
			// its own, which no shell reads and this reader does not parse.
			// What it does is the call's own (Acts); its string literals
			// that name a floor file or a URL are read.
			if v, ok := item[1].Value.(ast.String); ok {
				w.out.Acts = true
				w.codeLiterals(site{k, c, &pointer{key: k, isKey: true}, 1}, string(v))
				continue
			}
		}
		at := site{k, c, &pointer{key: k, isKey: true}, 1}
		if c.Kind != Data {
			w.givesHost(at, k, item[1]) // {"image": ..., "privileged": true}
		}
		w.walkNamed(at, item[1])
		if w.err != nil {
			return Reading{}, w.err
		}
	}
	if t.searchesContents {
		for i := range w.out.Paths {
			w.out.Paths[i].Tree = true
		}
	}
	if w.out.Acts {
		w.commandEnv(w.out.Arguments)
	} else if t.readsByName && onlyPaths(t, w.out.Arguments) {
		for i := range w.out.Paths {
			w.out.Paths[i].Read = !w.out.Paths[i].Written && w.out.Paths[i].Resolved != ""
		}
	}
	return w.out, nil
}

// onlyPaths reports a call whose every argument is a string under a path's
// or a directory's name ({"path": ...}, {"workingDirectory": ..., "path":
// ...}): what a tool whose name says it reads does with them is read.
// Anything else beside them (content, a host, a URL, a flag, a key to
// fetch) may make the reading tool write one.
func onlyPaths(t *tool, args [][2]*ast.Term) bool {
	for _, item := range args {
		k, _ := item[0].Value.(ast.String)
		isString := stringOrStrings(item[1].Value)
		if c := t.classOf(string(k)); !isString || !c.local() || c.Evidence < Name || t.outputArgument(string(k)) {
			return false
		}
	}
	return len(args) > 0
}

// stringOrStrings reports a string, or an array of them ({"paths": [...]}).
func stringOrStrings(v ast.Value) bool {
	if _, ok := v.(ast.String); ok {
		return true
	}
	arr, ok := v.(*ast.Array)
	if !ok || arr.Len() == 0 {
		return false
	}
	for i := range arr.Len() {
		if _, ok := arr.Elem(i).Value.(ast.String); !ok {
			return false
		}
	}
	return true
}

// envNames are the names (folded) a command tool takes the environment
// its command runs with under.
var envNames = keySet("env", "envs", "environment", "envvars", "environmentvariables", "envvariables", "extraenv")

// commandEnv reads the environment a call's command line runs with, given
// as an object beside it ({"command": "git status", "env": {...}}), as a
// shell reads an assignment before the command: a variable that makes a
// program run other code (GIT_CONFIG_*, NODE_OPTIONS, LD_PRELOAD) is
// unknown, one that says where a program connects (PGHOST, *_URL) names a
// host.
func (w *walker) commandEnv(args [][2]*ast.Term) {
	for _, item := range args {
		k := string(item[0].Value.(ast.String))
		obj, ok := item[1].Value.(ast.Object)
		if !ok || !envNames[FoldName(k)] || w.tool.data.covers(&pointer{key: k, isKey: true}) {
			continue
		}
		s := site{k, Class{Kind: Path, Evidence: Name}, &pointer{key: k, isKey: true}, 1}
		r := &shellReader{w: w, s: s, cur: -1}
		_ = obj.Iter(func(nk, nv *ast.Term) error {
			name, _ := nk.Value.(ast.String)
			value, isString := nv.Value.(ast.String)
			at := s
			at.at = &pointer{up: s.at, key: string(name), isKey: true}
			r.s = at
			if codeVariable(string(name)) {
				r.unknown(string(name) + "=")
			}
			if isString {
				r.assignedAddress(string(name), string(value), true)
			}
			return nil
		})
	}
}

// sitePatternNames are the names (folded) a crawler takes the URL paths
// of a site to visit under: beside a web URL, they are the site's paths
// ("/blog/*", "/docs/.*"), no local ones.
var sitePatternNames = keySet("includepaths", "includepatterns", "includeglobs", "selectpaths", "allowpaths", "allowedpaths",
	"includeurls", "pathpatterns", "pathregex", "urlpatterns", "matchpaths")

// namesWebURL reports arguments with a web URL at the top level under a
// URL's name (a crawler's start: "url": "https://docs.example.com").
func namesWebURL(t *tool, args [][2]*ast.Term) bool {
	for _, item := range args {
		k := string(item[0].Value.(ast.String))
		if !t.topClassOf(k).urlish() {
			continue
		}
		if v, ok := item[1].Value.(ast.String); ok && (hasPrefixFold(string(v), "https://") || hasPrefixFold(string(v), "http://")) {
			return true
		}
	}
	return false
}

// codeNames are the names (folded) a code runner takes its code under.
var codeNames = keySet("code", "script", "source", "sourcecode", "snippet", "program", "input", "content", "body",
	"cell", "cellSource", "cellContent", "cellCode", "codeCell", "codeString", "codeText", "codeBlock", "codeContent", "codeBody",
	"codeSnippet", "sourceText", "scriptContent", "scriptBody", "scriptText", "scriptSource", "scriptCode", "javascript",
	"typescript", "applescript", "jxa", "vbscript")

// codeLanguages are the languages whose name before "code" names a code
// argument (python_code, js_code, r_code).
var codeLanguages = keySet("python", "py", "js", "javascript", "ts", "typescript", "node", "deno", "r", "ruby", "rb", "perl", "php",
	"lua", "go", "rust", "java", "kotlin", "scala", "swift", "julia", "csharp", "cs", "cpp", "c", "bash", "sh", "shell", "powershell",
	"ps", "applescript", "jxa", "groovy", "elixir", "haskell", "ocaml", "dart", "wasm", "sql")

// isCodeName reports a (folded) name that holds code: one of codeNames,
// or a language's name and "code" (pythoncode, jscode, rcode).
func isCodeName(n string) bool {
	if codeNames[n] {
		return true
	}
	lang, ok := strings.CutSuffix(n, "code")
	return ok && codeLanguages[lang]
}

// languageNames are the names (folded) a code runner takes the code's
// language under, and shellLanguages the values that name a shell.
var (
	languageNames  = keySet("language", "languageid", "lang", "runtime", "interpreter", "kernel", "kernelname", "executor")
	shellLanguages = keySet("bash", "sh", "shell", "shellscript", "zsh", "fish", "dash", "ksh", "csh", "tcsh", "ash", "mksh", "nu",
		"xonsh", "elvish", "ion", "oil", "osh", "ysh", "hush", "yash", "rc", "es", "murex", "batchfile",
		"nushell", "powershell", "pwsh", "ps1", "cmd", "bat", "batch", "console", "shell-session", "sh-session", "terminal", "posix",
		"x-sh", "x-shellscript", "application/x-sh", "text/x-shellscript", "bash-script", "shell-script")
)

// codeInShell reports arguments that say their code is a shell's: a
// language argument naming a shell ("languageId": "shellscript"), or code
// that opens with a shell's "#!" line.
func codeInShell(args [][2]*ast.Term) bool {
	for _, item := range args {
		name := FoldName(string(item[0].Value.(ast.String)))
		v, ok := item[1].Value.(ast.String)
		if !ok {
			continue
		}
		if languageNames[name] && shellLanguages[FoldName(strings.TrimSpace(string(v)))] {
			return true
		}
		if isCodeName(name) && shebangShell(string(v)) {
			return true
		}
	}
	return false
}

// programArgv reads a program and its arguments given apart
// ({"program": "rm", "args": ["-rf", "~"]}, an MCP server's {"command":
// "npx", "args": [...]}) as one command's words, the program first, as
// an argv array is: only together do they say what runs. It returns the
// two arguments' names, which are then not read on their own ("npm"
// alone, a command that does not run), and whether it read them.
func (w *walker) programArgv(args [][2]*ast.Term) (together [2]string, read bool) {
	var program, programKey string
	var list *ast.Array
	var at site
	for _, item := range args {
		name := FoldName(string(item[0].Value.(ast.String)))
		switch v := item[1].Value.(type) {
		case ast.String:
			if programNames[name] && v != "" && !strings.ContainsAny(string(v), " \t\n") {
				program, programKey = string(v), string(item[0].Value.(ast.String))
			}
		case *ast.Array:
			if argvNames[name] {
				k := string(item[0].Value.(ast.String))
				list, at = v, site{k, shellName, &pointer{key: k, isKey: true}, 1}
			}
		}
	}
	if program == "" || list == nil {
		return together, false
	}
	rest, ok := arrayStrings(list)
	if !ok {
		return together, false
	}
	w.out.Acts = true
	w.shellArgv(at, append([]string{program}, rest...))
	if w.tool.program != "" {
		return together, false // a tool that runs a program of its own: its "command" may be a subcommand, read as its words too
	}
	return [2]string{programKey, at.arg}, true
}

var (
	// programNames hold a program to run, and argvNames its arguments.
	programNames = keySet("program", "executable", "binary", "bin", "exe", "command", "cmd", "interpreter")
	argvNames    = keySet("args", "arguments", "argv", "params", "parameters", "arglist", "cliargs", "cmdargs", "commandargs",
		"programargs", "argument", "options", "flags")
)

// codeInOtherLanguage reports a code runner's call whose language argument
// names a language other than a shell's ("python", "javascript", "r"), an
// argument the tool's schema declares: one the model adds to a shell
// tool's call ({"script": "rm -rf ~", "language": "python"}) is no
// server's, which runs the line all the same.
func codeInOtherLanguage(t *tool, args [][2]*ast.Term) bool {
	for _, item := range args {
		key := string(item[0].Value.(ast.String))
		name := FoldName(key)
		if v, ok := item[1].Value.(ast.String); ok && languageNames[name] && t.strings[name] {
			lang := FoldName(strings.TrimSpace(string(v)))
			return lang != "" && !shellLanguages[lang]
		}
	}
	return false
}

// shebangShell reports code whose first line is a "#!" naming a shell
// ("#!/bin/sh", "#!/usr/bin/env bash").
func shebangShell(code string) bool {
	line, _, _ := strings.Cut(strings.TrimLeft(code, " \t\r\n"), "\n")
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return false
	}
	words := strings.Fields(rest)
	if len(words) == 0 {
		return false
	}
	prog := words[0]
	if programName(prog) == "env" && len(words) > 1 {
		prog = words[1]
	}
	p, ok := programs[programName(prog)]
	return ok && p.kind == progShell
}

// basesIn are the resolutions of every top-level argument a relative path
// may be relative to, each spelling of its name kept: "repo_path" and
// "REPO_PATH" are one name here, and a server reads one of them. Each
// distinct resolution is kept once: a path is resolved against each base,
// so the bases bound the work per path.
func (w *walker) basesIn(args [][2]*ast.Term) map[string][]string {
	t := w.tool
	out := map[string][]string{}
	seen := map[[2]string]bool{}
	isBase := map[string]bool{}
	for _, base := range t.relative {
		isBase[base] = true
	}
	for _, item := range args {
		k := FoldName(string(item[0].Value.(ast.String)))
		if !isBase[k] {
			continue
		}
		resolved := ""
		if s, ok := item[1].Value.(ast.String); ok {
			resolved = w.resolve(w.root, string(s))
		}
		if !seen[[2]string{k, resolved}] {
			seen[[2]string{k, resolved}] = true
			out[k] = append(out[k], resolved)
		}
	}
	return out
}

// dirsIn are the directories the top-level arguments name by a directory's
// name, format or spec (a string each), resolved, and not relative to
// another argument themselves.
func (w *walker) dirsIn(args [][2]*ast.Term) []dirArg {
	var out []dirArg
	for _, item := range args {
		k := string(item[0].Value.(ast.String))
		c := w.tool.topClassOf(k)
		if c.Kind != Dir || c.Evidence < Name || c.Values || w.tool.data.covers(&pointer{key: k, isKey: true}) {
			continue
		}
		if _, relative := w.tool.relative[FoldName(k)]; relative {
			continue
		}
		s, ok := item[1].Value.(ast.String)
		if !ok {
			continue
		}
		out = append(out, dirArg{k, w.resolve(w.root, string(s))})
	}
	return out
}
