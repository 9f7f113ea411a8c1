package rules

import (
	"errors"
	"fmt"
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
	Raw      any
	Resolved string
}

// Input is a call as the rules see it. It is built once per call and shared
// by the Rego query, the grant matcher and the question put to the human.
type Input struct {
	Call provider.Call
	Tool string
	Root string // the tool's root, "" for none
	// Arguments is the parsed arguments object, reason included (the human
	// is shown it); the rules' copy has it removed.
	Arguments   map[string]any
	Annotations map[string]bool // nil: the catalogue is unknown
	Paths       []Value
	Hosts       []Value

	value     ast.Value
	matchCall *builtins.Call
}

// BadCallError is a call that cannot be decided at all: it is refused alone.
type BadCallError struct{ Msg string }

func (e *BadCallError) Error() string { return e.Msg }

// ParseArguments decodes a call's arguments text: a JSON object (empty text
// counts as {}), valid UTF-8, no duplicate keys. Numbers keep their text.
func ParseArguments(text string) (map[string]any, error) {
	if strings.TrimSpace(text) == "" {
		return map[string]any{}, nil
	}
	v, err := DecodeJSON([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("arguments must be a JSON object")
	}
	return obj, nil
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
	args, err := ParseArguments(call.Function.Arguments)
	if err != nil {
		return nil, &BadCallError{fmt.Sprintf("bad call to '%s': %v", name, err)}
	}
	in := &Input{Call: call, Tool: name, Root: e.RootOf(name), Arguments: args}
	var schema schemaKeys
	if tool != nil {
		in.Annotations = tool.Annotations.Hints()
		if tool.Annotations != nil && in.Annotations == nil {
			in.Annotations = map[string]bool{}
		}
		schema = e.schemaKeysOf(tool)
	}
	extraPath, extraURL := e.extraKeys(name)
	for _, k := range sortedKeys(args) {
		if k == ReasonArgument {
			continue
		}
		nk := normKey(k)
		switch {
		case defaultPathKeys[nk] || schema.paths[k] || extraPath[nk]:
			for _, raw := range spread(args[k]) {
				in.Paths = append(in.Paths, in.pathValue(k, raw))
			}
		case defaultURLKeys[nk] || schema.urls[k] || extraURL[nk]:
			for _, raw := range spread(args[k]) {
				// A file:// URI names a path, whatever the key says.
				if s, ok := raw.(string); ok && len(s) >= 7 && strings.EqualFold(s[:7], "file://") {
					in.Paths = append(in.Paths, in.pathValue(k, raw))
					continue
				}
				v := Value{Arg: k, Raw: raw}
				if s, ok := raw.(string); ok {
					v.Resolved, _ = builtins.URLHost(s)
				}
				in.Hosts = append(in.Hosts, v)
			}
		}
	}
	return in, nil
}

func (in *Input) pathValue(arg string, raw any) Value {
	v := Value{Arg: arg, Raw: raw}
	if s, ok := raw.(string); ok {
		v.Resolved, _ = builtins.Resolve(in.Root, s)
	}
	return v
}

// spread turns an argument into the values it names: each element of an
// array, or the value itself. Anything that is not a string stays, to be
// reported as unknown.
func spread(v any) []any {
	if arr, ok := v.([]any); ok {
		return arr
	}
	return []any{v}
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

// Value is the Rego input document, built once.
func (in *Input) Value() ast.Value {
	if in.value != nil {
		return in.value
	}
	root := ast.NullTerm()
	if in.Root != "" {
		root = ast.StringTerm(in.Root)
	}
	ann := ast.NullTerm()
	if in.Annotations != nil {
		kv := make([][2]*ast.Term, 0, len(in.Annotations))
		for k, v := range in.Annotations {
			kv = append(kv, ast.Item(ast.StringTerm(k), ast.BooleanTerm(v)))
		}
		ann = ast.ObjectTerm(kv...)
	}
	args := make(map[string]any, len(in.Arguments))
	for k, v := range in.Arguments {
		if k != ReasonArgument {
			args[k] = v
		}
	}
	argsValue, err := ast.InterfaceToValue(args)
	if err != nil {
		argsValue = ast.NewObject() // cannot happen for decoded JSON
	}
	in.value = ast.NewObject(
		ast.Item(builtins.Key("tool"), ast.StringTerm(in.Tool)),
		ast.Item(builtins.Key("root"), root),
		ast.Item(builtins.Key("annotations"), ann),
		ast.Item(builtins.Key("paths"), valuesTerm(in.Paths, "path")),
		ast.Item(builtins.Key("hosts"), valuesTerm(in.Hosts, "host")),
		ast.Item(builtins.Key("arguments"), ast.NewTerm(argsValue)),
	)
	return in.value
}

func valuesTerm(vs []Value, field string) *ast.Term {
	terms := make([]*ast.Term, len(vs))
	for i, v := range vs {
		raw, err := ast.InterfaceToValue(v.Raw)
		if err != nil {
			raw = ast.Null{}
		}
		res := ast.NullTerm()
		if v.Resolved != "" {
			res = ast.StringTerm(v.Resolved)
		}
		terms[i] = ast.ObjectTerm(
			ast.Item(builtins.Key("arg"), ast.StringTerm(v.Arg)),
			ast.Item(builtins.Key("raw"), ast.NewTerm(raw)),
			ast.Item(builtins.Key(field), res),
		)
	}
	return ast.ArrayTerm(terms...)
}
