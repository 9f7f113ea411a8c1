package rules

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/mcp-policy/mcp-policy/builtins"
	"github.com/mcp-policy/mcp-policy/provider"
	"github.com/mcp-policy/mcp-policy/reasons"
)

// ReasonArgument is the argument Reasons adds to every tool. No rule, floor
// or module ever sees it.
const ReasonArgument = reasons.Argument

// defaultPathKeys and defaultURLKeys are argument names (normalised by
// normKey) that name paths and URLs in any tool.
var (
	defaultPathKeys = keySet("path", "paths", "file", "files", "file_path", "filepath", "filename",
		"dir", "directory", "cwd", "root", "source", "destination", "src", "dst", "target")
	defaultURLKeys = keySet("url", "urls", "uri", "href")
)

func keySet(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[normKey(k)] = true
	}
	return m
}

// normKey folds case and separators, so "filePath", "file_path" and
// "FILEPATH" are one key.
func normKey(k string) string {
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
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// Value is one path or URL argument: the raw JSON value the model wrote and
// what it resolves to ("" when it cannot be evaluated).
type Value struct {
	Arg      string // the argument it came from
	Raw      *ast.Term
	Resolved string

	argTerm *ast.Term // Arg as the arguments' key term, shared by the input document
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

	rootTerm  *ast.Term      // Root as a term the engine keeps, nil to make one
	annTerm   *ast.Term      // Annotations as a term the engine keeps, nil to make one
	arguments [][2]*ast.Term // reason excluded: the rules' copy
	reason    *ast.Term      // nil when the call gave none
	value     ast.Value
	matchCall *builtins.Call
}

// BadCallError is a call that cannot be decided at all: it is refused alone.
type BadCallError struct{ Msg string }

func (e *BadCallError) Error() string { return e.Msg }

// parseArguments decodes a call's arguments text: a JSON object (empty text
// counts as {}), valid UTF-8, no duplicate keys. Numbers keep their text.
func parseArguments(text string) ([][2]*ast.Term, error) {
	if strings.Trim(text, " \t\r\n") == "" { // JSON's whitespace, not Unicode's
		return nil, nil
	}
	items, ok, err := decodeJSONObject([]byte(text))
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

// NewInput parses and classifies a call. tool is the catalogue entry (nil
// when unknown). The error is a *BadCallError.
func (e *Engine) NewInput(call provider.Call, tool *provider.Tool) (*Input, error) {
	name := call.Function.Name
	if name == "" {
		return nil, &BadCallError{"the call names no tool"}
	}
	if !utf8Valid(name) || !utf8Valid(call.ID) {
		return nil, &BadCallError{"the call's name or id is not valid UTF-8"}
	}
	args, err := parseArguments(call.Function.Arguments)
	if err != nil {
		return nil, &BadCallError{fmt.Sprintf("bad call to '%s': %v", name, err)}
	}
	in := &Input{Call: call, Tool: name, Root: e.RootOf(name), arguments: args[:0]}
	in.rootTerm = e.rootTerms[in.Root]
	var schema schemaKeys
	if tool != nil {
		in.Annotations = tool.Annotations.Hints()
		in.annTerm = e.annotationsTerm(in.Annotations)
		schema = e.schemaKeysOf(tool)
	}
	extraPath, extraURL := e.extraKeys(name)
	for _, item := range args {
		k := string(item[0].Value.(ast.String))
		if k == ReasonArgument {
			in.reason = item[1]
			continue
		}
		in.arguments = append(in.arguments, item) // in place: args is ours
		nk := normKey(k)
		switch {
		case defaultPathKeys[nk] || schema.paths[k] || extraPath[nk]:
			for _, raw := range spread(item[1]) {
				in.Paths = append(in.Paths, in.pathValue(item[0], raw))
			}
		case defaultURLKeys[nk] || schema.urls[k] || extraURL[nk]:
			for _, raw := range spread(item[1]) {
				s, isString := raw.Value.(ast.String)
				// A file:// URI names a path, whatever the key says.
				if isString && len(s) >= 7 && strings.EqualFold(string(s[:7]), "file://") {
					in.Paths = append(in.Paths, in.pathValue(item[0], raw))
					continue
				}
				v := Value{Arg: k, Raw: raw, argTerm: item[0]}
				if isString {
					v.Resolved, _ = builtins.URLHost(string(s))
				}
				in.Hosts = append(in.Hosts, v)
			}
		}
	}
	return in, nil
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
		out[ReasonArgument] = jsonOf(in.reason)
	}
	return out
}

func jsonOf(t *ast.Term) any {
	v, err := ast.JSON(t.Value)
	if err != nil {
		return nil // cannot happen: the term was decoded from JSON
	}
	return v
}

func (in *Input) pathValue(arg, raw *ast.Term) Value {
	v := Value{Arg: string(arg.Value.(ast.String)), Raw: raw, argTerm: arg}
	if s, ok := raw.Value.(ast.String); ok {
		v.Resolved, _ = builtins.Resolve(in.Root, string(s))
	}
	return v
}

// spread turns an argument into the values it names: each element of an
// array, or the value itself. Anything that is not a string stays, to be
// reported as unknown.
func spread(t *ast.Term) []*ast.Term {
	if arr, ok := t.Value.(*ast.Array); ok {
		out := make([]*ast.Term, arr.Len())
		for i := range out {
			out[i] = arr.Elem(i)
		}
		return out
	}
	return []*ast.Term{t}
}

// ResolvedPaths returns the resolved paths, "" standing for unknown ones.
func (in *Input) ResolvedPaths() []string { return resolved(in.Paths) }

// ResolvedHosts returns the hosts, "" standing for unknown ones.
func (in *Input) ResolvedHosts() []string { return resolved(in.Hosts) }

func resolved(vs []Value) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Resolved
	}
	return out
}

// The keys of the input document, looked up once (see builtins.Key).
var (
	keyAnnotations = builtins.Key("annotations")
	keyArg         = builtins.Key("arg")
	keyArguments   = builtins.Key("arguments")
	keyHost        = builtins.Key("host")
	keyHosts       = builtins.Key("hosts")
	keyPath        = builtins.Key("path")
	keyPaths       = builtins.Key("paths")
	keyRaw         = builtins.Key("raw")
	keyRoot        = builtins.Key("root")
	keyTool        = builtins.Key("tool")
)

// Value is the Rego input document, built once.
func (in *Input) Value() ast.Value {
	if in.value != nil {
		return in.value
	}
	root := in.rootTerm
	if root == nil {
		root = rootTerm(in.Root)
	}
	ann := in.annTerm
	if ann == nil {
		ann = annotationsTerm(in.Annotations)
	}
	in.value = ast.NewObject(
		ast.Item(keyTool, ast.StringTerm(in.Tool)),
		ast.Item(keyRoot, root),
		ast.Item(keyAnnotations, ann),
		ast.Item(keyPaths, valuesTerm(in.Paths, keyPath)),
		ast.Item(keyHosts, valuesTerm(in.Hosts, keyHost)),
		ast.Item(keyArguments, ast.ObjectTerm(in.arguments...)),
	)
	return in.value
}

// valuesTerm is the input's paths or hosts: {arg, raw, path or host}. The
// terms the arguments already hold are shared (terms are immutable): the
// key, the raw value, and the raw value again when it is what it resolves
// to, as an absolute clean path is.
func valuesTerm(vs []Value, field *ast.Term) *ast.Term {
	if len(vs) == 0 {
		return ast.InternedEmptyArray
	}
	terms := make([]*ast.Term, len(vs))
	for i, v := range vs {
		var res *ast.Term
		switch raw, _ := v.Raw.Value.(ast.String); {
		case v.Resolved == "":
			res = ast.InternedNullTerm
		case string(raw) == v.Resolved:
			res = v.Raw
		default:
			res = ast.StringTerm(v.Resolved)
		}
		arg := v.argTerm
		if arg == nil {
			arg = ast.StringTerm(v.Arg)
		}
		terms[i] = ast.ObjectTerm(
			ast.Item(keyArg, arg),
			ast.Item(keyRaw, v.Raw),
			ast.Item(field, res),
		)
	}
	return ast.ArrayTerm(terms...)
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
