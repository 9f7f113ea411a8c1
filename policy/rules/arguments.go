package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/mcp-policy/mcp-policy/builtins"
	"github.com/mcp-policy/mcp-policy/reasons"
)

// ArgumentSpec says how one tool's arguments name paths and URLs, beyond
// what is read by default (see the README's "Paths and URLs in a call").
// Names are argument names at any depth, compared as normKey folds them
// ("repoPath", "repo_path" and "REPO-PATH" are one name).
type ArgumentSpec struct {
	// Tool is a glob over the tool names it is for.
	Tool string `json:"tool"`
	// Paths hold local paths; Directories hold paths of directories the
	// tool acts on (the suggestion for one is the directory itself, not
	// its parent); URLs hold URLs.
	Paths       []string `json:"paths,omitempty"`
	Directories []string `json:"directories,omitempty"`
	URLs        []string `json:"urls,omitempty"`
	// Ignore hold neither, whatever their name or value looks like: branch
	// names, entity names, globs. Ignoring a name the engine reads as a
	// path by default is a widening; keep it to what you know.
	Ignore []string `json:"ignore,omitempty"`
	// Relative maps a path argument to the top-level argument its relative
	// paths are relative to (git_add's "files" to "repo_path"). When that
	// argument is missing or cannot be evaluated, the paths are unknown.
	Relative map[string]string `json:"relative,omitempty"`
}

// argClass is what an argument's name says its value is.
type argClass uint8

const (
	classNone      argClass = iota // unknown: a value that looks like a path or URL is an unknown one
	classPath                      // a local path
	classDir                       // a local path the tool acts on as a directory
	classURL                       // a URL (a file: URI, or anything that reads as a path, is a path)
	classPathOrURL                 // either (a schema allows both): a URL if it reads as one, else a path
	classHost                      // a bare host name or IP address
	classContent                   // text or file contents: a string is never a path or URL
	classIgnore                    // configured as neither: nothing but what a command line would read as an option ("-...") is checked
	classWordPath                  // a path by a word of its name: only strings count (a "fileCount" is a number)
	classWordDir                   // a directory by a word of its name, likewise
	classWordHost                  // a host by a name that often holds something else: a string that reads as a host is one, anything else is read as under classNone
	classPathMap                   // an object whose values are paths (a schema's additionalProperties); a string is a path
	classURLMap                    // an object whose values are URLs, likewise
	classHostMap                   // an object whose values are hosts, likewise
	classWordIP                    // a host by the ending "ip" ("serverIp", "membership"): as classWordHost, but a one-label name is no host unless it is localhost
)

// Limits on what one call may hold: past them the call is refused as a
// bad call, with the limit named, rather than decided at any cost.
const (
	// MaxArgumentsBytes bounds a call's arguments text.
	MaxArgumentsBytes = 32 << 20
	// MaxArgumentValues bounds the paths and URLs found in one call.
	MaxArgumentValues = 10_000
	// MaxArgumentDepth bounds how deep arguments nest (objects and arrays,
	// JSON inside strings included).
	MaxArgumentDepth = 64
)

// maxEmbeddedJSON bounds the strings read as JSON in their own right (a
// JSON document passed as a string, as some servers take options).
const maxEmbeddedJSON = 1 << 20

// The default names, compared folded (normKey). Each list holds singular
// and plural forms; a name also counts by its ending (nameEndings) or, for
// strings, by a path word anywhere in it (pathWordsAnywhere). What a name
// means is a function of its folded spelling and of where "_", "-" and "."
// separate its words (for stop words), never of its case: Go's
// encoding/json matches "OUTPUTPATH" and "outputpath" to a field tagged
// "outputPath", so the three must be one name here too, while it matches
// no spelling with a "_" added.
var (
	defaultPathNames = keySet(
		"path", "paths", "file", "files", "filepath", "filepaths", "filename", "filenames",
		"source", "sources", "src", "srcs", "destination", "destinations", "dest", "dests", "dst", "dsts",
		"target", "targets", "to", "from", "output", "outputs", "out", "outfile", "outfiles", "input_file", "input_files",
		"dockerfile", "executable", "executables", "db_path", "database_path", "pathname", "pathnames", "fullpath",
		"basename", "basenames", "attachment", "attachments", "save_as", "save_to",
		"extract_to", "copy_to", "move_to", "export_to", "download_to", "output_to", "write_to")
	defaultDirNames = keySet(
		"dir", "dirs", "directory", "directories", "dirpath", "dirpaths", "folder", "folders",
		"folderpath", "folderpaths", "root", "roots", "rootpath", "cwd", "workdir", "workdirs",
		"workingdir", "workingdirectory", "repopath", "repo_path", "outdir", "outdirs", "userdatadir", "dirname",
		"dirnames", "foldername", "foldernames")
	defaultURLNames = keySet(
		"url", "urls", "uri", "uris", "href", "hrefs", "link", "links", "endpoint", "endpoints",
		"webhook", "webhooks", "callback", "callbacks", "baseurl", "apiurl", "serverurl", "redirecturi",
		"redirecturl", "returnurl", "imageurl", "fileurl", "downloadurl", "proxyurl", "remoteurl",
		"repourl", "cloneurl", "origin")
	defaultHostNames = keySet("host", "hosts", "hostname", "hostnames", "ip", "ips", "ipaddress", "ipaddresses", "ipaddr",
		"ipv4", "ipv6")
	// Names that hold a host as often as a street address, a wallet, a
	// business domain or a server's name: a value that reads as a host is
	// one (classWordHost).
	defaultWeakHostNames = keySet("address", "addresses", "addr", "addrs", "server", "servers", "domain", "domains",
		"peer", "peers", "proxy", "proxies")
	// Content names hold text, often long, that is read as text: file
	// contents, messages, queries. Short names a server might use as a file
	// name (title, name, topic) are not among them.
	defaultContentNames = keySet(
		"content", "contents", "text", "texts", "body", "oldtext", "newtext", "oldstring", "newstring",
		"find", "replace", "substring", "message", "messages", "commitmessage", "description",
		"thought", "observation", "observations", "insight", "stdin", "stdintext", "markdown", "data",
		"query", "prompt", "comment", "comments", "summary", "instructions")
	// stopNames end like a path, URL or host name but are something else:
	// an XPath or JSONPath expression, a command, a package URL, a flag,
	// a user's profile. They are whole names, folded.
	stopNames = keySet("xpath", "xpaths", "jsonpath", "jsonpaths", "curl", "purl", "purls", "unlink", "blink",
		"userprofile", "userprofiles", "followsymlinks", "followsymlink", "followlinks", "followlink",
		"preservesymlinks", "resolvesymlinks", "dereferencesymlinks", "nofollowsymlinks", "allowsymlinks",
		"showtooltip", "showtooltips")
	// stopWords are words of their own that merely end like a path, URL
	// or host word: the name is read without them ("user_profile",
	// "follow-symlinks", "ghost.mode"). A stop word counts only as a whole
	// word between "_", "-", "." or the name's ends, never inside a word
	// or at a change of case: "cli_path" keeps its "clip", "syslog_host"
	// its "ghost" and "job_server" its "observer", and "ClipAth", which a
	// Go server matches to its "cliPath", is one word like "clipath".
	stopWords = keySet("profile", "profiles", "pathway", "pathways", "symlink", "symlinks", "hardlink", "hardlinks",
		"softlink", "softlinks", "followlink", "followlinks", "ghost", "ghosts", "observer", "observers",
		"tooltip", "tooltips", "zip", "zips", "skip", "skips", "ship", "ships", "clip", "clips", "chip", "chips",
		"flip", "flips", "slip", "slips", "strip", "strips", "trip", "trips", "drip", "drips", "grip", "grips",
		"whip", "whips", "equip", "equips")
)

// maxWordedName bounds the names whose words are read for stop words: a
// longer one is no field of any server's, and reading its words would
// cost the call its length in allocations.
const maxWordedName = 256

// nameEnding is an ending that makes a name a path, directory, URL or host
// name ("sourcepdfpath", "outputdir", "callbackurl", "redishost").
type nameEnding struct {
	suffix string
	class  argClass
}

// nameEndings, longest first, so that "dirpath" is a directory and not
// merely a "path".
var nameEndings = func() []nameEnding {
	var es []nameEnding
	add := func(c argClass, suffixes ...string) {
		for _, s := range suffixes {
			es = append(es, nameEnding{s, c})
		}
	}
	add(classDir, "dirpath", "dirpaths", "folderpath", "folderpaths", "rootpath", "rootpaths", "dirname", "dirnames",
		"foldername", "foldernames", "directory", "directories", "folder", "folders", "dir", "dirs", "cwd", "root", "roots")
	add(classPath, "path", "paths", "file", "files", "filename", "filenames", "pathname", "pathnames", "basename", "basenames")
	add(classURL, "url", "urls", "uri", "uris", "href", "hrefs", "link", "links", "endpoint", "endpoints",
		"webhook", "webhooks", "callback", "callbacks")
	add(classHost, "host", "hosts", "hostname", "hostnames", "ipaddress", "ipaddresses", "ipaddr", "ipaddrs")
	// "serverIp", "remote_ip": an ending too many words share ("zip",
	// "tooltip", "relationship") to make every value a host, so only a
	// value that reads as an address, or a name with a dot, is one.
	add(classWordIP, "ip", "ips")
	add(classHost, "ipv4address", "ipv6address")
	add(classWordHost, "address", "addresses", "addr", "addrs", "server", "servers", "domain", "domains",
		"peer", "peers", "proxy", "proxies")
	slices.SortStableFunc(es, func(a, b nameEnding) int { return len(b.suffix) - len(a.suffix) })
	return es
}()

// pathWordsAnywhere make a name a path's (or a directory's) wherever they
// are in it, for strings only: "pathInProject", "file_type" ("fileCount"
// is a number, and not a path).
var pathWordsAnywhere = []nameEnding{{"folder", classWordDir}, {"directory", classWordDir}, {"path", classWordPath}, {"file", classWordPath}}

// defaultClass is what an argument name means in any tool: a function of
// its folded spelling (normKey) and its "_", "-" and "." separated words.
func defaultClass(raw string) argClass {
	nk := normKey(raw)
	if c, ok := listedClass(nk); ok {
		return c
	}
	if strings.HasSuffix(nk, "ipv4") || strings.HasSuffix(nk, "ipv6") {
		return classHost // before the digits are dropped: "hostIpv4"
	}
	// Numbered names are the name: "file1", "path_2".
	name := strings.TrimRight(nk, "0123456789")
	if name != nk {
		if c, ok := listedClass(name); ok {
			return c
		}
	}
	if name == "" || stopNames[name] || stopWords[name] {
		return classNone
	}
	if len(raw) <= maxWordedName && strings.ContainsAny(raw, "_-.") {
		stripped := withoutStopWords(raw, name)
		if stripped == "" {
			return classNone
		}
		if stripped != name {
			// Read as if the stop words were not there: "zip_to" is "to".
			if c, ok := listedClass(stripped); ok && c != classContent {
				return c // content would read less than the name did: "zip_data" stays unrecognised
			}
		}
		name = stripped
	}
	for _, e := range nameEndings {
		if strings.HasSuffix(name, e.suffix) {
			return e.class
		}
	}
	for _, e := range pathWordsAnywhere {
		if strings.Contains(name, e.suffix) {
			return e.class
		}
	}
	return classNone
}

// withoutStopWords is name (raw folded, without the digits at its end)
// read without the stop words among raw's words ("_", "-" and "."
// separate them): folded and joined, "" when every word is one. With no
// stop word among them it is name itself.
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
		hasStopWord = len(w) >= 3 && stopWords[strings.TrimRight(normKey(w), "0123456789")]
	}
	if !hasStopWord {
		return name
	}
	words := strings.FieldsFunc(raw, isNameSeparator)
	var b strings.Builder
	for _, w := range words {
		if f := normKey(w); !stopWords[strings.TrimRight(f, "0123456789")] {
			b.WriteString(f)
		}
	}
	return strings.TrimRight(b.String(), "0123456789")
}

// isNameSeparator separates the words of a name for stop words.
func isNameSeparator(r rune) bool { return r == '_' || r == '-' || r == '.' }

// listedClass is the class of a name in the default lists.
func listedClass(nk string) (argClass, bool) {
	switch {
	case defaultContentNames[nk]:
		return classContent, true
	case defaultDirNames[nk]:
		return classDir, true
	case defaultPathNames[nk]:
		return classPath, true
	case defaultURLNames[nk]:
		return classURL, true
	case defaultHostNames[nk]:
		return classHost, true
	case defaultWeakHostNames[nk]:
		return classWordHost, true
	}
	return classNone, false
}

// defaultClasses caches defaultClass by raw name: argument names repeat
// from call to call. It stops growing at a bound, so arguments with ever
// new names cannot fill memory.
// A sync.Map, read without a lock: every call reads it.
var (
	defaultClasses     sync.Map // raw name -> argClass
	defaultClassesSize atomic.Int64
)

const maxCachedNames = 4096

func cachedDefaultClass(raw string) argClass {
	if c, ok := defaultClasses.Load(raw); ok {
		return c.(argClass)
	}
	c := defaultClass(raw)
	if len(raw) <= maxWordedName && defaultClassesSize.Load() < maxCachedNames {
		if _, loaded := defaultClasses.LoadOrStore(raw, c); !loaded {
			defaultClassesSize.Add(1)
		}
	}
	return c
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

// toolArgs is the configuration and schema of one tool, compiled: class
// by normalised name, and the relative bases. Nil maps for a tool nothing
// configures.
type toolArgs struct {
	classes map[string]argClass
	// more are the other classes a schema gives a name it declares more
	// than one way (a path in one place, a host in another): its value is
	// read in each.
	more     map[string][]argClass
	relative map[string]string
	// rest is the class the schema gives the top-level arguments it does
	// not declare (the root's additionalProperties), classNone for none;
	// top are the ones it declares.
	rest argClass
	top  map[string]bool
	// ownReason: the tool's schema declares a "reason" argument of its
	// own (not the one package reasons adds): it is the tool's argument,
	// read like any other, not the model's sentence.
	ownReason bool
	// strings are the names the schema declares strings (normalised).
	strings map[string]bool
}

// declaresString reports whether the tool's schema declares the argument a
// string, so that JSON in it is text.
func (ta *toolArgs) declaresString(raw string) bool {
	return ta != nil && ta.strings[normKey(raw)]
}

// classOf is an argument's class in this tool: what the configuration or
// the schema says, else what the name says anywhere.
func (ta *toolArgs) classOf(raw string) argClass {
	if ta != nil && ta.classes != nil {
		if c, ok := ta.classes[normKey(raw)]; ok {
			return c
		}
	}
	return cachedDefaultClass(raw)
}

// topClassOf is a top-level argument's class: classOf, or what the
// schema says of the arguments it does not declare.
func (ta *toolArgs) topClassOf(raw string) argClass {
	if ta != nil && ta.rest != classNone {
		nk := normKey(raw)
		if _, ok := ta.classes[nk]; !ok && !ta.top[nk] {
			return ta.rest
		}
	}
	return ta.classOf(raw)
}

// moreOf are the classes beyond classOf's that the schema gives raw.
func (ta *toolArgs) moreOf(raw string) []argClass {
	if ta == nil || ta.more == nil {
		return nil
	}
	return ta.more[normKey(raw)]
}

// compileArgs merges the specs that match tool with its schema's formats
// (the specs win: they are what a person said).
func compileArgs(specs []ArgumentSpec, tool string, schema schemaKeys) *toolArgs {
	ta := &toolArgs{}
	set := func(name string, c argClass) {
		if ta.classes == nil {
			ta.classes = map[string]argClass{}
		}
		ta.classes[normKey(name)] = c
		delete(ta.more, normKey(name)) // what a person said is all there is
	}
	// The schema's classes, every one a name has: a name declared a path
	// in one place and a host in another is read as both, the path first.
	byName := map[string]map[argClass]bool{}
	for c, names := range map[argClass]map[string]bool{classPath: schema.paths, classURL: schema.urls, classHost: schema.hosts,
		classPathMap: schema.valuePaths, classURLMap: schema.valueURLs, classHostMap: schema.valueHosts} {
		for name := range names {
			nk := normKey(name)
			if byName[nk] == nil {
				byName[nk] = map[argClass]bool{}
			}
			byName[nk][c] = true
		}
	}
	for nk, cs := range byName {
		var list []argClass
		switch {
		case cs[classPath] && cs[classURL]:
			list = append(list, classPathOrURL) // "a URL or a path" (anyOf, pydantic's Union[AnyUrl, Path])
		case cs[classPath]:
			list = append(list, classPath)
		case cs[classURL]:
			list = append(list, classURL)
		}
		for _, c := range []argClass{classHost, classPathMap, classURLMap, classHostMap} {
			if cs[c] {
				list = append(list, c)
			}
		}
		set(nk, list[0])
		if len(list) > 1 {
			if ta.more == nil {
				ta.more = map[string][]argClass{}
			}
			ta.more[nk] = list[1:]
		}
	}
	switch {
	case schema.restPaths && schema.restURLs:
		ta.rest = classPathOrURL
	case schema.restPaths:
		ta.rest = classPath
	case schema.restURLs:
		ta.rest = classURL
	case schema.restHosts:
		ta.rest = classHost
	}
	if ta.rest != classNone {
		ta.top = map[string]bool{}
		for name := range schema.top {
			ta.top[normKey(name)] = true
		}
	}
	for _, s := range specs {
		if !builtins.MatchTool(s.Tool, tool) {
			continue
		}
		for _, n := range s.Paths {
			set(n, classPath)
		}
		for _, n := range s.Directories {
			set(n, classDir)
		}
		for _, n := range s.URLs {
			set(n, classURL)
		}
		for n, base := range s.Relative {
			if ta.relative == nil {
				ta.relative = map[string]string{}
			}
			ta.relative[normKey(n)] = normKey(base)
			if _, ok := ta.classes[normKey(n)]; !ok {
				set(n, classPath)
			}
		}
		for _, n := range s.Ignore {
			set(n, classIgnore)
		}
	}
	ta.ownReason = schema.ownReason
	// A name is text only if every spelling of it that folds to one name
	// is declared a string.
	notText := map[string]bool{}
	for name, declared := range schema.strings {
		if !declared {
			notText[normKey(name)] = true
		}
	}
	for name, declared := range schema.strings {
		if nk := normKey(name); declared && !notText[nk] {
			if ta.strings == nil {
				ta.strings = map[string]bool{}
			}
			ta.strings[nk] = true
		}
	}
	if ta.classes == nil && ta.relative == nil && !ta.ownReason && ta.strings == nil && ta.rest == classNone {
		return nil
	}
	return ta
}

// ValidateArgumentSpecs checks specs: a tool glob, names that are not
// empty, a relative base that is not the name itself, a name not both
// ignored and read.
func ValidateArgumentSpecs(specs []ArgumentSpec) error {
	for i, s := range specs {
		name := fmt.Sprintf("argument spec %d", i+1)
		if s.Tool == "" {
			return &ValidationError{Rule: name, Field: "tool", Msg: "must be a non-empty tool name or glob"}
		}
		if err := builtins.ValidateToolGlob(s.Tool); err != nil {
			return &ValidationError{Rule: name, Field: "tool", Msg: err.Error()}
		}
		seen := map[string]string{}
		for field, names := range map[string][]string{"paths": s.Paths, "directories": s.Directories, "urls": s.URLs, "ignore": s.Ignore} {
			for _, n := range names {
				if normKey(n) == "" {
					return &ValidationError{Rule: name, Field: field, Msg: "an argument name must not be empty"}
				}
				if other, ok := seen[normKey(n)]; ok && other != field {
					return &ValidationError{Rule: name, Field: field, Msg: fmt.Sprintf("%q is in %s too", n, other)}
				}
				seen[normKey(n)] = field
			}
		}
		for n, base := range s.Relative {
			switch {
			case normKey(n) == "" || normKey(base) == "":
				return &ValidationError{Rule: name, Field: "relative", Msg: "an argument name must not be empty"}
			case normKey(n) == normKey(base):
				return &ValidationError{Rule: name, Field: "relative", Msg: fmt.Sprintf("%q cannot be relative to itself", n)}
			case seen[normKey(n)] == "ignore":
				return &ValidationError{Rule: name, Field: "relative", Msg: fmt.Sprintf("%q is ignored", n)}
			}
		}
	}
	return nil
}

// ParseArgumentSpecs decodes a JSON array of argument specs strictly
// (unknown fields and duplicate keys are errors) and validates it; what
// names the source in errors.
func ParseArgumentSpecs(data []byte, what string) ([]ArgumentSpec, error) {
	if err := CheckJSON(data); err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '[' {
		return nil, fmt.Errorf("%s: must be a JSON array of argument specs", what)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var specs []ArgumentSpec
	if err := dec.Decode(&specs); err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	if err := ValidateArgumentSpecs(specs); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return specs, nil
}

// schemaKeys are the property names a tool's input schema marks as paths
// ("format": "path"), URLs ("format": "uri" and the like) or hosts
// ("format": "hostname", "ipv4"), at any depth, or whose values are (a
// format on additionalProperties), and the ones it declares strings.
type schemaKeys struct {
	paths, urls map[string]bool
	hosts       map[string]bool // format hostname, idn-hostname, ipv4, ipv6
	// valuePaths, valueURLs and valueHosts name objects whose values (not
	// keys) are paths, URLs or hosts: a format on additionalProperties or
	// patternProperties.
	valuePaths, valueURLs, valueHosts map[string]bool
	// strings are the property names declared a string (or a string or
	// null) wherever they are declared: a JSON document in one is text.
	strings   map[string]bool
	ownReason bool // a top-level "reason" property that is not package reasons' own
	// restPaths, restURLs and restHosts say the top-level arguments the
	// schema does not declare (its root's additionalProperties or
	// patternProperties) are paths, URLs or hosts; top are the ones it
	// declares.
	restPaths, restURLs, restHosts bool
	top                            map[string]bool
}

// maxSchemaSteps bounds the schema objects parseSchemaKeys reads.
const maxSchemaSteps = 1 << 20

// parseSchemaKeys walks a JSON Schema: properties, items, prefixItems,
// additionalItems, additionalProperties, unevaluatedProperties,
// patternProperties, propertyNames, dependentSchemas, the combinators,
// if, then and else, and local $refs. A $ref is followed once for each
// name and kind it is reached under (so a cycle ends, and a definition
// shared by a path and a host is read for both). A description is not
// enough: only formats and types count.
func parseSchemaKeys(params json.RawMessage) schemaKeys {
	keys := schemaKeys{paths: map[string]bool{}, urls: map[string]bool{}, strings: map[string]bool{},
		hosts: map[string]bool{}, valuePaths: map[string]bool{}, valueURLs: map[string]bool{}, valueHosts: map[string]bool{},
		top: map[string]bool{}}
	var root any
	if json.Unmarshal(params, &root) != nil {
		return keys
	}
	type refUse struct {
		ref, name string
		values    bool
	}
	followed := map[refUse]bool{}
	anchors := schemaAnchors(root)
	// walk reads the schema of the argument named name ("" for the
	// top-level object itself); values says it is the schema of that
	// object's values (additionalProperties), not of the argument itself.
	// steps bounds the walk: refs followed under many names read parts
	// of a schema more than once, and no real schema takes this many.
	steps := 0
	var walk func(name string, node any, depth int, values bool)
	walk = func(name string, node any, depth int, values bool) {
		obj, ok := node.(map[string]any)
		if steps++; !ok || depth > MaxArgumentDepth || steps > maxSchemaSteps {
			return
		}
		for _, k := range []string{"$ref", "$dynamicRef"} {
			ref, ok := obj[k].(string)
			if !ok || followed[refUse{ref, name, values}] {
				continue
			}
			followed[refUse{ref, name, values}] = true
			if target, ok := resolveLocalRef(root, ref, anchors); ok {
				walk(name, target, depth, values) // as if written here: a chain of refs is no deeper
			}
		}
		if format, ok := obj["format"].(string); ok && (name != "" || values) {
			paths, urls, hosts := keys.paths, keys.urls, keys.hosts
			if values {
				paths, urls, hosts = keys.valuePaths, keys.valueURLs, keys.valueHosts
			}
			if name == "" { // the root's own values: its undeclared arguments
				paths, urls, hosts = map[string]bool{}, map[string]bool{}, map[string]bool{}
			}
			switch strings.ToLower(format) {
			case "path", "file-path", "filepath", "directory", "dir", "directory-path", "dir-path":
				paths[name] = true
			case "uri", "url", "uri-reference", "iri", "iri-reference":
				urls[name] = true
			case "hostname", "idn-hostname", "ipv4", "ipv6", "host-name", "ip-address": // the last two: draft 3's
				hosts[name] = true
			}
			if name == "" {
				keys.restPaths = keys.restPaths || paths[""]
				keys.restURLs = keys.restURLs || urls[""]
				keys.restHosts = keys.restHosts || hosts[""]
			}
		}
		if props, ok := obj["properties"].(map[string]any); ok {
			for k, v := range props {
				if name == "" && !values {
					keys.top[k] = true
				}
				declared, seen := keys.strings[k]
				keys.strings[k] = isStringSchema(v) && (declared || !seen)
				walk(k, v, depth+1, false)
			}
		}
		// An object's values, by any name: its additional and pattern
		// properties.
		walk(name, obj["additionalProperties"], depth+1, true)
		walk(name, obj["unevaluatedProperties"], depth+1, true)
		if pattern, ok := obj["patternProperties"].(map[string]any); ok {
			for _, v := range pattern {
				walk(name, v, depth+1, true)
			}
		}
		walk(name, obj["propertyNames"], depth+1, false) // its keys: an object under a path's name has paths for keys
		for _, k := range []string{"items", "additionalItems", "unevaluatedItems", "contains", "not", "if", "then", "else"} {
			walk(name, obj[k], depth+1, values) // an array's elements are named by the array
		}
		for _, k := range []string{"prefixItems", "anyOf", "oneOf", "allOf", "items"} {
			if list, ok := obj[k].([]any); ok {
				for _, v := range list {
					walk(name, v, depth+1, values)
				}
			}
		}
		// Schemas that apply when a property is there, to the object
		// itself (draft 2019-09's dependentSchemas, draft 7's
		// dependencies; a dependency's list of names is no schema).
		for _, k := range []string{"dependentSchemas", "dependencies"} {
			if deps, ok := obj[k].(map[string]any); ok {
				for _, v := range deps {
					walk(name, v, depth+1, values)
				}
			}
		}
	}
	walk("", root, 0, false)
	if obj, ok := root.(map[string]any); ok {
		if props, ok := obj["properties"].(map[string]any); ok {
			if r, ok := props[ReasonArgument].(map[string]any); ok {
				keys.ownReason = r["description"] != reasons.Description
			}
		}
	}
	return keys
}

// resolveLocalRef finds the schema a $ref or $dynamicRef names within the
// document: a JSON Pointer fragment ("#/$defs/P", percent-decoded as a
// URI fragment is) or an anchor ("#P"), after the document's own $id if
// it is written out ("https://x/s#/$defs/P"). A ref to another document
// is not followed.
func resolveLocalRef(root any, ref string, anchors map[string]any) (any, bool) {
	base, fragment, found := strings.Cut(ref, "#")
	if !found {
		return nil, false
	}
	if base != "" {
		m, _ := root.(map[string]any)
		if id, _ := m["$id"].(string); id == "" || strings.TrimSuffix(id, "#") != base {
			return nil, false
		}
	}
	if !strings.HasPrefix(fragment, "/") && fragment != "" {
		target, ok := anchors[fragment]
		return target, ok
	}
	target := root
	for _, part := range strings.Split(fragment, "/")[1:] {
		if d, err := url.PathUnescape(part); err == nil {
			part = d // a URI fragment: "#/$defs/My%20Path"
		}
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, _ := target.(map[string]any)
		target = m[part]
	}
	return target, target != nil
}

// schemaAnchors are the subschemas of a schema by their $anchor and
// $dynamicAnchor names.
func schemaAnchors(root any) map[string]any {
	anchors := map[string]any{}
	var scan func(node any, depth int)
	scan = func(node any, depth int) {
		if depth > MaxArgumentDepth {
			return
		}
		switch n := node.(type) {
		case map[string]any:
			for _, k := range []string{"$anchor", "$dynamicAnchor"} {
				if a, ok := n[k].(string); ok {
					if _, taken := anchors[a]; !taken {
						anchors[a] = n
					}
				}
			}
			for _, v := range n {
				scan(v, depth+1)
			}
		case []any:
			for _, v := range n {
				scan(v, depth+1)
			}
		}
	}
	scan(root, 0)
	return anchors
}

// isStringSchema reports a schema that admits a string and nothing else
// but null: {"type": "string"}, {"type": ["string", "null"]}, or an anyOf
// or oneOf of those (pydantic's Optional[str]). A server that parses JSON
// passed as a string (FastMCP) does so for any other type.
func isStringSchema(node any) bool {
	obj, ok := node.(map[string]any)
	if !ok {
		return false
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if list, ok := obj[k].([]any); ok && len(list) > 0 {
			str := false
			for _, v := range list {
				switch sub, _ := v.(map[string]any); {
				case isStringSchema(v):
					str = true
				case sub["type"] != "null":
					return false
				}
			}
			return str
		}
	}
	switch t := obj["type"].(type) {
	case string:
		return t == "string"
	case []any:
		str := false
		for _, x := range t {
			switch x {
			case "string":
				str = true
			case "null":
			default:
				return false
			}
		}
		return str
	}
	return false
}

// looksLikePath reports a string that reads as a local path wherever it
// is: absolute, a "~" path, a file: URI, a Windows drive or UNC path, or
// one with a ".." name in it.
func looksLikePath(s string) bool {
	if s == "" {
		return false
	}
	switch c := s[0]; {
	case c == '/' || c == '~' || c == '\\':
		return true
	case builtins.IsFileURI(s):
		return true
	case len(s) >= 3 && s[1] == ':' && (s[2] == '/' || s[2] == '\\') && (c|0x20 >= 'a' && c|0x20 <= 'z'):
		return true
	}
	for i := strings.Index(s, ".."); i >= 0; {
		before := i == 0 || s[i-1] == '/' || s[i-1] == '\\'
		after := i+2 == len(s) || s[i+2] == '/' || s[i+2] == '\\'
		if before && after {
			return true
		}
		next := strings.Index(s[i+1:], "..")
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

// looksLikeOption reports a string a command line would read as an option
// naming a path: "--output=/home/u/.bashrc", "-o/x", "--config=~/c", and
// with a relative value that has a "/" in it or is a dot-name,
// "--output=.git/config", "-o.bashrc". A server that passes an argument
// to a program (git's refs, a target name) turns it into a write where the
// policy saw a name. The value is read trimmed, as a shell would unquote
// it; "--verbose", "-v" and "--format=json" are no paths.
func looksLikeOption(s string) bool {
	if len(s) < 3 || s[0] != '-' {
		return false
	}
	var value string
	relative := true // a relative value counts: "--x=v", or "-xv" with a letter x
	switch i := strings.IndexByte(s, '='); {
	case i > 0:
		value = s[i+1:]
	case s[1] != '-':
		value, relative = s[2:], isASCIILetter(s[1])
	default:
		return false
	}
	value = trimReading(value)
	if looksLikePath(value) || looksLikeURL(value) || readsAsURL(value) {
		return true
	}
	return relative && (strings.ContainsAny(value, "/\\") || strings.HasPrefix(value, "."))
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// trimReading is s as a server that trims its arguments might read it:
// without the white space, control characters, format characters (the
// BOM, zero widths, direction marks) and quotes at its ends, as many as
// there are and each end on its own. A server may strip one pair of
// quotes, or every quote character at each end, or only the ones at its
// start; taking all of them off reads what the most eager of them reads
// ("'/x\"", "”/x”" and "„/x" are all /x).
func trimReading(s string) string {
	if s == "" || !edgeByte(s[0]) && !edgeByte(s[len(s)-1]) {
		return s // the common case: nothing a server would trim
	}
	return strings.TrimFunc(s, func(r rune) bool { return trimmable(r) || quoteRunes[r] })
}

// quoteRunes are the quotes trimReading takes off: ASCII's, the angle
// brackets around a URL, and the typographic, CJK and full-width quotes.
var quoteRunes = func() map[rune]bool {
	m := map[rune]bool{}
	for _, r := range "\"'`<>\u201c\u201d\u201e\u201f\u2018\u2019\u201a\u201b\u00ab\u00bb\u2039\u203a" +
		"\u300c\u300d\u300e\u300f\u301d\u301e\u301f\uff02\uff07\u275b\u275c\u275d\u275e" {
		m[r] = true
	}
	return m
}()

// edgeByte is a first or last byte that may start something trimReading
// trims.
func edgeByte(c byte) bool {
	return c <= ' ' || c >= 0x7f || c == '"' || c == '\'' || c == '`' || c == '<' || c == '>'
}

func trimmable(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}

// readsAsURL reports a (trimmed) string that reads as a URL other than a
// file URI (a path): a scheme and "://", a special scheme's URL however
// many slashes or backslashes follow its colon ("https:/x", "http:\\x",
// "ws:x", each of which a WHATWG parser repairs to "scheme://x"), or a
// URL without its scheme ("//host/x").
func readsAsURL(s string) bool {
	if builtins.IsFileURI(s) {
		return false
	}
	if looksLikeURL(s) || specialSchemeURL(s) {
		return true
	}
	return len(s) > 2 && (s[0] == '/' || s[0] == '\\') && (s[1] == '/' || s[1] == '\\') && s[2] != '/' && s[2] != '\\'
}

// specialSchemeURL reports a string that starts with http:, https:, ws:,
// wss: or ftp: (any case; the tabs and newlines a WHATWG parser removes
// from anywhere ignored) and names something after the slashes.
func specialSchemeURL(s string) bool {
	var scheme [5]byte
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\t' || c == '\n' || c == '\r':
		case c == ':':
			switch string(scheme[:n]) {
			case "http", "https", "ws", "wss", "ftp":
			default:
				return false
			}
			for i++; i < len(s); i++ {
				if c := s[i]; c != '/' && c != '\\' && c != '\t' && c != '\n' && c != '\r' {
					return true
				}
			}
			return false
		case (c|0x20 >= 'a' && c|0x20 <= 'z') && n < len(scheme):
			scheme[n] = c | 0x20
			n++
		default:
			return false
		}
	}
	return false
}

// startsWithScheme reports a string that starts with a URL scheme and its
// colon ("https:", "mailto:", "s3:").
func startsWithScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c|0x20 >= 'a' && c|0x20 <= 'z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return true
		default:
			return false
		}
	}
	return false
}

// looksLikeURL reports a string that starts with a scheme and "//".
func looksLikeURL(s string) bool {
	i := strings.Index(s, "://")
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := s[j]
		letter := c|0x20 >= 'a' && c|0x20 <= 'z'
		if !letter && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// argWalker finds a call's paths and URLs: every string in its arguments,
// at any depth, classed by the name of the argument it is under.
type argWalker struct {
	in      *Input
	tool    *toolArgs
	dirTool bool // the tool's name says it acts on directories
	// bases are the top-level arguments relative paths may be relative
	// to, by folded name: every one that folds to it (a server may read
	// the first, the last, or the one spelt exactly).
	bases map[string][]baseValue
	// embedded is how many bytes of JSON inside strings were read: a
	// budget, so that JSON nested in strings cannot multiply the work.
	embedded int
	err      error
}

// baseValue is a top-level argument's resolved path, "" when it has none.
type baseValue struct{ resolved string }

// pointer is where a value is in the arguments, as a chain from the top:
// the JSON Pointer is only spelt out for the values that are kept.
type pointer struct {
	up    *pointer
	key   string // an object's key, or
	index int    // an array's index, when key is ""
	isKey bool
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

// walk classes one value under the argument named raw (the nearest
// object key; an array's elements are under the array's name).
func (w *argWalker) walk(raw string, class argClass, t *ast.Term, at *pointer, depth int) {
	if w.err != nil {
		return
	}
	if depth > MaxArgumentDepth {
		w.err = &BadCallError{fmt.Sprintf("arguments nest deeper than %d levels", MaxArgumentDepth)}
		return
	}
	switch v := t.Value.(type) {
	case ast.String:
		w.str(raw, class, t, string(v), at, depth)
	case *ast.Array:
		for i := 0; i < v.Len(); i++ {
			w.walk(raw, class, v.Elem(i), &pointer{up: at, index: i}, depth+1)
		}
	case ast.Object:
		_ = v.Iter(func(k, val *ast.Term) error {
			key := string(k.Value.(ast.String))
			inner := w.tool.classOf(key)
			switch class {
			case classPath, classDir, classWordPath, classWordDir:
				// An object under a path's name maps paths to something
				// (a multi-file write's {"a.md": "...", ".git/x": "..."}):
				// its keys are paths. Or it holds the path another way
				// ({"path": {"value": "x"}}): a string under a key that
				// says nothing itself is a path, unless the key reads as
				// a file name, whose value is the file's contents.
				w.pathString(raw, class, k, key, at)
				if inner == classNone && !strings.ContainsAny(key, "./\\") {
					inner = classWordPath
					if class == classDir || class == classWordDir {
						inner = classWordDir
					}
				}
			case classPathMap, classURLMap, classHostMap:
				// The schema's map of names to paths, URLs or hosts: its
				// values are what the schema says, its keys are names.
				w.unnamedKey(raw, k, key, at)
				inner = map[argClass]argClass{classPathMap: classPath, classURLMap: classURL, classHostMap: classHost}[class]
			case classIgnore:
				if inner == classNone {
					inner = classIgnore // an ignored argument's fields are ignored too
				}
			case classContent:
			default:
				w.unnamedKey(raw, k, key, at)
			}
			w.walkNamed(key, inner, val, &pointer{up: at, key: key, isKey: true}, depth+1)
			return nil
		})
	default:
		// A number, boolean or null where a path or URL belongs is
		// reported as unknown: it is not what the server will read.
		switch class {
		case classPath, classDir:
			w.add(&w.in.Paths, Value{Arg: raw, raw: t}, at, class)
		case classURL, classHost, classPathOrURL:
			w.add(&w.in.Hosts, Value{Arg: raw, raw: t}, at, class)
		}
	}
}

// walkNamed walks the value of the argument named key under class, and
// again under each other class the schema gives that name, unless class
// is not the name's own (the object it is in decided it).
func (w *argWalker) walkNamed(key string, class argClass, t *ast.Term, at *pointer, depth int) {
	w.walk(key, class, t, at, depth)
	if class == w.tool.classOf(key) {
		for _, c := range w.tool.moreOf(key) {
			w.walk(key, c, t, at, depth)
		}
	}
}

func (w *argWalker) str(raw string, class argClass, t *ast.Term, s string, at *pointer, depth int) {
	v := Value{Arg: raw, raw: t}
	switch class {
	case classContent:
		// Text, but JSON passed as a string where the schema does not
		// say text is parsed by servers (FastMCP) into what it holds.
		if !w.tool.declaresString(raw) {
			w.embeddedDoc(raw, class, t, s, at, depth, false)
		}
		return
	case classIgnore:
		// Ignored (a git ref, an entity's name), but not what a command
		// line would read as an option: "--output=.git/config" writes in
		// the repository git runs in, "--ext-diff" runs a program.
		if r := trimReading(s); r != "" && r[0] == '-' {
			w.add(&w.in.Paths, v, at, classNone)
		}
	case classPath, classDir, classWordPath, classWordDir, classPathMap:
		w.pathString(raw, class, t, s, at)
		w.embeddedDoc(raw, class, t, s, at, depth, false)
	case classURL, classPathOrURL, classURLMap:
		switch {
		case builtins.IsFileURI(s): // a file URI names a path, whatever the name says
			v.Resolved, _ = builtins.Resolve(w.in.Root, s)
			w.add(&w.in.Paths, v, at, class)
		case class == classPathOrURL && !readsAsURL(trimReading(s)):
			w.pathString(raw, classPath, t, s, at)
		default:
			var ok bool
			v.Resolved, ok = builtins.URLHost(s)
			w.add(&w.in.Hosts, v, at, class)
			if !ok && (looksLikePath(s) || !startsWithScheme(s)) {
				// Not a URL as written: a server that takes either
				// reads a path (" /x", "secret/key"), or trims the value
				// into a file URI (" file:///x"). Unknown as a host,
				// and as a path.
				w.add(&w.in.Paths, Value{Arg: raw, raw: t}, at, classNone)
			}
		}
		w.embeddedDoc(raw, class, t, s, at, depth, false)
	case classHost, classHostMap:
		var ok bool
		if v.Resolved, ok = builtins.HostOf(s); !ok && readsAsURL(trimReading(s)) {
			v.Resolved, _ = builtins.URLHost(s) // a URL where a host belongs: its host
		}
		w.add(&w.in.Hosts, v, at, class)
		w.embeddedDoc(raw, class, t, s, at, depth, false)
	case classWordHost, classWordIP:
		r := trimReading(s)
		h, ok := weakHost(r, class == classWordIP)
		if !ok {
			w.unnamed(raw, class, t, s, at, depth)
			return
		}
		if r == s {
			v.Resolved = h
		} // else unknown: s has what a server trims
		w.add(&w.in.Hosts, v, at, class)
	default:
		w.unnamed(raw, classNone, t, s, at, depth)
	}
}

// unnamed classes a string no name says anything of by what it reads as,
// once trimmed as a server might trim it: a path, a URL (each unknown), an
// IP address, or a JSON document, read in its own right under class.
func (w *argWalker) unnamed(raw string, class argClass, t *ast.Term, s string, at *pointer, depth int) {
	v := Value{Arg: raw, raw: t}
	r := trimReading(s)
	asPath := looksLikePath(r) || looksLikeOption(r)
	asURL := readsAsURL(r)
	if asPath {
		w.add(&w.in.Paths, v, at, classNone) // unknown: no name says what it is relative to
	}
	if asURL {
		w.add(&w.in.Hosts, v, at, classNone)
	}
	if asPath || asURL {
		return
	}
	if readsAsIP(r) {
		// An address is a host, read as a server reads it: canonical, so
		// a range matches it; unknown if it has what a server trims.
		v.Resolved, _ = builtins.HostOf(s)
		w.add(&w.in.Hosts, v, at, classNone)
		return
	}
	if h, ok := remoteHost(r); ok {
		// "git@evil.example:a/b.git", "root@10.0.0.1:/x": where ssh,
		// scp and git go.
		if r != s {
			h = ""
		}
		v.Resolved = h
		w.add(&w.in.Hosts, v, at, classNone)
		return
	}
	if h, ok := schemelessHost(r); ok && readsAsIP(h) {
		// An address and a path after it ("169.254.169.254/latest",
		// "1.2.3.4:80/x"): a URL without its scheme. Its host, read as
		// the address alone is.
		v.Resolved, _ = builtins.HostOf(h)
		w.add(&w.in.Hosts, v, at, classNone)
		return
	}
	w.embeddedDoc(raw, class, t, s, at, depth, true)
}

// weakHost reads a (trimmed) value under a name that holds a host as
// often as something else: ok when it reads as a host, host "" when the
// host is unknown. It is a host when it is
//   - a URL, its host;
//   - a name or address the host reader accepts, but not a number, and
//     under an "ip" name (dotOnly) not a name of one label other than
//     localhost ("membership": "gold");
//   - an address written short ("127.1", "2130706433", "0177.1"): an
//     address to a resolver and a ZIP code or a count to a person, so
//     unknown, and a host rule asks rather than deny "90210" or allow
//     127.0.0.1;
//   - "user@host", as ssh, scp and git take a destination, the host;
//   - a host followed by a path ("evil.example/x", "169.254.169.254/x")
//     or, as scp and git write it, by ":" and a path
//     ("evil.example:repo.git"): a URL without its scheme, its host;
//   - percent-encoded, what its decoding reads as (a WHATWG URL parser
//     decodes "evil%2eexample"), unknown.
func weakHost(r string, dotOnly bool) (string, bool) {
	switch {
	case r == "":
		return "", false
	case readsAsURL(r):
		h, _ := builtins.URLHost(r)
		return h, true
	case readsAsHost(r):
		h, _ := builtins.HostOf(r) // canonical: "evil。example" has its dot
		if dotOnly && !strings.ContainsAny(h, ".:[") && h != "localhost" {
			return "", false
		}
		return h, true
	case isNumericHost(r):
		return "", true
	}
	if strings.Contains(r, "@") {
		// The user goes up to the last "@" of the authority: before the
		// first "/" to a URL parser ("user:pw@host/x"), before the first
		// ":" to ssh and scp ("user@host:p@th"). Where the two readings
		// name different hosts, the host is unknown.
		byURL, urlOK := afterUser(r, "/\\?#")
		bySSH, sshOK := afterUser(r, ":[")
		if h, ok := scpHost(bySSH); ok {
			bySSH = h // the host before scp's ":path", whatever the path holds
		}
		switch {
		case urlOK && sshOK && byURL != bySSH:
			hu, oku := weakHost(byURL, dotOnly)
			hs, oks := weakHost(bySSH, dotOnly)
			if !oku && !oks {
				return "", false
			}
			if oku && oks && hu == hs {
				return hu, true
			}
			return "", true
		case urlOK:
			return weakHost(byURL, dotOnly)
		case sshOK:
			return weakHost(bySSH, dotOnly)
		}
	}
	if h, ok := schemelessHost(r); ok {
		return weakHost(h, dotOnly)
	}
	if h, ok := scpHost(r); ok {
		return weakHost(h, dotOnly)
	}
	if strings.Contains(r, "%") {
		// Decoded once: a server decodes once, and each further layer
		// would cost the whole string again.
		if d, err := url.PathUnescape(r); err == nil && d != r && !strings.Contains(d, "%") {
			if _, ok := weakHost(d, dotOnly); ok {
				return "", true
			}
		}
	}
	return "", false
}

// afterUser is r after its user, "user@": the last "@" before the first
// of ends (or in all of r, if none), with no "/", "\\" or white space
// before it.
func afterUser(r, ends string) (string, bool) {
	prefix := r
	if end := strings.IndexAny(r, ends); end >= 0 {
		prefix = r[:end]
	}
	i := strings.LastIndexByte(prefix, '@')
	if i <= 0 || strings.ContainsAny(r[:i], "/\\ \t") {
		return "", false
	}
	return r[i+1:], true
}

// splitRemote splits scp's and git's "host:path" ("[::1]:/x",
// "evil.example:repo.git") at the first ":" after the host (after the
// brackets of an IPv6 address): a host with no "/", "\\" or white space,
// and a path that is no URL's "//".
func splitRemote(r string) (host, path string, ok bool) {
	end := strings.IndexByte(r, ':')
	if strings.HasPrefix(r, "[") {
		b := strings.IndexByte(r, ']')
		if b < 0 || b+1 >= len(r) || r[b+1] != ':' {
			return "", "", false
		}
		end = b + 1
	}
	if end <= 0 || strings.ContainsAny(r[:end], "/\\ \t") || strings.HasPrefix(r[end+1:], "//") {
		return "", "", false
	}
	return r[:end], r[end+1:], true
}

// scpHost is the host of a "host:path" where a path, not a port, follows
// the host, and the host has a dot, brackets or is localhost (a name of
// one label is a drive, a time, a MAC address's first part).
func scpHost(r string) (string, bool) {
	h, path, ok := splitRemote(r)
	if !ok || path == "" || isPort(":"+path) || !strings.ContainsAny(h, ".[") && !strings.EqualFold(h, "localhost") {
		return "", false
	}
	return h, true
}

// remoteHost is the host of a remote path as ssh, scp, rsync and git
// take one: "user@host:path" (any host, any path, none included: scp
// reads "user@host:22" as the file 22), an IP address, ":" and a path
// ("127.0.0.1:/tmp/x", "[::1]:x"), or a host with a dot (or localhost)
// and ":/" or rsync's "::" ("evil.example:/etc/x"). host is "" when it
// cannot be read as the host reader reads one ("root@127.1:x", whose
// 127.1 ssh resolves, "root@[127.0.0.1]:x").
func remoteHost(r string) (string, bool) {
	rest, user := r, false
	if after, ok := afterUser(r, ":["); ok { // ssh's user ends at the last "@" before the host
		rest, user = after, true
	}
	h, path, ok := splitRemote(rest)
	if !ok {
		return "", false
	}
	switch {
	case user, readsAsIP(h), isNumericHost(h):
	case (strings.Contains(h, ".") || strings.EqualFold(h, "localhost")) && (strings.HasPrefix(path, "/") || strings.HasPrefix(path, ":")):
	default:
		return "", false
	}
	if !readsAsHost(h) {
		return "", true // a host all the same, that cannot be read
	}
	host, _ := builtins.HostOf(h)
	return host, true
}

// schemelessHost is what comes before the first "/", "\\", "?" or "#" of a
// (trimmed) value that has one of them after something: the host of a URL
// written without its scheme, if it is one.
func schemelessHost(r string) (string, bool) {
	i := strings.IndexAny(r, "/\\?#")
	if i <= 0 {
		return "", false
	}
	return r[:i], true
}

// isNumericHost reports a (trimmed) value the host reader accepts as an
// IPv4 address written short or as one number, in a form a person rarely
// writes for anything else: one number from 2^24 up ("2130706433"), a
// part in octal or hex ("0177.1", "0x7f.1"), or two or three parts the
// first of which is 10 or more ("127.1", "169.254.43518"). "1", "12345",
// "1.5" and "1.2.3" (an index, a ZIP code, versions) are no such form.
func isNumericHost(r string) bool {
	if _, ok := builtins.HostOf(r); !ok || r == "" {
		return false
	}
	h := r
	if i := strings.LastIndexByte(h, ':'); i >= 0 && isPort(h[i:]) {
		h = h[:i]
	}
	parts := strings.Split(strings.TrimSuffix(h, "."), ".")
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789abcdefxABCDEFX") != "" {
			return false // a name, not a number
		}
		if len(p) > 1 && p[0] == '0' {
			return true // octal or hex
		}
	}
	first, err := strconv.ParseUint(parts[0], 10, 64)
	if err != nil {
		return false
	}
	if len(parts) == 1 {
		return first >= 1<<24
	}
	return first >= 10
}

// unnamedKey adds an object's key no name says anything of that reads as
// a path (docker's volumes, {"/etc": ...}): unknown, since no name says
// what it is.
func (w *argWalker) unnamedKey(raw string, k *ast.Term, key string, at *pointer) {
	r := trimReading(key)
	if looksLikePath(r) {
		w.add(&w.in.Paths, Value{Arg: raw, raw: k}, at, classNone)
	}
	switch {
	case readsAsURL(r): // {"requests": {"http://169.254.169.254/": "GET"}}
		w.add(&w.in.Hosts, Value{Arg: raw, raw: k}, at, classNone)
	case readsAsIP(r):
		h, _ := builtins.HostOf(key)
		w.add(&w.in.Hosts, Value{Arg: raw, raw: k, Resolved: h}, at, classNone)
	}
}

// pathString adds a string under a path's name: a path, resolved, and a
// URL too when it reads as one.
func (w *argWalker) pathString(raw string, class argClass, t *ast.Term, s string, at *pointer) {
	if bases, relative := w.basesOf(raw); relative {
		// Relative to another argument: resolved against each argument
		// of that name, every resolution a path of the call.
		if len(bases) == 0 {
			w.add(&w.in.Paths, Value{Arg: raw, raw: t}, at, class) // relative to something that is not there
		}
		// The bases are distinct (argWalker.bases), and so are the
		// paths added: as many as a call may hold, then the call is
		// refused, however many arguments fold to the base's name.
		done := map[string]bool{}
		for _, b := range bases {
			if w.err != nil {
				return
			}
			r := ""
			if b.resolved != "" {
				root := b.resolved
				if strings.HasPrefix(s, "/") || builtins.IsFileURI(s) {
					root = w.in.Root
				}
				r, _ = builtins.Resolve(root, s)
			}
			if !done[r] {
				done[r] = true
				w.add(&w.in.Paths, Value{Arg: raw, raw: t, Resolved: r}, at, class)
			}
		}
	} else {
		r, _ := builtins.Resolve(w.in.Root, s)
		w.add(&w.in.Paths, Value{Arg: raw, raw: t, Resolved: r}, at, class)
	}
	r := trimReading(s)
	if readsAsURL(r) {
		// A URL under a path's name: a server that takes a file or a
		// URL fetches it. A URL too, its host read (unknown if it
		// cannot be), as a path under a URL's name is a path too.
		h, _ := builtins.URLHost(s)
		w.add(&w.in.Hosts, Value{Arg: raw, raw: t, Resolved: h}, at, classNone)
	} else if h, ok := remoteHost(r); ok {
		// "git@evil.example:a/b.git", "127.0.0.1:/tmp/x": a clone or a
		// copy over ssh reaches that host.
		if r != s {
			h = ""
		}
		w.add(&w.in.Hosts, Value{Arg: raw, raw: t, Resolved: h}, at, classNone)
	}
}

// embeddedDoc reads a string that holds a JSON array or object (once JSON's
// white space is trimmed) as the document it holds, its values under the
// string's own name and class: JSON passed as a string, as FastMCP parses
// it for a parameter that is not a str and some servers take options. It
// is read within a budget per call, past which it is an unknown path. One
// this reader refuses is an unknown path when strict, or when another
// parser reads it all the same (a duplicate key, a lone surrogate, NaN).
func (w *argWalker) embeddedDoc(raw string, class argClass, t *ast.Term, s string, at *pointer, depth int, strict bool) {
	trimmed := strings.TrimSpace(s)
	if len(trimmed) < 2 || !(trimmed[0] == '{' && trimmed[len(trimmed)-1] == '}' || trimmed[0] == '[' && trimmed[len(trimmed)-1] == ']') {
		return
	}
	if w.embedded += len(trimmed); w.embedded > maxEmbeddedJSON {
		w.add(&w.in.Paths, Value{Arg: raw, raw: t}, at, classNone)
		return
	}
	embedded, err := decodeJSON([]byte(trimmed))
	if err == nil {
		w.walk(raw, class, ast.NewTerm(embedded), at, depth+1)
		return
	}
	if strict || checkJSONText([]byte(trimmed)) == nil || strings.Contains(trimmed, "NaN") || strings.Contains(trimmed, "Infinity") {
		w.add(&w.in.Paths, Value{Arg: raw, raw: t}, at, classNone)
	}
}

// readsAsIP reports a (trimmed) value that is an IP address as people
// write one: four dotted parts, each decimal, octal or hex (the spellings
// a URL's host may have), or an IPv6 address (bare, with a zone, or in
// brackets), with a port or without. A number or a shorter dotted form
// ("12345", "1.5", "0x0") is not: ZIP codes, versions and amounts are no
// addresses here.
func readsAsIP(s string) bool {
	if s == "" {
		return false
	}
	if c := s[0]; !(c >= '0' && c <= '9' || c == '[' || c == ':' || c|0x20 >= 'a' && c|0x20 <= 'f') {
		return false // the common case: a word
	}
	h := s
	if h[0] == '[' {
		end := strings.IndexByte(h, ']')
		if end < 0 || !isPort(h[end+1:]) {
			return false
		}
		return isIPv6(h[1:end])
	}
	if strings.Count(h, ":") >= 2 {
		return isIPv6(h)
	}
	if i := strings.LastIndexByte(h, ':'); i >= 0 {
		if !isPort(h[i:]) {
			return false
		}
		h = h[:i]
	}
	h = strings.TrimSuffix(h, ".")
	parts := 0
	for part := range strings.SplitSeq(h, ".") {
		parts++
		digits := part
		if len(part) > 1 && part[0] == '0' && part[1]|0x20 == 'x' {
			digits = part[2:]
			for i := 0; i < len(digits); i++ {
				if !isHexDigit(digits[i]) {
					return false
				}
			}
			continue
		}
		if digits == "" || strings.Trim(digits, "0123456789") != "" {
			return false
		}
	}
	return parts == 4
}

func isHexDigit(c byte) bool { return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f' }

// isPort reports "" or ":" and a port's digits.
func isPort(s string) bool {
	if s == "" {
		return true
	}
	return len(s) >= 2 && len(s) <= 6 && s[0] == ':' && strings.Trim(s[1:], "0123456789") == ""
}

// isIPv6 reports an IPv6 address, a zone ("%eth0") allowed.
func isIPv6(s string) bool {
	if i := strings.IndexByte(s, '%'); i >= 0 {
		s = s[:i]
	}
	addr, err := netip.ParseAddr(s)
	return err == nil && addr.Is6()
}

// readsAsHost reports a value that reads as one host: a name or address
// HostOf accepts that is not a number ("12345", a ZIP code, is not the
// address 0.0.48.57 here, nor "1.5", a version, 1.0.0.5), unless it is an
// address in four parts.
func readsAsHost(s string) bool {
	if _, ok := builtins.HostOf(s); !ok {
		return false
	}
	if strings.Trim(s, "0123456789.") != "" {
		return true
	}
	return strings.Count(strings.TrimSuffix(s, "."), ".") == 3
}

// basesOf are the arguments a path argument named raw is configured
// relative to, and whether it is.
func (w *argWalker) basesOf(raw string) ([]baseValue, bool) {
	if w.tool == nil || w.tool.relative == nil {
		return nil, false
	}
	base, ok := w.tool.relative[normKey(raw)]
	if !ok {
		return nil, false
	}
	return w.bases[base], true
}

// add appends v, found at at, marking directories, and refuses a call
// past MaxArgumentValues.
func (w *argWalker) add(list *[]Value, v Value, at *pointer, class argClass) {
	if len(w.in.Paths)+len(w.in.Hosts) >= MaxArgumentValues {
		w.err = &BadCallError{fmt.Sprintf("the call names more than %d paths and URLs", MaxArgumentValues)}
		return
	}
	v.Pointer = at.String()
	v.Dir = class == classDir || class == classWordDir || w.dirTool && (class == classPath || class == classWordPath || class == classPathMap)
	*list = append(*list, v)
}

// escapePointer escapes a key for a JSON Pointer (RFC 6901).
func escapePointer(k string) string {
	if !strings.ContainsAny(k, "~/") {
		return k
	}
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// dirToolWords are words of a tool name that say its path is a directory
// it acts on (list_directory, directory_tree, create_directory, mkdir).
var dirToolWords = keySet("directory", "directories", "dir", "dirs", "folder", "folders", "tree", "mkdir", "ls")

// isDirTool reports whether a tool's name says it acts on directories.
func isDirTool(name string) bool {
	for _, w := range splitWords(name) {
		if dirToolWords[w] {
			return true
		}
	}
	return false
}

// validUTF8Name: the tool and id must be text.
func validUTF8Name(s string) bool { return utf8.ValidString(s) }
