package regoeval

// Readers for the AST values the engine's builtins are handed: the input
// document and the data rules.

import (
	"fmt"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/internal/verdict"

	"github.com/open-policy-agent/opa/v1/ast"
)

// fieldNames are the keys of the engine's documents (input, data rules,
// module entries, the decision) and the decision's words. They are interned
// as terms once, so that reading or building a document allocates no key: a
// decision does dozens.
var fieldNames = []string{
	"tool", "root", "annotations", "paths", "hosts", "arguments", "arg", "raw", "path", "dir", "tree", "secret", "host",
	"rules", "roots", "protected", "decision", "under", "message", "status",
	"reason", "rule", "suggestion", "floor", "might", "custom", "deny", "ask", "allow", "null",
	// and the words the decision is made of
	"no-match", "unevaluable-path",
}

// fieldsInterned interns fieldNames, before any evaluation (OPA allows it
// only then). It is a variable rather than init() so that the key terms
// below, which Key makes, are made after it: Go initialises a package's
// variables in the order their references need.
var fieldsInterned = func() bool { ast.InternStringTerm(fieldNames...); return true }()

// Key is the term for a document key, interned if it is one of fieldNames.
func Key(k string) *ast.Term {
	_ = fieldsInterned
	return ast.InternedTerm(k)
}

// The keys every decision reads or writes, looked up once: a lookup per
// use (a hash and a map probe) was 3% of a decision.
var (
	keyAnnotations = Key("annotations")
	keyArg         = Key("arg")
	keyBy          = Key("by")
	keyArguments   = Key("arguments")
	keyDecision    = Key("decision")
	keyDir         = Key("dir")
	keyFloor       = Key("floor")
	keyHost        = Key("host")
	keyHosts       = Key("hosts")
	keyMessage     = Key("message")
	keyMight       = Key("might")
	keyNull        = Key("null")
	keyPath        = Key("path")
	keyPaths       = Key("paths")
	keyRaw         = Key("raw")
	keyReason      = Key("reason")
	keyRoot        = Key("root")
	keyRule        = Key("rule")
	keyRules       = Key("rules")
	keyStatus      = Key("status")
	keySuggestion  = Key("suggestion")
	keyCommand     = Key("command")
	keyExcept      = Key("except")
	keyCommands    = Key("commands")
	keyWords       = Key("words")
	keyUnknown     = Key("unknown")
	keyKnown       = Key("known")
	keyTool        = Key("tool")
	keyUnder       = Key("under")
)

func valueAt(v ast.Value, key *ast.Term) ast.Value {
	obj, ok := v.(ast.Object)
	if !ok {
		return nil
	}
	t := obj.Get(key)
	if t == nil {
		return nil
	}
	return t.Value
}

func stringAt(v ast.Value, key *ast.Term) string {
	s, _ := valueAt(v, key).(ast.String)
	return string(s)
}

// stringsAt is the string, or the strings of the array, at key: a
// rule's command globs, a suggestion's command.
func stringsAt(v ast.Value, key *ast.Term) []string {
	switch x := valueAt(v, key).(type) {
	case ast.String:
		return []string{string(x)}
	case *ast.Array:
		out := make([]string, 0, x.Len())
		for i := range x.Len() {
			if s, ok := x.Elem(i).Value.(ast.String); ok {
				out = append(out, string(s))
			}
		}
		return out
	}
	return nil
}

// matcherOf reads a rule object. Its host is normalised here too, so a
// hand-written rule in a Rego test means what the same rule in JSON means.
func matcherOf(v ast.Value, decision verdict.Decision) (Matcher, error) {
	if _, ok := v.(ast.Object); !ok {
		return Matcher{}, fmt.Errorf("expected an object, got %v", ast.ValueName(v))
	}
	m := MatcherFor(decision, stringAt(v, keyTool), stringAt(v, keyUnder), stringAt(v, keyHost), nil)
	if m.Tool == "" {
		return m, fmt.Errorf("no tool")
	}
	if err := lexical.ValidateToolGlob(m.Tool); err != nil {
		return m, fmt.Errorf("tool %q %v", m.Tool, err)
	}
	if m.Under != "" {
		u, err := lexical.NormalizeUnder(m.Under)
		if err != nil {
			return m, fmt.Errorf("under %v", err)
		}
		m.Under = u
	}
	if m.Host != "" {
		h, err := lexical.NormalizeHostPattern(m.Host)
		if err != nil {
			return m, err
		}
		m.Host = h
	}
	for _, cmd := range stringsAt(v, keyCommand) {
		if err := lexical.ValidateToolGlob(cmd); err != nil || cmd == "" {
			if err == nil {
				err = fmt.Errorf("is empty")
			}
			return m, fmt.Errorf("command %q %v", cmd, err)
		}
		m.Command = append(m.Command, cmd)
	}
	var err error
	if m.Annotations, err = annotationsOf(v); err != nil {
		return m, err
	}
	if args, ok := valueAt(v, keyArguments).(ast.Object); ok && args.Len() > 0 {
		globs := make(map[string]string, args.Len())
		err := args.Iter(func(k, val *ast.Term) error {
			ks, ok1 := k.Value.(ast.String)
			g, ok2 := val.Value.(ast.String)
			if !ok1 || !ok2 {
				return fmt.Errorf("arguments must map argument names to globs")
			}
			globs[string(ks)] = string(g)
			return nil
		})
		if err != nil {
			return m, err
		}
		if m.Arguments, err = ArgumentGlobs(globs); err != nil {
			return m, err
		}
	} else if v := valueAt(v, keyArguments); v != nil && !ok {
		return m, fmt.Errorf("arguments must map argument names to globs, not %v", ast.ValueName(v))
	}
	if m.Except, err = exceptOf(v, m.Any); err != nil {
		return m, err
	}
	return m, nil
}

// annotationsOf reads a data rule's annotations: hint names to booleans,
// nil for none.
func annotationsOf(v ast.Value) (map[string]bool, error) {
	ann, ok := valueAt(v, keyAnnotations).(ast.Object)
	if !ok || ann.Len() == 0 {
		return nil, nil
	}
	out := map[string]bool{}
	err := ann.Iter(func(k, val *ast.Term) error {
		ks, ok1 := k.Value.(ast.String)
		b, ok2 := val.Value.(ast.Boolean)
		if !ok1 || !ok2 {
			return fmt.Errorf("annotations must map hint names to booleans")
		}
		out[string(ks)] = bool(b)
		return nil
	})
	return out, err
}

// exceptOf reads a data rule's except, nil for none: what a deny or ask
// (denyOrAsk: its Matcher.Any) leaves out, read as an allow for any tool (the
// rule's own tool already chose the calls it is left out of).
func exceptOf(v ast.Value, denyOrAsk bool) (*Matcher, error) {
	switch ex := valueAt(v, keyExcept).(type) {
	case nil, ast.Null:
		return nil, nil
	case ast.Object:
		if !denyOrAsk {
			return nil, fmt.Errorf("except: only a deny or ask leaves calls out")
		}
		if ex.Get(keyTool) != nil || ex.Get(keyExcept) != nil || ex.Get(keyAnnotations) != nil {
			return nil, fmt.Errorf("except names only under, host, arguments or command")
		}
		anyTool := ex.Copy()
		anyTool.Insert(ast.StringTerm("tool"), ast.StringTerm("*"))
		e, err := matcherOf(anyTool, verdict.Allow)
		if err != nil {
			return nil, fmt.Errorf("except: %v", err)
		}
		if e.Under == "" && e.Host == "" && len(e.Arguments) == 0 && len(e.Command) == 0 {
			return nil, fmt.Errorf("except names nothing to leave out")
		}
		return &e, nil
	default:
		return nil, fmt.Errorf("except must be an object, not %v", ast.ValueName(ex))
	}
}

// CallOf reads the engine's input document: tool, root, annotations,
// paths[].path, hosts[].host (null for unknown) and the top-level
// arguments. The root and paths are
// made what Call promises, clean and absolute: the input the engine builds
// already is, but a Rego test can write any input, and a path that is not
// is unknown here ("") rather than compared as written.
func CallOf(in ast.Value) Call {
	c := Call{Tool: stringAt(in, keyTool)}
	c.Root, _ = lexical.AbsClean(stringAt(in, keyRoot))
	if ann, ok := valueAt(in, keyAnnotations).(ast.Object); ok {
		c.Annotations = map[string]bool{}
		_ = ann.Iter(func(k, v *ast.Term) error {
			if ks, ok := k.Value.(ast.String); ok {
				if b, ok := v.Value.(ast.Boolean); ok {
					c.Annotations[string(ks)] = bool(b)
				}
			}
			return nil
		})
	}
	c.Paths = fieldOfEach(valueAt(in, keyPaths), keyPath)
	for i, p := range c.Paths {
		c.Paths[i], _ = lexical.AbsClean(p)
	}
	c.Hosts = fieldOfEach(valueAt(in, keyHosts), keyHost)
	if args, ok := valueAt(in, keyArguments).(ast.Object); ok && args.Len() > 0 {
		c.Arguments = make([][2]*ast.Term, 0, args.Len())
		args.Foreach(func(k, v *ast.Term) { c.Arguments = append(c.Arguments, [2]*ast.Term{k, v}) })
	}
	if arr, ok := valueAt(in, keyPaths).(*ast.Array); ok {
		for i := range arr.Len() {
			if b, ok := valueAt(arr.Elem(i).Value, keyDir).(ast.Boolean); ok && bool(b) {
				if c.Dirs == nil {
					c.Dirs = make([]bool, arr.Len())
				}
				c.Dirs[i] = true
			}
		}
	}
	c.Commands = CommandsOf(valueAt(in, keyCommands))
	if arr, ok := valueAt(in, keyHosts).(*ast.Array); ok && len(c.Arguments) > 0 {
		c.HostArgs = HostArgsOf(c.Arguments, arr.Len(), func(i int) (string, ast.Value) {
			e := arr.Elem(i).Value
			arg, _ := valueAt(e, keyArg).(ast.String)
			return string(arg), valueAt(e, keyRaw)
		})
	}
	c.fold()
	return c
}

// CommandsOf reads the input document's commands ({"words": [...],
// "unknown": bool}) as rules match them.
func CommandsOf(v ast.Value) []CommandLine {
	arr, ok := v.(*ast.Array)
	if !ok || arr.Len() == 0 {
		return nil
	}
	out := make([]CommandLine, 0, arr.Len())
	for i := range arr.Len() {
		e := arr.Elem(i).Value
		var words []string
		if ws, ok := valueAt(e, keyWords).(*ast.Array); ok {
			for j := range ws.Len() {
				if w, ok := ws.Elem(j).Value.(ast.String); ok {
					words = append(words, string(w))
				}
			}
		}
		unknown, _ := valueAt(e, keyUnknown).(ast.Boolean)
		known := 0 // none is known unless the document says how many
		if !unknown {
			known = len(words)
		} else if n, ok := valueAt(e, keyKnown).(ast.Number); ok {
			if k, ok := n.Int(); ok && k >= 0 && k <= len(words) {
				known = k
			}
		}
		cl := NewCommandLine(words, bool(unknown), known)
		if arg, ok := valueAt(e, keyArg).(ast.String); ok {
			cl.Arg = foldArgumentName(string(arg))
		}
		if by, ok := valueAt(e, keyBy).(ast.Number); ok {
			if b, ok := by.Int(); ok && b > 0 && b <= i {
				cl.By = b
			}
		}
		out = append(out, cl)
	}
	return out
}

func fieldOfEach(v ast.Value, field *ast.Term) []string {
	arr, ok := v.(*ast.Array)
	if !ok {
		return nil
	}
	out := make([]string, arr.Len())
	for i := range out {
		out[i] = stringAt(arr.Elem(i).Value, field)
	}
	return out
}
