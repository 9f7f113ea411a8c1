package argread

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/internal/strictjson"
)

// Spec says how one tool's arguments name paths and URLs, beyond what is
// read by default. Names are argument names at any depth, compared folded
// (FoldName: "repoPath", "repo_path" and "REPO-PATH" are one name). A spec
// is the strongest evidence there is: it outranks the tool's schema and
// the names.
type Spec struct {
	// Tool is a glob over the tool names it is for.
	Tool string `json:"tool"`
	// Paths hold local paths; Directories hold paths of directories the
	// tool acts on (the suggestion for one is the directory itself, not its
	// parent); URLs hold URLs.
	Paths       []string `json:"paths,omitempty"`
	Directories []string `json:"directories,omitempty"`
	URLs        []string `json:"urls,omitempty"`
	// Writes hold local paths the tool writes, whatever its annotations
	// say (where it saves a screenshot, a log, a page's state): read as
	// paths, each a write to the danger floor.
	Writes []string `json:"writes,omitempty"`
	// Text hold text that is no local path, URL or option wherever it
	// goes: a path inside a remote repository, a SQL statement, an element
	// reference. Nothing in them is read.
	Text []string `json:"text,omitempty"`
	// Ignore hold neither, whatever their name or value looks like:
	// branch names, entity names, globs. Only what a command line would
	// read as an option ("--output=x") is checked. Ignoring a name read as
	// a path by default is a widening; keep it to what you know.
	Ignore []string `json:"ignore,omitempty"`
	// Commands hold shell command lines, run by a shell where the server
	// runs: each command in them is read (a list of strings, one line
	// each under a plural name, else one command's words).
	Commands []string `json:"commands,omitempty"`
	// Contained hold commands (a line, or one command's words) the tool
	// runs in a container or a pod: their paths are the container's, and
	// only the credentials they print and the hosts they reach are read.
	Contained []string `json:"contained,omitempty"`
	// Relative maps a path argument to the top-level argument its relative
	// paths are relative to (git_add's "files" to "repo_path"). When that
	// argument is missing or cannot be evaluated, the paths are unknown.
	Relative map[string]string `json:"relative,omitempty"`
}

// SpecError names the spec and the field that is wrong.
type SpecError struct {
	Spec  string // "argument spec 2"
	Field string
	Msg   string
}

func (e *SpecError) Error() string { return fmt.Sprintf("%s: field %q: %s", e.Spec, e.Field, e.Msg) }

// ValidateSpecs checks specs: a tool glob, names that are not empty, a
// name in one list only, a relative base that is not the name itself and
// a relative name that is read.
func ValidateSpecs(specs []Spec) error {
	for i, s := range specs {
		name := fmt.Sprintf("argument spec %d", i+1)
		if s.Tool == "" {
			return &SpecError{name, "tool", "must be a non-empty tool name or glob"}
		}
		if err := lexical.ValidateToolGlob(s.Tool); err != nil {
			return &SpecError{name, "tool", err.Error()}
		}
		seen := map[string]string{}
		for _, l := range s.lists() {
			for _, n := range l.names {
				if FoldName(n) == "" {
					return &SpecError{name, l.field, "an argument name must not be empty"}
				}
				if other, ok := seen[FoldName(n)]; ok && other != l.field {
					return &SpecError{name, l.field, fmt.Sprintf("%q is in %s too", n, other)}
				}
				seen[FoldName(n)] = l.field
			}
		}
		for n, base := range s.Relative {
			switch {
			case FoldName(n) == "" || FoldName(base) == "":
				return &SpecError{name, "relative", "an argument name must not be empty"}
			case FoldName(n) == FoldName(base):
				return &SpecError{name, "relative", fmt.Sprintf("%q cannot be relative to itself", n)}
			case seen[FoldName(n)] == "ignore" || seen[FoldName(n)] == "text":
				return &SpecError{name, "relative", fmt.Sprintf("%q is %s", n, map[string]string{"ignore": "ignored", "text": "text"}[seen[FoldName(n)]])}
			}
		}
	}
	return nil
}

// specList is one of a spec's lists of names, with the class it gives
// them.
type specList struct {
	field string
	names []string
	class Class
}

// lists are the spec's lists of names, in the order they apply: a later
// list's class wins (ValidateSpecs keeps a name in one).
func (s Spec) lists() []specList {
	return []specList{
		{"paths", s.Paths, Class{Kind: Path, Evidence: Specified}},
		{"writes", s.Writes, Class{Kind: Path, Evidence: Specified}},
		{"directories", s.Directories, Class{Kind: Dir, Evidence: Specified}},
		{"urls", s.URLs, Class{Kind: URL, Evidence: Specified}},
		{"text", s.Text, Class{Kind: Text, Evidence: Specified}},
		{"ignore", s.Ignore, Class{Kind: Ignore, Evidence: Specified}},
		{"commands", s.Commands, Class{Kind: Shell, Evidence: Specified}},
		{"contained", s.Contained, Class{Kind: Contained, Evidence: Specified}},
	}
}

// ParseSpecs decodes a JSON array of argument specs strictly (unknown
// fields and duplicate keys are errors) and validates it; what names the
// source in errors.
func ParseSpecs(data []byte, what string) ([]Spec, error) {
	if err := strictjson.Check(data); err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '[' {
		return nil, fmt.Errorf("%s: must be a JSON array of argument specs", what)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var specs []Spec
	if err := dec.Decode(&specs); err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	if err := ValidateSpecs(specs); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return specs, nil
}

// tool is what the specs and the schema say of one tool's arguments,
// compiled: class by folded name, and the relative bases.
type tool struct {
	// coveredCommands are the command globs of the user's allow rules for
	// this tool that name nothing else (DataMark.Commands).
	coveredCommands []string
	classes         map[string]Class
	// more are the other classes a schema gives a name it declares more
	// than one way (a path in one place, a host in another): its value is
	// read in each.
	more     map[string][]Class
	relative map[string]string
	// rest is the class the schema gives the top-level arguments it does
	// not declare (the root's additionalProperties), none for none; top
	// are the ones it declares.
	rest Class
	top  map[string]bool
	// ownReason: the tool's schema declares a "reason" argument of its own
	// (not the one package reasons adds): it is the tool's argument, read
	// like any other, not the model's sentence.
	ownReason bool
	// strings are the names the schema declares strings (folded).
	strings map[string]bool
	// name is the tool's name.
	name string
	// dirTool: the tool's name says it acts on directories.
	dirTool bool
	// saves: the tool's name says it saves or writes a file (a
	// screenshot, a PDF, an export), whatever its annotations say: its
	// file arguments are written (outputArgument).
	saves bool
	// savesQuietly: the tool calls itself read-only and its name says it
	// reads no file, so a file name it takes is where it saves
	// (savedFileNames): its read-only mark is its server's claim.
	savesQuietly bool
	// writes are the arguments a spec says the tool writes (Spec.Writes),
	// by folded name.
	writes map[string]bool
	// readsResources: the tool's name says it reads a cluster's
	// resources (resources_get, get_resource, describe, list).
	readsResources bool
	// crawl: the tool's name says it visits a site's pages, so its path
	// patterns beside a web URL are the site's (sitePatternNames).
	crawl bool
	// runsCode: the tool's name says it runs code in a language of its own
	// (run_code, run_python, code_interpreter, notebook_run), and not a
	// shell's: its code is read for its literals (codeLiterals).
	runsCode bool
	// readsByName: the tool's name says it only reads what it names
	// (readsByName): a path it is given and does not write is read.
	readsByName bool
	// searchesContents: the tool's name says it searches files' contents
	// (grep_search, search_code, ripgrep) or archives them (zip_directory,
	// create_backup): its paths are trees it reads.
	searchesContents bool
	// sql: the tool's name says it runs SQL (pg_psql, sqlite_exec), so
	// its "command" is a statement, not a shell's command line.
	sql bool
	// keyValue: the tool's name says it speaks to a key-value store
	// (redis_command, upstash_exec): its commands are the store's.
	keyValue bool
	// program is the command-line program the tool's name says it runs
	// (toolProgram): an array of a command's words is its words.
	program string
	// data are the places the user's marks name by JSON Pointer: what is
	// under them is data (names are in classes).
	data dataPointers
	// names caches nameClass by raw name for this tool's arguments (names
	// repeat from call to call), up to a bound: the name table is a pure
	// function, this only spares its work.
	names nameCache
}

// declaresString reports whether the tool's schema declares the argument
// a string, so that JSON in it is text.
func (t *tool) declaresString(raw string) bool { return t.strings[FoldName(raw)] }

// classOf is an argument's class in this tool: what a spec or the schema
// says, else what the name says anywhere.
func (t *tool) classOf(raw string) Class {
	if c, ok := t.classes[FoldName(raw)]; ok {
		return c
	}
	return t.names.class(raw)
}

// topClassOf is a top-level argument's class: classOf, or what the schema
// says of the arguments it does not declare.
func (t *tool) topClassOf(raw string) Class {
	if t.rest != none {
		nk := FoldName(raw)
		if _, ok := t.classes[nk]; !ok && !t.top[nk] {
			return t.rest
		}
	}
	return t.classOf(raw)
}

// moreOf are the classes beyond classOf's that the schema gives raw.
func (t *tool) moreOf(raw string) []Class {
	if t.more == nil {
		return nil
	}
	return t.more[FoldName(raw)]
}

// compileTool merges the specs that match the tool's name with its
// schema's formats: a spec outranks the schema (it is what a person said).
func compileTool(specs []Spec, marks []DataMark, name string, schema schemaKeys, known bool, annotations map[string]bool) *tool {
	t := &tool{name: name, dirTool: nameHasWord(name, dirToolWords), saves: nameHasWord(name, saveToolWords),
		readsResources: nameHasWord(name, readVerbWords), crawl: nameHasWord(name, crawlToolWords), program: toolProgram(name),
		sql: nameHasWord(name, sqlToolWords), keyValue: nameHasWord(name, keyValueToolWords), readsByName: readsByName(name),
		searchesContents: nameHasWord(name, grepToolWords) || nameHasWord(name, searchToolWords) && nameHasWord(name, contentToolWords) ||
			nameHasWord(name, archiveToolWords) || nameHasWord(name, treeVerbWords) && nameHasWord(name, treeWords),
		runsCode: !nameHasWord(name, shellToolWordsOnly) && (nameHasWord(name, runVerbWords) && nameHasWord(name, codeToolWords) ||
			nameHasWord(name, interpreterToolWords))}
	t.schemaClasses(schema)
	t.restClass(schema)
	t.nameClasses(name, schema)
	t.specClasses(specs, name)
	t.markData(marks, name, known, annotations)
	t.savesQuietly = annotations["readOnlyHint"] && !nameHasWord(name, readToolWords)
	t.ownReason = schema.ownReason
	t.stringNames(schema)
	return t
}

// setClass gives a name its class, in place of any the schema gave it.
func (t *tool) setClass(name string, c Class) {
	if t.classes == nil {
		t.classes = map[string]Class{}
	}
	t.classes[FoldName(name)] = c
	delete(t.more, FoldName(name)) // what a person said is all there is
}

// schemaClasses sets the schema's classes, every one a name has: a name
// declared a path in one place and a host in another is read as both,
// the path first.
func (t *tool) schemaClasses(schema schemaKeys) {
	type formats struct{ path, dir, url, host, valuePath, valueDir, valueURL, valueHost bool }
	byName := map[string]*formats{}
	mark := func(names map[string]bool, f func(*formats)) {
		for n := range names {
			nk := FoldName(n)
			if byName[nk] == nil {
				byName[nk] = &formats{}
			}
			f(byName[nk])
		}
	}
	mark(schema.paths, func(f *formats) { f.path = true })
	mark(schema.dirs, func(f *formats) { f.dir = true })
	mark(schema.urls, func(f *formats) { f.url = true })
	mark(schema.hosts, func(f *formats) { f.host = true })
	mark(schema.valuePaths, func(f *formats) { f.valuePath = true })
	mark(schema.valueDirs, func(f *formats) { f.valueDir = true })
	mark(schema.valueURLs, func(f *formats) { f.valueURL = true })
	mark(schema.valueHosts, func(f *formats) { f.valueHost = true })
	for nk, f := range byName {
		var list []Class
		switch local := localKind(f.path, f.dir); {
		case local != None && f.url:
			list = append(list, Class{Kind: PathOrURL, Evidence: Format}) // "a URL or a path" (anyOf, pydantic's Union[AnyUrl, Path])
		case local != None:
			list = append(list, Class{Kind: local, Evidence: Format})
		case f.url:
			list = append(list, Class{Kind: URL, Evidence: Format})
		}
		if f.host {
			list = append(list, Class{Kind: Host, Evidence: Format})
		}
		if local := localKind(f.valuePath, f.valueDir); local != None {
			list = append(list, Class{Kind: local, Evidence: Format, Values: true})
		}
		if f.valueURL {
			list = append(list, Class{Kind: URL, Evidence: Format, Values: true})
		}
		if f.valueHost {
			list = append(list, Class{Kind: Host, Evidence: Format, Values: true})
		}
		t.setClass(nk, list[0])
		if len(list) > 1 {
			if t.more == nil {
				t.more = map[string][]Class{}
			}
			t.more[nk] = list[1:]
		}
	}
}

// restClass sets the class the schema gives the top-level arguments it
// does not declare, and the ones it declares.
func (t *tool) restClass(schema schemaKeys) {
	switch local := localKind(schema.restPaths, schema.restDirs); {
	case local != None && schema.restURLs:
		t.rest = Class{Kind: PathOrURL, Evidence: Format}
	case local != None:
		t.rest = Class{Kind: local, Evidence: Format}
	case schema.restURLs:
		t.rest = Class{Kind: URL, Evidence: Format}
	case schema.restHosts:
		t.rest = Class{Kind: Host, Evidence: Format}
	}
	if t.rest != none {
		t.top = map[string]bool{}
		for name := range schema.top {
			t.top[FoldName(name)] = true
		}
	}
}

// nameClasses sets the classes the tool's name gives the arguments the
// schema did not class: a Compose file, a patch, a command line.
func (t *tool) nameClasses(name string, schema schemaKeys) {
	// A tool whose name says it runs shell commands (run_shell,
	// execute_bash, terminal_exec) runs a script, code or input given by
	// those names in a shell, unless its schema said otherwise.
	if nameHasWord(name, composeToolWords) {
		for _, n := range []string{"content", "yaml", "yml", "spec", "config", "definition", "manifest", "text", "body", "project",
			"projectyaml", "file", "filecontent"} {
			if _, ok := t.classes[n]; !ok {
				t.setClass(n, Class{Kind: Compose, Evidence: Word}) // Compose if it reads as a Compose file
			}
		}
	}
	if nameHasWord(name, patchToolWords) {
		for _, n := range []string{"input", "content", "text", "body"} {
			if _, ok := t.classes[n]; !ok {
				t.setClass(n, patchName)
			}
		}
	} else if nameHasWord(name, containerToolWords) && nameHasWord(name, containerRunWords) {
		// exec_in_container, pods_exec, run_container: the command runs
		// in the container.
		for _, n := range []string{"command", "cmd", "entrypoint", "script"} {
			if _, ok := t.classes[n]; !ok {
				t.setClass(n, Class{Kind: Contained, Evidence: Name, ByTool: true})
			}
		}
	} else if nameHasWord(name, shellToolWords) || typesIntoTerminal(name, schema) {
		for _, n := range []string{"script", "code", "input", "line", "exec", "run", "task", "program", "executable", "statement", "expression", "text", "keys", "shell", "bash",
			"data", "chars", "keystrokes"} {
			if _, ok := t.classes[n]; !ok {
				t.setClass(n, Class{Kind: Shell, Evidence: Name, ByTool: true})
			}
		}
	}
}

// typesIntoTerminal reports a tool that types into a terminal or a
// process (tmux_send_keys, send_input, write_stdin): its name sends keys
// or input, and says where (a pane, a terminal, a process's stdin) or its
// schema takes one (pid, paneId, sessionId). What it types, a shell runs
// there. A browser's or a form's typing (send_keys to an element) names
// no such place.
func typesIntoTerminal(name string, schema schemaKeys) bool {
	if !nameHasWord(name, sendVerbWords) || !nameHasWord(name, keystrokeWords) {
		return false
	}
	if nameHasWord(name, terminalWords) {
		return true
	}
	for n := range schema.top {
		if terminalArguments[n] {
			return true
		}
	}
	return false
}

// specClasses sets the classes and relative bases of the specs that
// match the tool's name.
func (t *tool) specClasses(specs []Spec, name string) {
	for _, s := range specs {
		if !lexical.MatchTool(s.Tool, name) {
			continue
		}
		for _, l := range s.lists() {
			for _, n := range l.names {
				t.setClass(n, l.class)
			}
		}
		for _, n := range s.Writes {
			if t.writes == nil {
				t.writes = map[string]bool{}
			}
			t.writes[FoldName(n)] = true
		}
		for n, base := range s.Relative {
			if t.relative == nil {
				t.relative = map[string]string{}
			}
			t.relative[FoldName(n)] = FoldName(base)
			if c, ok := t.classes[FoldName(n)]; !ok || !c.local() {
				t.setClass(n, Class{Kind: Path, Evidence: Specified})
			}
		}
	}
}

// markData applies the user's data marks that apply to the tool: a name
// marked is data, a JSON Pointer's place is kept in t.data.
func (t *tool) markData(marks []DataMark, name string, known bool, annotations map[string]bool) {
	for _, m := range marks {
		if !m.appliesTo(name, known, annotations) {
			continue
		}
		t.coveredCommands = append(t.coveredCommands, m.Commands...)
		for _, loc := range m.Locations {
			if !strings.HasPrefix(loc, "/") {
				t.setClass(loc, dataClass)
				delete(t.relative, FoldName(loc))
				continue
			}
			segs, _ := pointerSegments(loc) // valid: NewReader checked it
			for i, seg := range segs {
				if seg != "*" {
					segs[i] = FoldName(seg)
				}
			}
			t.data = append(t.data, segs)
		}
	}
}

// stringNames sets the names the schema declares strings.
func (t *tool) stringNames(schema schemaKeys) {
	// A name is text only if every spelling of it that folds to one name
	// is declared a string.
	notText := map[string]bool{}
	for name, declared := range schema.strings {
		if !declared {
			notText[FoldName(name)] = true
		}
	}
	for name, declared := range schema.strings {
		if nk := FoldName(name); declared && !notText[nk] {
			if t.strings == nil {
				t.strings = map[string]bool{}
			}
			t.strings[nk] = true
		}
	}
}

// localKind is the kind a schema's path and directory formats give a name:
// a directory if any says so.
func localKind(path, dir bool) Kind {
	switch {
	case dir:
		return Dir
	case path:
		return Path
	}
	return None
}
