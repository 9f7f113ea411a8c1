package regoeval

import (
	"context"
	"fmt"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/util"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refuterCases are rule bodies of a partial set, each on inputs it fails
// on and inputs it may hold on, one form of expression each. "empty" is
// the refuter's finding that no rule holds; "may" that one may, or that
// it does not read the form and leaves the set to the evaluator.
var refuterCases = []struct {
	name, body, input, want string
	second                  string // a second rule's body, if any
}{
	{"null test, not null", `some p in input.paths; p.path == null`, `{"paths": [{"path": "/a"}, {"path": "/b"}]}`, "empty", ""},
	{"null test, null", `some p in input.paths; p.path == null`, `{"paths": [{"path": "/a"}, {"path": null}]}`, "may", ""},
	{"no paths", `some p in input.paths; p.path == null`, `{"paths": []}`, "empty", ""},
	{"paths not a collection", `some p in input.paths; p.path == null`, `{"paths": "x"}`, "empty", ""},
	{"object values", `some k, v in input.args; v == "x"; k != ""`, `{"args": {"a": "y", "b": "z"}}`, "empty", ""},
	{"object values, one holds", `some k, v in input.args; v == "x"; k != ""`, `{"args": {"a": "y", "b": "x"}}`, "may", ""},
	{"constant set", `x := {"a", "b"}[_]; x == input.v`, `{"v": "c"}`, "empty", ""},
	{"constant set, member", `x := {"a", "b"}[_]; x == input.v`, `{"v": "b"}`, "may", ""},
	{"membership of a folded path", `mcp.path.fold(input.p) in {"/a", "/b"}`, `{"p": "/c"}`, "empty", ""},
	{"membership of a folded path, folded", `mcp.path.fold(input.p) in {"/a", "/b"}`, `{"p": "/A"}`, "may", ""},
	{"builtin output compared", `mcp.path.within_folded("/srv", input.p) == "inside"`, `{"p": "/etc/x"}`, "empty", ""},
	{"builtin output compared, inside", `mcp.path.within_folded("/srv", input.p) == "inside"`, `{"p": "/SRV/x"}`, "may", ""},
	{"sensitive entry's why", `some p in input.paths; e := mcp.path.sensitive(p.path); e.why != ""`, `{"paths": [{"path": "/srv/a"}]}`, "empty", ""},
	{"sensitive entry's why, .git", `some p in input.paths; e := mcp.path.sensitive(p.path); e.why != ""`, `{"paths": [{"path": "/srv/.git/config"}]}`, "may", ""},
	{"missing key", `input.missing.deep == "x"`, `{}`, "empty", ""},
	{"key into a string", `input.s[0] == "a"`, `{"s": "abc"}`, "empty", ""},
	{"scalars of two types", `input.n == "1"`, `{"n": 1}`, "empty", ""},
	{"a bound index", `some i; input.a[i] == "x"; input.b[i] == "y"`, `{"a": ["x", "z"], "b": ["q", "y"]}`, "empty", ""},
	{"a bound index, holds", `some i; input.a[i] == "x"; input.b[i] == "y"`, `{"a": ["x", "z"], "b": ["y", "q"]}`, "may", ""},
	{"two bodies, one holds", `input.v == "a"`, `{"v": "a"}`, "may", `input.v == "b"`},
	{"two bodies, neither holds", `input.v == "a"`, `{"v": "c"}`, "empty", `input.v == "b"`},
	// Forms the refuter leaves to the evaluator, whatever the input.
	{"numbers", `input.n == 1`, `{"n": 2}`, "may", ""},
	{"composites", `input.a == ["x"]`, `{"a": ["y"]}`, "may", ""},
	{"negation", `not input.x`, `{"x": true}`, "may", ""},
	{"a builtin not read", `startswith(input.p, "/tmp")`, `{"p": "/etc"}`, "may", ""},
	{"data", `data.other.x == 1`, `{}`, "may", ""},
	{"every", `every p in input.paths { p.path == null }`, `{"paths": [{"path": "/a"}]}`, "may", ""},
	{"comprehension", `count([p | some p in input.paths]) > 5`, `{"paths": []}`, "may", ""},
	{"a function of the module's", `f(input.p)`, `{"p": "/etc"}`, "may", ""},
}

// The refuter finds a set empty only where OPA's evaluator finds it
// empty too, and for the forms it reads it does find it: each case is
// evaluated both ways.
func TestGuardRefuterAgreesWithTheEvaluator(t *testing.T) {
	Register()
	ctx := context.Background()
	for _, tc := range refuterCases {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf("package t\n\nf(x) if x == \"/tmp\"\n\ns contains 1 if {\n\t%s\n}\n", tc.body)
			if tc.second != "" {
				src += fmt.Sprintf("\ns contains 2 if {\n\t%s\n}\n", tc.second)
			}
			compiler := ast.MustCompileModules(map[string]string{"t.rego": src})
			bodies := bodiesAt(t, compiler, "data.t.s")
			input := ast.MustParseTerm(tc.input).Value
			empty := emptyOn(ctx, input, refutable{bodies: bodies, callees: calleesOf(bodies)})
			var doc any
			require.NoError(t, util.UnmarshalJSON([]byte(tc.input), &doc))
			rs, err := rego.New(rego.Compiler(compiler), rego.Query("count(data.t.s)"), rego.Input(doc), rego.StrictBuiltinErrors(true)).Eval(ctx)
			require.NoError(t, err)
			n := rs[0].Expressions[0].Value
			if empty {
				assert.EqualValues(t, "0", fmt.Sprint(n), "the refuter found the set empty; OPA's evaluator did not: %v", bodies)
			}
			assert.Equal(t, tc.want, map[bool]string{true: "empty", false: "may"}[empty], "%v (OPA: %v rules hold)", bodies, n)
		})
	}
}

func bodiesAt(t *testing.T, c *ast.Compiler, ref string) []ast.Body {
	t.Helper()
	var out []ast.Body
	for _, r := range c.GetRulesExact(ast.MustParseRef(ref)) {
		out = append(out, r.Body)
	}
	require.NotEmpty(t, out)
	return out
}

// Rules that range over an argument several times over are read up to a
// bound, then left to the evaluator, which the decision's timeout bounds:
// with a few elements the set is found empty, with seventy (24 million
// ways through) the reading stops and says it may hold.
func TestRefuterStopsAtItsBound(t *testing.T) {
	Register()
	src := "package t\n\ns contains 1 if {\n\ta := input.a[_]; b := input.a[_]; c := input.a[_]; d := input.a[_]\n\ta != b; b != c; c != d\n\tmcp.path.fold(d) == \"/never\"\n}\n"
	bodies := bodiesAt(t, ast.MustCompileModules(map[string]string{"t.rego": src}), "data.t.s")
	elements := func(n int) ast.Value {
		a := make([]*ast.Term, n)
		for i := range a {
			a[i] = ast.StringTerm(fmt.Sprintf("v%d", i))
		}
		return ast.NewObject(ast.Item(ast.StringTerm("a"), ast.ArrayTerm(a...)))
	}
	assert.True(t, emptyOn(context.Background(), elements(5), refutable{bodies: bodies, callees: calleesOf(bodies)}), "five elements: read to the end, empty")
	assert.False(t, emptyOn(context.Background(), elements(70), refutable{bodies: bodies, callees: calleesOf(bodies)}), "seventy: past the bound, left to the evaluator")
	assert.True(t, emptyOn(context.Background(), elements(8), refutable{bodies: bodies, callees: calleesOf(bodies)}), "eight: within the bound, empty")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.False(t, emptyOn(ctx, elements(8), refutable{bodies: bodies, callees: calleesOf(bodies)}), "a decision whose context ended is left to the evaluator, which says so")
}
