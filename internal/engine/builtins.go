package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/mcp-policy/mcp-policy/builtins"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/types"
)

// The Rego names of the builtins. Every argument that may be unresolvable
// is typed "any" and accepts null, which the builtins read as "unknown".
const (
	NamePathResolve   = "mcp.path.resolve"
	NamePathWithin    = "mcp.path.within"
	NamePathWithinAll = "mcp.path.within_all"
	NamePathWithinAny = "mcp.path.within_any"
	NamePathWithinF   = "mcp.path.within_folded"
	NamePathFold      = "mcp.path.fold"
	NamePathSensitive = "mcp.path.sensitive"
	NamePathAncestors = "mcp.path.ancestors"
	NamePathCommonDir = "mcp.path.common_dir"
	NameURLHost       = "mcp.url.host"
	NameHostMatch     = "mcp.host.match"
	NameHostMatchAll  = "mcp.host.match_all"
	NameHostMatchAny  = "mcp.host.match_any"
	NameHostSuffixes  = "mcp.host.suffixes"
	NameToolMatch     = "mcp.tool.match"
)

var registerOnce sync.Once

// Register adds the builtins to OPA's global registry, so that every
// compiler, query, test runner and OPA command in this process knows them.
// It is idempotent.
func Register() {
	registerOnce.Do(func() {
		for _, b := range builtinList() {
			b.register()
		}
	})
}

// Declarations returns the builtins' declarations, for capabilities files.
func Declarations() []*ast.Builtin {
	bs := builtinList()
	out := make([]*ast.Builtin, len(bs))
	for i, b := range bs {
		out[i] = &ast.Builtin{Name: b.decl.Name, Description: b.decl.Description, Decl: b.decl.Decl}
	}
	return out
}

func builtinList() []builtin {
	return append(append([]builtin{}, all...), engineBuiltins...)
}

type builtin struct {
	decl     *rego.Function
	register func()
}

func fn(name, desc string, args []types.Type, result types.Type) *rego.Function {
	return &rego.Function{Name: name, Description: desc, Decl: types.NewFunction(args, result), Memoize: false}
}

var (
	anyOrNull    = types.A
	arrayOfAny   = types.NewArray(nil, types.A)
	setOfAny     = types.NewSet(types.A)
	arrayOfStr   = types.NewArray(nil, types.S)
	stringOrNull = types.NewAny(types.S, types.Nl)
)

func def1(d *rego.Function, f func(a *ast.Term) (*ast.Term, error)) builtin {
	return builtin{decl: d, register: func() {
		rego.RegisterBuiltin1(d, func(_ rego.BuiltinContext, a *ast.Term) (*ast.Term, error) { return f(a) })
	}}
}

// def1ctx passes the evaluation's context on: the path builtins find the
// call's folded paths there (foldedPath).
func def1ctx(d *rego.Function, f func(ctx context.Context, a *ast.Term) (*ast.Term, error)) builtin {
	return builtin{decl: d, register: func() {
		rego.RegisterBuiltin1(d, func(bctx rego.BuiltinContext, a *ast.Term) (*ast.Term, error) { return f(bctx.Context, a) })
	}}
}

// foldedPath is p cleaned and folded (FoldPath of AbsClean), false when p
// is not absolute and evaluable. Each path of the call a decision is made
// for was folded once already, for matching (Call.Folded): under the
// decision's sink it is taken from there, not folded again by each floor
// rule that asks.
func foldedPath(ctx context.Context, p string) (string, bool) {
	if ctx != nil {
		if s, ok := ctx.Value(sinkKey{}).(*sink); ok {
			for i, cp := range s.call.Paths {
				if cp == p && cp != "" {
					return s.call.Folded[i], true
				}
			}
		}
	}
	clean, ok := builtins.AbsClean(p)
	if !ok {
		return "", false
	}
	return builtins.FoldPath(clean), true
}

func def3(d *rego.Function, f func(a, b, c *ast.Term) (*ast.Term, error)) builtin {
	return builtin{decl: d, register: func() {
		rego.RegisterBuiltin3(d, func(_ rego.BuiltinContext, a, b, c *ast.Term) (*ast.Term, error) { return f(a, b, c) })
	}}
}

// defDyn passes the builtin context on: the engine builtin reads its sink
// from the context's Context.
func defDyn(d *rego.Function, f rego.BuiltinDyn) builtin {
	return builtin{decl: d, register: func() { rego.RegisterBuiltinDyn(d, f) }}
}

func def2(d *rego.Function, f func(a, b *ast.Term) (*ast.Term, error)) builtin {
	return builtin{decl: d, register: func() {
		rego.RegisterBuiltin2(d, func(_ rego.BuiltinContext, a, b *ast.Term) (*ast.Term, error) { return f(a, b) })
	}}
}

var all = []builtin{
	def2(fn(NamePathResolve,
		"Resolves a path argument against a root (null for none) and cleans it lexically; null when the path cannot be evaluated.",
		types.Args(anyOrNull, anyOrNull), stringOrNull),
		func(root, p *ast.Term) (*ast.Term, error) {
			ps, ok := str(p)
			if !ok {
				return ast.NullTerm(), nil
			}
			rs, _ := str(root)
			if r, ok := builtins.Resolve(rs, ps); ok {
				return ast.StringTerm(r), nil
			}
			return ast.NullTerm(), nil
		}),
	def2(fn(NamePathWithin,
		`Lexical containment of a path in a directory: "inside" (equal counts), "outside" or "unknown" (either is null or cannot be evaluated).`,
		types.Args(anyOrNull, anyOrNull), types.S),
		func(dir, p *ast.Term) (*ast.Term, error) {
			d, _ := str(dir)
			ps, _ := str(p)
			return ast.StringTerm(builtins.Contains(d, ps).String()), nil
		}),
	def2(fn(NamePathWithinF,
		`Lexical containment of a path in a directory, both folded (case, Unicode normalisation, HFS+ ignorables): "inside", "outside" or "unknown". How deny and ask rules and the floor compare one path.`,
		types.Args(anyOrNull, anyOrNull), types.S),
		func(dir, p *ast.Term) (*ast.Term, error) {
			d, _ := str(dir)
			ps, _ := str(p)
			return ast.StringTerm(builtins.FoldedContains(d, ps).String()), nil
		}),
	def2(fn(NamePathWithinAll,
		`Containment of every path of a call in a directory: "inside" if all are, "outside" if any is (or there are none), else "unknown".`,
		types.Args(anyOrNull, arrayOfAny), types.S),
		func(dir, ps *ast.Term) (*ast.Term, error) {
			d, ok := str(dir)
			paths, err := strs(ps)
			if err != nil {
				return nil, err
			}
			if !ok {
				// An unresolvable directory contains nothing we can name,
				// but it can't exclude anything either.
				if len(paths) == 0 {
					return ast.StringTerm(builtins.Outside.String()), nil
				}
				return ast.StringTerm(builtins.Unknown.String()), nil
			}
			return ast.StringTerm(builtins.WithinAll(d, paths).String()), nil
		}),
	def2(fn(NamePathWithinAny,
		`Containment of any path of a call in a directory, compared folded (case, Unicode normalisation, HFS+ ignorables): "inside" if any is, "outside" if none is and all are known (or there are none), else "unknown". How deny and ask rules read a call.`,
		types.Args(anyOrNull, arrayOfAny), types.S),
		func(dir, ps *ast.Term) (*ast.Term, error) {
			d, ok := str(dir)
			paths, err := strs(ps)
			if err != nil {
				return nil, err
			}
			if !ok {
				if len(paths) == 0 {
					return ast.StringTerm(builtins.Outside.String()), nil
				}
				return ast.StringTerm(builtins.Unknown.String()), nil
			}
			folded := make([]string, len(paths))
			for i, p := range paths {
				if q, ok := builtins.AbsClean(p); ok {
					folded[i] = builtins.FoldPath(q)
				}
			}
			if d, ok = builtins.AbsClean(d); !ok {
				if len(paths) == 0 {
					return ast.StringTerm(builtins.Outside.String()), nil
				}
				return ast.StringTerm(builtins.Unknown.String()), nil
			}
			return ast.StringTerm(builtins.WithinAny(builtins.FoldPath(d), folded).String()), nil
		}),
	def1ctx(fn(NamePathFold,
		"An absolute path, cleaned, as a file system that ignores case and Unicode normalisation compares it: each name case-folded, NFC, HFS+ ignorable code points removed; null for a path that is not absolute and evaluable, or a non-string.",
		types.Args(anyOrNull), stringOrNull),
		func(ctx context.Context, p *ast.Term) (*ast.Term, error) {
			ps, ok := str(p)
			if !ok {
				return ast.NullTerm(), nil
			}
			f, ok := foldedPath(ctx, ps)
			if !ok {
				return ast.NullTerm(), nil
			}
			if f != ps {
				return ast.StringTerm(f), nil
			}
			return p, nil // the common case: already clean and folded
		}),
	def1ctx(fn(NamePathSensitive,
		`The danger floor's entry for a path whose change runs code or leaks access (see the table in docs/floor.md), compared folded: {"id", "why"}; null for any other path, a path that cannot be evaluated or is not absolute, or a non-string.`,
		types.Args(anyOrNull), types.NewAny(types.Nl, types.NewObject([]*types.StaticProperty{
			types.NewStaticProperty("id", types.S), types.NewStaticProperty("why", types.S)}, nil))),
		func(ctx context.Context, p *ast.Term) (*ast.Term, error) {
			ps, _ := str(p)
			f, ok := foldedPath(ctx, ps)
			if !ok {
				return ast.NullTerm(), nil
			}
			e := builtins.SensitiveFile(f)
			if e == nil {
				return ast.NullTerm(), nil
			}
			return sensitiveTerms[e.ID], nil
		}),
	def1(fn(NamePathAncestors,
		"The clean absolute path and every directory above it, nearest first, ending with \"/\"; [] when the path is not absolute and evaluable.",
		types.Args(anyOrNull), arrayOfStr),
		func(p *ast.Term) (*ast.Term, error) {
			ps, ok := str(p)
			if !ok || builtins.Contains("/", ps) != builtins.Inside {
				return ast.ArrayTerm(), nil
			}
			return strArray(builtins.Ancestors(ps)), nil
		}),
	def1(fn(NamePathCommonDir,
		"The deepest directory containing every path's parent; null for no paths or any path that is not absolute and evaluable.",
		types.Args(arrayOfAny), stringOrNull),
		func(ps *ast.Term) (*ast.Term, error) {
			paths, err := strs(ps)
			if err != nil {
				return nil, err
			}
			for _, p := range paths {
				if builtins.Contains("/", p) != builtins.Inside {
					return ast.NullTerm(), nil
				}
			}
			if len(paths) == 0 {
				return ast.NullTerm(), nil
			}
			return ast.StringTerm(builtins.CommonDir(paths)), nil
		}),
	def1(fn(NameURLHost,
		"The host a browser would connect to for an http(s) URL, normalised (case, IDNA, trailing dot, port); null when it cannot be told.",
		types.Args(anyOrNull), stringOrNull),
		func(u *ast.Term) (*ast.Term, error) {
			us, ok := str(u)
			if !ok {
				return ast.NullTerm(), nil
			}
			if h, ok := builtins.URLHost(us); ok {
				return ast.StringTerm(h), nil
			}
			return ast.NullTerm(), nil
		}),
	def2(fn(NameHostMatch,
		`Matches a host against a rule host ("docs.raku.org", "*.raku.org" or an IP range "10.0.0.0/8"): "match", "mismatch", or "unknown" for a null host.`,
		types.Args(types.S, anyOrNull), types.S),
		func(pat, h *ast.Term) (*ast.Term, error) {
			p, err := hostPattern(pat)
			if err != nil {
				return nil, err
			}
			hs, _ := str(h)
			return ast.StringTerm(builtins.MatchAllHosts(p, []string{hs}).String()), nil
		}),
	def2(fn(NameHostMatchAll,
		`Matches every host of a call: "match" if all do, "mismatch" if any does not (or there are none), else "unknown".`,
		types.Args(types.S, arrayOfAny), types.S),
		func(pat, hs *ast.Term) (*ast.Term, error) {
			p, err := hostPattern(pat)
			if err != nil {
				return nil, err
			}
			hosts, err := strs(hs)
			if err != nil {
				return nil, err
			}
			return ast.StringTerm(builtins.MatchAllHosts(p, hosts).String()), nil
		}),
	def2(fn(NameHostMatchAny,
		`Matches any host of a call: "match" if any does, "mismatch" if none does and all are known (or there are none), else "unknown". How deny and ask rules read a call.`,
		types.Args(types.S, arrayOfAny), types.S),
		func(pat, hs *ast.Term) (*ast.Term, error) {
			p, err := hostPattern(pat)
			if err != nil {
				return nil, err
			}
			hosts, err := strs(hs)
			if err != nil {
				return nil, err
			}
			return ast.StringTerm(builtins.MatchAnyHosts(p, hosts).String()), nil
		}),
	def1(fn(NameHostSuffixes,
		`The domains a host is a subdomain of, nearest first: "a.b.c" gives ["b.c", "c"].`,
		types.Args(anyOrNull), arrayOfStr),
		func(h *ast.Term) (*ast.Term, error) {
			hs, ok := str(h)
			if !ok {
				return ast.ArrayTerm(), nil
			}
			return strArray(builtins.HostSuffixes(hs)), nil
		}),
	def2(fn(NameToolMatch,
		`Matches a tool name against a rule's tool glob: "*" any run of characters, "?" one, "\" makes the next character literal.`,
		types.Args(types.S, types.S), types.B),
		func(pat, name *ast.Term) (*ast.Term, error) {
			p, _ := str(pat)
			n, _ := str(name)
			return ast.BooleanTerm(builtins.MatchTool(p, n)), nil
		}),
}

// sensitiveTerms are what mcp.path.sensitive returns for each entry of the
// floor's list: {"id", "why"}, made once.
var sensitiveTerms = func() map[string]*ast.Term {
	out := map[string]*ast.Term{}
	for _, e := range builtins.SensitiveEntries() {
		out[e.ID] = ast.ObjectTerm(ast.Item(ast.StringTerm("id"), ast.StringTerm(e.ID)), ast.Item(ast.StringTerm("why"), ast.StringTerm(e.Why)))
	}
	return out
}()

// str reads a string term; anything else (null included) is "not a string".
func str(t *ast.Term) (string, bool) {
	if s, ok := t.Value.(ast.String); ok {
		return string(s), true
	}
	return "", false
}

// strs reads an array whose non-string elements stand for unknown values
// (returned as "").
func strs(t *ast.Term) ([]string, error) {
	arr, ok := t.Value.(*ast.Array)
	if !ok {
		return nil, fmt.Errorf("expected an array, got %v", ast.ValueName(t.Value))
	}
	out := make([]string, arr.Len())
	for i := range out {
		out[i], _ = str(arr.Elem(i))
	}
	return out, nil
}

func strArray(ss []string) *ast.Term {
	terms := make([]*ast.Term, len(ss))
	for i, s := range ss {
		terms[i] = ast.StringTerm(s)
	}
	return ast.ArrayTerm(terms...)
}

// hostPattern accepts a rule host in any spelling a rule file may use.
func hostPattern(t *ast.Term) (string, error) {
	p, _ := str(t)
	return builtins.NormalizeHostPattern(p)
}
