package rules

import "github.com/open-policy-agent/opa/v1/ast"

// pruneUndefinedSets replaces, in the engine module, each comprehension
// `{e | some e in data.X}` whose data.X no module defines with the empty
// set it always evaluates to. Evaluating it anyway costs a lookup and an
// iteration on every call: with the default modules four of the engine's
// five entry sets are undefined, and they were a sixth of a decision.
//
// The engine's store holds only data.mcp_data, so a document under
// data.mcp is defined exactly when some rule's path overlaps it (is a
// prefix of it, or it a prefix of the rule's). Anything that is not that
// exact comprehension shape is left alone.
func pruneUndefinedSets(engine *ast.Module, modules map[string]*ast.Module) {
	var defined []ast.Ref
	for _, m := range modules {
		for _, r := range m.Rules {
			defined = append(defined, r.Path())
		}
	}
	overlaps := func(ref ast.Ref) bool {
		for _, d := range defined {
			if d.HasPrefix(ref) || ref.HasPrefix(d) {
				return true
			}
		}
		return false
	}
	ast.NewGenericVisitor(func(x any) bool {
		t, ok := x.(*ast.Term)
		if !ok {
			return false
		}
		if c, ok := t.Value.(*ast.SetComprehension); ok {
			if ref := iteratedRef(c); ref != nil && ref.HasPrefix(ast.DefaultRootRef) && !overlaps(ref) {
				t.Value = ast.NewSet()
			}
			return true
		}
		return false
	}).Walk(engine)
}

// iteratedRef is R when c is exactly {e | some e in R} (R a ground ref),
// else nil.
func iteratedRef(c *ast.SetComprehension) ast.Ref {
	if len(c.Body) != 1 {
		return nil
	}
	some, ok := c.Body[0].Terms.(*ast.SomeDecl)
	if !ok || len(some.Symbols) != 1 || c.Body[0].Negated || len(c.Body[0].With) != 0 {
		return nil
	}
	call, ok := some.Symbols[0].Value.(ast.Call)
	if !ok || len(call) != 3 || !ast.Member.Ref().Equal(call[0].Value) || !call[1].Equal(c.Term) {
		return nil
	}
	ref, ok := call[2].Value.(ast.Ref)
	if !ok || !ref.IsGround() {
		return nil
	}
	return ref
}
