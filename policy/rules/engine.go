package rules

import (
	"context"
	"errors"
	"fmt"
	"path"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/mcp-policy/mcp-policy/builtins"
	"github.com/mcp-policy/mcp-policy/provider"
	mcprego "github.com/mcp-policy/mcp-policy/rego"
)

// Module is a Rego module a security team adds: Name is its file name (for
// errors), Source its text, in Rego v1 syntax. A module declaring package
// mcp.floor replaces the embedded danger floor; package mcp.custom adds
// deny, ask and allow entries.
type Module = mcprego.Module

// Config is everything static an Engine decides by.
type Config struct {
	// Rules are the data rules, in order. Validated by NewEngine.
	Rules []Rule
	// Modules are Rego modules added to the embedded ones.
	Modules []Module
	// Roots maps a tool name (or prefix before "_", or "*") to the absolute
	// directory its relative paths and relative "under"s resolve against.
	Roots map[string]string
	// Protected are files the floor guards whatever the rules say: the
	// policy's own rules and grants files.
	Protected []string
	// Arguments say how tools' arguments name paths and URLs, beyond the
	// names read by default; ServerArguments has them for the reference
	// servers.
	Arguments []ArgumentSpec
	// DecisionTimeout bounds one evaluation: past it the call fails,
	// closed. 0 for none (the caller's ctx still bounds it).
	DecisionTimeout time.Duration
}

// Engine evaluates calls against the static rules with one prepared OPA
// query. It is safe for concurrent use.
type Engine struct {
	rules   []Rule
	ruleSet *builtins.RuleSet // rules, indexed: what the builtin matches calls against
	// rulesInData: a module reads data.mcp_data, so the rules are in the
	// store too (and the builtin reads them from there).
	rulesInData bool
	protected   []string
	modules     []Module
	roots       map[string]string
	rootKeys    []string // longest first
	arguments   []ArgumentSpec
	timeout     time.Duration // DecisionTimeout
	query       *residualQuery
	argsFor     sync.Map // tool name -> *cachedArgs
	argsCount   atomic.Int64

	// The input's terms that repeat from call to call, made once: each
	// root, and each combination of the four hints (see annotationsTerm).
	rootTerms map[string]*ast.Term
	annTerms  [81]atomic.Pointer[ast.Term]
}

// NewEngine validates cfg, compiles the Rego and loads the rules into the
// store once. Errors name the rule and field, or the module file and line.
func NewEngine(ctx context.Context, cfg Config) (*Engine, error) {
	builtins.Register()
	rs, err := ValidateAll(cfg.Rules, "rule", true)
	if err != nil {
		return nil, err
	}
	if err := ValidateArgumentSpecs(cfg.Arguments); err != nil {
		return nil, err
	}
	if cfg.DecisionTimeout < 0 {
		return nil, errors.New("decision timeout: must not be negative")
	}
	e := &Engine{rules: rs, roots: map[string]string{}, arguments: slices.Clone(cfg.Arguments), timeout: cfg.DecisionTimeout}
	for k, dir := range cfg.Roots {
		if k == "" {
			return nil, errors.New("roots: an empty key names no tool")
		}
		if why := builtins.Unevaluable(dir); why != "" || !path.IsAbs(dir) {
			if why == "" {
				why = "not absolute"
			}
			return nil, fmt.Errorf("roots: %q: directory %q: %s", k, dir, why)
		}
		e.roots[k] = path.Clean(dir)
		e.rootKeys = append(e.rootKeys, k)
	}
	sort.Slice(e.rootKeys, func(i, j int) bool { return len(e.rootKeys[i]) > len(e.rootKeys[j]) })
	e.rootTerms = map[string]*ast.Term{"": rootTerm("")}
	for _, dir := range e.roots {
		e.rootTerms[dir] = rootTerm(dir)
	}
	modules, err := parseModules(cfg.Modules)
	if err != nil {
		return nil, err
	}
	e.ruleSet = ruleSetOf(rs)
	// The data rules are handed to the engine's builtin from Go (see
	// Evaluate), not read from data: put through partial evaluation they
	// were most of NewEngine's time and memory at 100,000 rules, compiled
	// into the query as one constant. Only a module that reads
	// data.mcp_data itself needs them there.
	e.rulesInData = modulesReadData(modules)
	e.protected = slices.Clone(cfg.Protected)
	e.modules = slices.Clone(cfg.Modules)
	if e.query, err = e.prepare(ctx, modules); err != nil {
		return nil, err
	}
	return e, nil
}

// prepare compiles the modules and prepares the residual query.
func (e *Engine) prepare(ctx context.Context, modules map[string]*ast.Module) (*residualQuery, error) {
	compiler := ast.NewCompiler().WithEnablePrintStatements(false)
	if compiler.Compile(modules); compiler.Failed() {
		return nil, fmt.Errorf("rego: %v", compiler.Errors)
	}
	evalOptions := []func(*rego.Rego){
		// A builtin's error fails the decision instead of quietly making
		// an expression undefined: an undefined expression in a deny or
		// ask rule would drop it, and a dropped deny allows.
		rego.StrictBuiltinErrors(true),
	}
	return prepareResidual(ctx, compiler, modules, e.store(e.rulesInData), evalOptions)
}

// Reload is an engine for cfg, as NewEngine makes it, built from e where
// it can be: when only the rules differ (the same modules, roots,
// protected files and argument specs), the compiled query is e's and only
// the rules are read and indexed, so a reload costs what its rules cost.
// e is not changed.
func (e *Engine) Reload(ctx context.Context, cfg Config) (*Engine, error) {
	if e.rulesInData || !e.sameStatics(cfg) {
		return NewEngine(ctx, cfg)
	}
	rs, err := ValidateAll(cfg.Rules, "rule", true)
	if err != nil {
		return nil, err
	}
	n := &Engine{rules: rs, ruleSet: ruleSetOf(rs), roots: e.roots, rootKeys: e.rootKeys, rootTerms: e.rootTerms,
		arguments: e.arguments, query: e.query, protected: e.protected, modules: e.modules, timeout: cfg.DecisionTimeout}
	return n, nil
}

// sameStatics reports whether cfg has e's modules, roots, protected files
// and argument specs.
func (e *Engine) sameStatics(cfg Config) bool {
	if len(cfg.Roots) != len(e.roots) || !slices.Equal(cfg.Protected, e.protected) || !slices.Equal(cfg.Modules, e.modules) ||
		!reflect.DeepEqual(cfg.Arguments, e.arguments) && (len(cfg.Arguments) > 0 || len(e.arguments) > 0) {
		return false
	}
	for k, dir := range cfg.Roots {
		if e.roots[k] != path.Clean(dir) {
			return false
		}
	}
	return true
}

// ruleSetOf indexes validated rules for the engine's builtin.
func ruleSetOf(rs []Rule) *builtins.RuleSet {
	set := builtins.NewRuleSet()
	for _, r := range rs {
		set.Add(r.Matcher(), r.Decision)
	}
	return set
}

// modulesReadData reports whether a team's module refers to
// data.mcp_data, or to data in a way that could reach it (data itself, or
// data[x]): then the data rules must be in the store for it to read.
func modulesReadData(modules map[string]*ast.Module) bool {
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

// store holds data.mcp_data: the roots and the protected files, and the
// rules when withRules (a module reads them; see NewEngine).
func (e *Engine) store(withRules bool) storage.Store {
	protected := make([]any, 0, len(e.protected))
	for _, p := range e.protected {
		if r, ok := builtins.Resolve("", p); ok {
			protected = append(protected, r)
		}
	}
	roots := make([]any, 0, len(e.roots))
	for _, k := range sortedKeys(e.roots) {
		roots = append(roots, e.roots[k])
	}
	data := []any{}
	if withRules {
		data = rulesData(e.rules)
	}
	return inmem.NewFromObjectWithOpts(map[string]any{
		"mcp_data": map[string]any{"rules": data, "roots": roots, "protected": protected},
	}, inmem.OptRoundTripOnWrite(false), inmem.OptReturnASTValuesOnRead(true))
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
// Evaluate takes through a sink (builtins.WithSink).
func prepareResidual(ctx context.Context, compiler *ast.Compiler, modules map[string]*ast.Module,
	store storage.Store, evalOptions []func(*rego.Rego)) (*residualQuery, error) {
	partial, err := rego.New(append([]func(*rego.Rego){
		rego.Query("data.mcp.engine.decision"),
		rego.Compiler(compiler),
		rego.Store(store),
		rego.StoreReadAST(true),
		rego.Unknowns([]string{"input"}),
		rego.PartialNamespace(partialNamespace),
	}, evalOptions...)...).Partial(ctx)
	if err != nil {
		return nil, fmt.Errorf("rego: %v", err)
	}
	// The engine's package is reserved and its decision is one call of the
	// builtin, so anything else is the engine's defect: refuse to start.
	if len(partial.Queries) != 1 {
		return nil, fmt.Errorf("rego: partial evaluation left %d decision queries, not one", len(partial.Queries))
	}
	query := partial.Queries[0]
	if op := calledIn(query[len(query)-1]); op != builtins.NameEngineDecide {
		return nil, fmt.Errorf("rego: partial evaluation left a decision query that does not end in %s: %v", builtins.NameEngineDecide, query)
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
	return &residualQuery{body: body, queries: queries, compiler: residual, store: store}, nil
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
}

// eval runs the query on input, as rego.PreparedEvalQuery.Eval would with
// strict builtin errors: in a read transaction of its own, cancelled by
// cancel, with the engine's virtual-document cache and no metrics. results
// is how many results the query had: one, or the decision is not sound.
func (q *residualQuery) eval(ctx context.Context, input ast.Value, cancel topdown.Cancel) (results int, err error) {
	txn, err := q.store.NewTransaction(ctx)
	if err != nil {
		return 0, err
	}
	defer q.store.Abort(ctx, txn)
	err = topdown.NewQuery(q.body).
		WithQueryCompiler(q.queries).
		WithCompiler(q.compiler).
		WithStore(q.store).
		WithTransaction(txn).
		WithInput(ast.NewTerm(input)).
		WithCancel(cancel).
		WithStrictBuiltinErrors(true).
		WithVirtualCache(newRefCache()).
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

// partialNamespace is where partial evaluation puts the rules it leaves.
const partialNamespace = "mcp_engine_partial"

// reserved packages belong to the engine; a module may not redefine them.
var reserved = map[string]bool{mcprego.EnginePackage: true, mcprego.DefaultsPackage: true, mcprego.ArgumentsPackage: true}

// reservedRoots are top-level documents a module may not declare anything
// under: the engine's store and partial evaluation's rules.
var reservedRoots = []string{"mcp_data", partialNamespace}

// parseModules parses the embedded modules and the added ones; an added
// module in the floor's package replaces the embedded floor.
func parseModules(extra []Module) (map[string]*ast.Module, error) {
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
			return nil, fmt.Errorf("rego: %s:%d: %s belongs to the engine; a module cannot call it", name, at.Row, builtins.NameEngineDecide)
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
	pruneUndefinedSets(out["embedded/"+mcprego.EngineFile], out)
	return out, nil
}

// engineBuiltinIn is where a module refers to the engine's builtin, nil if
// nowhere. The engine takes the outcome of the builtin's call in its query
// directly (builtins.WithSink), so a module's own call of it, with the same
// input, would get no document: a deny built on it would quietly drop.
func engineBuiltinIn(m *ast.Module) *ast.Location {
	found, at := false, &ast.Location{}
	ast.WalkRefs(m, func(r ast.Ref) bool {
		if !found && r.String() == builtins.NameEngineDecide {
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

// rulesData is the rules as the engine reads them: every field present, so
// Rego needs no defaults.
func rulesData(rs []Rule) []any {
	out := make([]any, len(rs))
	for i, r := range rs {
		ann := map[string]any{}
		for k, v := range r.Annotations {
			ann[k] = v
		}
		out[i] = map[string]any{"tool": r.Tool, "decision": r.Decision, "under": r.Under, "host": r.Host,
			"annotations": ann, "message": r.Message}
	}
	return out
}

// Rules returns a copy of the validated rules.
func (e *Engine) Rules() []Rule { return CloneAll(e.rules) }

// RootOf returns the root of a tool: the longest key K with tool == K or
// tool starting with K + "_", else key "*", else "".
func (e *Engine) RootOf(tool string) string {
	for _, k := range e.rootKeys {
		if tool == k || strings.HasPrefix(tool, k+"_") {
			return e.roots[k]
		}
	}
	return e.roots["*"]
}

// Decide evaluates one call. tool is its catalogue entry, nil when unknown.
func (e *Engine) Decide(ctx context.Context, call provider.Call, tool *provider.Tool) (Decision, *Input, error) {
	in, err := e.NewInput(call, tool)
	if err != nil {
		return Decision{}, nil, err
	}
	d, err := e.Evaluate(ctx, in)
	return d, in, err
}

// Evaluate runs the prepared query on an input.
func (e *Engine) Evaluate(ctx context.Context, in *Input) (Decision, error) {
	// Without a canceller of ours, OPA starts a goroutine and a channel
	// per evaluation to watch ctx; context.AfterFunc watches it with a
	// callback instead, and cancels the evaluation the same way.
	if ctx.Err() != nil {
		return Decision{}, fmt.Errorf("not decided: %w", context.Cause(ctx)) // AfterFunc would cancel only later
	}
	cancel := topdown.NewCancel()
	if ctx.Done() != nil { // a ctx that can end: watch it (Background cannot, and costs nothing then)
		stop := context.AfterFunc(ctx, cancel.Cancel)
		defer stop()
	}
	var late *timeout
	if e.timeout > 0 {
		// A timer, not a context with a deadline: the same bound for a
		// tenth of the allocations, which every decision would pay.
		late = &timeout{cancel: cancel}
		t := time.AfterFunc(e.timeout, late.fire)
		defer t.Stop()
	}
	// The engine's builtin hands its outcome to this call directly (see
	// builtins.WithSink) instead of as a document to read back.
	var o builtins.Outcome
	value := in.Value()
	rs := e.ruleSet
	if e.rulesInData {
		rs = nil // the builtin reads them from data, as the module does
	}
	results, err := e.query.eval(builtins.WithSink(ctx, value, in.call(), rs, &o), value, cancel)
	if err != nil {
		if ctx.Err() != nil {
			return Decision{}, fmt.Errorf("not decided: %w", context.Cause(ctx))
		}
		if late != nil && late.fired.Load() {
			return Decision{}, fmt.Errorf("not decided: the decision took longer than %v", e.timeout)
		}
		return Decision{}, fmt.Errorf("rego: %v", err)
	}
	switch {
	case results == 0:
		return Decision{}, errors.New("rego: the decision is undefined (a module conflicts with the engine?)")
	case results > 1: // the builtin ran more than once: which outcome stands is not known
		return Decision{}, fmt.Errorf("rego: the decision has %d results, not one", results)
	}
	if o.Decision == "" {
		return Decision{}, errors.New("rego: the engine's builtin did not decide")
	}
	return e.decisionOf(in, &o)
}

// timeout cancels an evaluation that runs past Config.DecisionTimeout,
// and says it did.
type timeout struct {
	cancel topdown.Cancel
	fired  atomic.Bool
}

func (t *timeout) fire() { t.fired.Store(true); t.cancel.Cancel() }

// hintNames are MCP's four tool hints, the ones annTerms caches by.
var hintNames = [...]string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}

// annotationsTerm is the input term for a tool's hints (Annotations.Hints,
// nil for an unknown catalogue). Each of the four MCP hints is absent,
// false or true, so there are 81 such terms, each made the first time it
// is needed. Hints with any other name are made anew, not cached.
func (e *Engine) annotationsTerm(hints map[string]bool) *ast.Term {
	if hints == nil {
		return ast.InternedNullTerm
	}
	code, cached := 0, 0
	for _, name := range hintNames {
		code *= 3
		if v, ok := hints[name]; ok {
			cached++
			code++
			if v {
				code++
			}
		}
	}
	if cached != len(hints) {
		return annotationsTerm(hints)
	}
	if t := e.annTerms[code].Load(); t != nil {
		return t
	}
	t := annotationsTerm(hints)
	if obj, ok := t.Value.(ast.Object); ok {
		obj.Keys() // sorted now, not lazily by the first of the evaluations that share it
	}
	e.annTerms[code].Store(t)
	return t
}

func utf8Valid(s string) bool { return utf8.ValidString(s) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// cachedArgs is a tool's compiled argument classes, for the schema they
// were compiled with, and whether its name says it acts on directories.
type cachedArgs struct {
	known   bool // the tool's catalogue entry was known
	schema  string
	args    *toolArgs
	dirTool bool
}

// toolArgsOf is the compiled argument configuration of a tool: the specs
// that match its name and its schema's formats, compiled once per schema.
// The cache is read without a lock: every call reads it.
func (e *Engine) toolArgsOf(name string, tool *provider.Tool) *cachedArgs {
	var raw string
	if tool != nil {
		raw = string(tool.Function.Parameters) // compared, not copied
	}
	if c, ok := e.argsFor.Load(name); ok {
		if c := c.(*cachedArgs); c.known == (tool != nil) && c.schema == raw {
			return c
		}
	}
	var schema schemaKeys
	if tool != nil {
		schema = parseSchemaKeys(tool.Function.Parameters)
	}
	c := &cachedArgs{known: tool != nil, schema: raw, args: compileArgs(e.arguments, name, schema), dirTool: isDirTool(name)}
	if _, had := e.argsFor.Swap(name, c); !had && e.argsCount.Add(1) > maxCachedNames {
		e.argsFor.Delete(name) // a bound, so that ever new tool names cannot fill memory
		e.argsCount.Add(-1)
	}
	return c
}
