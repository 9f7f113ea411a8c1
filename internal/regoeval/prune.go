package regoeval

import "github.com/open-policy-agent/opa/v1/ast"

// pruneUndefinedSets simplifies, in the engine module, each comprehension
// `{e | some e in data.X}`, which stands for "the set data.X, or empty when
// no module defines it":
//
//   - when no module defines data.X, it becomes the empty set it always
//     evaluates to. Evaluating it anyway costs a lookup and an iteration on
//     every call: with the default modules four of the engine's five entry
//     sets are undefined, and they were a sixth of a decision;
//   - when data.X is only ever a partial set (`X contains e if ...` rules
//     in package data and nothing else under or above it), it becomes
//     data.X itself: a partial set is always defined, and copying it into
//     a new set costs a twentieth of a decision.
//
// The engine's store holds only data.mcp_data, so a document under
// data.mcp is defined exactly when some rule's path overlaps it (is a
// prefix of it, or it a prefix of the rule's). Anything that is not that
// exact comprehension shape is left alone.
func pruneUndefinedSets(engine *ast.Module, modules map[string]*ast.Module) {
	var defined []*ast.Rule
	for _, m := range modules {
		defined = append(defined, m.Rules...)
	}
	// overlapping is how the rules overlapping ref define it: none, or
	// only as one partial set.
	overlapping := func(ref ast.Ref) (none, partialSet bool) {
		none, partialSet = true, true
		for _, r := range defined {
			if d := r.Ref().GroundPrefix(); d.HasPrefix(ref) || ref.HasPrefix(d) {
				none = false
				partialSet = partialSet && d.Equal(ref) && len(r.Head.Ref()) == 1 &&
					r.Head.RuleKind() == ast.MultiValue
			}
		}
		return none, partialSet && !none
	}
	ast.NewGenericVisitor(func(x any) bool {
		t, ok := x.(*ast.Term)
		if !ok {
			return false
		}
		if c, ok := t.Value.(*ast.SetComprehension); ok {
			if ref := iteratedRef(c); ref != nil && ref.HasPrefix(ast.DefaultRootRef) {
				switch none, partialSet := overlapping(ref); {
				case none:
					t.Value = ast.NewSet()
				case partialSet:
					t.Value = ref.Copy()
				}
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
