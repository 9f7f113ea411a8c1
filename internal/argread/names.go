package argread

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

// FoldName is an argument name as the reader compares names: with "_" and
// "-" left out and Unicode case-folded, so "filePath", "file_path",
// "FILEPATH" and "ſource" as "source" (how Go's encoding/json matches a
// field) are one name. Whatever else classes arguments by name (a rule's
// arguments, a decision log's mask) compares the same way.
func FoldName(k string) string {
	folded := true // most keys are already lower case, without separators
	for i := 0; i < len(k) && folded; i++ {
		c := k[i]
		folded = c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
	}
	if folded {
		return k
	}
	var b strings.Builder
	b.Grow(len(k))
	for _, r := range k {
		if r != '_' && r != '-' {
			b.WriteRune(r)
		}
	}
	// Case-folded as a server's own matching might fold it: Go's
	// encoding/json matches "ſource" (long s) to a field "source", and
	// "\u212aey" (Kelvin sign) to "key".
	return lexical.Fold(b.String())
}

// nameRow is one row of the name table: names whose class is class when
// the whole folded name is one of them (listed), or when it ends in one
// (ending).
type nameRow struct {
	class   Class
	listed  []string
	endings []string
}

var (
	namedPath    = Class{Kind: Path, Evidence: Name}
	namedDir     = Class{Kind: Dir, Evidence: Name}
	namedURL     = Class{Kind: URL, Evidence: Name}
	namedHost    = Class{Kind: Host, Evidence: Name}
	namedContent = Class{Kind: Content, Evidence: Name}
	weakHostName = Class{Kind: Host, Evidence: Weak}
	weakIPName   = Class{Kind: Host, Evidence: Weak, Dotted: true}
	wordPath     = Class{Kind: Path, Evidence: Word}
	wordDir      = Class{Kind: Dir, Evidence: Word}
	weakPathName = Class{Kind: Path, Evidence: Weak}
	weakURLName  = Class{Kind: URL, Evidence: Weak}
	labelName    = Class{Kind: Label, Evidence: Name}
	commandName  = Class{Kind: Command, Evidence: Name}
	shellName    = Class{Kind: Shell, Evidence: Name}
	patchName    = Class{Kind: Patch, Evidence: Name}
	composeName  = Class{Kind: Compose, Evidence: Name}
	// exclusionName is what a tool leaves out: nothing in it is acted on,
	// but an option a command line would read ("--output=x") is read.
	exclusionName = Class{Kind: Ignore, Evidence: Name}
)

// nameTable is what argument names mean in any tool, compared folded. A
// name is looked up whole first (each list holds singular and plural
// forms), then by its ending (longest first, so "dirpath" is a directory
// and not merely a "path"), then, for strings, by a path word anywhere in
// it (pathWords). What a name means is a function of its folded spelling
// and of where "_", "-" and "." separate its words (for stop words), never
// of its case: Go's encoding/json matches "OUTPUTPATH" and "outputpath" to
// a field tagged "outputPath", so the three must be one name here too.
var nameTable = []nameRow{
	// Content names hold text, often long, that is read as text: file
	// contents, messages, queries. Short names a server might use as a
	// file name (title, name, topic) are not among them.
	{class: namedContent, listed: []string{
		"content", "contents", "text", "texts", "body", "oldtext", "newtext", "oldstring", "newstring",
		"find", "replace", "substring", "message", "messages", "commitmessage", "description",
		"thought", "observation", "observations", "insight", "stdin", "stdintext", "markdown", "data",
		"query", "queries", "q", "searchquery", "searchqueries", "prompt", "comment", "comments", "summary", "instructions",
		// Queries in a language of their own: SQL, Jira's, Cypher.
		"sql", "sqlquery", "statement", "statements", "jql", "cql", "cypher", "sparql",
		// A search's text and its replacement; a tool's variables.
		"needle", "repl", "replacement", "replacewith", "vars", "variables"}},
	// A container's mounts ("SRC:DST[:MODE]", objects, maps): read as
	// mounts (givesHost), not as a path each.
	{class: Class{Kind: Text, Evidence: Name}, listed: []string{"volumes", "volume", "binds", "bind", "mounts", "mount"}},
	{class: namedDir, listed: []string{
		"dir", "dirs", "directory", "directories", "dirpath", "dirpaths", "folder", "folders",
		"folderpath", "folderpaths", "root", "roots", "rootpath", "cwd", "workdir", "workdirs",
		"workingdir", "workingdirectory", "repopath", "repo_path", "outdir", "outdirs", "userdatadir", "dirname",
		"dirnames", "foldername", "foldernames", "workspace", "workspaces", "workspacefolder", "workspacedir", "workspaceroot"},
		endings: []string{"dirpath", "dirpaths", "folderpath", "folderpaths", "rootpath", "rootpaths", "dirname", "dirnames",
			"foldername", "foldernames", "directory", "directories", "folder", "folders", "dir", "dirs", "cwd", "root", "roots"}},
	{class: namedPath, listed: []string{
		"path", "paths", "file", "files", "filepath", "filepaths", "filename", "filenames",
		"outfile", "outfiles", "input_file", "input_files",
		"dockerfile", "executable", "executables", "db_path", "database_path", "pathname", "pathnames", "fullpath", "kubeconfig",
		"basename", "basenames", "attachment", "attachments", "save_as", "save_to",
		"extract_to", "copy_to", "move_to", "export_to", "download_to", "output_to", "write_to"},
		endings: []string{"path", "paths", "file", "files", "filename", "filenames", "pathname", "pathnames", "basename", "basenames"}},
	// Names that hold a local path as often as something else: a place
	// on a map, a link's end, an element to click, a format to convert to.
	// A value is a path when it reads as a file's or directory's name
	// (readsAsLocalName), else it is read by its shape.
	{class: weakPathName, listed: []string{
		"source", "sources", "src", "srcs", "destination", "destinations", "dest", "dests", "dst", "dsts",
		"target", "targets", "to", "from", "output", "outputs", "out",
		// A map of files to their new contents ({"changes": {"a.md": "..."}}):
		// its keys are paths.
		"changes", "filechanges"}},
	// What a tool leaves out (a search's or a copy's exclusions): nothing
	// in them is acted on, so nothing is read.
	{class: exclusionName, listed: []string{"exclude", "excludes", "excludepaths", "excludepatterns", "excludeglobs",
		"excludedpaths", "excludefiles", "excludedirs", "ignorepaths", "ignorepatterns", "ignoreglobs", "ignoredpaths",
		"ignorefiles", "ignoredirs", "skippaths", "skippatterns"}},
	// A URL as often as a name: a git remote's ("origin"), a CORS origin,
	// a route's start.
	{class: weakURLName, listed: []string{"origin", "origins"}},
	// A command line's words, as a server passes them to a program.
	{class: commandName, listed: []string{"args", "cmdargs", "extraargs", "flags"}},
	// A Compose file's text (or, on one line, its path).
	{class: composeName, listed: []string{"compose", "composefile", "composeyaml", "composeyml", "composecontent", "composespec",
		"composeconfig", "composedefinition", "composetext", "dockercompose", "dockercomposeyaml", "dockercomposeyml",
		"dockercomposefile", "dockercomposecontent"}},
	// A patch: every file it changes is a path.
	{class: patchName, listed: []string{"patch", "patches", "diff", "diffs", "unifieddiff", "patchtext", "patchcontent"}},
	// A shell command line, as a server hands it to a shell.
	{class: shellName, listed: []string{"command", "commands", "cmd", "cmds", "commandline", "commandlines", "cmdline", "shellcommand",
		"shellcommands", "bashcommand", "shellscript", "bashscript", "setupcommands", "clicommand", "clicommands", "runcommand", "execcommand",
		"shellcmd", "bashcmd", "cmdstring", "commandstring", "commandtext",
		// A shell's own name, or what a hook or an entrypoint runs
		// ({"sh": "make test"}); {"shell": "bash"} names the shell
		// (isShellChoice).
		"sh", "bash", "zsh", "shell", "exec", "entrypoint", "hook", "hooks", "prehook", "posthook", "process", "spawn",
		"precommand", "postcommand", "beforecommand", "aftercommand", "oncommand", "runcmd", "startcommand", "stopcommand",
		// A whole command's words, its program first.
		"argv"}},
	// Names that hold names: an entity's, a page's, a label.
	{class: labelName, listed: []string{"name", "names", "title", "titles", "label", "labels", "entityname", "entitynames",
		"displayname"}},
	{class: namedURL, listed: []string{
		"url", "urls", "uri", "uris", "href", "hrefs", "link", "links", "endpoint", "endpoints",
		"webhook", "webhooks", "callback", "callbacks", "baseurl", "apiurl", "serverurl", "redirecturi",
		"redirecturl", "returnurl", "imageurl", "fileurl", "downloadurl", "proxyurl", "remoteurl",
		"repourl", "cloneurl"},
		endings: []string{"url", "urls", "uri", "uris", "href", "hrefs", "link", "links", "endpoint", "endpoints",
			"webhook", "webhooks", "callback", "callbacks"}},
	{class: namedHost, listed: []string{"host", "hosts", "hostname", "hostnames", "ip", "ips", "ipaddress", "ipaddresses", "ipaddr",
		"ipv4", "ipv6"},
		endings: []string{"host", "hosts", "hostname", "hostnames", "ipaddress", "ipaddresses", "ipaddr", "ipaddrs",
			"ipv4address", "ipv6address"}},
	// "serverIp", "remote_ip": an ending too many words share ("zip",
	// "tooltip", "relationship") to make every value a host, so only a
	// value that reads as an address, or a name with a dot, is one.
	{class: weakIPName, endings: []string{"ip", "ips"}},
	// Names that hold a host as often as a street address, a wallet, a
	// business domain or a server's name: a value that reads as a host is
	// one.
	{class: weakHostName, listed: []string{"address", "addresses", "addr", "addrs", "server", "servers", "domain", "domains",
		"peer", "peers", "proxy", "proxies"},
		endings: []string{"address", "addresses", "addr", "addrs", "server", "servers", "domain", "domains",
			"peer", "peers", "proxy", "proxies"}},
}

// pathWords make a name a path's (or a directory's) wherever they are in
// it, for strings only: "pathInProject", "file_type" ("fileCount" is a
// number, and not a path).
var pathWords = []struct {
	word  string
	class Class
}{{"folder", wordDir}, {"directory", wordDir}, {"path", wordPath}, {"file", wordPath}}

// stopNames end like a path, URL or host name but are something else: an
// XPath or JSONPath expression, a command, a package URL, a flag, a user's
// profile. They are whole names, folded.
var stopNames = keySet("xpath", "xpaths", "jsonpath", "jsonpaths", "curl", "purl", "purls", "unlink", "blink",
	"userprofile", "userprofiles", "followsymlinks", "followsymlink", "followlinks", "followlink",
	"preservesymlinks", "resolvesymlinks", "dereferencesymlinks", "nofollowsymlinks", "allowsymlinks",
	"showtooltip", "showtooltips")

// stopWords are words of their own that merely end like a path, URL or
// host word: the name is read without them ("user_profile",
// "follow-symlinks", "ghost.mode"). A stop word counts only as a whole word
// between "_", "-", "." or the name's ends, never inside a word or at a
// change of case: "cli_path" keeps its "clip", "syslog_host" its "ghost"
// and "job_server" its "observer", and "ClipAth", which a Go server matches
// to its "cliPath", is one word like "clipath".
var stopWords = keySet("profile", "profiles", "pathway", "pathways", "symlink", "symlinks", "hardlink", "hardlinks",
	"softlink", "softlinks", "followlink", "followlinks", "ghost", "ghosts", "observer", "observers",
	"tooltip", "tooltips", "zip", "zips", "skip", "skips", "ship", "ships", "clip", "clips", "chip", "chips",
	"flip", "flips", "slip", "slips", "strip", "strips", "trip", "trips", "drip", "drips", "grip", "grips",
	"whip", "whips", "equip", "equips")

// maxWordedName bounds the names whose words are read for stop words: a
// longer one is no field of any server's, and reading its words would cost
// the call its length in allocations.
const maxWordedName = 256

// names is the name table compiled: whole names and endings, folded.
type names struct {
	listed  map[string]Class
	endings []ending // longest first
}

type ending struct {
	suffix string
	class  Class
}

// compiledNames is the name table as lookups: built once, read only.
var compiledNames = func() names {
	n := names{listed: map[string]Class{}}
	for _, row := range nameTable {
		for _, name := range row.listed {
			if _, taken := n.listed[FoldName(name)]; !taken { // the first row that lists a name is its class
				n.listed[FoldName(name)] = row.class
			}
		}
		for _, s := range row.endings {
			n.endings = append(n.endings, ending{s, row.class})
		}
	}
	slices.SortStableFunc(n.endings, func(a, b ending) int { return len(b.suffix) - len(a.suffix) })
	return n
}()

// nameClass is what an argument's name means in any tool: a function of
// its folded spelling and its "_", "-" and "." separated words.
func nameClass(raw string) Class {
	nk := FoldName(raw)
	if c, ok := compiledNames.listed[nk]; ok {
		return c
	}
	if strings.HasSuffix(nk, "ipv4") || strings.HasSuffix(nk, "ipv6") {
		return namedHost // before the digits are dropped: "hostIpv4"
	}
	// Numbered names are the name: "file1", "path_2".
	name := strings.TrimRight(nk, "0123456789")
	if name != nk {
		if c, ok := compiledNames.listed[name]; ok {
			return c
		}
	}
	if name == "" || stopNames[name] || stopWords[name] {
		return none
	}
	if len(raw) <= maxWordedName && strings.ContainsAny(raw, "_-.") {
		stripped := withoutStopWords(raw, name)
		if stripped == "" {
			return none
		}
		if stripped != name {
			// Read as if the stop words were not there: "zip_to" is "to".
			if c, ok := compiledNames.listed[stripped]; ok && c.Kind != Content {
				return c // content would read less than the name did: "zip_data" stays unrecognised
			}
		}
		name = stripped
	}
	for _, e := range compiledNames.endings {
		if strings.HasSuffix(name, e.suffix) {
			return remoteOr(name, e.class)
		}
	}
	for _, w := range pathWords {
		if strings.Contains(name, w.word) {
			return remoteOr(name, w.class)
		}
	}
	return none
}

// remoteName is the class of a path on another machine ("remotePath",
// "remote_dir": an SFTP or SSH tool's): no local path, but an option in it
// is read, as a command line on this side would read it.
var remoteName = Class{Kind: Ignore, Evidence: Name, Remote: true}

// remoteOr is class, or remoteName where the name says the path it holds
// is on the remote side.
func remoteOr(name string, class Class) Class {
	if class.local() && strings.HasPrefix(name, "remote") && len(name) > len("remote") {
		return remoteName
	}
	return class
}

// withoutStopWords is name (raw folded, without the digits at its end)
// read without the stop words among raw's words ("_", "-" and "." separate
// them): folded and joined, "" when every word is one. With no stop word
// among them it is name itself.
func withoutStopWords(raw, name string) string {
	// The common case, no stop word among the words, allocates nothing.
	hasStopWord := false
	for rest := raw; rest != "" && !hasStopWord; {
		i := strings.IndexFunc(rest, isNameSeparator)
		w := rest
		if i >= 0 {
			w, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		hasStopWord = len(w) >= 3 && stopWords[strings.TrimRight(FoldName(w), "0123456789")]
	}
	if !hasStopWord {
		return name
	}
	var b strings.Builder
	for _, w := range strings.FieldsFunc(raw, isNameSeparator) {
		if f := FoldName(w); !stopWords[strings.TrimRight(f, "0123456789")] {
			b.WriteString(f)
		}
	}
	return strings.TrimRight(b.String(), "0123456789")
}

// isNameSeparator separates the words of a name for stop words.
func isNameSeparator(r rune) bool { return r == '_' || r == '-' || r == '.' }

// isFileName reports an object key that reads as a file's name (it has a
// ".", "/" or "\"): under a path's name, its value is the file's contents.
func isFileName(key string) bool { return strings.ContainsAny(key, "./\\") }

// keySet is a set of folded names.
func keySet(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[FoldName(k)] = true
	}
	return m
}

// Words of a tool's name that say what the tool does, each set read by
// nameHasWord: its path is a directory it acts on (list_directory,
// directory_tree, mkdir); it applies a patch (apply_patch, apply_diff); it
// runs a Compose project (compose_up); it runs shell commands (run_shell,
// execute_bash, terminal_exec); it visits a site's pages (firecrawl_crawl,
// tavily_map, scrape_site); it runs SQL (pg_psql, mysql_exec).
var (
	dirToolWords     = keySet("directory", "directories", "dir", "dirs", "folder", "folders", "tree", "mkdir", "ls")
	patchToolWords   = keySet("patch", "diff")
	composeToolWords = keySet("compose")
	shellToolWords   = keySet("shell", "bash", "sh", "zsh", "terminal", "command", "commands", "cmd", "exec", "execute",
		"powershell", "pwsh", "process", "console")
	crawlToolWords = keySet("crawl", "crawler", "crawl4ai", "map", "scrape", "scraper", "spider", "sitemap", "extract", "search")
	sqlToolWords   = keySet("sql", "psql", "mysql", "sqlite", "sqlite3", "postgres", "postgresql", "pgsql", "mssql", "tsql", "duckdb", "clickhouse")
	// A search of files' contents: grep's names, or a search of contents,
	// code or text (a search of names, search_files, is not).
	grepToolWords    = keySet("grep", "egrep", "ripgrep", "rg", "ag", "ack")
	searchToolWords  = keySet("search", "find", "query", "lookup")
	contentToolWords = keySet("content", "contents", "code", "text", "fulltext", "regex", "string", "strings", "in")
	// An archive or backup of what it is given: every file under a
	// directory read (zip_directory, create_archive, backup_folder).
	archiveToolWords = keySet("zip", "tar", "tgz", "archive", "compress", "backup", "tarball", "7z", "squash", "pack", "packer", "repomix",
		"codebase", "bundle", "snapshot", "serve")
	// A verb over a whole tree (upload_folder, read_all_files,
	// copy_directory, index_repository): every file under it read.
	treeVerbWords = keySet("upload", "sync", "read", "copy", "export", "index", "dump", "ingest", "embed", "share", "publish", "mirror", "clone")
	treeWords     = keySet("folder", "folders", "directory", "directories", "dir", "tree", "all", "recursive", "recursively", "repo", "repository", "workspace", "project")
	// A runner of code in a language of its own, and the words that say a
	// shell runs it instead.
	codeToolWords = keySet("code", "python", "py", "notebook", "jupyter", "ipython", "snippet", "interpreter", "eval", "repl",
		"javascript", "js", "node", "deno", "typescript", "ruby", "r", "julia", "sandbox", "cell", "kernel")
	runVerbWords         = keySet("run", "exec", "execute", "eval", "evaluate", "interpret", "invoke", "runner")
	interpreterToolWords = keySet("interpreter", "repl", "jupyter", "notebook", "ipython")
	shellToolWordsOnly   = keySet("shell", "bash", "sh", "zsh", "terminal", "command", "commands", "cmd", "powershell", "pwsh", "console")
	// A tool that types into a terminal or a process: it sends keys or
	// input (sendVerbWords, keystrokeWords) to a pane, a terminal or a
	// process's stdin (terminalWords, or an argument of terminalArguments).
	sendVerbWords     = keySet("send", "write", "type", "press", "inject", "paste")
	keystrokeWords    = keySet("keys", "keystrokes", "input", "stdin", "text", "line", "chars")
	terminalWords     = keySet("tmux", "pane", "pty", "tty", "terminal", "term", "stdin", "process", "session", "shell", "console", "repl")
	terminalArguments = keySet("pid", "paneId", "pane", "sessionId", "session", "terminalId", "terminal", "processId", "tty", "ptyId", "target")
	// A key-value store's tools: their commands are the store's.
	keyValueToolWords = keySet("redis", "upstash", "valkey", "keydb", "memcached", "dragonfly")
	// A tool that reads what it is asked for by kind: a cluster's
	// resources (resources_get, get_resource, describe_resource).
	readVerbWords = keySet("get", "list", "read", "describe", "view", "watch", "show", "fetch", "dump")
	// A tool whose name starts with a verb that only reads what it names
	// (read_file, listDirectory, get_file_contents), each other word of
	// which names what is read (readNouns, readsByName).
	onlyReadVerbs = keySet("read", "get", "list", "view", "show", "cat", "search", "find", "stat", "head", "tail",
		"describe", "inspect", "count", "diff", "compare", "grep", "glob", "tree", "info", "ls", "lookup")
	// A tool that saves a file: a screenshot, a PDF, an export, a
	// recording, a download (browser_take_screenshot, browser_pdf_save).
	// (write_file's path is what it writes already: the floor reads it so.)
	// A tool that runs a command in a container or a pod.
	containerToolWords = keySet("container", "containers", "pod", "pods", "ssh", "remote")
	containerRunWords  = keySet("exec", "execute", "run", "runs")
	saveToolWords      = keySet("save", "screenshot", "screenshots", "export", "download", "record", "capture", "render")
	// A tool whose name says it reads a file, or takes one in: its file
	// name is what it reads, whatever else it claims (savedFileNames).
	readToolWords = keySet("get", "list", "read", "describe", "view", "watch", "show", "fetch", "dump", "open", "load", "cat", "parse",
		"analyze", "analyse", "inspect", "search", "find", "grep", "upload", "send", "attach", "import", "convert", "extract",
		"summarize", "summarise", "ocr", "transcribe", "info", "stat", "check", "lint", "validate", "preview", "query", "count",
		"hash", "diff", "compare", "play", "print", "index", "ingest", "embed", "classify", "detect", "scan", "verify", "tail", "head")
)

// outputNames are the names of arguments that say where a tool writes
// what it makes (outputPath, save_to, destination): the path is written,
// whatever the tool's annotations say. fileNames are the names of a
// file argument that a tool whose name says it saves writes to.
var (
	outputNames = keySet("output", "outputPath", "outPath", "outputFile", "outFile", "outputFilename", "outFilename", "savePath",
		"saveTo", "saveAs", "saveFile", "destination", "dest", "destPath", "destinationPath", "destFile", "downloadPath",
		"exportPath", "outputDir", "outputDirectory", "outDir", "targetFile", "writeTo", "extractTo", "copyTo", "moveTo",
		"exportTo", "downloadTo", "outputTo", "downloadDir", "saveDir")
	fileNames = keySet("filename", "fileName", "file", "path", "filePath", "name")
	// savedFileNames are the file names a tool that calls itself
	// read-only, and whose name says it reads nothing, saves what it
	// reads to (Playwright's browser_network_requests and
	// browser_console_messages take a "filename" to save to). A path is
	// read by its name "path" or "file" more often than saved to.
	savedFileNames = keySet("filename", "fileName", "outputName")
)

// outputArgument says the argument named arg is a file the tool writes.
func (t *tool) outputArgument(arg string) bool {
	n := FoldName(arg)
	return outputNames[n] || t.writes[n] || t.saves && fileNames[n] || t.savesQuietly && savedFileNames[n]
}

// nameHasWord reports whether a tool's name has a word of the set: its
// words split at "_", "-", ".", spaces and camelCase (splitWords).
func nameHasWord(name string, words map[string]bool) bool {
	for _, w := range splitWords(name) {
		if words[w] {
			return true
		}
	}
	return false
}

// endpointNames are the names of arguments that hold a route of an API
// whose server the tool is configured with: "/api/users" under them is
// that server's path.
var endpointNames = keySet("endpoint", "endpoints", "route", "routes", "apipath", "apiendpoint")

// keyNames are the names of arguments that hold a key pressed or a
// separator: one character under them is that, never the root or the
// home directory.
var keyNames = keySet("key", "keys", "char", "character", "chars", "separator", "delimiter", "sep", "delim", "hotkey",
	"shortcut", "keystroke", "keystrokes", "keycode", "press")

// readsByName reports a tool whose name says it only reads what it names:
// its first word reads (onlyReadVerbs) and every other names what is read
// (readNouns), so no word writes, runs or sends.
// Like a read-only hint it is the server's claim, which the floor takes
// about the files it guards against change, never about secrets.
func readsByName(name string) bool {
	words := splitWords(name)
	if len(words) == 0 || !onlyReadVerbs[words[0]] {
		return false
	}
	for _, w := range words[1:] {
		if !readNouns[w] {
			return false // view_update, get_fix_file, search_rewrite: another verb
		}
	}
	return true
}

// readNouns are the words after a reading verb that name what is read
// (read_text_file, list_directory_with_sizes, get_file_info): a tool name
// with any other word is not taken to read only.
var readNouns = keySet("file", "files", "text", "directory", "directories", "dir", "dirs", "folder", "folders", "contents",
	"content", "multiple", "info", "metadata", "tree", "entries", "path", "paths", "media", "image", "images",
	"document", "documents", "with", "sizes", "allowed", "raw", "lines", "details", "stat", "stats", "properties")

// nameCache remembers nameClass for the names one tool's calls use, up to
// maxCachedNames of them, so that names a model invents cannot fill
// memory. Read without a lock: every call reads it.
type nameCache struct {
	classes sync.Map // raw name -> Class
	size    atomic.Int64
}

const maxCachedNames = 256

func (c *nameCache) class(raw string) Class {
	if v, ok := c.classes.Load(raw); ok {
		return v.(Class)
	}
	class := nameClass(raw)
	if len(raw) <= maxWordedName && c.size.Load() < maxCachedNames {
		if _, loaded := c.classes.LoadOrStore(raw, class); !loaded {
			c.size.Add(1)
		}
	}
	return class
}

// splitWords splits a name into lower-case words at "_", "-", ".", spaces
// and camelCase boundaries ("sourcePDFPath" is source, pdf, path).
func splitWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == '.' || unicode.IsSpace(r):
			flush()
			continue
		case unicode.IsUpper(r) && len(cur) > 0:
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || unicode.IsUpper(prev) && nextLower {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}
