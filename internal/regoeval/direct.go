package regoeval

// A residual with nothing left to evaluate but the engine's builtin. With
// a tool's hints known, partial evaluation leaves a read-only tool's
// decision, when no module of a team's adds rules, as one call of the
// builtin on input and constants (the roots, the protected files, and the
// floor's and modules' entry sets, all empty):
//
//	__localq0__ = input; mcp.engine.decide(__localq0__, {"roots": …}, set(), …, _)
//
// OPA's evaluator would bind input and call the builtin with those
// arguments; the direct call does the same without the evaluator — its
// transaction, bindings and cancellation, most of a read's decision and
// more in place, where each of them is a cache miss. Partial evaluation
// still decides what is left: any rule it could not evaluate away (the
// floor's for a writing tool, a module's) keeps the query on the
// evaluator, and an error the builtin returns is given its words by the
// evaluator, so both paths fail alike.

import (
	"errors"

	"github.com/open-policy-agent/opa/v1/ast"
)

// directCall is a residual that is one call of the engine's builtin with
// input, constants and entry sets whose rules may all fail on the call
// (refute.go).
type directCall struct {
	data *ast.Term   // the builtin's second argument: data.mcp_data's value
	sets []*ast.Term // its entry sets; nil where refutable has the set's rules
	// refutable are the entry sets that rules define: each is empty when
	// every rule of it fails on the call, which is read before the call.
	refutable []refutable
}

// directCallOf is body's builtin call when body is nothing else, nil
// otherwise: every expression before the last binds a variable to input,
// or to a partial set of the residual's rules (refutableSet), and the last
// calls the builtin with input (or such a variable) first, constants or
// such sets after it, and a wildcard for its output.
func directCallOf(body ast.Body, compiler *ast.Compiler) *directCall {
	if len(body) == 0 {
		return nil
	}
	inputVars := map[ast.Var]bool{}
	setVars := map[ast.Var][]ast.Body{}
	for _, e := range body[:len(body)-1] {
		if e.Negated || len(e.With) > 0 || !e.IsEquality() {
			return nil
		}
		v, ok := e.Operand(0).Value.(ast.Var)
		if !ok {
			return nil
		}
		if isInput(e.Operand(1)) {
			inputVars[v] = true
			continue
		}
		ref, ok := e.Operand(1).Value.(ast.Ref)
		if !ok {
			return nil
		}
		bodies, ok := refutableSet(compiler, ref)
		if !ok {
			return nil
		}
		setVars[v] = bodies
	}
	last := body[len(body)-1]
	if last.Negated || len(last.With) > 0 || !last.IsCall() || last.Operator().String() != NameEngineDecide {
		return nil
	}
	ops := last.Operands()
	// input, data, the entry sets, and the output.
	if len(ops) != 2+len(moduleSets)+1 {
		return nil
	}
	if in := ops[0]; !isInput(in) {
		if v, ok := in.Value.(ast.Var); !ok || !inputVars[v] {
			return nil
		}
	}
	if out, ok := ops[len(ops)-1].Value.(ast.Var); !ok || !(out.IsWildcard() || out == ast.Wildcard.Value) {
		return nil
	}
	// Constants: no variable, and no reference or call either, which OPA
	// would count as ground and evaluate.
	if !ast.IsConstant(ops[1].Value) {
		return nil
	}
	d := &directCall{data: ops[1], sets: make([]*ast.Term, len(moduleSets))}
	for i, a := range ops[2 : len(ops)-1] {
		if v, ok := a.Value.(ast.Var); ok && setVars[v] != nil {
			d.refutable = append(d.refutable, refutable{arg: i, bodies: setVars[v], callees: calleesOf(setVars[v])})
			continue
		}
		if !ast.IsConstant(a.Value) {
			return nil
		}
		d.sets[i] = a
	}
	return d
}

// isInput says t is the input document itself.
func isInput(t *ast.Term) bool { return t.Value.Compare(ast.InputRootRef) == 0 }

// errNotDirect is the direct call's refusal: a rule of an entry set may
// hold on the call, and the evaluator decides it.
var errNotDirect = errors.New("a rule may hold: the evaluator decides")

// decide is the builtin's outcome for the sink's call, when every
// refutable set is empty on it.
func (d *directCall) decide(s *sink) (Outcome, error) {
	if len(d.refutable) == 0 {
		return s.decide(d.data, d.sets)
	}
	var buf [8]*ast.Term
	sets := append(buf[:0], d.sets...)
	doc := s.document()
	for _, r := range d.refutable {
		if !emptyOn(s, doc, r) {
			return Outcome{}, errNotDirect
		}
		sets[r.arg] = emptySet
	}
	return s.decide(d.data, sets)
}

var emptySet = ast.SetTerm()
