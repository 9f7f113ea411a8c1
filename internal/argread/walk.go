package argread

import (
	"fmt"
	"io"
	"maps"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	"go.yaml.in/yaml/v3"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/internal/strictjson"
)

// maxEmbeddedJSON bounds the strings read as JSON in their own right (a
// JSON document passed as a string, as some servers take options).
const maxEmbeddedJSON = 1 << 20

// walker finds a call's paths and hosts: every string in its arguments, at
// any depth, read under the class of the argument it is under.
type walker struct {
	// covered is, for each of out.Commands, what a rule allows it to run
	// that cannot be read (DataMark.Commands); nil for nothing.
	covered []*commandCover
	root    string
	aliases []string // the root's other spellings
	home    string   // what a leading "~" names, "" for unknown
	tool    *tool
	// mounts are the bind mounts the call gives the container a
	// contained command runs in (mountsIn).
	mounts []mounted
	// bases are the top-level arguments relative paths may be relative to,
	// by folded name: each distinct resolution of every one that folds to
	// it ("" for one that cannot be evaluated; a server may read the
	// first, the last, or the one spelt exactly).
	bases map[string][]string
	// embedded is how many bytes of JSON inside strings were read: a
	// budget, so that JSON nested in strings cannot multiply the work.
	embedded int
	// dirs are the directories the call names at its top level (a
	// directory's name or format), resolved ("" for unknown): a relative
	// path elsewhere in the call may be joined to them.
	dirs     []dirArg
	dirsRead bool
	// rootNamed: a command line with no directory argument named the
	// root as where it runs, once.
	rootNamed bool
	// shellCode: the call's language is a shell's (codeInShell), so code
	// under a code name at any depth is a command line (a Piston-style
	// files[].content).
	shellCode bool
	// hostsAt are the hosts kept by where they are, when a schema gives
	// a name more than one class: a value read as a path and as a host
	// names its address once.
	hostsAt map[[3]string]bool
	out     Reading // in the walker: one allocation for both
	err     error
}

// dirArg is a directory a top-level argument names.
type dirArg struct{ arg, resolved string }

// site is where a value is read: under which argument, in which class,
// at which place in the arguments and how deep.
type site struct {
	arg   string // the nearest object key; an array's elements are under the array's name
	class Class
	at    *pointer
	depth int
}

// as is the site with another class.
func (s site) as(c Class) site { s.class = c; return s }

// pointer is where a value is in the arguments, as a chain from the top:
// the JSON Pointer is only spelt out for the values that are kept.
type pointer struct {
	up    *pointer
	key   string // an object's key, or
	index int    // an array's index, when isKey is false
	isKey bool
}

// top is the top-level argument the pointer is under.
func (p *pointer) top() string {
	for p != nil && p.up != nil {
		p = p.up
	}
	if p == nil {
		return ""
	}
	return p.key
}

func (p *pointer) String() string {
	if p == nil {
		return ""
	}
	if p.isKey {
		return p.up.String() + "/" + escapePointer(p.key)
	}
	return p.up.String() + "/" + strconv.Itoa(p.index)
}

// escapePointer escapes a key for a JSON Pointer (RFC 6901).
func escapePointer(k string) string {
	if !strings.ContainsAny(k, "~/") {
		return k
	}
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// walk reads one value at s.
func (w *walker) walk(s site, t *ast.Term) {
	if w.err != nil {
		return
	}
	if s.depth > MaxDepth {
		w.err = fmt.Errorf("arguments nest deeper than %d levels", MaxDepth)
		return
	}
	if s.class.Kind != Data && w.tool.data.covers(s.at) {
		s.class = dataClass
	}
	if s.class.Kind == Shell && s.class.Evidence == Name && w.tool.keyValue {
		// A Redis tool's "commands" ([["SET", "k", "v"]]): the store's
		// own commands on its data, no shell's; the few that reach past
		// the store are read (redis.go).
		w.redisValue(s, t)
		s.class = dataClass
	}
	switch v := t.Value.(type) {
	case ast.String:
		w.str(s, t, string(v))
	case *ast.Array:
		w.array(s, v)
	case ast.Object:
		w.object(s, v)
	default:
		// A number where a path or URL belongs is unknown: it is not what
		// the server will read. A boolean or null is a flag or nothing
		// ("saveFiles": false): no server opens it.
		switch v.(type) {
		case ast.Boolean, ast.Null:
			return
		}
		if s.class.strict() {
			if s.class.local() {
				w.addPath(s, t, "")
			} else {
				w.addHost(s, t, "")
			}
		}
	}
}

// array reads an array at s: a command line's or a command's words, a
// path's parts, and each element.
func (w *walker) array(s site, v *ast.Array) {
	if s.class.Kind == Shell && w.shellArray(s, v) || s.class.Kind == Command && w.cliArray(s, v) || s.class.Kind == Contained && w.containedArray(s, v) {
		return
	}
	if joined, ok := partsJoined(s.arg, v); ok && s.class.Kind != Data && s.class.Kind != Text {
		// {"path_parts": ["/etc", "shadow"]}: the parts of one
		// path, which the server joins; read whole too.
		w.pathString(s.as(Class{Kind: Path, Evidence: Word}), ast.StringTerm(joined), joined)
	}
	afterOption := false
	for i := 0; i < v.Len(); i++ {
		e := v.Elem(i)
		at := site{s.arg, s.class, &pointer{up: s.at, index: i}, s.depth + 1}
		if str, ok := e.Value.(ast.String); ok && s.class.Kind == Command {
			// argv: an option's value is its own word ("-f", "x.yaml").
			w.commandWord(at, e, string(str), afterOption)
			afterOption = isBareOption(trimReading(string(str)))
			continue
		}
		w.walk(at, e)
	}
}

// object reads an object at s: each key (a file's name, or a name that
// gives a host), and each value under its key's class.
func (w *walker) object(s site, v ast.Object) {
	patchOp := isJSONPatchOp(v)
	_ = v.Iter(func(k, val *ast.Term) error {
		key := string(k.Value.(ast.String))
		if s.class.Kind != Data {
			w.givesHost(s, key, val)
			w.clusterSecret(s, key, val)
		}
		keyClass := w.tool.classOf(key)
		if w.shellCode && isCodeName(FoldName(key)) && (keyClass.Kind == None || keyClass.Kind == Content) {
			keyClass = shellName
		}
		if str, ok := val.Value.(ast.String); ok && patchOp && (key == "path" || key == "from") && isJSONPath(string(str)) {
			// A JSONPath into the document a patch operation changes
			// ("$.panels[0].title"), no file. A JSON Pointer ("/a/0")
			// reads as a path still: a file tool's batch of
			// operations looks the same.
			keyClass = jsonPointerClass
		}
		switch c := s.class; {
		case c.keysArePaths() && (keyClass == none || isFileName(key) || looksLikePath(trimReading(key)) || floorFile(w.resolve(w.root, key))):
			// A file's name, not a field's: {"a.md": ...}, {"/x": ...},
			// {"Jenkinsfile": ...}. A word with a class of its own
			// ({"name": ..., "content": ...}) names a field of the
			// path's object.
			w.pathString(s, k, key)
		case c.keysArePaths():
		case c.Kind == Content || c.Kind == Text || c.Kind == Ignore || c.Kind == Data:
			// A key in text is text; an ignored argument's keys are names.
		default:
			w.unnamedKey(s, k, key)
		}
		inner := s.class.inner(key, keyClass)
		w.walkNamed(site{key, inner, &pointer{up: s.at, key: key, isKey: true}, s.depth + 1}, val)
		return nil
	})
}

// unconfined reports a security option that lifts the container's
// confinement (seccomp=unconfined, apparmor=unconfined, label=disable).
func unconfined(opt string) bool {
	return strings.Contains(opt, "unconfined") || strings.Contains(opt, "label:disable") || strings.Contains(opt, "label=disable")
}

// resolveNames are the names (folded) an HTTP tool takes curl's resolve
// and connect-to forms under.
var resolveNames = keySet("resolve", "resolves", "connectto", "curlresolve", "hostresolve", "dnsoverride", "dnsoverrides")

// jsonPointerClass is the class of a JSONPath in a patch operation's
// "path" or "from": a place in the document the patch changes.
var jsonPointerClass = Class{Kind: Text, Evidence: Name}

// isJSONPath reports a JSONPath: "$", or "$." or "$[" and more ("$HOME"
// is a shell's variable).
func isJSONPath(s string) bool {
	return s == "$" || strings.HasPrefix(s, "$.") || strings.HasPrefix(s, "$[")
}

// isJSONPatchOp reports an object that is a JSON Patch operation (RFC
// 6902): an "op" of add, remove, replace, move, copy or test, and a
// "path" (Grafana's, Kubernetes' and many APIs' update operations).
func isJSONPatchOp(o ast.Object) bool {
	opTerm := o.Get(ast.StringTerm("op"))
	if opTerm == nil || o.Get(ast.StringTerm("path")) == nil {
		return false
	}
	op, _ := opTerm.Value.(ast.String)
	switch op {
	case "add", "remove", "replace", "move", "copy", "test":
		return true
	}
	return false
}

// walkNamed reads the value of the argument named s.arg under s.class,
// and again under each other class the schema gives that name, unless
// s.class is not the name's own (the object it is in decided it).
func (w *walker) walkNamed(s site, t *ast.Term) {
	w.walk(s, t)
	if s.class == w.tool.classOf(s.arg) {
		for _, c := range w.tool.moreOf(s.arg) {
			w.walk(s.as(c), t)
		}
	}
}

// str reads a string under its class.
func (w *walker) str(s site, t *ast.Term, v string) {
	if FoldName(s.arg) == "kubeconfig" && s.class.Kind != Data && s.class.Kind != Text {
		// A kubeconfig names the cluster the call reaches, and the
		// credentials sent there: a host the call does not spell.
		w.addHost(s, t, "")
	}
	if resolveNames[FoldName(s.arg)] && s.class.Kind != Data && s.class.Kind != Text {
		// curl's resolve and connect-to as an HTTP tool takes them
		// ("docs.example.com:443:169.254.169.254"): where it connects.
		r := &shellReader{w: w, s: s, cur: -1}
		for _, entry := range strings.Split(v, ",") {
			r.resolveForm(shellWord{text: strings.TrimSpace(entry), known: true})
		}
	}
	switch c := s.class; {
	case (c.Kind == Content || c.Kind == None) && readsAsPatch(v):
		w.patchString(s, t, v) // an edit tool's "input": a patch it applies
	case c.Kind == Content:
		// Text, but JSON passed as a string where the schema does not
		// say text is parsed by servers (FastMCP) into what it holds, and
		// SQL that opens a file by name.
		if !w.tool.declaresString(s.arg) {
			w.embeddedDoc(s, t, v, false)
		}
		w.sqlFiles(s, t, v)
		w.atMentions(s, v)
	case c.Kind == Text:
	case c.Kind == Data:
		w.dataString(s, t, v)
	case c.Kind == Ignore && c.Remote:
		w.ignoredString(s, t, v)
		w.dataString(s, t, v)
		if r := trimReading(v); readsAsURL(r) || isUserAtHost(r) {
			w.unnamed(s.as(none), t, v) // a URL's or user@host:path's host is where it is fetched from
		}
	case c.Kind == Ignore:
		w.ignoredString(s, t, v)
	case c.local() && c.weak():
		w.weakLocalString(s, t, v)
	case c.urlish() && c.weak() && !readsAsURL(trimReading(v)) && !looksLikePath(trimReading(v)):
		w.unnamed(s.as(none), t, v) // "origin": a git remote's name
	case c.Kind == Label:
		w.unnamed(s, t, v)
		if r := trimReading(v); readsAsLocalName(r) && !looksLikePath(r) {
			w.inDirectories(s.as(Class{Kind: Path, Evidence: Word}), t, v) // a file's name beside a folder: {"folder": "/srv", "name": "secret/key"}
		}
	case c.Kind == Shell && c.Evidence == Name && isShellChoice(s.arg, v):
		// {"shell": "bash"}: which shell runs the command, not one.
	case c.Kind == Shell && c.Evidence == Name && w.tool.sql:
		// pg_psql's "command": a statement, read as SQL is.
		w.sqlText(s.as(Class{Kind: Content, Evidence: Name}), t, v)
	case c.Kind == Shell:
		w.shellLine(s, t, v)
	case c.Kind == Patch:
		w.patchString(s, t, v)
	case c.Kind == Compose:
		w.composeString(s, t, v)
	case c.Kind == Contained:
		w.containedLine(s, v)
	case c.Kind == Command && w.tool.program != "" && s.depth <= 1:
		// kubectl's "args": "get pods -s https://x": the program's words
		// in one string, read as the command line it is (and each word,
		// below, as any string of words is).
		line := v
		if f := strings.Fields(v); len(f) == 0 || programName(f[0]) != w.tool.program {
			line = w.tool.program + " " + v
		}
		w.shellLine(s, t, line)
		w.commandWords(s, t, v)
	case c.Kind == Command:
		w.commandWords(s, t, v)
	case c.Kind == Dir && c.Evidence == Name && w.root == "" && workspaceSlug(s.arg, v) && !nameHasWord(w.tool.name, localToolWords):
		// {"workspace": "acme"}: a hosted service's workspace, by its
		// slug; with no root there is no folder it could be one of.
		w.unnamed(s.as(none), t, v)
	case c.local():
		w.localString(s, t, v)
	case c.urlish():
		w.urlString(s, t, v)
	case c.Kind == Host && !c.weak():
		w.strongHostString(s, t, v)
	case c.Kind == Host:
		w.weakHostString(s, t, v)
	default:
		w.unnamed(s.as(none), t, v)
	}
}

// commandWords reads one string of words ("-c 'cat x > .bashrc'"): each
// word, as in an array.
func (w *walker) commandWords(s site, t *ast.Term, v string) {
	afterOption := false
	for _, word := range strings.FieldsFunc(v, func(r rune) bool { return unicode.IsSpace(r) || r == '\'' || r == '"' || r == '>' || r == '<' }) {
		w.commandWord(s, t, word, afterOption)
		afterOption = isBareOption(word)
	}
}

// atMentions reads the "@FILE" mentions of a prompt that an agent's CLI
// reads and sends on (gemini's, Claude Code's, Codex's "@~/.ssh/id_rsa
// explain this"): one that names a file the floor guards is a path read.
// Any other mention is the prompt's text (an e-mail address, a handle).
func (w *walker) atMentions(s site, v string) {
	if !strings.Contains(v, "@") {
		return
	}
	for _, m := range atMention.FindAllStringSubmatch(v, maxShellReadings) {
		f := strings.TrimRight(m[1], ".,;:!?)\"'")
		if r := trimReading(f); r != "" && (namesFloorInData(r) || w.namesSecret(r)) {
			w.pathString(s.as(Class{Kind: Path, Evidence: Specified}), ast.StringTerm(f), f)
		}
	}
}

// atMention finds "@" and what follows it up to white space, at a word's
// start.
var atMention = regexp.MustCompile(`(?:^|[\s(\[{"'])@([^\s@]+)`)

// ignoredString reads a string under an ignored name (a git ref, an
// entity's name), but not what a command line would read as an option:
// "--output=.git/config" writes in the repository git runs in,
// "--ext-diff" runs a program.
func (w *walker) ignoredString(s site, t *ast.Term, v string) {
	if r := trimReading(v); r != "" && (r[0] == '-' || strings.Contains(r, " -") || strings.Contains(r, "\t-")) {
		// An option, or one after a space: a server that joins the
		// value into a command line reads it so.
		w.addPath(s.as(none), t, "")
	} else if rev, file, ok := strings.Cut(r, ":"); ok && rev != "" && file != "" && !strings.ContainsAny(rev, " /") && !strings.HasPrefix(file, "//") {
		// git's REV:PATH (git_show's "HEAD:.env"): a file of the
		// repository, as it was, printed.
		w.localString(s.as(Class{Kind: Path, Evidence: Word}), ast.StringTerm(file), file)
	}
}

// weakLocalString reads a string under a name that holds a local path as
// often as a place, an element or an address a tool pings: an address is
// a host, a file's or directory's name a path, anything else ("Munich
// Airport") is read by its shape.
func (w *walker) weakLocalString(s site, t *ast.Term, v string) {
	r := trimReading(v)
	h, address := readsAsAddress(r)
	if uh, isUser := userHost(r); !address && isUser && readsAsIPOrLocal(uh) {
		h, address = uh, true // ssh's destination: "root@10.0.0.1"
	}
	if address && !strings.ContainsAny(r, "/\\") {
		if r != v {
			h = ""
		}
		w.addHost(s, t, h) // an address alone; one with a path after it is a path too
		return
	}
	if !readsAsLocalName(r) {
		w.unnamed(s.as(none), t, v)
		return
	}
	w.localString(s, t, v)
}

// urlString reads a string under a URL's name (or a path's or a URL's).
func (w *walker) urlString(s site, t *ast.Term, v string) {
	c := s.class
	switch {
	case lexical.IsFileURI(v): // a file URI names a path, whatever the name says
		w.addPath(s, t, w.resolve(w.root, v))
	case c.Kind == PathOrURL && !readsAsURL(trimReading(v)):
		w.pathString(s.as(Class{Kind: Path, Evidence: c.Evidence}), t, v)
	case endpointNames[FoldName(s.arg)] && strings.HasPrefix(trimReading(v), "/") && !strings.HasPrefix(trimReading(v), "//") &&
		!strings.ContainsAny(v, "\\"):
		// {"endpoint": "/api/users"}: a path on the API's own server,
		// which the tool's configuration names, not this machine's (a
		// file the floor guards, named so, is read still).
		w.dataString(s, t, v)
	case plainAbsolute(trimReading(v), v) && uriName(s.arg):
		// "rootUri": "/home/u/project": no URL, a local absolute path
		// as written, which a server that takes a URI there opens. (A
		// "url" of "/x" may be a link on the page a browser is on.)
		w.addPath(s.as(Class{Kind: Path, Evidence: c.Evidence}), t, w.resolve("/", v))
	case c.Evidence == Specified && schemelessURL(v) != "":
		// A spec says a URL, and the client completes one written
		// without its scheme ("example.com/pricing", "localhost:3000"),
		// as a browser's address bar does.
		w.addHost(s, t, schemelessURL(v))
	default:
		h, ok := urlHost(v)
		w.addHost(s, t, h)
		w.query(s, v)
		if !ok && (looksLikePath(v) || !startsWithScheme(v)) {
			// Not a URL as written: a server that takes either
			// reads a path (" /x", "secret/key"), or trims the value
			// into a file URI (" file:///x"). Unknown as a host,
			// and as a path.
			w.addPath(s.as(none), t, "")
		}
	}
	w.embeddedDoc(s, t, v, false)
}

// strongHostString reads a string under a name that surely holds a host.
func (w *walker) strongHostString(s site, t *ast.Term, v string) {
	h, ok := lexical.HostOf(v)
	switch {
	case ok:
	case readsAsURL(trimReading(v)):
		h, _ = urlHost(v) // a URL where a host belongs: its host
	case trimReading(v) == v:
		// "169.254.169.254:80/latest": a URL without its scheme,
		// whose host addHost reads.
		h, _ = schemelessHost(v)
	}
	w.addHost(s, t, h)
	w.embeddedDoc(s, t, v, false)
}

// weakHostString reads a string under a name that may hold a host: one
// only if it reads as one.
func (w *walker) weakHostString(s site, t *ast.Term, v string) {
	r := trimReading(v)
	h, ok := weakHostValue(r, s.class.Dotted)
	if !ok {
		w.unnamed(s, t, v)
		return
	}
	if r != v {
		h = "" // unknown: v has what a server trims
	}
	w.addHost(s, t, h)
}

// unnamed reads a string no class says anything of by its shape, once
// trimmed as a server might trim it: a path, a URL (each unknown), an IP
// address, a remote path's host, or a JSON document, read in its own right
// under s.class.
func (w *walker) unnamed(s site, t *ast.Term, v string) {
	r := trimReading(v)
	if patternName(s.arg) {
		list, one, skip := filePatterns(s.arg, r)
		for _, p := range list {
			w.unnamed(s, ast.StringTerm(p), p)
		}
		if list != nil || skip {
			return
		}
		r, v = one, one
	}
	asPath := looksLikeOption(r)
	switch {
	case utf8.RuneCountInString(r) == 1 && keyNames[FoldName(s.arg)]:
		// One character ("/", "~", "\") under a key's or a
		// separator's name: a key pressed, a separator. (Under any
		// other name "/" may be a build's context, the whole disk.)
	case s.class.Kind == Label:
		asPath = asPath || w.labelPath(r)
	default:
		asPath = asPath || looksLikePath(r) && !readsAsProse(r)
	}
	asURL := readsAsURL(r)
	if !asPath && !asURL && namesFloorInData(r) {
		// A relative name or glob that names a floor file (".env",
		// ".ssh/id_*", "**/.bash_history" under a search's "glob"): a
		// server reads it from where it runs, or from a directory the
		// call names.
		w.addPath(s.as(none), t, w.resolve(w.root, v))
		w.inDirectories(s.as(Class{Kind: Path, Evidence: Word}), t, v)
		return
	}
	if asURL && !asPath && r == v && webURL(r) {
		// An http(s) URL as written, which WHATWG's and Go's parsers
		// read alike: its host is known, whatever name it is under.
		if h, ok := lexical.URLHost(r); ok {
			w.addHost(s, t, h)
			w.query(s, r)
			return
		}
	}
	if asURL && !asPath && r == v && databaseURL(r) {
		// A database's URL (postgresql://user@db.example/x): every
		// driver reads its host after the last "@" of the authority.
		if h, ok := urlHost(r); ok && h != "" {
			w.addHost(s, t, h)
			return
		}
	}
	if asPath {
		w.unnamedPath(s, t, r, v)
	}
	if asURL {
		w.addHost(s, t, "")
		w.query(s, r)
	}
	if asPath || asURL {
		return
	}
	w.unnamedWord(s, t, r, v)
}

// unnamedPath reads a string that reads as a path (r, trimmed from v).
func (w *walker) unnamedPath(s site, t *ast.Term, r, v string) {
	// Unknown: no name says what it is relative to. An absolute path
	// as written (no trimming changed it) needs no base, and is read
	// as itself, unless it may be a list or a mount ("/srv:/x:rw",
	// "a=/x,b=/y"): then what it names is another path.
	resolved := ""
	switch {
	case plainAbsolute(r, v):
		resolved = w.resolve("/", r)
	case r == v && w.home != "" && strings.HasPrefix(r, "~/") && !strings.ContainsAny(r, ":,;="):
		resolved = w.resolve("/", r) // the home's, where it is known
	}
	w.addPath(s.as(none), t, resolved)
}

// localToolWords are the words of a tool's name that say it works on
// this machine's files or runs commands: its workspace is a folder
// (delete_directory, read_file, run_command).
var localToolWords = keySet("file", "files", "directory", "directories", "dir", "dirs", "folder", "folders", "path", "paths", "command",
	"commands", "shell", "exec", "execute", "run", "terminal", "process", "script", "write", "read", "delete", "remove", "move", "copy")

// workspaceSlug reports a bare slug (acme, my-team_2) under a name
// "workspace": no dot, slash or tilde, nothing a file system would take
// for anything but a name in its working directory.
func workspaceSlug(arg, v string) bool {
	if n := FoldName(arg); n != "workspace" && n != "workspaces" || v == "" || len(v) > 100 {
		return false
	}
	for i, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || i > 0 && (r == '-' || r == '_')) {
			return false
		}
	}
	return true
}

// databaseSchemes are the URL schemes of database and broker drivers,
// whose URLs all put the host after the authority's last "@".
var databaseSchemes = keySetExact("postgres", "postgresql", "mysql", "mariadb", "mongodb", "mongodb+srv", "redis", "rediss",
	"amqp", "amqps", "clickhouse", "sqlserver", "mssql", "cockroachdb", "nats", "cassandra", "neo4j", "neo4j+s", "bolt")

// databaseURL reports a URL whose scheme is a database's.
func databaseURL(r string) bool {
	scheme, _, ok := strings.Cut(r, "://")
	return ok && databaseSchemes[strings.ToLower(scheme)]
}

// unnamedWord reads a string that reads as neither a path nor a URL (r,
// trimmed from v): a host reached, a connection string's hosts, a floor
// file when joined to a directory the call names, SQL that opens a file,
// or a JSON document.
func (w *walker) unnamedWord(s site, t *ast.Term, r, v string) {
	if h, ok := reachedHost(r, false); ok {
		if r != v {
			h = "" // unknown: v has what a server trims
		}
		w.addHost(s, t, h)
		return
	}
	if hosts, ok := connectionHosts(r); ok {
		for _, h := range hosts {
			w.addHost(s, t, h)
		}
		return
	}
	if joined := w.joinedFloorFiles(s, r); joined != nil {
		// A name no shape says is a file's, that a server joining it to
		// a directory the call names would make a floor file of:
		// {"workspace": "/etc", "document": "shadow"}.
		for _, p := range joined {
			w.addPath(s.as(Class{Kind: Path, Evidence: Word}), t, p)
		}
		return
	}
	w.sqlFiles(s, t, v)
	w.embeddedDoc(s, t, v, true)
}

// joinedFloorFiles are the files on the floor's lists that r, a file's
// name by its shape (one word, no white space), makes when joined to a
// directory another argument of the call names: what a server that joins
// the two opens. Any top-level absolute path counts as such a directory,
// whatever its name ("workspace", "base", "location"): a join is the
// server's to make.
func (w *walker) joinedFloorFiles(s site, r string) []string {
	if r == "" || len(r) > maxDataName || strings.ContainsFunc(r, unicode.IsSpace) || isNumber(r) {
		return nil
	}
	name := strings.TrimLeft(r, "/")
	top := s.at.top()
	var out []string
	for _, item := range w.out.Arguments {
		k, _ := item[0].Value.(ast.String)
		d, ok := item[1].Value.(ast.String)
		if !ok || string(k) == top || !plainAbsolute(trimReading(string(d)), string(d)) {
			continue
		}
		// An entry of a place (/etc/shadow) beside any absolute path; one
		// that matches a name anywhere (id_rsa, Jenkinsfile) beside a
		// directory's argument, where the name is a file's in it (beside
		// a "path", "credentials" is an enum's value as often).
		if p := w.resolve(string(d), name); p != "" {
			if e := floorEntry(p); e != nil && (e.Where != lexical.Anywhere || namesFloorInData(r) || w.isDirArg(string(k))) {
				out = append(out, p)
			}
		}
	}
	return out
}

// readsAsProse reports a value no name says anything of that is a
// sentence which starts with a path ("~/projects/acme is the monorepo
// root", "\"/usr/local/bin/node\" permission denied"): two words or
// more after the first without a path's separator. A path with spaces in
// its names has its separators after them ("/Users/u/My Drive/notes.md");
// one whose last name has two spaces in it is read as prose.
func readsAsProse(r string) bool {
	words := 0
	for i, f := range strings.Fields(r) {
		if i == 0 {
			continue
		}
		if !strings.ContainsAny(f, "/\\") {
			words++
		}
	}
	return words >= 2
}

// connectionHosts reads the hosts a database connection string names
// when it is no URL: libpq's keywords ("host=10.0.0.1 port=5432",
// "hostaddr=", a list "host=a,b"), ADO.NET's and ODBC's ("Server=tcp:x,1433;",
// "Data Source=x\\inst"), and Go's MySQL DSN ("u:p@tcp(10.0.0.1:3306)/db").
// ok says the value is one; a host it cannot read is unknown ("").
func connectionHosts(r string) (hosts []string, ok bool) {
	if !strings.Contains(r, "=") && !strings.Contains(r, "@tcp") {
		return nil, false // the common case: no connection string
	}
	for _, m := range connKeyword.FindAllStringSubmatch(r, 8) {
		list := strings.Split(m[2], ",") // libpq's hosts, one per server it tries
		if k := strings.ToLower(m[1]); k != "host" && k != "hostaddr" {
			list = list[:1] // ADO.NET's and ODBC's "host,port"
		}
		for _, h := range list {
			h = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(h), "tcp:"), "np:")
			h, _, _ = strings.Cut(h, "\\") // a SQL Server instance's name
			if h == "" || strings.HasPrefix(h, "/") {
				continue // a socket's directory, no host
			}
			hosts = append(hosts, h)
		}
	}
	for _, m := range goDSN.FindAllStringSubmatch(r, 8) {
		hosts = append(hosts, m[1])
	}
	return hosts, len(hosts) > 0
}

var (
	connKeyword = regexp.MustCompile(`(?i)(?:^|[\s;])(host|hostaddr|server|data source|address|addr|network address)\s*=\s*'?([^\s';]+)`)
	goDSN       = regexp.MustCompile(`@(?:tcp6?|udp)\(([^)]*)\)`)
)

// uriName reports an argument named for a URI ("uri", "rootUri",
// "file_uris"): a file's, as often as not.
func uriName(arg string) bool {
	f := FoldName(arg)
	return strings.HasSuffix(f, "uri") || strings.HasSuffix(f, "uris")
}

// plainAbsolute reports a value read by its shape that is an absolute path
// as written (r, its trimmed reading, is v), and not a list or a mount.
func plainAbsolute(r, v string) bool {
	return r == v && strings.HasPrefix(r, "/") && !strings.HasPrefix(r, "//") && !strings.ContainsAny(r, ":,;=")
}

// sqlFiles reads the files a SQL statement opens by name as paths
// (sqlFiles): "ATTACH DATABASE '/srv/secret/app.db'" under a query.
//
// Only SQL is read as SQL: the value of a SQL name ("sql", "statement"),
// or text that starts as a statement does (readsAsSQL). A SQL word in an
// issue's body, a Markdown fence or a program's source is prose: no
// database runs it, and reading its quoted strings as files asks about
// what the call never opens. Each file is kept with its literal as the
// raw value, the exact part of the text that was read.
func (w *walker) sqlFiles(s site, t *ast.Term, v string) {
	if !isSQLName(FoldName(s.arg)) && !readsAsSQL(v) {
		return
	}
	w.sqlText(s, t, v)
}

// sqlText reads v as SQL, whatever it starts with: a SQL tool's command
// is SQL (and psql's meta-commands) however its first line reads.
func (w *walker) sqlText(s site, t *ast.Term, v string) {
	if len(v) > maxSQLText {
		w.addPath(s.as(none), ast.StringTerm("SQL longer than 64 KiB"), "") // not read: what it opens cannot be told
		return
	}
	if strings.HasPrefix(strings.TrimSpace(v), ".") {
		w.sqliteDotCommands(s, v) // the sqlite3 shell's own commands
	}
	if psqlMeta.MatchString(v) && !psqlDescribesOnly(v) || mysqlClientCommand.MatchString(v) {
		// A psql meta-command ("\\! cmd", "\\copy ... program", "\\o
		// file"), which a server that hands its text to psql runs, is no
		// SQL, and what it runs or writes is not read here: unknown, but
		// for those that only describe or list ("\\d orders").
		w.addPath(s.as(none), t, "")
		w.out.Acts = true
	}
	written := sqlWritten(v)
	for _, f := range sqlFiles(v) {
		if hosts, ok := connectionHosts(f); ok {
			// ATTACH 'host=10.0.0.1 dbname=x' (TYPE postgres): another
			// database server, by a connection string.
			for _, h := range hosts {
				w.addHost(s.as(Class{Kind: Host, Evidence: Shape}), ast.StringTerm(f), h)
			}
			continue
		}
		from := len(w.out.Paths)
		w.pathString(s.as(Class{Kind: Path, Evidence: Shape}), ast.StringTerm(f), f)
		if written[f] {
			markPathsWritten(w, from)
		}
	}
	for _, m := range sqlEndpoint.FindAllStringSubmatch(v, maxShellReadings) {
		// DuckDB's CREATE SECRET (..., ENDPOINT '10.0.0.1:9000'): the
		// server its S3 reads and writes reach.
		h, _ := schemelessHost(m[1])
		if u, ok := urlHost(m[1]); ok {
			h = u
		}
		w.addHost(s.as(Class{Kind: Host, Evidence: Shape}), ast.StringTerm(m[1]), h)
	}
	for _, span := range sqlUnread(stripSQLComments(v)) {
		// What it runs, reaches or opens cannot be told; nor does a
		// read-only claim cover it.
		w.addPath(s.as(none), ast.StringTerm(span), "")
		w.out.Acts = true
	}
	if sqlActs.MatchString(v) {
		w.out.Acts = true // a read-only claim does not cover it (Reading.Acts)
	}
}

// psqlMeta finds a psql meta-command: a backslash and a letter (or "!",
// "?") at a line's start or after white space or a semicolon, where no
// SQL literal's escape stands.
// mysqlClientCommand finds a mysql client's own command at a statement's
// start, which a server that hands its text to the mysql program runs:
// system (a shell command), source (a file's statements), tee and pager
// (a file written, a program run), edit, connect.
var mysqlClientCommand = regexp.MustCompile(`(?i)(?:^|;)\s*(?:system|source|tee|pager|edit|connect)\s`)

var psqlMeta = regexp.MustCompile(`(?:^|[\s;])\\[!?a-zA-Z]`)

// sqlWritten are the literals of SQL text that name a file the server
// writes: INTO OUTFILE and DUMPFILE, COPY ... TO, VACUUM INTO, EXPORT
// DATABASE, the log files a SET GLOBAL moves (a log written into a web
// root is a script), lo_export's and the file writers' names.
func sqlWritten(v string) map[string]bool {
	var out map[string]bool
	for _, m := range sqlWrites.FindAllStringSubmatch(v, maxShellReadings) {
		if out == nil {
			out = map[string]bool{}
		}
		out[m[1]] = true
	}
	return out
}

var sqlWrites = regexp.MustCompile(`(?i)(?:\binto\s+(?:out|dump)file|\bvacuum\s+(?:\w+\s+)?into|\bto|\bexport\s+database|` +
	`\b(?:general_log_file|slow_query_log_file|log_error|log_bin_basename|tmpdir)\s*(?:=|\bto\b)|` +
	`\blo_export\s*\(\s*[^,]+,|\b(?:pg_file_write|pg_write_file|writefile)\s*\()\s*(?:[eEnN]\s*)?'([^']+)'`)

// sqlEndpoint finds an ENDPOINT given a literal (DuckDB's secrets).
var sqlEndpoint = regexp.MustCompile(`(?i)\bendpoint\s+'([^']{1,512})'`)

// sqliteDotCommands reads the sqlite3 shell's own commands, which a
// server that hands a statement to the sqlite3 program runs: .shell and
// .system run a command line, .load native code (unknown); .output,
// .once, .save, .backup, .dump's redirections write a file, .import,
// .read, .open and .restore read one (paths).
func (w *walker) sqliteDotCommands(s site, v string) {
	for _, line := range strings.Split(v, "\n") {
		f := strings.Fields(strings.TrimSpace(line))
		if len(f) == 0 || !strings.HasPrefix(f[0], ".") {
			continue
		}
		switch cmd := strings.ToLower(f[0]); {
		case cmd == ".output" || cmd == ".once" || cmd == ".save" || cmd == ".backup" || cmd == ".import" || cmd == ".read" ||
			cmd == ".open" || cmd == ".restore" || cmd == ".excel" || cmd == ".log" || cmd == ".trace":
			for _, a := range f[1:] {
				if a = strings.Trim(a, `"'`); a != "" && !strings.HasPrefix(a, "-") {
					if strings.HasPrefix(a, "|") {
						w.addPath(s.as(none), ast.StringTerm(line), "") // ".once |sh", ".read '|curl ...'": a program it runs
					} else {
						w.pathString(s.as(Class{Kind: Path, Evidence: Shape}), ast.StringTerm(a), a)
					}
					break
				}
			}
			w.out.Acts = true
		case !sqliteDescribing[cmd]:
			// .shell, .system, .load, .archive and any other: what it runs,
			// loads or writes cannot be told here.
			w.addPath(s.as(none), ast.StringTerm(line), "")
			w.out.Acts = true
		}
	}
}

// sqliteDescribing are the sqlite3 shell's commands that only show or
// format.
var sqliteDescribing = keySetExact(".tables", ".schema", ".fullschema", ".headers", ".header", ".mode", ".indexes", ".indices",
	".databases", ".show", ".width", ".timer", ".echo", ".bail", ".nullvalue", ".separator", ".help", ".quit", ".exit", ".print",
	".dump", ".dbinfo", ".eqp", ".explain", ".changes", ".stats", ".lint", ".limit", ".prompt", ".scanstats", ".dbconfig")

// sqlActs finds SQL that writes a file, makes a database file, runs or
// loads code: COPY … TO and COPY … PROGRAM, ALTER SYSTEM (an
// archive_command), INTO OUTFILE or DUMPFILE, VACUUM INTO, ATTACH (which
// makes the file it names), EXPORT DATABASE, and the file and extension
// functions (load_extension, writefile, lo_export, pg_file_write).
var sqlActs = regexp.MustCompile(`(?is)\bcopy\b.*\b(to|program)\b|\balter\s+system\b|\binto\s+(outfile|dumpfile)\b|\bvacuum\b.*\binto\b|\battach\b|\bexport\s+database\b|` +
	// a server setting that names a file it writes (MySQL's logs), a
	// tablespace's or a directory object's place, Derby's exports
	`\bset\s+(?:global|persist)\b|\b(?:general_log_file|slow_query_log_file|log_error)\b|\bcreate\s+(?:tablespace|(?:or\s+replace\s+)?directory)\b|\bsyscs_util\.syscs_export\w*|` +
	`\b(load_extension|writefile|lo_export|pg_file_write|pg_write_file)\s*\(|\bload\s+'`)

// commandWord reads one word of a command line: an unknown path when it
// names a file (readsAsCommandFile, or any word after a bare option), and
// by its shape otherwise (a URL, an address).
func (w *walker) commandWord(s site, t *ast.Term, v string, afterOption bool) {
	r := trimReading(v)
	if readsAsCommandFile(r) || afterOption && r != "" && r[0] != '-' && !readsAsURL(r) {
		// Relative to where the command runs, as a command line's words
		// are: the directories the call names at its top level (cwd),
		// else the tool's root (unknown for none).
		for _, d := range w.shellDirs() {
			resolved := ""
			if d != "" {
				resolved = w.resolve(d, r)
			}
			w.addPath(s.as(none), t, resolved)
			if _, val, ok := strings.Cut(r, "="); ok && val != "" && d != "" {
				w.addPath(s.as(none), t, w.resolve(d, val)) // dd's of=.bashrc, --out=x: the value too
			}
		}
		return
	}
	w.unnamed(s.as(none), t, v)
}

// labelPath reports a (trimmed) value under a name that holds names that
// reads as a path: as looksLikePath reads one, but an absolute path only
// when it starts in a directory that holds files: a system or home
// directory (topDirs), or the root's own first directory. An entity named
// "/api/v2/orders" is no path; "/etc/passwd", "~/x", "../x" are.
func (w *walker) labelPath(r string) bool {
	if !looksLikePath(r) {
		return false
	}
	if r[0] != '/' || strings.HasPrefix(r, "//") {
		return true
	}
	if clean, ok := lexical.Resolve("/", r); ok {
		r = clean // "/./etc/x" and "/x/../etc/x" start in /etc
	} else {
		return true // unknown: it may be anything
	}
	first, _, _ := strings.Cut(r[1:], "/")
	if first == "" || topDirs[strings.ToLower(first)] {
		return true
	}
	for _, d := range append([]string{w.root}, w.aliases...) {
		if top, _, _ := strings.Cut(strings.TrimPrefix(d, "/"), "/"); top != "" && strings.EqualFold(top, first) {
			return true
		}
	}
	return false
}

// topDirs are the first directories of the paths where files live on
// Linux, the BSDs and macOS (compared in lower case).
var topDirs = func() map[string]bool {
	m := map[string]bool{}
	for _, d := range []string{"bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "media", "mnt", "opt",
		"proc", "root", "run", "sbin", "srv", "sys", "tmp", "usr", "var", "snap", "nix", "private", "users", "volumes",
		"library", "system", "applications", "cores", "network", "export", "net", "data", "workspace", "workspaces"} {
		m[d] = true
	}
	return m
}()

// unnamedKey reads an object's key no class says anything of that reads as
// a path (docker's volumes, {"/etc": ...}), a URL or an address.
func (w *walker) unnamedKey(s site, k *ast.Term, key string) {
	r := trimReading(key)
	if looksLikePath(r) {
		resolved := "" // as unnamed reads a value: an absolute key as written is itself
		if plainAbsolute(r, key) {
			resolved = w.resolve("/", r)
		}
		w.addPath(s.as(none), k, resolved)
	} else if chain := keyChain(s.at, r); namesFloorInData(chain) {
		// A file tree as nested objects ({"tree": {".git": {"config":
		// ...}}}): the keys above this one are its directories, and the
		// file they make is a floor file's, read from the root and beside
		// each directory the call names, as a relative name is.
		w.addPath(s.as(none), k, w.resolve(w.root, chain))
		w.inDirectories(s.as(Class{Kind: Path, Evidence: Word}), k, chain)
	}
	switch {
	case readsAsURL(r): // {"requests": {"http://169.254.169.254/": "GET"}}
		w.addHost(s, k, "")
	case readsAsIP(r):
		h, _ := lexical.HostOf(key)
		w.addHost(s, k, h)
	}
}

// isDirArg says the top-level argument k names a directory (dirsIn).
func (w *walker) isDirArg(k string) bool {
	if !w.dirsRead {
		w.dirs, w.dirsRead = w.dirsIn(w.out.Arguments), true
	}
	for _, d := range w.dirs {
		if d.arg == k {
			return true
		}
	}
	return false
}

// partsJoined is the path an array of strings under a name of a path's
// parts makes ("pathParts", "path_segments", "components"), joined as
// path.join joins them.
func partsJoined(name string, v *ast.Array) (string, bool) {
	n := FoldName(name)
	if v.Len() < 2 || v.Len() > MaxDepth || !(strings.HasSuffix(n, "parts") || strings.HasSuffix(n, "segments") || strings.HasSuffix(n, "components")) {
		return "", false
	}
	parts, ok := arrayStrings(v)
	if !ok {
		return "", false
	}
	return path.Join(parts...), true
}

// arrayStrings are an array's elements when every one is a string.
func arrayStrings(v *ast.Array) ([]string, bool) {
	out := make([]string, 0, v.Len())
	for i := 0; i < v.Len(); i++ {
		str, ok := v.Elem(i).Value.(ast.String)
		if !ok {
			return nil, false
		}
		out = append(out, string(str))
	}
	return out, true
}

// keyChain is key with the keys of the objects it is in before it, as a
// relative path ("a/b/key"), up to the argument's own name or an array.
// Each name that reads as a file's name or a directory's (no white space,
// no separator) counts; the chain stops at the first that does not.
func keyChain(at *pointer, key string) string {
	parts := []string{key}
	for p := at; p != nil && p.isKey && p.up != nil && len(parts) < MaxDepth; p = p.up {
		if p.key == "" || strings.ContainsFunc(p.key, unicode.IsSpace) || strings.ContainsAny(p.key, "/\\") {
			break
		}
		parts = append(parts, p.key)
	}
	slices.Reverse(parts)
	return strings.Join(parts, "/")
}

// pathString reads a string under a path's name: a path, resolved (and
// again with its shell names expanded to nothing, when it has any), and a
// URL or a remote path's host too when it reads as one.
func (w *walker) pathString(s site, t *ast.Term, v string) {
	r := trimReading(v)
	if list, one, skip := filePatterns(s.arg, r); list != nil || skip {
		for _, p := range list {
			w.pathString(s, ast.StringTerm(p), p) // "*.md,/home/u/.ssh/*": each pattern of a list
		}
		return // or "!node_modules/**": a glob's exclusion, which names nothing read
	} else if one != r {
		r, v = one, one // micromatch's "!!x" is x
	}
	if readsAsURL(r) && !looksLikePath(r) && !hasPrefixFold(r, "jdbc:") {
		// A URL ("oci://registry/chart", "https://x/a.pdf"): what a server
		// that takes a file or a URL fetches, its host (pathsHost); as a
		// local path it would name a directory called "https:" in the
		// root. One with a ".." in it, or a file inside a scheme, is read
		// as a path too.
		w.pathsHost(s, t, v)
		return
	}
	w.resolvePath(s, t, v)
	// "/srv/secret$x/key" is /srv/secret/key to a server that hands it to
	// a shell, ".bash''rc" is .bashrc; "posts.$slug.tsx" stays in its
	// directory either way.
	if !readsAsURL(r) {
		others, ok := shellReadings(v)
		if !ok {
			w.addPath(s, t, "") // a shell could make it more than can be listed
		}
		for _, o := range others {
			w.resolvePath(s, t, o)
		}
	}
	w.pathsHost(s, t, v)
}

// resolvePath adds v, under a path's name, resolved: against the root, or
// against each argument it is configured relative to.
func (w *walker) resolvePath(s site, t *ast.Term, v string) {
	if bases, relative := w.basesOf(s); relative {
		// Relative to another argument: resolved against each argument
		// of that name, every resolution a path of the call.
		if len(bases) == 0 {
			w.addPath(s, t, "") // relative to something that is not there
		}
		// The bases are distinct (walker.bases), and so are the paths
		// added: as many as a call may hold, then the call is refused,
		// however many arguments fold to the base's name.
		done := map[string]bool{}
		for _, base := range bases {
			if w.err != nil {
				return
			}
			resolved := ""
			if base != "" {
				if strings.HasPrefix(v, "/") || lexical.IsFileURI(v) {
					base = w.root
				}
				resolved = w.resolve(base, v)
			}
			if !done[resolved] {
				done[resolved] = true
				w.addPath(s, t, resolved)
			}
		}
	} else {
		w.addPath(s, t, w.resolve(w.root, v))
		w.inDirectories(s, t, v)
	}
}

// inDirectories adds v, a relative path, resolved against each directory
// the call names at its top level (but the one it is under): a server
// that takes {"directory": "/srv/pub", "filename": "../secret/key"} joins
// the two, and opens /srv/secret/key.
func (w *walker) inDirectories(s site, t *ast.Term, v string) {
	if !w.dirsRead {
		w.dirs, w.dirsRead = w.dirsIn(w.out.Arguments), true // once, when a path first needs them
	}
	if len(w.dirs) == 0 || lexical.IsFileURI(v) || s.class.Kind == Dir {
		return // a directory is no file in another one
	}
	// An absolute one too: Node's path.join and Go's filepath.Join join
	// "/srv/pub" and "/../secret/key" into /srv/secret/key.
	v = strings.TrimLeft(v, "/")
	top := s.at.top()
	for _, d := range w.dirs {
		if d.arg == top {
			continue
		}
		resolved := ""
		if d.resolved != "" {
			resolved = w.resolve(d.resolved, v)
		}
		w.addPath(s, t, resolved)
	}
}

// reachedHost is the host a (trimmed) value reaches by its shape: an
// address, read as a server reads it (canonical, so a range matches it;
// with a path after it, "169.254.169.254/latest", "localhost:5000/x", a
// URL without its scheme), written short only where short says a name
// expects one; a remote path's host ("git@evil.example:a/b.git",
// "127.0.0.1:/tmp/x"); or ssh's destination at an address
// ("root@10.0.0.1"; an e-mail's domain is no address).
func reachedHost(r string, short bool) (string, bool) {
	if h, ok := readAddress(r, short); ok {
		return h, true
	}
	if h, ok := remoteHost(r); ok {
		return h, true
	}
	if h, ok := userHost(r); ok && readsAsIPOrLocal(h) {
		return h, true
	}
	return "", false
}

// pathsHost reads the host a value under a path's name reaches, if it
// reaches one: a server that takes a file or a URL fetches a URL, a tool
// that takes a target pings or probes an address, and a clone or a copy
// over ssh reaches a remote path's host. Each is a host as well as a path,
// as a path under a URL's name is a path too.
func (w *walker) pathsHost(s site, t *ast.Term, v string) {
	r := trimReading(v)
	h, ok := "", false
	switch {
	case readsAsURL(r):
		h, _ = urlHost(v)
		ok = true
		w.query(s, r)
	default:
		h, ok = reachedHost(r, true)
		if r != v {
			h = "" // unknown: v has what a server trims
		}
	}
	if ok {
		w.addHost(s, t, h)
	}
}

// resolve is v resolved against base, clean and absolute ("" when it
// cannot be evaluated), and under the root's own spelling when it is under
// one of the root's other spellings.
func (w *walker) resolve(base, v string) string {
	if w.home != "" && (v == "~" || strings.HasPrefix(v, "~/")) {
		v = w.home + v[1:] // the server's home, where it runs here
	}
	if dir, ok := plainGlob(v); ok {
		v = dir // what "src/*.ts" matches is in src, and none is a floor file
	}
	resolved, ok := lexical.Resolve(base, v)
	if !ok {
		return ""
	}
	return UnderRoot(resolved, w.root, w.aliases)
}

// UnderRoot is p, a clean absolute path, spelt under root when it is under
// one of aliases, the root's other spellings ("/private/tmp/x/a" is
// "/tmp/x/a" for a root /tmp/x whose alias is /private/tmp/x); else p.
func UnderRoot(p, root string, aliases []string) string {
	for _, a := range aliases {
		if rest, ok := strings.CutPrefix(p, a); ok && (rest == "" || rest[0] == '/') && root != "/" && a != "/" {
			return root + rest
		}
	}
	return p
}

// embeddedDoc reads a string that holds a JSON array or object (once JSON's
// white space is trimmed) as the document it holds, its values at the
// string's own site: JSON passed as a string, as FastMCP parses it for a
// parameter that is not a str and some servers take options. It is read
// within a budget per call, past which it is an unknown path. One this
// reader refuses is an unknown path when strict, or when another parser
// reads it all the same (a duplicate key, a lone surrogate, NaN).
func (w *walker) embeddedDoc(s site, t *ast.Term, v string, strict bool) (read bool) {
	trimmed := strings.TrimSpace(v)
	if readsAsManifest(trimmed) {
		// A Kubernetes manifest in YAML ("apiVersion: v1\nkind: Pod ..."):
		// its documents read as the arguments they are (a hostPath, a
		// privileged container).
		if w.embedded += len(trimmed); w.embedded > maxEmbeddedJSON {
			w.addPath(s.as(none), t, "")
			return true
		}
		dec := yaml.NewDecoder(strings.NewReader(trimmed))
		for {
			var doc any
			if err := dec.Decode(&doc); err != nil {
				if err != io.EOF {
					w.addPath(s.as(none), ast.StringTerm("a manifest that does not parse"), "")
				}
				return true
			}
			if term, err := ast.InterfaceToValue(doc); err == nil {
				w.walk(site{s.arg, s.class, s.at, s.depth + 1}, ast.NewTerm(term))
			} else {
				w.addPath(s.as(none), ast.StringTerm("a manifest that does not parse"), "")
			}
		}
	}
	if len(trimmed) < 2 || !(trimmed[0] == '{' && trimmed[len(trimmed)-1] == '}' || trimmed[0] == '[' && trimmed[len(trimmed)-1] == ']') {
		return false
	}
	if w.embedded += len(trimmed); w.embedded > maxEmbeddedJSON {
		w.addPath(s.as(none), t, "")
		return true
	}
	doc, err := strictjson.Decode([]byte(trimmed))
	if err == nil {
		w.walk(site{s.arg, s.class, s.at, s.depth + 1}, ast.NewTerm(doc))
		return true
	}
	if strict || strictjson.CheckText([]byte(trimmed)) == nil || strings.Contains(trimmed, "NaN") || strings.Contains(trimmed, "Infinity") {
		w.addPath(s.as(none), t, "")
	}
	return false
}

// excludes reports a negated glob ("!node_modules/**") under a name of
// patterns (filePattern, globs, include): what it names is left out of
// a search, not read. Under any other name ("path"), "!x*" may be a
// file's own name, and is read.
func excludes(arg, r string) bool {
	if !strings.HasPrefix(r, "!") || strings.HasPrefix(r, "!!") || !strings.ContainsAny(r, "*?[{") ||
		strings.ContainsAny(r, " \t\r\n,;|:") || strings.Contains(r[1:], "!") {
		// "!!x" is x to micromatch; "!*.md\n/home/u/x", "!a,b": more
		// than one pattern; only one exclusion, alone, names nothing.
		return false
	}
	return patternName(arg)
}

// filePatterns reads a value under a file pattern's name (patternName):
// the patterns of a list in one string ("!*.md\n/home/u/.ssh/x",
// "*.go,*.ts"), each to be read on its own; or the one pattern it is,
// micromatch's "!!x" read as x, and skip when it is a lone exclusion,
// which names nothing. Under any other name, r as it is.
func filePatterns(arg, r string) (list []string, one string, skip bool) {
	if !patternName(arg) {
		return nil, r, false
	}
	if parts := patternList(r); len(parts) > 1 {
		return parts, "", false
	}
	for strings.HasPrefix(r, "!!") {
		r = r[2:]
	}
	return nil, r, excludes(arg, r)
}

// patternList splits a string of file patterns at white space, commas,
// semicolons and bars outside braces ("*.{js,ts}" is one pattern).
func patternList(r string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(r); i++ {
		switch c := r[i]; {
		case c == '{':
			depth++
		case c == '}' && depth > 0:
			depth--
		case depth == 0 && strings.IndexByte("\n\r\t ,;|", c) >= 0:
			if i > start {
				parts = append(parts, r[start:i])
			}
			start = i + 1
		}
	}
	if start < len(r) {
		parts = append(parts, r[start:])
	}
	return parts
}

// patternName reports an argument's name that holds file patterns
// (filePattern, pathPatterns, globs, include, exclude, ignore); a bare
// "pattern" is a search's regular expression as often.
func patternName(arg string) bool {
	n := FoldName(arg)
	return strings.Contains(n, "glob") || strings.Contains(n, "include") || strings.Contains(n, "exclude") || strings.Contains(n, "ignore") ||
		strings.Contains(n, "pattern") && (strings.Contains(n, "file") || strings.Contains(n, "path"))
}

// readsAsManifest reports text that starts as a Kubernetes manifest does
// (after comments and a document marker): with apiVersion: or kind:.
func readsAsManifest(s string) bool {
	for strings.HasPrefix(s, "#") || strings.HasPrefix(s, "---") {
		_, rest, ok := strings.Cut(s, "\n")
		if !ok {
			return false
		}
		s = strings.TrimLeft(rest, " \t\r\n")
	}
	return strings.HasPrefix(s, "apiVersion:") || strings.HasPrefix(s, "kind:")
}

// query reads a URL's query as arguments: each parameter under its own
// name ("postgresql://8.8.8.8/db?host=10.0.0.5", whose driver connects to
// the host parameter; "https://x/r?url=http://169.254.169.254/", which an
// open redirect follows). Parameters that do not parse are skipped: the
// URL itself is read already.
func (w *walker) query(s site, v string) {
	i := strings.IndexByte(v, '?')
	if i < 0 {
		return
	}
	q := v[i+1:]
	if j := strings.IndexByte(q, '#'); j >= 0 {
		q = q[:j]
	}
	// Some servers split on ";" as well as "&" (Rack 2, Python before
	// 3.9.2): every parameter either reading names is read.
	params, _ := url.ParseQuery(strings.ReplaceAll(q, ";", "&"))
	web := specialSchemeURL(v)
	for _, key := range slices.Sorted(maps.Keys(params)) {
		c := w.tool.classOf(key)
		for _, value := range params[key] {
			at, t := site{key, c, s.at, s.depth + 1}, ast.StringTerm(value)
			r := trimReading(value)
			switch {
			case c.Kind == Host || c.urlish():
				w.walkNamed(at, t)
			case !web && (c.local() || driverFileParams[FoldName(key)]):
				// A database driver's key, certificate or password file
				// ("postgresql://h/db?sslkey=/x"): read on this machine.
				w.pathString(at.as(Class{Kind: Path, Evidence: Name}), t, value)
			case readsAsURL(r): // where the server may be sent on to
				h, _ := urlHost(value)
				w.addHost(at, t, h)
			default:
				if h, ok := readsAsIPAddress(r); ok {
					w.addHost(at, t, h)
				}
			}
			// Any other path in a web URL's query is the remote
			// server's ("?file=report.pdf").
		}
	}
}

// driverFileParams are the query parameters database drivers read a local
// file from (folded): libpq's, MongoDB's, MySQL's and JDBC's TLS keys and
// certificates and password files.
var driverFileParams = keySet("sslkey", "sslcert", "sslrootcert", "sslcrl", "passfile", "sslca", "ssl-ca", "ssl-cert", "ssl-key",
	"tlscafile", "tlscertificatefile", "tlscertificatekeyfile", "tlscrlfile", "keystore", "truststore", "keystorepath",
	"truststorepath", "servicefile", "authfile", "credentialsfile", "keyfile", "certfile", "cafile")

// localString reads a string under a path's or directory's name: the JSON
// document it holds, if it holds one (a list of paths passed as a string:
// what it names are the document's paths), else a path.
func (w *walker) localString(s site, t *ast.Term, v string) {
	if !w.embeddedDoc(s, t, v, false) {
		w.pathString(s, t, v)
	}
}

// basesOf are the resolutions of the argument a path argument named arg is
// configured relative to, and whether it is.
func (w *walker) basesOf(s site) ([]string, bool) {
	if w.tool.relative == nil {
		return nil, false
	}
	base, ok := w.tool.relative[FoldName(s.arg)]
	if !ok {
		// A value deeper in the argument the spec names ("files":
		// [{"path": "x"}]) is relative to the same base.
		base, ok = w.tool.relative[FoldName(s.at.top())]
	}
	if !ok {
		return nil, false
	}
	return w.bases[base], true
}

// addPath keeps a path found at s ("" resolved: unknown), marking a
// directory the tool acts on, and refuses a call past MaxValues.
func (w *walker) addPath(s site, t *ast.Term, resolved string) {
	dir := s.class.Kind == Dir || w.tool.dirTool && s.class.Kind == Path
	v := Value{Arg: s.arg, Raw: t, Resolved: resolved, Dir: dir, Written: w.tool.outputArgument(s.arg)}
	if raw, ok := t.Value.(ast.String); ok && resolved == "" {
		v.Secret = w.namesSecret(trimReading(string(raw)))
	} else if ok && strings.Contains(string(raw), "**") {
		v.Tree = true // "src/**/*.ts": every file under src, read as a tree (plainGlob)
	}
	w.add(&w.out.Paths, v, s.at)
}

// notebookLine reads a line of code in IPython's syntax, which a notebook
// or an IPython kernel runs: a shell escape ("!cmd", and its value kept,
// "x = !cmd"), a magic ("%cat f", "%%bash"), or a line that IPython's
// automagic runs as a shell alias ("cat f", "rm -rf x").
func (w *walker) notebookLine(s site, l string) {
	if m := assignedEscape.FindStringSubmatch(l); m != nil {
		l = m[1] // "keys = !cat ~/.ssh/id_rsa", "out = %sx ls"
	}
	switch {
	case strings.HasPrefix(l, "!"):
		line := strings.TrimPrefix(l[1:], "!") // "!!cmd" too
		w.shellLine(s.as(shellName), ast.StringTerm(line), line)
	case strings.HasPrefix(l, "%"):
		w.magic(s, l)
	default:
		f := strings.Fields(l)
		if len(f) > 1 && ipythonAliases[f[0]] && !strings.ContainsAny(f[1][:1], "=([,:+%<>!&|^") {
			w.shellLine(s.as(shellName), ast.StringTerm(l), l) // automagic: "cat /home/u/.ssh/id_rsa" runs cat
		}
	}
}

// magic reads a line magic ("%cat f") or a cell magic's first line
// ("%%bash"): the aliases that run a program are read as its command
// line; what only times, shows or configures is no question; any other
// magic (%run, %load, %alias, %sx, %%bash, %%writefile, ...) runs,
// loads or writes what this reader cannot tell, and is unknown.
func (w *walker) magic(s site, l string) {
	cell := strings.HasPrefix(l, "%%")
	body := strings.TrimLeft(l, "%")
	name, rest, _ := strings.Cut(body, " ")
	rest = strings.TrimSpace(rest)
	switch {
	case name == "env" || name == "set_env":
		// %env alone prints the kernel's environment; %env NAME one
		// variable's value; %env NAME=value sets one.
		if rest == "" || !strings.ContainsAny(rest, "= ") && printsSecretVariable("$"+rest) {
			w.addPath(s.as(none), ast.StringTerm(l), "")
		}
	case !cell && (ipythonAliases[name] || name == "pycat"):
		line := body
		if name == "pycat" {
			line = "cat " + rest
		}
		w.shellLine(s.as(shellName), ast.StringTerm(line), line)
	case name == "sql" && !cell:
		w.sqlText(s.as(Class{Kind: Content, Evidence: Name}), ast.StringTerm(rest), rest) // ipython-sql's query
	case harmlessMagics[name]:
	default:
		w.addPath(s.as(none), ast.StringTerm(l), "") // it runs, loads or writes what cannot be told here
	}
}

var (
	// assignedEscape finds a shell escape or magic whose output a
	// variable keeps ("x = !cmd", "x = %sx cmd").
	assignedEscape = regexp.MustCompile(`^[\w.,\s\[\]]+=\s*([!%].*)$`)
	// ipythonAliases are the shell commands IPython defines as aliases:
	// "%rm x", and with automagic on (the default) "rm x", run them.
	ipythonAliases = keySetExact("cat", "cp", "ls", "mkdir", "mv", "rm", "rmdir", "less", "more", "man", "ldir", "lf", "lk", "ll", "lx")
	// harmlessMagics time, profile, show or configure the kernel, and
	// run no program and read or write no file of their own.
	harmlessMagics = keySetExact("time", "timeit", "matplotlib", "load_ext", "reload_ext", "unload_ext", "autoreload", "aimport",
		"who", "whos", "who_ls", "pwd", "precision", "config", "history", "reset", "xdel", "pprint", "colors", "quickref",
		"lsmagic", "magic", "prun", "tb", "doctest_mode", "gui", "pinfo", "pinfo2", "pdoc", "pdef", "psearch", "automagic",
		"autoindent", "capture", "html", "latex", "markdown", "svg", "pip", "conda", "mamba", "micromamba", "uv", "page",
		"debug", "pdb", "xmode", "autosave", "notebook", "load_ext", "lprun", "memit", "mprun", "sql_config")
)

// shellsOut finds code that runs a command line or another program:
// Python's os.system, os.popen, subprocess, pty.spawn, os.exec*, Node's
// child_process, Deno's and Bun's spawners, Ruby's and Perl's system and
// backquotes, R's system().
var shellsOut = regexp.MustCompile(`\bos\.(?:system|popen|exec\w*|spawn\w*|posix_spawn\w*)\s*\(|\bsubprocess\b|\bpty\.spawn|\bcommands\.getoutput|` +
	`\bchild_process\b|\bexecSync\b|\bspawnSync\b|\bexecFile\w*\b|\bDeno\.(?:run|Command)\b|\bBun\.spawn|\bRuntime\.getRuntime\(\)\.exec|` +
	`\bProcessBuilder\b|\bsystem2?\s*\(|\bget_ipython\s*\(\s*\)\s*\.\s*(?:system|getoutput|run_line_magic|run_cell_magic|magic)\b|\bdo\s+shell\s+script\b|\bdoShellScript\b|\bshell_exec\b|\bpassthru\b|\bproc_open\b|\bIO\.popen|\bOpen3\b|\bctypes\b|\bcffi\b|` +
	`\b__import__\s*\(|\bimportlib\b|\beval\s*\(|\bexec\s*\(|\bcompile\s*\(|` +
	// a function of os or of the builtins by a name built at run time;
	// code loaded from bytes or another file
	`\bgetattr\s*\(\s*(?:os|builtins|__builtins__|subprocess|sys|posix|shutil)\s*,|\bpickle\.loads?\b|\bmarshal\.loads\b|` +
	`\brunpy\b|\bcode\.interact\b|\bdill\.loads?\b|` +
	// another name for the same (from os import system as s; asyncio's
	// subprocesses; platform.popen), and the environment read
	`\bfrom\s+os\s+import\b[^\n]*\b(?:system|popen|exec\w*|spawn\w*)\b|\bcreate_subprocess_(?:shell|exec)\b|\bplatform\.popen\b|` +
	environmentInCode)

// environmentInCode finds code that prints the whole environment, hands
// it on whole, or reads a variable whose name says it holds a secret: in
// a code runner's code (shellsOut) and in code run in a container
// (printsEnvironmentCode).
const environmentInCode = `\bprint\s*\(\s*dict\s*\(\s*os\.environ|` +
	`\bdict\s*\(\s*os\.environ\s*\)|\bprint\s*\(\s*os\.environ\s*\)|\bos\.environ\.(?:items|copy)\s*\(|` +
	`\b(?:console\.log|JSON\.stringify)\s*\(\s*process\.env\s*[,)]|\bos\.Environ\s*\(|` +
	`\bObject\.(?:entries|keys|values)\s*\(\s*process\.env\b|\bENV\.to_h\b|\bgetenv\s*\(\s*\)|\bSys\.getenv\s*\(\s*\)|` +
	// the environment as a whole handed on (spread, bound to a name,
	// by index), a .env file's values, a cloud's or a keyring's secrets
	`\{\s*\*\*\s*os\.environ|\bos\.environb\b|\bfrom\s+os\s+import\s+[^\n]*\benviron\b|\bdotenv_values\s*\(|` +
	`\bget_credentials\s*\(|\bgoogle\.auth\.default\s*\(|\bget_frozen_credentials\b|\bkeyring\.get_(?:password|credential)\b|` +
	`\.\.\.\s*process\.env\b|=\s*process\.env\s*[;,\n)]|=\s*process\.env\s*$|\bprocess\s*\[\s*['"\x60]env['"\x60]\s*\]|` +
	`\bReflect\.get\s*\(\s*process\b|` +
	// one variable whose name says it holds a secret, read by code
	`\b(?:os\.environ|process\.env|ENV|os\.getenv|getenv|System\.getenv)\s*[\[.(]\s*['"]?\w*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_KEY|PRIVATE_KEY|ACCESS_KEY|DATABASE_URL)`

// givesHost reads a member of a container's or a pod's settings, in any
// tool's arguments (a Docker API body, a Kubernetes manifest, an MCP
// container tool's options), that gives what runs inside the host itself:
// privileged, a host PID, network, IPC or user namespace, a capability
// that escapes. Each is an unknown path (it reaches every file the rules
// could name), and the call acts whatever its tool claims. A host path
// mounted in (hostPath.path, a bind's source, Binds' "SRC:DST") is a tree
// the container reads whole.
func (w *walker) givesHost(s site, key string, val *ast.Term) {
	k := FoldName(key)
	host := func(what string) {
		w.addPath(s.as(none), ast.StringTerm(what), "")
		w.out.Acts = true
	}
	switch v := val.Value.(type) {
	case ast.Boolean:
		if v && (k == "privileged" || k == "hostpid" || k == "hostnetwork" || k == "hostipc") {
			host(key + ": true")
		}
	case ast.String:
		str := strings.ToLower(strings.TrimSpace(string(v)))
		switch {
		case (k == "pidmode" || k == "networkmode" || k == "ipcmode" || k == "usernsmode" || k == "utsmode" || k == "cgroupnsmode" ||
			k == "pid" || k == "network" || k == "ipc" || k == "userns") && str == "host":
			host(key + ": host")
		case k == "mount" || k == "mounts" || k == "bind" || k == "binds" || k == "volume" || k == "volumes":
			w.hostMount(s, string(v))
		case (k == "securityopt" || k == "securityopts") && unconfined(str):
			host(key + ": " + str)
		}
	case *ast.Array:
		switch k {
		case "capadd", "add":
			for i := 0; i < v.Len(); i++ {
				if c, ok := v.Elem(i).Value.(ast.String); ok {
					switch strings.TrimPrefix(strings.ToUpper(string(c)), "CAP_") {
					case "SYS_ADMIN", "ALL", "SYS_PTRACE", "SYS_MODULE", "DAC_READ_SEARCH", "SYS_RAWIO", "BPF":
						host(key + ": " + string(c))
					}
				}
			}
		case "securityopt", "securityopts":
			for i := 0; i < v.Len(); i++ {
				if c, ok := v.Elem(i).Value.(ast.String); ok && unconfined(strings.ToLower(string(c))) {
					host(key + ": " + string(c))
				}
			}
		case "binds", "mounts", "volumes":
			for i := 0; i < v.Len(); i++ {
				switch c := v.Elem(i).Value.(type) {
				case ast.String:
					w.hostMount(s, string(c))
				case ast.Object:
					w.mountObject(s, c) // {"type": "bind", "source": "/home/u", "target": "/h"}
				}
			}
		}
	case ast.Object:
		switch k {
		case "hostpath":
			if t := v.Get(ast.StringTerm("path")); t != nil {
				if p, ok := t.Value.(ast.String); ok {
					w.mountSource(s, string(p), true) // a pod's volumeMount may write it
				}
			}
		case "volumes", "binds":
			// Docker's SDKs: {"/home/u": {"bind": "/h", "mode": "ro"}},
			// each key a host path mounted in.
			_ = v.Iter(func(key, opts *ast.Term) error {
				if src, ok := key.Value.(ast.String); ok && (strings.HasPrefix(string(src), "/") || strings.HasPrefix(string(src), "~") || strings.HasPrefix(string(src), ".")) {
					mode := ""
					if o, ok := opts.Value.(ast.Object); ok {
						if m := o.Get(ast.StringTerm("mode")); m != nil {
							s, _ := m.Value.(ast.String)
							mode = string(s)
						}
					}
					w.mountSource(s, string(src), !mountReadOnly(mode))
				}
				return nil
			})
		}
	}
}

// mountObject reads one mount given as an object (Docker's Mounts, an
// SDK's mount): the host side of a bind, a tree the container reads
// whole. A named volume's or a tmpfs's has none.
func (w *walker) mountObject(s site, m ast.Object) {
	kind, src, readOnly := "", "", false
	_ = m.Iter(func(key, val *ast.Term) error {
		k, _ := key.Value.(ast.String)
		str, _ := val.Value.(ast.String)
		switch FoldName(string(k)) {
		case "type":
			kind = strings.ToLower(string(str))
		case "source", "src", "hostpath", "host":
			src = string(str)
		case "readonly", "ro":
			b, _ := val.Value.(ast.Boolean)
			readOnly = bool(b)
		case "mode":
			readOnly = mountReadOnly(string(str))
		}
		return nil
	})
	if src != "" && (kind == "bind" || kind == "" && (strings.HasPrefix(src, "/") || strings.HasPrefix(src, "~") || strings.HasPrefix(src, "."))) {
		w.mountSource(s, src, !readOnly)
	}
}

// clusterSecret reads a cluster's Secret asked of a tool that reads
// resources by kind (resources_get {"kind": "Secret"}): what it prints
// is the secret's data, as kubectl get secret's is. It is kept as an
// unknown value that names a secret, which the floor asks about on any
// read. A tool that makes or changes one (apply, create) is given the
// data it writes, and is not.
func (w *walker) clusterSecret(s site, key string, val *ast.Term) {
	if !w.tool.readsResources {
		return // most tools: nothing folded, on every member of every object
	}
	str, ok := val.Value.(ast.String)
	if !ok || FoldName(key) != "kind" {
		return
	}
	if k := strings.ToLower(strings.TrimSpace(string(str))); (k == "secret" || k == "secrets") && s.class.Kind != Data {
		w.add(&w.out.Paths, Value{Arg: key, Raw: val, Secret: true}, &pointer{up: s.at, key: key, isKey: true})
	}
}

// hostMount reads a mount's text ("type=bind,source=/,target=/h",
// "/srv:/x:ro"): its host side, a tree the container reads whole.
func (w *walker) hostMount(s site, m string) {
	if strings.Contains(m, "=") {
		// Its source, and the directory a local volume is bound to
		// (volume-opt=device=): each is a tree the container reads.
		for _, name := range []string{"source", "src", "device"} {
			if src := mountField(m, name); src != "" {
				w.mountSource(s, src, !mountReadOnly(m))
			}
		}
		return
	}
	if src, rest, ok := strings.Cut(m, ":"); ok && strings.HasPrefix(src, "/") || strings.HasPrefix(src, "~") {
		_, mode, _ := strings.Cut(rest, ":")
		w.mountSource(s, src, !mountReadOnly(mode))
	} else if k := FoldName(s.arg); !ok && strings.HasPrefix(m, "/") && (k == "volume" || k == "volumes") {
		w.mountSource(s, m, true) // a directory alone: a volume of it, or a backup's source
	}
}

// mountSource reads a host directory mounted into a container, writable
// unless the mount says read-only: a tree the container reads whole, and
// may write.
func (w *walker) mountSource(s site, src string, writable bool) {
	from := len(w.out.Paths)
	w.treeString(s, src)
	w.out.Acts = true
	if writable {
		markPathsWritten(w, from)
	}
}

// markPathsWritten marks the paths w found from index from on written.
func markPathsWritten(w *walker, from int) {
	for i := from; i < len(w.out.Paths); i++ {
		w.out.Paths[i].Written = true
	}
}

// mountReadOnly reports a mount's options that make it read-only ("ro",
// "ro,z", "readonly").
func mountReadOnly(opts string) bool {
	for _, o := range strings.Split(opts, ",") {
		switch strings.ToLower(strings.TrimSpace(o)) {
		case "ro", "readonly", "read-only", "readonly=true", "ro=true":
			return true
		}
	}
	return false
}

// treeString reads v as a directory the call reads every file under.
func (w *walker) treeString(s site, v string) {
	n := len(w.out.Paths)
	w.pathString(s.as(Class{Kind: Dir, Evidence: Shape}), ast.StringTerm(v), v)
	for i := n; i < len(w.out.Paths); i++ {
		w.out.Paths[i].Tree = true
	}
}

// codeLiterals reads code in a language this reader does not parse (a code
// runner's Python, JavaScript): each string literal in it ('...', "...",
// `...`) that names a floor file is a path (open('/home/u/.ssh/id_rsa')),
// each URL a host; the rest is the code's own business, which the user
// who allowed the runner allowed.
func (w *walker) codeLiterals(s site, v string) {
	if len(v) > maxSQLText {
		w.addPath(s.as(none), ast.StringTerm("code longer than 64 KiB"), "") // not read: what it names cannot be told
		return
	}
	for _, line := range strings.Split(v, "\n") {
		w.notebookLine(s, strings.TrimSpace(line))
	}
	if m := shellsOut.FindString(v); m != "" {
		w.addPath(s.as(none), ast.StringTerm(m), "") // code that runs a command line: what it runs cannot be told here
	} else if codeReadsEnvironment(v) {
		w.addPath(s.as(none), ast.StringTerm("code that reads the environment whole, or a secret of it"), "")
	}
	deletes := treeDeleters.MatchString(v)
	if m := treeDeletedWhole.FindString(v); m != "" {
		w.addPath(s.as(none), ast.StringTerm(m), "") // the home, the working directory, ".": a whole tree
	}
	for i := 0; i < len(v); i++ {
		q := v[i]
		if q != '\'' && q != '"' && q != '`' {
			continue
		}
		end := strings.IndexByte(v[i+1:], q)
		if end < 0 {
			return
		}
		lit := v[i+1 : i+1+end]
		i += 1 + end
		r := trimReading(lit)
		switch {
		case r == "" || strings.ContainsAny(r, "\n"):
		case readsAsURL(r) && hostContinues(r, v[i+1:]):
			// 'http://169.254.169.' + '254/': the host is built at run
			// time, and is not the one written here.
			w.addHost(s.as(Class{Kind: URL, Evidence: Shape}), ast.StringTerm(lit), "")
			if n := len(w.out.Hosts); n > 0 && w.out.Hosts[n-1].Raw.Value.Compare(ast.String(lit)) == 0 {
				_, written, _ := strings.Cut(r, "://")
				w.out.Hosts[n-1].Might = lexical.ContinuedHosts(written[strings.LastIndexByte(written, '@')+1:])
			}
		case readsAsURL(r):
			w.pathsHost(s.as(Class{Kind: URL, Evidence: Shape}), ast.StringTerm(lit), lit)
		case readsAsIP(r):
			w.pathsHost(s.as(Class{Kind: Host, Evidence: Shape}), ast.StringTerm(lit), lit) // socket.create_connection(('169.254.169.254', 80))
		case deletes && looksLikePath(r) && w.wholeTree(w.resolve(w.root, r)):
			// shutil.rmtree('/srv/app'), fs.rmSync(root, {recursive}): a
			// whole tree deleted, or its mode changed, by code
			w.addPath(s.as(none), ast.StringTerm(lit), "")
		case namesFloorInData(r) || w.namesSecret(r) || looksLikePath(r) && floorFile(w.resolve("/", r)):
			w.pathString(s.as(Class{Kind: Path, Evidence: Shape}), ast.StringTerm(lit), lit)
		case looksLikePath(r):
			if p := w.resolve(w.root, r); p != "" && lexical.SecretTree(lexical.FoldPath(p)) != nil {
				w.treeString(s, lit) // shutil.rmtree('/home/u'), os.walk('/'): a tree where secrets are kept
			}
		}
	}
}

// hostContinues reports a URL literal of code that ends inside its host
// (nothing after the authority) where the code joins something to it
// (what follows the closing quote is an operator: + . .. || %) or where
// the literal itself interpolates (${, {, #{): the host the code reaches
// is not the one the literal spells.
func hostContinues(url, after string) bool {
	_, rest, _ := strings.Cut(url, "://")
	if strings.ContainsAny(rest, "/?#") {
		return false
	}
	if strings.Contains(rest, "{") {
		return true // f"http://{host}", `http://${h}`, "http://#{h}"
	}
	next := strings.TrimLeft(after, " \t\r\n")
	return next != "" && strings.ContainsRune("+.|%", rune(next[0]))
}

// namesSecret reports an unknown path's text that names a file on the
// secrets list however it is read: a glob whose matches include one (as
// globNames reads it), one whose "**" reads every file under a directory
// where secrets are kept, or a Windows path (a drive's, a share's) to one.
func (w *walker) namesSecret(r string) bool {
	if r == "" || len(r) > maxDataName {
		return false
	}
	if strings.ContainsAny(r, "*?[{") {
		if globNames(r, secretFile) {
			return true
		}
		if lit, _, ok := strings.Cut(r, "**"); ok {
			dir := strings.TrimSuffix(lit, "/")
			if rest, home := afterHome(dir); home && w.home != "" {
				dir = path.Join(w.home, rest)
			}
			if clean, ok := lexical.AbsClean(dir); ok && lexical.SecretTree(lexical.FoldPath(clean)) != nil {
				return true
			}
		}
	}
	unc := strings.HasPrefix(r, `\\`)
	if len(r) > 3 && isASCIILetter(r[0]) && r[1] == ':' && (r[2] == '\\' || r[2] == '/') || unc {
		unix := strings.ReplaceAll(r[2:], `\`, "/") // C:\Users\u: /Users/u
		if unc {
			unix = strings.ReplaceAll(r[1:], `\`, "/") // \\host\share: /host/share
		}
		return secretFile(unix) || globNames(unix, secretFile)
	}
	return false
}

// addHost keeps a host found at s ("" resolved: unknown). A URL that
// connects to a local socket (unixSocketPath) names the socket as a path.
func (w *walker) addHost(s site, t *ast.Term, resolved string) {
	if resolved != "" {
		// One form for every host kept, whichever reading found it: a
		// port or a user left on it ("169.254.169.254:80" of a URL
		// written without its scheme, "user@10.0.0.1") would match no
		// range and no name.
		if i := strings.LastIndexByte(resolved, '@'); i >= 0 {
			resolved = resolved[i+1:]
		}
		if h, ok := lexical.HostOf(resolved); ok {
			resolved = h
		} else {
			resolved = ""
		}
	}
	if lexical.RebindingName(resolved) {
		resolved = "" // its address is the lookup's of the moment
	}
	if str, ok := t.Value.(ast.String); ok && resolved == "" {
		if sock, ok := unixSocketPath(string(str)); ok {
			w.addPath(s.as(Class{Kind: Path, Evidence: s.class.Evidence}), ast.StringTerm(sock), w.resolve(w.root, sock))
		}
	}
	if w.tool.more != nil {
		at := [3]string{s.at.String(), resolved, t.String()}
		if w.hostsAt[at] {
			return
		}
		if w.hostsAt == nil {
			w.hostsAt = map[[3]string]bool{}
		}
		w.hostsAt[at] = true
	}
	v := Value{Arg: s.arg, Raw: t, Resolved: resolved}
	if str, ok := t.Value.(ast.String); ok && resolved == "" {
		// Unknown, and what a lenient client may make of it beside: a
		// percent-encoded host, "http:host", a rebinding name's
		// addresses. The floor reads it (a metadata address); rules see
		// the unknown host, which might be anything.
		v.Might = lexical.LenientHosts(string(str))
	}
	w.add(&w.out.Hosts, v, s.at)
}

func (w *walker) add(list *[]Value, v Value, at *pointer) {
	if len(w.out.Paths)+len(w.out.Hosts) >= MaxValues {
		w.err = fmt.Errorf("the call names more than %d paths and URLs", MaxValues)
		return
	}
	v.Pointer = at.String()
	*list = append(*list, v)
}
