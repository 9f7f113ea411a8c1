package regoeval

// Entry sets whose rules all fail on a call. Partial evaluation leaves a
// writing tool's residual with the floor's ask rules to evaluate (the
// sensitive files, the whole trees, the paths that cannot be checked),
// and on almost every call each fails at its first test of the call's
// paths. OPA's evaluator costs as much to start as a whole prepared
// query, before any rule: more than the rest of the decision. So the
// direct call (direct.go) also takes a residual whose entry sets are
// such rules, and before it calls the builtin it reads each rule's body
// here, expression by expression, as the evaluator would: the same
// lookups in the input, the same builtin functions (OPA's own, through
// its registry), in the same order. When every way through every body
// fails at an expression read here, the set is empty, as the evaluator
// would find it, and the builtin is called with the empty set. Anything
// else — a body that holds, an expression of a form not read here (a
// negation, a comprehension, a function or builtin not on the list, a
// reference into data), a builtin's error — hands the whole decision to
// the evaluator, which decides and words it as before. Nothing the
// evaluator would have reached is skipped: each way stops at its first
// failing expression, where the evaluator stops too.

import (
	"context"
	"errors"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/mcp-policy/mcp-policy/builtins"
)

// refutable is an entry set argument of the builtin's call that a rule
// set defines: the bodies of its rules, each a partial set rule's.
type refutable struct {
	arg    int // its index among the entry sets
	bodies []ast.Body
	// callees are the bodies' builtin calls, each looked up once.
	callees map[*ast.Expr]*callee
}

// callee is a builtin call of a body, read once when the policy is
// prepared rather than on every call it is read for: the builtin's
// declaration and function (nil: not one read here), and which operands
// are constants.
type callee struct {
	decl     *ast.Builtin
	fn       topdown.BuiltinFunc
	constant []bool
}

// calleesOf is every builtin call in bodies, looked up.
func calleesOf(bodies []ast.Body) map[*ast.Expr]*callee {
	m := map[*ast.Expr]*callee{}
	for _, b := range bodies {
		ast.WalkExprs(b, func(e *ast.Expr) bool {
			if e.IsCall() {
				m[e] = newCallee(e)
			}
			return false
		})
	}
	return m
}

// newCallee looks a call's builtin up.
func newCallee(e *ast.Expr) *callee {
	name := e.Operator().String()
	c := &callee{decl: pureBuiltins[name], fn: topdown.GetBuiltin(name)}
	if c.decl == nil || c.fn == nil {
		return &callee{}
	}
	ops := e.Operands()
	c.constant = make([]bool, len(ops))
	for i, op := range ops {
		_, isVar := op.Value.(ast.Var)
		c.constant[i] = !isVar && ast.IsConstant(op.Value)
	}
	return c
}

// refutableSet is what the residual's compiler defines at ref: the bodies
// of its rules, when ref is a partial set of the partial namespace made
// of plain rules only (no else, no default, nothing defined below it).
func refutableSet(compiler *ast.Compiler, ref ast.Ref) ([]ast.Body, bool) {
	if compiler == nil || len(ref) < 2 || !ref[0].Equal(ast.DefaultRootDocument) || !ref[1].Equal(ast.StringTerm(partialNamespace)) || !ref.IsGround() {
		return nil, false
	}
	rules := compiler.GetRulesExact(ref)
	if len(rules) == 0 || len(compiler.GetRulesWithPrefix(ref)) != len(rules) {
		return nil, false
	}
	bodies := make([]ast.Body, 0, len(rules))
	for _, r := range rules {
		if r.Default || r.Else != nil || r.Head.RuleKind() != ast.MultiValue || len(r.Head.Args) > 0 {
			return nil, false
		}
		bodies = append(bodies, r.Body)
	}
	return bodies, true
}

// emptyOn says that no rule of bodies holds on input: its set is empty.
// false when one may hold, or this reading cannot tell.
func emptyOn(ctx context.Context, input ast.Value, set refutable) bool {
	r := refuter{ctx: ctx, input: ast.NewTerm(input), callees: set.callees}
	r.collect = r.keep
	for _, b := range set.bodies {
		r.vars = r.vars[:0]
		if r.mayHold(b, 0) {
			return false
		}
	}
	return true
}

// refuteSteps bounds the reading of one call's rules, in expressions read
// and variables bound. Rules that range over an argument several times
// over take time in the power of their ranges, and nothing here is
// cancelled midway: past the bound (milliseconds) the evaluator decides,
// under the decision's timeout. The floor reads a few steps per path.
const refuteSteps = 1 << 16

// refuter reads rule bodies on one input. vars are the variables bound so
// far on the way being read, a stack; steps counts what was read.
type refuter struct {
	ctx   context.Context
	input *ast.Term
	vars  []binding
	steps int
	out   bool // the bound is passed or the context ended
	// callees are the bodies' calls, looked up (calleesOf); a call not
	// among them is looked up when it is read.
	callees map[*ast.Expr]*callee
	// args and result are a builtin's call's arguments and its result,
	// and collect (keep, bound once) what the builtin hands it to.
	args    [4]*ast.Term
	result  *ast.Term
	collect func(*ast.Term) error
}

// spent counts a step and says whether the bound is passed, or the
// decision's context ended: then whatever is read may hold, and the
// evaluator decides (and says why it stopped).
func (r *refuter) spent() bool {
	if !r.out {
		r.steps++
		r.out = r.steps > refuteSteps || r.steps%1024 == 0 && r.ctx.Err() != nil
	}
	return r.out
}

type binding struct {
	v ast.Var
	t *ast.Term
}

func (r *refuter) lookup(v ast.Var) *ast.Term {
	for i := len(r.vars) - 1; i >= 0; i-- {
		if r.vars[i].v == v {
			return r.vars[i].t
		}
	}
	return nil
}

// with binds v to t while then runs.
func (r *refuter) with(v ast.Var, t *ast.Term, then func() bool) bool {
	if r.spent() {
		return true
	}
	r.vars = append(r.vars, binding{v, t})
	ok := then()
	r.vars = r.vars[:len(r.vars)-1]
	return ok
}

// mayHold says body[i:] may hold under the bindings so far: some way
// through it holds, or reaches an expression not read here.
func (r *refuter) mayHold(body ast.Body, i int) bool {
	if i == len(body) || r.spent() {
		return true
	}
	e := body[i]
	next := func() bool { return r.mayHold(body, i+1) }
	switch {
	case e.Negated || len(e.With) > 0:
		return true
	case e.IsEquality():
		return r.unify(e.Operand(0), e.Operand(1), next)
	case e.IsCall():
		return r.call(e, next)
	}
	return true
}

// unify is a = b: a fresh variable on either side is bound to each value
// of the other; otherwise each value of a is compared with each of b when
// both are scalars (scalars of two types are never equal).
func (r *refuter) unify(a, b *ast.Term, then func() bool) bool {
	if v, ok := r.fresh(a); ok {
		return r.values(b, func(t *ast.Term) bool { return r.with(v, t, then) })
	}
	if v, ok := r.fresh(b); ok {
		return r.values(a, func(t *ast.Term) bool { return r.with(v, t, then) })
	}
	return r.values(a, func(x *ast.Term) bool {
		return r.values(b, func(y *ast.Term) bool {
			_, xn := x.Value.(ast.Number)
			_, yn := y.Value.(ast.Number)
			if !ast.IsScalar(x.Value) || !ast.IsScalar(y.Value) || xn && yn {
				return true // composites, and numbers' equality, are the evaluator's
			}
			return x.Value.Compare(y.Value) == 0 && then()
		})
	})
}

// fresh says t is a variable not bound yet.
func (r *refuter) fresh(t *ast.Term) (ast.Var, bool) {
	v, ok := t.Value.(ast.Var)
	return v, ok && r.lookup(v) == nil
}

// values calls then with each value of t, and says whether any call said
// true; true as well when t is of a form not read here. A reference's
// fresh variables are bound to each key it is defined at, in turn.
func (r *refuter) values(t *ast.Term, then func(*ast.Term) bool) bool {
	switch v := t.Value.(type) {
	case ast.Var:
		if b := r.lookup(v); b != nil {
			return then(b)
		}
		return true
	case ast.Ref:
		var root *ast.Term
		switch head := v[0].Value.(type) {
		case ast.Var:
			if root = r.lookup(head); head == inputVar {
				root = r.input
			}
		default:
			if ast.IsConstant(head) {
				root = v[0] // a constant partial evaluation inlined, such as the roots
			}
		}
		if root == nil {
			return true // data, an unbound variable, or a call
		}
		return r.walk(root, v[1:], then)
	}
	if ast.IsConstant(t.Value) {
		return then(t)
	}
	return true
}

var inputVar = ast.InputRootDocument.Value.(ast.Var)

// walk follows path from cur, as the evaluator does: a key that is a
// fresh variable ranges over cur's keys; a key with no value is
// undefined, and so is a key into anything but a collection.
func (r *refuter) walk(cur *ast.Term, path ast.Ref, then func(*ast.Term) bool) bool {
	if len(path) == 0 {
		return then(cur)
	}
	key := path[0]
	if v, ok := r.fresh(key); ok {
		switch c := cur.Value.(type) {
		case *ast.Array:
			for i := range c.Len() {
				if r.with(v, ast.InternedTerm(i), func() bool { return r.walk(c.Elem(i), path[1:], then) }) {
					return true
				}
			}
		case ast.Object:
			for _, k := range c.Keys() {
				if r.with(v, k, func() bool { return r.walk(c.Get(k), path[1:], then) }) {
					return true
				}
			}
		case ast.Set:
			for _, k := range c.Slice() {
				if r.with(v, k, func() bool { return r.walk(k, path[1:], then) }) {
					return true
				}
			}
		}
		return false
	}
	if kv, ok := key.Value.(ast.Var); ok {
		key = r.lookup(kv)
	}
	if !ast.IsScalar(key.Value) {
		return true // a composite key, or a call or reference in one
	}
	next := cur.Get(key)
	if next == nil {
		return false
	}
	return r.walk(next, path[1:], then)
}

// call is a builtin's call on the list (pureBuiltins): OPA's own
// function, called as the evaluator calls it, its arguments the values of
// bound variables or constants (the compiler leaves nothing else there).
// Without an output the call holds unless its result is false or
// undefined; an output is unified with the result.
func (r *refuter) call(e *ast.Expr, then func() bool) bool {
	c := r.callees[e]
	if c == nil {
		c = newCallee(e)
	}
	if c.fn == nil {
		return true
	}
	ops := e.Operands()
	arity := c.decl.Decl.Arity()
	if len(ops) != arity && len(ops) != arity+1 {
		return true
	}
	// The refuter's own buffer and result slot: a builtin's call returns
	// before then reads on, so one call's are done with before the next.
	args := r.args[:0]
	for i := range arity {
		var arg *ast.Term
		switch v := ops[i].Value.(type) {
		case ast.Var:
			arg = r.lookup(v)
		default:
			if c.constant[i] {
				arg = ops[i]
			}
		}
		if arg == nil {
			return true
		}
		args = append(args, arg)
	}
	r.result = nil
	err := c.fn(topdown.BuiltinContext{Context: r.ctx}, args, r.collect)
	result := r.result
	switch {
	case err != nil:
		return true // the evaluator words it
	case result == nil:
		return false
	case len(ops) == arity:
		return !ast.Boolean(false).Equal(result.Value) && then()
	}
	return r.unify(ops[arity], result, then)
}

var errMoreThanOne = errors.New("more than one result")

// keep is a builtin's result kept in the refuter's slot (collect).
func (r *refuter) keep(t *ast.Term) error {
	if r.result != nil {
		return errMoreThanOne // no builtin on the list has two results
	}
	r.result = t
	return nil
}

// pureBuiltins are the builtins read here: this project's path, host,
// URL and tool builtins, and OPA's membership and (in)equality, each a
// function of its arguments alone.
var pureBuiltins = func() map[string]*ast.Builtin {
	m := map[string]*ast.Builtin{}
	for _, b := range []*ast.Builtin{ast.Member, ast.MemberWithKey, ast.Equal, ast.NotEqual} {
		m[b.Name] = b
	}
	for _, b := range builtins.Declarations() {
		m[b.Name] = b
	}
	return m
}()
