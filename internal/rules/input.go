package rules

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/mcp-policy/mcp-policy/internal/argread"
	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/internal/realpath"
	"github.com/mcp-policy/mcp-policy/internal/regoeval"
	"github.com/mcp-policy/mcp-policy/internal/strictjson"
	"github.com/mcp-policy/mcp-policy/internal/toolflags"
	"github.com/mcp-policy/mcp-policy/provider"
)

// Value is one path or URL argument: the JSON value the model wrote (Raw)
// and what it resolves to ("" when it cannot be evaluated).
type Value struct {
	Arg      string // the name of the argument it came from (the nearest key)
	Pointer  string // where it is in the arguments, as a JSON Pointer ("/edits/0/path")
	raw      *ast.Term
	Resolved string
	// Dir says the tool acts on this path as a directory, so an "always"
	// answer's scope is the directory itself rather than its parent.
	Dir bool
	// Tree says the tool reads every file under the path; Secret, that a
	// path that cannot be evaluated names a file that holds secrets
	// however it is read (argread.Value.Secret); Written, that a command
	// line writes it (argread.Value.Written); Read, that the call only
	// reads it (argread.Value.Read).
	Tree, Secret, Written, Read bool
	// Might are the hosts a lenient client may make of a host that
	// cannot be evaluated (argread.Value.Might): "might" in the input
	// document, which the floor reads.
	Might []string
}

// Input is a call as the rules see it. It is built once per call and shared
// by the Rego query, the grant matcher and the question put to the human.
type Input struct {
	Call        provider.Call
	Tool        string
	Root        string          // the tool's root, "" for none
	Annotations map[string]bool // nil: the catalogue is unknown
	Paths       []Value
	Hosts       []Value
	// ToolFlags are the signs of text aimed at the model in the tool's
	// definition (toolflags.Scan); nil for none, or an unknown catalogue.
	ToolFlags []toolflags.Flag
	// DefinitionChange is the catalogue entry's: the tool's definition is
	// not the one a human approved ("" when it is, or is not pinned).
	DefinitionChange string

	rootTerm  *ast.Term      // Root as a term the engine keeps, nil to make one
	annTerm   *ast.Term      // Annotations as a term the engine keeps, nil to make one
	arguments [][2]*ast.Term // reason excluded: the rules' copy
	reason    *ast.Term      // nil when the call gave none
	commands  []argread.SimpleCommand
	doc       ast.Value // the Rego input document, built once when first read (see regoeval.Input)
	matchCall *regoeval.Call
}

// BadCallError is a call that cannot be decided at all: it is refused alone.
type BadCallError struct{ Msg string }

func (e *BadCallError) Error() string { return e.Msg }

// parseArguments decodes a call's arguments text: a JSON object (empty text
// counts as {}), valid UTF-8, no duplicate keys, at most MaxArgumentsBytes.
// Numbers keep their text.
func parseArguments(text string) ([][2]*ast.Term, error) {
	if len(text) > MaxArgumentsBytes {
		return nil, fmt.Errorf("arguments are %d bytes, more than the %d a call may have", len(text), MaxArgumentsBytes)
	}
	if provider.NoArguments(text) {
		return nil, nil
	}
	items, ok, err := strictjson.DecodeObject([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if !ok {
		return nil, errors.New("arguments must be a JSON object")
	}
	// Sorted, so paths come in a stable order.
	slices.SortFunc(items, func(a, b [2]*ast.Term) int {
		return strings.Compare(string(a[0].Value.(ast.String)), string(b[0].Value.(ast.String)))
	})
	return items, nil
}

// newInput parses a call and reads what its arguments name (package
// internal/argread, docs/arguments.md): the paths, URLs and hosts the
// server will act on. tool is the catalogue entry (nil when unknown). The
// error is a *BadCallError.
func (e *Engine) newInput(call provider.Call, tool *provider.Tool) (*Input, error) {
	name := call.Function.Name
	if name == "" {
		return nil, &BadCallError{"the call names no tool"}
	}
	if !utf8.ValidString(name) || !utf8.ValidString(call.ID) {
		return nil, &BadCallError{"the call's name or id is not valid UTF-8"}
	}
	args, err := parseArguments(call.Function.Arguments)
	if err != nil {
		return nil, &BadCallError{fmt.Sprintf("bad call to '%s': %v", name, err)}
	}
	in := &Input{Call: call, Tool: name, Root: e.rootOf(name)}
	in.rootTerm = e.rootTerms[in.Root]
	rc := argread.Call{Tool: name, Root: in.Root, RootAliases: e.aliases[in.Root], Home: e.home, Arguments: args}
	switch {
	case tool != nil && tool.DefinitionChange != "":
		// A definition no human approved is the server's word alone: the
		// call is read as a tool's whose catalogue is unknown (no
		// read-only leniency, no schema's say on what is data), its text
		// still scanned for instructions to the model.
		in.DefinitionChange = tool.DefinitionChange
		in.ToolFlags = e.flags.of(tool)
	case tool != nil:
		in.Annotations = tool.Annotations.Hints()
		in.annTerm = e.annotationsTerm(in.Annotations)
		rc.Known, rc.Schema, rc.Annotations = true, tool.Function.Parameters, in.Annotations
		in.ToolFlags = e.flags.of(tool)
	}
	read, err := e.reader.Read(rc)
	if err != nil {
		return nil, &BadCallError{fmt.Sprintf("bad call to '%s': %v", name, err)}
	}
	if e.links {
		read.Paths = followedLinks(resolveLinks(read.Paths, in.Root, rc.RootAliases), in.Root, rc.RootAliases)
	}
	if read.Acts && in.Annotations["readOnlyHint"] {
		// A command line, a program's words or a patch does what it says,
		// whatever the server claims of the tool: neither a rule on the
		// read-only hint nor the floor takes the claim for such a call.
		in.Annotations = maps.Clone(in.Annotations)
		in.Annotations["readOnlyHint"] = false
		in.annTerm = e.annotationsTerm(in.Annotations)
	}
	in.arguments, in.reason = read.Arguments, read.Reason
	in.Paths, in.Hosts = values(read.Paths), values(read.Hosts)
	in.commands = read.Commands
	return in, nil
}

// values are the reader's values as the input keeps them.
func values(vs []argread.Value) []Value {
	if len(vs) == 0 {
		return nil
	}
	out := make([]Value, len(vs))
	for i, v := range vs {
		out[i] = Value{Arg: v.Arg, Pointer: v.Pointer, raw: v.Raw, Resolved: v.Resolved, Dir: v.Dir, Tree: v.Tree, Secret: v.Secret, Written: v.Written, Read: v.Read,
			Might: v.Might}
	}
	return out
}

// Arguments returns the call's arguments as Go values (objects
// map[string]any, numbers json.Number), reason included: the human is
// shown it.
func (in *Input) Arguments() map[string]any {
	out := make(map[string]any, len(in.arguments)+1)
	for _, item := range in.arguments {
		out[string(item[0].Value.(ast.String))] = jsonOf(item[1])
	}
	if in.reason != nil {
		out[argread.ReasonArgument] = jsonOf(in.reason)
	}
	return out
}

// Raw is the value as the model wrote it, decoded from JSON (a string, or
// whatever else it was): what the rules saw before resolving it.
func (v Value) Raw() any {
	if v.raw == nil {
		return nil
	}
	return jsonOf(v.raw)
}

func jsonOf(t *ast.Term) any {
	v, err := ast.JSON(t.Value)
	if err != nil {
		return nil // cannot happen: the term was decoded from JSON
	}
	return v
}

// resolvedPaths returns the resolved paths, "" standing for unknown ones.
func (in *Input) resolvedPaths() []string { return resolved(in.Paths) }

// resolvedHosts returns the hosts, "" standing for unknown ones.
func (in *Input) resolvedHosts() []string { return resolved(in.Hosts) }

func resolved(vs []Value) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Resolved
	}
	return out
}

// The keys of the input document, looked up once (see regoeval.Key).
var (
	keyAnnotations = regoeval.Key("annotations")
	keyArg         = regoeval.Key("arg")
	keyArguments   = regoeval.Key("arguments")
	keyDir         = regoeval.Key("dir")
	keyTree        = regoeval.Key("tree")
	keySecret      = regoeval.Key("secret")
	keyWritten     = regoeval.Key("written")
	keyRead        = regoeval.Key("read")
	keyBy          = regoeval.Key("by")
	keyHost        = regoeval.Key("host")
	keyMight       = regoeval.Key("might")
	keyHosts       = regoeval.Key("hosts")
	keyPath        = regoeval.Key("path")
	keyPaths       = regoeval.Key("paths")
	keyRaw         = regoeval.Key("raw")
	keyRoot        = regoeval.Key("root")
	keyTool        = regoeval.Key("tool")
	keyCommands    = regoeval.Key("commands")
	keyToolFlags   = regoeval.Key("tool_flags")
	keyWords       = regoeval.Key("words")
	keyProgram     = regoeval.Key("program")
	keyUnknown     = regoeval.Key("unknown")
	keyKnown       = regoeval.Key("known")
	keyCredentials = regoeval.Key("credentials")
)

// document is in as the decider reads it: the parts of the Rego input
// document, each built when first read. The methods are on a type of
// their own so that Input's fields keep their names.
type document struct{ in *Input }

func (d document) Annotations() *ast.Term {
	if d.in.annTerm == nil {
		d.in.annTerm = annotationsTerm(d.in.Annotations)
	}
	return d.in.annTerm
}

func (d document) MatchCall() *regoeval.Call { return d.in.MatchCall() }
func (d document) ShownPaths() []*ast.Term   { return shownValues(d.in.Paths) }
func (d document) ShownHosts() []*ast.Term   { return shownValues(d.in.Hosts) }

// shownValues is regoeval.Shown of each value, read from the values
// themselves: no input document is built for them.
func shownValues(vs []Value) []*ast.Term {
	if len(vs) == 0 {
		return nil
	}
	out := make([]*ast.Term, len(vs))
	for i, v := range vs {
		out[i] = regoeval.Shown(v.resolvedTerm(), v.raw)
	}
	return out
}

// Document is the Rego input document, built once.
func (d document) Document() ast.Value {
	in := d.in
	if in.doc != nil {
		return in.doc
	}
	root := in.rootTerm
	if root == nil {
		root = rootTerm(in.Root)
	}
	items := [][2]*ast.Term{
		ast.Item(keyTool, ast.StringTerm(in.Tool)),
		ast.Item(keyRoot, root),
		ast.Item(keyAnnotations, d.Annotations()),
		ast.Item(keyPaths, valuesTerm(in.Paths, keyPath, in.arguments)),
		ast.Item(keyHosts, valuesTerm(in.Hosts, keyHost, in.arguments)),
		ast.Item(keyArguments, ast.ObjectTerm(in.arguments...)),
	}
	if len(in.commands) > 0 {
		items = append(items, ast.Item(keyCommands, commandsTerm(in.commands)))
	}
	if len(in.ToolFlags) > 0 {
		codes := make([]*ast.Term, len(in.ToolFlags))
		for i, f := range in.ToolFlags {
			codes[i] = ast.StringTerm(f.Code)
		}
		items = append(items, ast.Item(keyToolFlags, ast.ArrayTerm(codes...)))
	}
	in.doc = ast.NewObject(items...)
	return in.doc
}

// commandsTerm is the input's commands: {"arg", "words", "program",
// "unknown", "known", "paths", "credentials"} (paths: what its own words name, null for unknown), as
// regoeval.CommandsOf reads them back.
func commandsTerm(cs []argread.SimpleCommand) *ast.Term {
	terms := make([]*ast.Term, len(cs))
	for i, c := range cs {
		words := make([]*ast.Term, len(c.Words))
		for j, w := range c.Words {
			words[j] = ast.StringTerm(w)
		}
		paths := make([]*ast.Term, len(c.Paths))
		for j, p := range c.Paths {
			paths[j] = ast.NullTerm()
			if p != "" {
				paths[j] = ast.StringTerm(p)
			}
		}
		terms[i] = ast.ObjectTerm(
			ast.Item(keyArg, ast.StringTerm(c.Arg)),
			ast.Item(keyWords, ast.ArrayTerm(words...)),
			ast.Item(keyProgram, ast.StringTerm(c.Program)),
			ast.Item(keyUnknown, ast.BooleanTerm(c.Unknown)),
			ast.Item(keyKnown, ast.InternedTerm(c.Known)),
			ast.Item(keyPaths, ast.ArrayTerm(paths...)),
			ast.Item(keyCredentials, ast.BooleanTerm(c.Credentials)),
			ast.Item(keyBy, ast.InternedTerm(c.By)),
		)
	}
	return ast.ArrayTerm(terms...)
}

// valuesTerm is the input's paths or hosts: {arg, raw, path or host},
// "dir": true for a path the tool acts on as a directory, "tree": true
// for one it reads every file under, "secret": true for an unknown one
// that names a secret however it is read, "written": true for one a
// command line writes and "read": true for one it only reads. The
// terms the arguments already hold are shared (terms are immutable): the
// name of a top-level argument, the raw value, and the raw value again
// when it is what it resolves to, as an absolute clean path is.
func valuesTerm(vs []Value, field *ast.Term, args [][2]*ast.Term) *ast.Term {
	if len(vs) == 0 {
		return ast.InternedEmptyArray
	}
	terms := make([]*ast.Term, len(vs))
	for i, v := range vs {
		items := [][2]*ast.Term{
			ast.Item(keyArg, nameTerm(args, v.Arg)),
			ast.Item(keyRaw, v.raw),
			ast.Item(field, v.resolvedTerm()),
		}
		if v.Dir {
			items = append(items, ast.Item(keyDir, ast.InternedTerm(true)))
		}
		if v.Tree {
			items = append(items, ast.Item(keyTree, ast.InternedTerm(true)))
		}
		if v.Secret {
			items = append(items, ast.Item(keySecret, ast.InternedTerm(true)))
		}
		if v.Written {
			items = append(items, ast.Item(keyWritten, ast.InternedTerm(true)))
		}
		if v.Read {
			items = append(items, ast.Item(keyRead, ast.InternedTerm(true)))
		}
		if len(v.Might) > 0 {
			might := make([]*ast.Term, len(v.Might))
			for j, h := range v.Might {
				might[j] = ast.StringTerm(h)
			}
			items = append(items, ast.Item(keyMight, ast.ArrayTerm(might...)))
		}
		terms[i] = ast.ObjectTerm(items...)
	}
	return ast.ArrayTerm(terms...)
}

// resolvedTerm is what v resolves to, as the input document has it: null
// when it cannot be evaluated, and the raw term itself when it is what it
// resolves to, as an absolute clean path is.
func (v Value) resolvedTerm() *ast.Term {
	switch raw, _ := v.raw.Value.(ast.String); {
	case v.Resolved == "":
		return ast.InternedNullTerm
	case string(raw) == v.Resolved:
		return v.raw
	}
	return ast.StringTerm(v.Resolved)
}

// nameTerm is the term of a top-level argument's name among args, or a new
// one for a nested argument's.
func nameTerm(args [][2]*ast.Term, name string) *ast.Term {
	for _, item := range args {
		if s, ok := item[0].Value.(ast.String); ok && string(s) == name {
			return item[0]
		}
	}
	return ast.StringTerm(name)
}

// rootTerm is a tool's root in the input: its directory, or null for none.
func rootTerm(root string) *ast.Term {
	if root == "" {
		return ast.InternedNullTerm
	}
	return ast.StringTerm(root)
}

// annotationsTerm is a tool's hints in the input: an object, or null when
// the catalogue is unknown.
func annotationsTerm(hints map[string]bool) *ast.Term {
	if hints == nil {
		return ast.InternedNullTerm
	}
	kv := make([][2]*ast.Term, 0, len(hints))
	for k, v := range hints {
		kv = append(kv, ast.Item(ast.StringTerm(k), ast.InternedTerm(v)))
	}
	return ast.ObjectTerm(kv...)
}

// spelt is the absolute path v is spelt as, before cleaning, when its
// spelling has a name followed by ".." ("app/keys/../x"): the kernel
// follows a link at keys before it goes up, so the file is the parent of
// where keys leads, not app/x, the path cleaned. has says the spelling is
// so; ok, that the path could be told (a relative spelling is joined to
// the directory its clean form says it was read from).
func spelt(v argread.Value) (p string, has, ok bool) {
	raw, isString := v.Raw.Value.(ast.String)
	r := string(raw)
	if !isString || !strings.Contains(r, "..") || !realpath.NameThenDotDot(r) {
		return "", false, false
	}
	if strings.HasPrefix(r, "/") {
		clean, ok := lexical.Resolve("", r)
		return r, true, ok && clean == v.Resolved
	}
	rel := path.Clean(r)
	if rel == ".." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "~") || strings.Contains(r, "\\") {
		return "", true, false
	}
	base := v.Resolved
	if rel != "." {
		var found bool
		if base, found = strings.CutSuffix(v.Resolved, "/"+rel); !found {
			return "", true, false
		}
	}
	if base == "" {
		base = "/"
	}
	return strings.TrimSuffix(base, "/") + "/" + r, true, true
}

// maxResolvedPaths bounds the paths of one call resolved through the file
// system; past it, the call names an unknown path.
const maxResolvedPaths = 1024

// followedLinks adds to a call's paths, for each tree a command reads
// following the links it finds (grep -R, cp -rL, tar -h, zip -r), where
// each link in the tree leads (realpath.LinksUnder), itself read as a
// tree: a link in a cloned repository to ~/.ssh is a read of ~/.ssh. A
// tree whose walk stopped (too many entries, a directory that cannot be
// read) is also an unknown path: what else it links to cannot be told.
func followedLinks(vs []argread.Value, root string, aliases []string) []argread.Value {
	n := len(vs)
	for i := range n {
		v := vs[i]
		if !v.Follows || v.Resolved == "" {
			continue
		}
		targets, complete := realpath.LinksUnder(filepath.FromSlash(v.Resolved))
		if !complete {
			v.Resolved = ""
			vs = append(vs, v)
			continue
		}
		for _, t := range targets {
			if len(vs) >= n+maxResolvedPaths {
				v.Resolved = "" // more links than are read
				return append(vs, v)
			}
			r, ok := lexical.Resolve("", filepath.ToSlash(t))
			if !ok {
				continue
			}
			w := v
			w.Resolved, w.Follows = argread.UnderRoot(r, root, aliases), false
			vs = append(vs, w)
		}
	}
	return vs
}

// resolveLinks adds to a call's paths, for each one a symbolic link makes
// another place, the place the file system resolves it to (every existing
// prefix followed, as the kernel would: realpath.Resolve), so that rules,
// grants and the floor must allow both: "docs/link/x", with docs/link a
// link to ~/.ssh, is also ~/.ssh/x. A path spelt with a name before
// ".." is resolved twice: as the kernel walks it (through the link, then
// up) and as cleaned first, as most servers clean a path (Node's
// path.resolve, Python's abspath, Go's filepath.Clean) before they open
// it — "lnk/../evil" is where evil leads too. A path that cannot be
// resolved (a dangling or looping link, a directory that cannot be read)
// is also an unknown path. What remains is the server's sandbox's: a link
// made between this decision and the server's use.
func resolveLinks(vs []argread.Value, root string, aliases []string) []argread.Value {
	n := len(vs)
	for i := range n {
		v := vs[i]
		if v.Resolved == "" {
			continue
		}
		if i >= maxResolvedPaths {
			v.Resolved = ""
			return append(vs, v)
		}
		targets := [2]string{v.Resolved}
		if written, has, ok := spelt(v); has {
			if !ok {
				v.Resolved = "" // where the kernel's reading leads cannot be told
				vs = append(vs, v)
				continue
			}
			targets[1] = written
		}
		seen := v.Resolved
		for _, target := range targets {
			if target == "" {
				continue
			}
			w := v
			real, err := realpath.Resolve(target)
			r, ok := "", false
			if err == nil {
				r, ok = lexical.Resolve("", filepath.ToSlash(real))
			}
			switch {
			case !ok:
				w.Resolved = "" // where it leads cannot be told
			case argread.UnderRoot(r, root, aliases) == seen:
				continue // no link on the way, or one within the root's own spellings
			default:
				w.Resolved = argread.UnderRoot(r, root, aliases)
			}
			seen = w.Resolved
			vs = append(vs, w)
		}
	}
	return vs
}
