package rules

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/mcp-policy/mcp-policy/builtins"
	"github.com/mcp-policy/mcp-policy/internal/engine"
	"github.com/mcp-policy/mcp-policy/internal/realpath"
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
	// policy's own rules and grants files. They, and the roots, are guarded
	// by the floor under their resolved path too, where a symbolic link
	// makes that another spelling (read when the engine is made).
	Protected []string
	// Arguments say how tools' arguments name paths and URLs, beyond the
	// names read by default; ServerArguments has them for the reference
	// servers.
	Arguments []ArgumentSpec
	// DecisionTimeout bounds one evaluation: past it the call fails,
	// closed. 0 for none (the caller's ctx still bounds it).
	DecisionTimeout time.Duration
	// Plain decides through OPA's public API only (a prepared query over
	// the whole modules, the decision document read back), without the
	// fast path's partial evaluation and sink. It is the reference the
	// fast path is held to, and several times slower.
	Plain bool
}

// Engine evaluates calls against the static rules with one prepared OPA
// query. It is safe for concurrent use.
type Engine struct {
	rules     []Rule
	ruleSet   *engine.RuleSet // rules, indexed: what the builtin matches calls against
	decider   *engine.Decider // the modules, compiled
	protected []string
	modules   []Module
	roots     map[string]string
	rootKeys  []string // longest first
	arguments []ArgumentSpec
	timeout   time.Duration // DecisionTimeout
	argsFor   sync.Map      // tool name -> *cachedArgs
	argsCount atomic.Int64

	// The input's terms that repeat from call to call, made once: each
	// root, and each combination of the four hints (see annotationsTerm).
	rootTerms map[string]*ast.Term
	annTerms  [81]atomic.Pointer[ast.Term]
}

// NewEngine validates cfg, compiles the Rego and loads the rules into the
// store once. Errors name the rule and field, or the module file and line.
func NewEngine(ctx context.Context, cfg Config) (*Engine, error) {
	engine.Register()
	rs, err := ValidateAll(cfg.Rules, "rule")
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
	e.ruleSet = ruleSetOf(rs)
	e.protected = slices.Clone(cfg.Protected)
	e.modules = slices.Clone(cfg.Modules)
	// The data rules are handed to the engine's builtin from Go (see
	// Evaluate), not read from data: put through partial evaluation they
	// were most of NewEngine's time and memory at 100,000 rules, compiled
	// into the query as one constant. Only the plain path, and a module
	// that reads data.mcp_data itself, need them there (engine.Compile
	// keeps them then).
	//
	// The floor guards the protected files and the roots under every
	// spelling it knows for them (see guardedSpellings).
	var protected []string
	for _, p := range e.protected {
		if r, ok := builtins.Resolve("", p); ok {
			protected = append(protected, r)
		}
	}
	roots := make([]string, 0, len(e.roots))
	for _, k := range sortedKeys(e.roots) {
		roots = append(roots, e.roots[k])
	}
	roots, protected = guardedSpellings(roots, protected)
	if e.decider, err = engine.Compile(ctx, engine.Spec{Modules: cfg.Modules, Rules: func() []any { return rulesData(rs) }, Roots: roots,
		Protected: protected, Plain: cfg.Plain}); err != nil {
		return nil, err
	}
	return e, nil
}

// Reload is an engine for cfg, as NewEngine makes it, built from e where
// it can be: when only the rules differ (the same modules, roots,
// protected files and argument specs), the compiled query is e's and only
// the rules are read and indexed, so a reload costs what its rules cost.
// e is not changed.
func (e *Engine) Reload(ctx context.Context, cfg Config) (*Engine, error) {
	if e.decider.RulesInData() || !e.sameStatics(cfg) {
		return NewEngine(ctx, cfg)
	}
	rs, err := ValidateAll(cfg.Rules, "rule")
	if err != nil {
		return nil, err
	}
	n := &Engine{rules: rs, ruleSet: ruleSetOf(rs), roots: e.roots, rootKeys: e.rootKeys, rootTerms: e.rootTerms,
		arguments: e.arguments, decider: e.decider, protected: e.protected, modules: e.modules, timeout: cfg.DecisionTimeout}
	return n, nil
}

// sameStatics reports whether cfg has e's modules, roots, protected files
// and argument specs.
func (e *Engine) sameStatics(cfg Config) bool {
	if cfg.Plain != e.decider.Plain() || len(cfg.Roots) != len(e.roots) || !slices.Equal(cfg.Protected, e.protected) ||
		!slices.Equal(cfg.Modules, e.modules) ||
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
func ruleSetOf(rs []Rule) *engine.RuleSet {
	set := engine.NewRuleSet()
	for _, r := range rs {
		set.Add(r.matcher(), r.Decision)
	}
	return set
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
		args := map[string]any{}
		for k, v := range r.Arguments {
			args[k] = v
		}
		out[i] = map[string]any{"tool": r.Tool, "decision": r.Decision, "under": r.Under, "host": r.Host,
			"annotations": ann, "arguments": args, "message": r.Message}
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
	o, err := e.decider.Eval(ctx, in.value(), in.call(), e.ruleSet, e.timeout)
	if err != nil {
		return Decision{}, err
	}
	return e.decisionOf(in, &o)
}

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

// guardedSpellings is roots and protected files, each under every spelling
// the policy knows: the one given; the path a symbolic link in it leads to
// (read from the file system now); and its spelling through any other
// link the two lists reveal (a root /home/u/app that is a link to
// /data/app makes /data/app/.mcp/grants.json also
// /home/u/app/.mcp/grants.json, the name a relative path from that root
// gives it). The floor compares paths as written, and an agent writing a
// guarded file by another name changes it as surely. A link the lists do
// not pass through is not known, and not guarded: the server's sandbox
// stays the hard boundary.
func guardedSpellings(roots, protected []string) ([]string, []string) {
	// same are pairs of directories (or files) known to be one: a given
	// path and its resolution, less the names they end in alike.
	type pair struct{ given, real string }
	var same []pair
	resolve := func(list []string) {
		for _, p := range list {
			real, err := realpath.Resolve(p)
			if err != nil {
				continue
			}
			r, ok := builtins.Resolve("", filepath.ToSlash(real))
			if !ok || r == p {
				continue
			}
			g := p
			for path.Base(g) == path.Base(r) && g != "/" && r != "/" {
				g, r = path.Dir(g), path.Dir(r)
			}
			same = append(same, pair{g, r})
		}
	}
	resolve(roots)
	resolve(protected)
	spell := func(list []string) []string {
		out := slices.Clone(list)
		for _, p := range list {
			for _, s := range same {
				for _, from := range [2][2]string{{s.real, s.given}, {s.given, s.real}} {
					if builtins.Contains(from[0], p) == builtins.Inside {
						out = append(out, path.Join(from[1], strings.TrimPrefix(p, from[0])))
					}
				}
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	return spell(roots), spell(protected)
}
