package regoeval

// The decision, compiled: the fast path (a residual query run by OPA's
// evaluator, its outcome taken through a sink) and the plain path (OPA's
// prepared query over the whole modules, the document read back), one
// Decider either way.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/mcp-policy/mcp-policy/rego"
)

// Spec is what a Decider is compiled from.
type Spec struct {
	// Modules are a team's modules, added to the embedded ones.
	Modules []mcprego.Module
	// Rules makes the data rules as data (every field present), for
	// data.mcp_data.rules: called on the plain path, and on the fast path
	// when a module reads data.mcp_data (see ModulesReadData); else the
	// rules are handed to Eval as a RuleSet, and not made as data at all
	// (at 100,000 rules that was a third of New's allocations). nil is no
	// rules.
	Rules func() []any
	// Roots and Protected are data.mcp_data's roots and protected files.
	Roots, Protected []string
	// Plain selects the plain path: OPA's public API only, every module as
	// written, the document read back. The fast path is an optimisation of
	// it, and a differential test holds the two to the same decisions.
	Plain bool
}

// Decider decides calls. It is safe for concurrent use.
type Decider struct {
	fast  *residualQuery
	plain *rego.PreparedEvalQuery
	// hinted are residuals made for each tool's hints (see hints.go);
	// nil when the rules are in data, where partial evaluation for each
	// combination would read every rule again.
	hinted *hintedResiduals
	// virtualCache makes each evaluation's virtual-document cache; nil is
	// newRefCache. A guard test counts what OPA puts in it through this.
	virtualCache func() topdown.VirtualCache
	// rulesInData says the rules are read from data.mcp_data, not handed
	// to Eval; then rules caches their RuleSet, read once per array.
	rulesInData bool
	rules       ruleCache
}

// Compile parses, checks and compiles the modules, and prepares the
// decision. Errors name the module file and line.
func Compile(ctx context.Context, s Spec) (*Decider, error) {
	Register()
	modules, err := parseModules(s.Modules, !s.Plain)
	if err != nil {
		return nil, err
	}
	d := &Decider{rulesInData: s.Plain || ModulesReadData(modules)}
	// The fast path with the rules handed to Eval depends on nothing but
	// the key's parts (compiled.go).
	var key compiledKey
	if !d.rulesInData {
		key = keyOf(s.Modules, s.Roots, s.Protected)
		if c := compiles.get(key); c != nil {
			return c.decider(), nil
		}
	}
	var rs []any
	if d.rulesInData && s.Rules != nil {
		rs = s.Rules()
	}
	store := newStore(rs, s.Roots, s.Protected)
	compiler := ast.NewCompiler().WithEnablePrintStatements(false)
	if compiler.Compile(modules); compiler.Failed() {
		return nil, fmt.Errorf("rego: %v", compiler.Errors)
	}
	// A builtin's error fails the decision instead of quietly making an
	// expression undefined: an undefined expression in a deny or ask rule
	// would drop it, and a dropped deny allows.
	strict := rego.StrictBuiltinErrors(true)
	if s.Plain {
		pq, err := rego.New(rego.Query("data.mcp.engine.decision"), rego.Compiler(compiler), rego.Store(store), strict).PrepareForEval(ctx)
		if err != nil {
			return nil, fmt.Errorf("rego: %v", err)
		}
		d.plain = &pq
		return d, nil
	}
	if d.fast, err = prepareResidual(ctx, compiler, modules, store, []func(*rego.Rego){strict}, nil); err != nil {
		return nil, err
	}
	if !d.rulesInData {
		c := &compiledFast{fast: d.fast, hinted: &hintedResiduals{compiler: compiler, modules: modules, store: store, evalOptions: []func(*rego.Rego){strict}}}
		compiles.put(key, c)
		return c.decider(), nil
	}
	return d, nil
}

// RulesInData reports whether the rules are read from data (so Eval need
// not be handed them).
func (d *Decider) RulesInData() bool { return d.rulesInData }

// Plain reports whether d is the plain path.
func (d *Decider) Plain() bool { return d.plain != nil }

// Eval decides one call, input; rules are the data rules, indexed (ignored
// when they are in data). timeout bounds the evaluation, 0 for none; ctx
// bounds it too.
func (d *Decider) Eval(ctx context.Context, input Input, rules *RuleSet, timeout time.Duration) (Outcome, error) {
	if ctx.Err() != nil {
		return Outcome{}, fmt.Errorf("not decided: %w", context.Cause(ctx))
	}
	if d.rulesInData {
		// The builtin reads the rules from data: they are indexed once,
		// in this Decider's cache (a context value costs an allocation,
		// so only a decision that reads the rules pays it).
		ctx = context.WithValue(ctx, ruleCacheKey{}, &d.rules)
	}
	if d.plain != nil {
		return d.evalPlain(ctx, input.Document(), timeout)
	}
	if d.rulesInData {
		rules = nil // read from data, as the module that reads them does
	}
	// The engine's builtin hands its outcome to this call directly (see
	// withSink) instead of as a document to read back.
	query := d.fast
	if d.hinted != nil {
		if ann := input.Annotations(); ann != nil {
			if q := d.hinted.residual(ctx, ann); q != nil {
				query = q
			}
		}
	}
	sink := withSink(ctx, input, rules)
	if query.direct != nil {
		// Nothing left for the evaluator but the builtin's call (see
		// direct.go). An error is left to the evaluator to word. Nothing
		// can cancel the call midway, so the bound is checked after it: a
		// decision that took too long fails as the evaluator's would.
		var start time.Time
		if timeout > 0 {
			start = time.Now()
		}
		if o, err := query.direct.decide(sink); err == nil {
			if err := stopped(ctx, timeout, timeout > 0 && time.Since(start) > timeout); err != nil {
				return Outcome{}, err
			}
			return o, nil
		}
	}
	cancel := topdown.NewCancel()
	// Without a canceller of ours, OPA starts a goroutine and a channel
	// per evaluation to watch ctx; context.AfterFunc watches it with a
	// callback instead (and a ctx that cannot end is not watched at all).
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, cancel.Cancel)
		defer stop()
	}
	var late *lateness
	if timeout > 0 {
		// A timer, not a context with a deadline: the same bound for a
		// tenth of the allocations, which every decision would pay.
		late = &lateness{cancel: cancel}
		t := time.AfterFunc(timeout, late.fire)
		defer t.Stop()
	}
	fail := func(err error) (Outcome, error) {
		if err := stopped(ctx, timeout, late != nil && late.fired.Load()); err != nil {
			return Outcome{}, err
		}
		return Outcome{}, fmt.Errorf("rego: %v", err)
	}
	results, err := query.eval(sink, sink.document(), cancel, d.virtualCache)
	if err != nil {
		return fail(err)
	}
	switch {
	case results == 0:
		return Outcome{}, errors.New("rego: the decision is undefined (a module conflicts with the engine?)")
	case results > 1: // the builtin ran more than once: which outcome stands is not known
		return Outcome{}, fmt.Errorf("rego: the decision has %d results, not one", results)
	}
	if sink.outcome.Decision == "" {
		return Outcome{}, errors.New("rego: the engine's builtin did not decide")
	}
	return sink.outcome, nil
}

// evalPlain is Eval on the plain path: OPA's prepared query, which watches
// ctx itself, and the document read back.
func (d *Decider) evalPlain(ctx context.Context, input ast.Value, timeout time.Duration) (Outcome, error) {
	// OPA's public API: the query watches ctx itself.
	pctx := ctx
	if timeout > 0 {
		var stop context.CancelFunc
		pctx, stop = context.WithTimeoutCause(ctx, timeout, fmt.Errorf("the decision took longer than %v", timeout))
		defer stop()
	}
	rs, err := d.plain.Eval(pctx, rego.EvalParsedInput(input))
	if err != nil {
		if ctx.Err() == nil && pctx.Err() != nil {
			return Outcome{}, fmt.Errorf("not decided: %w", context.Cause(pctx))
		}
		return Outcome{}, fmt.Errorf("rego: %v", err)
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return Outcome{}, fmt.Errorf("rego: the decision has %d results, not one", len(rs))
	}
	doc, err := ast.InterfaceToValue(rs[0].Expressions[0].Value)
	if err != nil {
		return Outcome{}, fmt.Errorf("rego: the decision document: %v", err)
	}
	obj, ok := doc.(ast.Object)
	if !ok {
		return Outcome{}, errors.New("rego: the decision document is not an object")
	}
	return outcomeOf(obj, d.rules.position)
}

// stopped says why a decision was not made, nil when nothing stopped it:
// ctx ended, or it overran its timeout.
func stopped(ctx context.Context, timeout time.Duration, overran bool) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("not decided: %w", context.Cause(ctx))
	case overran:
		return fmt.Errorf("not decided: the decision took longer than %v", timeout)
	}
	return nil
}

// lateness cancels an evaluation that runs past its timeout, and says it
// did.
type lateness struct {
	cancel topdown.Cancel
	fired  atomic.Bool
}

func (t *lateness) fire() { t.fired.Store(true); t.cancel.Cancel() }

// ruleCache holds the RuleSet of a rules array read from data, so the
// list is indexed once however many calls read it: the store hands the
// same immutable array to every evaluation. It belongs to one Decider
// (handed to the builtin through the context), so it goes with it.
type ruleCache struct {
	mu    sync.Mutex
	arr   *ast.Array
	set   *RuleSet
	reads atomic.Int64 // how many times a list was read: a guard test holds it to one
}

type ruleCacheKey struct{}

// position is the index of a data rule, as a decision document shows it,
// in the list last read: the plain path names the rule that decided by its
// position, as the fast path does. Equal rules are one rule to the caller,
// so the first equal one is it.
func (c *ruleCache) position(rule ast.Value) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.set == nil {
		return 0, false
	}
	for i, t := range c.set.terms {
		if t != nil && t.Value.Compare(rule) == 0 {
			return i, true
		}
	}
	return 0, false
}

func (c *ruleCache) get(arr *ast.Array) *RuleSet {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.arr != arr || c.set == nil {
		c.arr, c.set = arr, readRuleSet(arr)
		c.reads.Add(1)
	}
	return c.set
}

// newStore holds data.mcp_data.
func newStore(rules []any, roots, protected []string) storage.Store {
	if rules == nil {
		rules = []any{}
	}
	rs := make([]any, len(roots))
	for i, r := range roots {
		rs[i] = r
	}
	ps := make([]any, len(protected))
	for i, p := range protected {
		ps[i] = p
	}
	return inmem.NewFromObjectWithOpts(map[string]any{
		"mcp_data": map[string]any{"rules": rules, "roots": rs, "protected": ps},
	}, inmem.OptRoundTripOnWrite(false), inmem.OptReturnASTValuesOnRead(true))
}

// ModulesReadData reports whether a team's module refers to
// data.mcp_data, or to data in a way that could reach it (data itself, or
// data[x]): then the data rules must be in the store for it to read.
func ModulesReadData(modules map[string]*ast.Module) bool {
	found := false
	for name, m := range modules {
		if !strings.HasPrefix(name, "user/") {
			continue // the embedded modules read roots and protected files only
		}
		ast.WalkRefs(m, func(r ast.Ref) bool {
			if found || !r[0].Equal(ast.DefaultRootDocument) {
				return found
			}
			if len(r) == 1 {
				found = true
			} else if s, ok := r[1].Value.(ast.String); !ok || string(s) == "mcp_data" {
				found = true
			}
			return found
		})
	}
	return found
}

// prepareResidual prepares the decision for evaluation. Everything but the
// input is known at NewEngine: the rules, roots and protected files in the
// store, the floor and the modules. OPA evaluates all of it once (partial
// evaluation, input unknown) and leaves a residual query that only tests
// the input: the protected-file rules are gone when there are none, roots
// and constants are inlined, the data rules are one constant. That is a
// third of every decision saved, for a few milliseconds here. OPA's own
// semantics throughout; the Rego tests run the modules without partial
// evaluation and agree.
//
// The residual query is prepared as it is, not as the body of a rule (as
// rego.PartialResult does): evaluating that rule was a twentieth of a
// decision. Its last expression is the engine's builtin call, whose outcome
// Evaluate takes through a sink (withSink).
func prepareResidual(ctx context.Context, compiler *ast.Compiler, modules map[string]*ast.Module,
	store storage.Store, evalOptions []func(*rego.Rego), annotations *ast.Term) (*residualQuery, error) {
	known := []func(*rego.Rego){rego.Unknowns([]string{"input"})}
	if annotations != nil {
		known = []func(*rego.Rego){rego.Unknowns(inputUnknowns), rego.ParsedInput(ast.NewObject(ast.Item(keyAnnotations, annotations)))}
	}
	partial, err := rego.New(append(append([]func(*rego.Rego){
		rego.Query("data.mcp.engine.decision"),
		rego.Compiler(compiler),
		rego.Store(store),
		rego.StoreReadAST(true),
		rego.PartialNamespace(partialNamespace),
	}, known...), evalOptions...)...).Partial(ctx)
	if err != nil {
		return nil, fmt.Errorf("rego: %v", err)
	}
	// The engine's package is reserved and its decision is one call of the
	// builtin, so anything else is the engine's defect: refuse to start.
	if len(partial.Queries) != 1 {
		return nil, fmt.Errorf("rego: partial evaluation left %d decision queries, not one", len(partial.Queries))
	}
	query := partial.Queries[0]
	if op := calledIn(query[len(query)-1]); op != NameEngineDecide {
		return nil, fmt.Errorf("rego: partial evaluation left a decision query that does not end in %s: %v", NameEngineDecide, query)
	}
	// The builtin's value is not wanted (its outcome comes through the
	// sink), so its output is the wildcard: a query value OPA would
	// otherwise capture, test and hand back as the result costs 4% of a
	// decision.
	if t, ok := query[len(query)-1].Terms.(*ast.Term); ok {
		if call, ok := t.Value.(ast.Call); ok {
			last := ast.NewExpr(append(slices.Clone([]*ast.Term(call)), ast.VarTerm("_")))
			last.Negated, last.With = query[len(query)-1].Negated, query[len(query)-1].With
			query = append(query[:len(query)-1:len(query)-1], last)
		}
	}
	withSupport := make(map[string]*ast.Module, len(modules)+len(partial.Support))
	for k, m := range modules {
		withSupport[k] = m
	}
	for i, m := range partial.Support {
		withSupport[fmt.Sprintf("%s/support%d.rego", partialNamespace, i)] = m
	}
	residual := ast.NewCompiler().WithEnablePrintStatements(false)
	if residual.Compile(withSupport); residual.Failed() {
		return nil, fmt.Errorf("rego: partial evaluation: %v", residual.Errors)
	}
	queries := residual.QueryCompiler()
	body, err := queries.Compile(query)
	if err != nil {
		return nil, fmt.Errorf("rego: %v", err)
	}
	return &residualQuery{body: body, queries: queries, compiler: residual, store: store, direct: directCallOf(body, residual)}, nil
}

// residualQuery is the decision, compiled, run by OPA's evaluator (topdown)
// itself. rego.PreparedEvalQuery would wrap each run in an evaluation
// context and turn the bindings into a result set; nothing reads either
// (the outcome comes through the sink), and they were a twentieth of a
// decision.
type residualQuery struct {
	body     ast.Body
	queries  ast.QueryCompiler
	compiler *ast.Compiler
	store    storage.Store
	// direct is the builtin's call when it is all the query is (see
	// direct.go), nil otherwise.
	direct *directCall
}

// eval runs the query on input, as rego.PreparedEvalQuery.Eval would with
// strict builtin errors: in a read transaction of its own, cancelled by
// cancel, with the engine's virtual-document cache and no metrics. results
// is how many results the query had: one, or the decision is not sound.
func (q *residualQuery) eval(ctx context.Context, input ast.Value, cancel topdown.Cancel,
	virtualCache func() topdown.VirtualCache) (results int, err error) {
	txn, err := q.store.NewTransaction(ctx)
	if err != nil {
		return 0, err
	}
	defer q.store.Abort(ctx, txn)
	var cache topdown.VirtualCache = newRefCache()
	if virtualCache != nil {
		cache = virtualCache()
	}
	err = topdown.NewQuery(q.body).
		WithQueryCompiler(q.queries).
		WithCompiler(q.compiler).
		WithStore(q.store).
		WithTransaction(txn).
		WithInput(ast.NewTerm(input)).
		WithCancel(cancel).
		WithStrictBuiltinErrors(true).
		WithVirtualCache(cache).
		WithMetrics(metrics.NoOp()). // nothing reads them: timing them was 2% of a decision
		Iter(ctx, func(topdown.QueryResult) error { results++; return nil })
	return results, err
}

// calledIn names the function an expression calls: a call expression, or
// a term that is a call (partial evaluation leaves either). "" for neither.
func calledIn(expr *ast.Expr) string {
	if expr.IsCall() {
		return expr.Operator().String()
	}
	if t, ok := expr.Terms.(*ast.Term); ok {
		if call, ok := t.Value.(ast.Call); ok && len(call) > 0 {
			return call[0].String()
		}
	}
	return ""
}

// inputUnknowns are the input document's fields other than annotations
// (internal/rules builds the document; the differential test holds the two
// together: a field left out here is read as absent on the fast path):
// what a residual made for one tool's hints leaves unknown.
var inputUnknowns = []string{"input.tool", "input.root", "input.paths", "input.hosts", "input.arguments", "input.commands", "input.tool_flags"}

// partialNamespace is where partial evaluation puts the rules it leaves.
const partialNamespace = "mcp_engine_partial"

// reserved packages belong to the engine; a module may not redefine them.
var reserved = map[string]bool{mcprego.EnginePackage: true, mcprego.DefaultsPackage: true, mcprego.ArgumentsPackage: true}

// reservedRoots are top-level documents a module may not declare anything
// under: the engine's store and partial evaluation's rules.
var reservedRoots = []string{"mcp_data", partialNamespace}

// parseModules parses the embedded modules and the added ones; an added
// module in the floor's package replaces the embedded floor.
func parseModules(extra []mcprego.Module, prune bool) (map[string]*ast.Module, error) {
	out := map[string]*ast.Module{}
	replacesFloor := false
	for i, m := range extra {
		name := m.Name
		if name == "" {
			name = fmt.Sprintf("module%d.rego", i+1)
		}
		parsed, err := ast.ParseModuleWithOpts(name, m.Source, ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return nil, fmt.Errorf("rego: %v", err)
		}
		pkg := strings.TrimPrefix(parsed.Package.Path.String(), "data.")
		if reserved[pkg] {
			return nil, fmt.Errorf("rego: %s: package %s belongs to the engine and cannot be redefined", name, pkg)
		}
		for _, root := range reservedRoots {
			if pkg == root || strings.HasPrefix(pkg, root+".") {
				return nil, fmt.Errorf("rego: %s: package %s is under data.%s, which belongs to the engine", name, pkg, root)
			}
		}
		if at := engineBuiltinIn(parsed); at != nil {
			return nil, fmt.Errorf("rego: %s:%d: %s belongs to the engine; a module cannot call it", name, at.Row, NameEngineDecide)
		}
		if pkg == mcprego.FloorPackage {
			replacesFloor = true
		}
		if _, dup := out["user/"+name]; dup {
			return nil, fmt.Errorf("rego: two modules are named %s", name)
		}
		out["user/"+name] = parsed
	}
	for _, m := range mcprego.Modules() {
		if replacesFloor && m.Name == mcprego.FloorFile {
			continue
		}
		parsed, err := ast.ParseModuleWithOpts(m.Name, m.Source, ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return nil, fmt.Errorf("rego: embedded %v", err) // a build defect; tests catch it
		}
		out["embedded/"+m.Name] = parsed
	}
	if prune {
		pruneUndefinedSets(out["embedded/"+mcprego.EngineFile], out)
	}
	return out, nil
}

// engineBuiltinIn is where a module refers to the engine's builtin, nil if
// nowhere. The engine takes the outcome of the builtin's call in its query
// directly (withSink), so a module's own call of it, with the same
// input, would get no document: a deny built on it would quietly drop.
func engineBuiltinIn(m *ast.Module) *ast.Location {
	found, at := false, &ast.Location{}
	ast.WalkRefs(m, func(r ast.Ref) bool {
		if !found && r.String() == NameEngineDecide {
			found = true
			if r[0].Location != nil {
				at = r[0].Location
			}
		}
		return found
	})
	if !found {
		return nil
	}
	return at
}
