package builtins

import (
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/types"
)

// The data-rule builtins. mcp.rules.index builds the index of a rule list
// once (the engine stores it beside the rules); mcp.rules.match is the
// lookup the engine makes per call: the candidates' positions and whether
// each matches surely ("match") or only if an unknown is what it might be
// ("unknown"). It is to data rules what OPA's own rule indexer is to Rego
// rules: in Go, because a Rego loop costs microseconds per rule.
const (
	NameRulesIndex = "mcp.rules.index"
	NameRulesMatch = "mcp.rules.match"
)

var ruleBuiltins = []builtin{
	def1(fn(NameRulesIndex,
		"Indexes a list of rules (objects with tool, under, host, annotations) for mcp.rules.match.",
		types.Args(arrayOfAny), types.A),
		func(rs *ast.Term) (*ast.Term, error) {
			ms, err := matchersOf(rs)
			if err != nil {
				return nil, err
			}
			return indexTerm(BuildIndex(ms)), nil
		}),
	def3(fn(NameRulesMatch,
		`The rules of a list that may match a call (the engine's input document): [[position, "match" or "unknown"], ...], in order.`,
		types.Args(arrayOfAny, types.A, types.A), types.NewArray(nil, types.NewArray(nil, types.A))),
		func(rs, ix, in *ast.Term) (*ast.Term, error) {
			list, ok := rs.Value.(*ast.Array)
			if !ok {
				return nil, fmt.Errorf("rules: expected an array, got %v", ast.ValueName(rs.Value))
			}
			call := CallOf(in.Value)
			groups, _ := valueAt(ix.Value, "groups").(ast.Object)
			var globs []string
			if arr, ok := valueAt(ix.Value, "globs").(*ast.Array); ok {
				globs, _ = strs(ast.NewTerm(arr))
			}
			var out []*ast.Term
			for _, pos := range candidates(&call, globs, func(g string) []int { return positions(groups, g) }) {
				if pos < 0 || pos >= list.Len() {
					return nil, fmt.Errorf("rules: the index names rule %d of %d (stale index?)", pos, list.Len())
				}
				m, err := matcherOf(list.Elem(pos).Value)
				if err != nil {
					return nil, fmt.Errorf("rule %d: %v", pos+1, err)
				}
				if st := m.Status(&call); st != NoMatch {
					out = append(out, ast.ArrayTerm(ast.IntNumberTerm(pos), ast.StringTerm(st.String())))
				}
			}
			return ast.ArrayTerm(out...), nil
		}),
}

func indexTerm(ix Index) *ast.Term {
	groups := make([][2]*ast.Term, 0, len(ix.Groups))
	for g, ps := range ix.Groups {
		terms := make([]*ast.Term, len(ps))
		for i, p := range ps {
			terms[i] = ast.IntNumberTerm(p)
		}
		groups = append(groups, ast.Item(ast.StringTerm(g), ast.ArrayTerm(terms...)))
	}
	return ast.ObjectTerm(
		ast.Item(ast.StringTerm("groups"), ast.ObjectTerm(groups...)),
		ast.Item(ast.StringTerm("globs"), strArray(ix.Globs)),
	)
}

func positions(groups ast.Object, g string) []int {
	if groups == nil {
		return nil
	}
	t := groups.Get(ast.StringTerm(g))
	if t == nil {
		return nil
	}
	arr, ok := t.Value.(*ast.Array)
	if !ok {
		return nil
	}
	out := make([]int, 0, arr.Len())
	for i := 0; i < arr.Len(); i++ {
		if n, ok := arr.Elem(i).Value.(ast.Number); ok {
			if v, ok := n.Int(); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

func valueAt(v ast.Value, key string) ast.Value {
	obj, ok := v.(ast.Object)
	if !ok {
		return nil
	}
	t := obj.Get(ast.StringTerm(key))
	if t == nil {
		return nil
	}
	return t.Value
}

func stringAt(v ast.Value, key string) string {
	s, _ := valueAt(v, key).(ast.String)
	return string(s)
}

func matchersOf(rs *ast.Term) ([]Matcher, error) {
	list, ok := rs.Value.(*ast.Array)
	if !ok {
		return nil, fmt.Errorf("rules: expected an array, got %v", ast.ValueName(rs.Value))
	}
	out := make([]Matcher, list.Len())
	for i := range out {
		m, err := matcherOf(list.Elem(i).Value)
		if err != nil {
			return nil, fmt.Errorf("rule %d: %v", i+1, err)
		}
		out[i] = m
	}
	return out, nil
}

// matcherOf reads a rule object. Its host is normalised here too, so a
// hand-written rule in a Rego test means what the same rule in JSON means.
func matcherOf(v ast.Value) (Matcher, error) {
	if _, ok := v.(ast.Object); !ok {
		return Matcher{}, fmt.Errorf("expected an object, got %v", ast.ValueName(v))
	}
	m := Matcher{Tool: stringAt(v, "tool"), Under: stringAt(v, "under"), Host: stringAt(v, "host")}
	if m.Tool == "" {
		return m, fmt.Errorf("no tool")
	}
	if m.Host != "" {
		h, err := NormalizeHostPattern(m.Host)
		if err != nil {
			return m, err
		}
		m.Host = h
	}
	if ann, ok := valueAt(v, "annotations").(ast.Object); ok && ann.Len() > 0 {
		m.Annotations = map[string]bool{}
		err := ann.Iter(func(k, val *ast.Term) error {
			ks, ok1 := k.Value.(ast.String)
			b, ok2 := val.Value.(ast.Boolean)
			if !ok1 || !ok2 {
				return fmt.Errorf("annotations must map hint names to booleans")
			}
			m.Annotations[string(ks)] = bool(b)
			return nil
		})
		if err != nil {
			return m, err
		}
	}
	return m, nil
}

// CallOf reads the engine's input document: tool, root, annotations,
// paths[].path and hosts[].host (null for unknown).
func CallOf(in ast.Value) Call {
	c := Call{Tool: stringAt(in, "tool"), Root: stringAt(in, "root")}
	if ann, ok := valueAt(in, "annotations").(ast.Object); ok {
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
	c.Paths = fieldOfEach(valueAt(in, "paths"), "path")
	c.Hosts = fieldOfEach(valueAt(in, "hosts"), "host")
	return c
}

func fieldOfEach(v ast.Value, field string) []string {
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

// IndexData is an index in the form mcp.rules.index returns and the store
// holds.
func IndexData(ix Index) map[string]any {
	groups := make(map[string]any, len(ix.Groups))
	for g, ps := range ix.Groups {
		l := make([]any, len(ps))
		for i, p := range ps {
			l[i] = p
		}
		groups[g] = l
	}
	globs := make([]any, len(ix.Globs))
	for i, g := range ix.Globs {
		globs[i] = g
	}
	return map[string]any{"groups": groups, "globs": globs}
}
