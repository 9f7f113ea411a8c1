package regoeval

import (
	"sync"

	"github.com/mcp-policy/mcp-policy/builtins"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/types"
)

var registerOnce sync.Once

// The builtins are registered when the package is initialised, before
// main runs: OPA's registry is a plain map that its parser reads, so a
// registration made later, while another goroutine parses Rego (a
// program's own query, or DefaultRules), is a data race.
func init() { Register() }

// Register adds the path, host and tool builtins (builtins.Register) and
// the engine's own, mcp.engine.decide, to OPA's global registry, so that
// every compiler, query, test runner and OPA command in this process knows
// them. It is idempotent.
func Register() {
	builtins.Register()
	registerOnce.Do(func() {
		for _, b := range engineBuiltins {
			b.register()
		}
	})
}

// Declarations returns every builtin's declaration, the engine's included,
// for the capabilities file rego/ is checked with.
func Declarations() []*ast.Builtin {
	out := builtins.Declarations()
	for _, b := range engineBuiltins {
		out = append(out, &ast.Builtin{Name: b.decl.Name, Description: b.decl.Description, Decl: b.decl.Decl})
	}
	return out
}

type builtin struct {
	decl     *rego.Function
	register func()
}

func fn(name, desc string, args []types.Type, result types.Type) *rego.Function {
	return &rego.Function{Name: name, Description: desc, Decl: types.NewFunction(args, result), Memoize: false}
}

var setOfAny = types.NewSet(types.A)

// defDyn passes the builtin context on: the engine builtin reads its sink
// from the context's Context.
func defDyn(d *rego.Function, f rego.BuiltinDyn) builtin {
	return builtin{decl: d, register: func() { rego.RegisterBuiltinDyn(d, f) }}
}

// str reads a string term; anything else (null included) is "not a string".
func str(t *ast.Term) (string, bool) {
	if s, ok := t.Value.(ast.String); ok {
		return string(s), true
	}
	return "", false
}
