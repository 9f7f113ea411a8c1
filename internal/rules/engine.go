package rules

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/mcp-policy/mcp-policy/internal/matching"

	"sync/atomic"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/mcp-policy/mcp-policy/internal/argread"
	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/internal/realpath"
	"github.com/mcp-policy/mcp-policy/internal/regoeval"
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
	// Home is the directory "~" names where the tools run (the home of
	// the user a stdio server runs as), absolute; "" when that cannot be
	// told (a remote server), and "~" is then unknown.
	Home string
	// ResolveLinks says the tools run on this machine (a stdio server):
	// each path a call names is also resolved through the file system,
	// its symbolic links followed, and the call must be allowed under
	// both readings; a path that cannot be resolved (a dangling or
	// looping link, a directory that cannot be read) is unknown.
	ResolveLinks bool
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
	ruleSet   *regoeval.RuleSet // rules, indexed: what the builtin matches calls against
	decider   *regoeval.Decider // the modules, compiled
	protected []string
	modules   []Module
	roots     map[string]string
	rootKeys  []string // longest first
	arguments []ArgumentSpec
	reader    *argread.Reader // reads calls' arguments under the specs
	home      string
	links     bool          // ResolveLinks
	timeout   time.Duration // DecisionTimeout

	// The input's terms that repeat from call to call, made once: each
	// root, and each combination of the four hints (see annotationsTerm).
	rootTerms map[string]*ast.Term
	// aliases are each root's other spellings (rootAliases).
	aliases  map[string][]string
	annTerms [81]atomic.Pointer[ast.Term]
	// flags are the tools' definitions read once for text aimed at the
	// model.
	flags flagCache
}

// NewEngine validates cfg, compiles the Rego and loads the rules into the
// store once. Errors name the rule and field, or the module file and line.
func NewEngine(ctx context.Context, cfg Config) (*Engine, error) {
	regoeval.Register()
	rs, err := ValidateAll(cfg.Rules, "rule")
	if err != nil {
		return nil, err
	}
	reader, err := argread.NewReader(cfg.Arguments, dataMarks(rs)...)
	if err != nil {
		return nil, specError(err)
	}
	if cfg.DecisionTimeout < 0 {
		return nil, errors.New("decision timeout: must not be negative")
	}
	if cfg.Home != "" {
		if why := lexical.Unevaluable(cfg.Home); why != "" || !path.IsAbs(cfg.Home) {
			if why == "" {
				why = "not absolute"
			}
			return nil, fmt.Errorf("home: %q: %s", cfg.Home, why)
		}
		cfg.Home = path.Clean(cfg.Home)
	}
	e := &Engine{rules: rs, roots: map[string]string{}, arguments: slices.Clone(cfg.Arguments), reader: reader,
		timeout: cfg.DecisionTimeout, home: cfg.Home, links: cfg.ResolveLinks}
	if err := e.setRoots(cfg.Roots); err != nil {
		return nil, err
	}
	rs = e.underRoots(rs)
	e.ruleSet = ruleSetOf(rs)
	e.protected = slices.Clone(cfg.Protected)
	e.modules = slices.Clone(cfg.Modules)
	// The data rules are handed to the engine's builtin from Go (see
	// evaluate), not read from data: put through partial evaluation they
	// were most of NewEngine's time and memory at 100,000 rules, compiled
	// into the query as one constant. Only the plain path, and a module
	// that reads data.mcp_data itself, need them there (regoeval.Compile
	// keeps them then).
	//
	// The floor guards the protected files and the roots under every
	// spelling it knows for them (see guardedSpellings).
	var protected []string
	for _, p := range e.protected {
		if r, ok := lexical.Resolve("", p); ok {
			protected = append(protected, r)
		}
	}
	roots := make([]string, 0, len(e.roots)+1)
	for _, k := range sortedKeys(e.roots) {
		roots = append(roots, e.roots[k])
	}
	if e.home != "" && !slices.Contains(roots, e.home) {
		// The home is a whole tree to the floor, whatever its name: "rm
		// -rf ~" with a home at /srv/u is asked as with one at /home/u.
		roots = append(roots, e.home)
	}
	roots, protected = guardedSpellings(roots, protected)
	if e.decider, err = regoeval.Compile(ctx, regoeval.Spec{Modules: cfg.Modules, Rules: func() []any { return rulesData(rs) }, Roots: roots,
		Protected: protected, Plain: cfg.Plain}); err != nil {
		return nil, err
	}
	return e, nil
}

// setRoots takes the roots, each directory absolute and evaluable, and
// what the engine reads of them on every call: the keys, longest first
// (the tool name they match), their terms and aliases.
func (e *Engine) setRoots(roots map[string]string) error {
	for k, dir := range roots {
		if k == "" {
			return errors.New("roots: an empty key names no tool")
		}
		if why := lexical.Unevaluable(dir); why != "" || !path.IsAbs(dir) {
			if why == "" {
				why = "not absolute"
			}
			return fmt.Errorf("roots: %q: directory %q: %s", k, dir, why)
		}
		e.roots[k] = path.Clean(dir)
		e.rootKeys = append(e.rootKeys, k)
	}
	sort.Slice(e.rootKeys, func(i, j int) bool { return len(e.rootKeys[i]) > len(e.rootKeys[j]) })
	e.rootTerms = map[string]*ast.Term{"": rootTerm("")}
	e.aliases = map[string][]string{}
	for _, dir := range e.roots {
		e.rootTerms[dir] = rootTerm(dir)
		if a := rootAliases(dir); len(a) > 0 {
			e.aliases[dir] = a
		}
	}
	return nil
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
	reader := e.reader
	if marks := dataMarks(rs); !reflect.DeepEqual(marks, dataMarks(e.rules)) {
		// The rules' data marks change what calls name: a reader for
		// them (its tools compile again as calls come).
		if reader, err = argread.NewReader(e.arguments, marks...); err != nil {
			return nil, specError(err)
		}
	}
	n := &Engine{rules: rs, ruleSet: ruleSetOf(e.underRoots(rs)), roots: e.roots, rootKeys: e.rootKeys, rootTerms: e.rootTerms,
		aliases:   e.aliases,
		arguments: e.arguments, reader: reader, decider: e.decider, protected: e.protected, modules: e.modules, timeout: cfg.DecisionTimeout,
		home: e.home, links: cfg.ResolveLinks}
	return n, nil
}

// dataMarks are the data marks of validated rules, in order: their data,
// and the commands of an allow that names nothing else, which it allows
// whatever they run (argread.DataMark.Commands).
func dataMarks(rs []Rule) []argread.DataMark {
	var out []argread.DataMark
	for _, r := range rs {
		m := argread.DataMark{Tool: r.Tool, Annotations: r.Annotations, Locations: r.Data}
		if r.Decision == Allow && len(r.Command) > 0 && r.Under == "" && r.Host == "" && len(r.Arguments) == 0 && r.Except == nil {
			m.Commands = []string(r.Command)
		}
		if len(m.Locations) > 0 || len(m.Commands) > 0 {
			out = append(out, m)
		}
	}
	return out
}

// sameStatics reports whether cfg has e's modules, roots, protected files
// and argument specs.
func (e *Engine) sameStatics(cfg Config) bool {
	if cfg.Plain != e.decider.Plain() || len(cfg.Roots) != len(e.roots) || !slices.Equal(cfg.Protected, e.protected) ||
		(cfg.Home != "" && path.Clean(cfg.Home) != e.home || cfg.Home == "" && e.home != "") ||
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
func ruleSetOf(rs []Rule) *regoeval.RuleSet {
	set := regoeval.NewRuleSet()
	for _, r := range rs {
		set.Add(r.Matcher(), r.Decision)
	}
	return set
}

// rootAliases are a root's other spellings: the path the file system
// resolves it to, when a symbolic link makes that another place, and on
// macOS the /private spelling of /tmp, /var and /etc (or the short one of
// /private/...), which the system links there. A server started on one
// accepts the other.
func rootAliases(dir string) []string {
	var out []string
	for _, sp := range realpath.Spellings(dir) {
		if sp != dir {
			out = append(out, sp)
		}
	}
	if runtime.GOOS == "darwin" {
		for _, top := range []string{"/tmp", "/var", "/etc"} {
			switch {
			case dir == top || strings.HasPrefix(dir, top+"/"):
				out = append(out, "/private"+dir)
			case dir == "/private"+top || strings.HasPrefix(dir, "/private"+top+"/"):
				out = append(out, strings.TrimPrefix(dir, "/private"))
			}
		}
	}
	return out
}

// underRoots is rs with each absolute under that is in one of a root's
// other spellings spelt under the root, as the reader spells paths there:
// a deny under /private/tmp/x/secret holds for a root /tmp/x.
func (e *Engine) underRoots(rs []Rule) []Rule {
	if len(e.aliases) == 0 {
		return rs
	}
	var out []Rule
	for i, r := range rs {
		if u := e.rootSpelling(r.Under); u != r.Under {
			if out == nil {
				out = slices.Clone(rs)
			}
			out[i].Under = u
		}
	}
	if out == nil {
		return rs
	}
	return out
}

// rootSpelling is an absolute path under one of a root's other spellings
// spelt under the root; any other path as it is.
func (e *Engine) rootSpelling(p string) string {
	if !path.IsAbs(p) {
		return p
	}
	for root, aliases := range e.aliases {
		if u := argread.UnderRoot(p, root, aliases); u != p {
			return u
		}
	}
	return p
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
		rule := map[string]any{"tool": r.Tool, "decision": r.Decision, "under": r.Under, "host": r.Host,
			"annotations": ann, "arguments": argumentsData(r.Arguments), "command": r.Command.value(), "except": nil,
			"message": r.Message}
		if x := r.Except; x != nil {
			rule["except"] = map[string]any{"under": x.Under, "host": x.Host, "arguments": argumentsData(x.Arguments),
				"command": x.Command.value()}
		}
		out[i] = rule
	}
	return out
}

// argumentsData is a rule's arguments as data: {} for none.
func argumentsData(args map[string]string) map[string]any {
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = v
	}
	return out
}

// Rules returns a copy of the validated rules.
func (e *Engine) Rules() []Rule { return CloneAll(e.rules) }

// rootOf returns the root of a tool: the longest key K with tool == K or
// tool starting with K + "_", else key "*", else "".
func (e *Engine) rootOf(tool string) string {
	for _, k := range e.rootKeys {
		if tool == k || strings.HasPrefix(tool, k+"_") {
			return e.roots[k]
		}
	}
	return e.roots["*"]
}

// Decide evaluates one call. tool is its catalogue entry, nil when unknown.
func (e *Engine) Decide(ctx context.Context, call provider.Call, tool *provider.Tool) (Decision, *Input, error) {
	in, err := e.newInput(call, tool)
	if err != nil {
		return Decision{}, nil, err
	}
	d, err := e.evaluate(ctx, in)
	return d, in, err
}

// evaluate runs the prepared query on an input.
func (e *Engine) evaluate(ctx context.Context, in *Input) (Decision, error) {
	o, err := e.decider.Eval(ctx, document{in}, e.ruleSet, e.timeout)
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
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
			r, ok := lexical.Resolve("", filepath.ToSlash(real))
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
					if matching.Contains(from[0], p) == matching.Yes {
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
