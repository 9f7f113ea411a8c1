package builtins

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/mcp-policy/mcp-policy/internal/matching"

	"github.com/mcp-policy/mcp-policy/internal/lexical"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/types"
)

// The Rego names of the builtins. Every argument that may be unresolvable
// is typed "any" and accepts null, which the builtins read as "unknown".
const (
	namePathResolve    = "mcp.path.resolve"
	namePathWithin     = "mcp.path.within"
	namePathWithinAll  = "mcp.path.within_all"
	namePathWithinAny  = "mcp.path.within_any"
	namePathWithinF    = "mcp.path.within_folded"
	namePathFold       = "mcp.path.fold"
	namePathSensitive  = "mcp.path.sensitive"
	namePathSecret     = "mcp.path.secret"
	namePathSecretTree = "mcp.path.secret_tree"
	namePathSysWrite   = "mcp.path.system_write"
	namePathAncestors  = "mcp.path.ancestors"
	namePathCommonDir  = "mcp.path.common_dir"
	nameURLHost        = "mcp.url.host"
	nameHostMatch      = "mcp.host.match"
	nameHostMatchAll   = "mcp.host.match_all"
	nameHostMatchAny   = "mcp.host.match_any"
	nameHostSuffixes   = "mcp.host.suffixes"
	nameToolMatch      = "mcp.tool.match"
	nameToolDestroys   = "mcp.tool.destroys"
	nameToolWrites     = "mcp.tool.writes"
)

var registerOnce sync.Once

// Register adds the builtins to OPA's global registry, so that every
// compiler, query, test runner and OPA command in this process knows them.
// It is idempotent. (internal/rules registers them itself, with the engine's
// own builtin.)
func Register() {
	registerOnce.Do(func() {
		for _, b := range all {
			b.register()
		}
	})
}

// Declarations returns the builtins' declarations, for a capabilities file
// that `opa check --capabilities` and Regal read.
func Declarations() []*ast.Builtin {
	out := make([]*ast.Builtin, len(all))
	for i, b := range all {
		out[i] = &ast.Builtin{Name: b.decl.Name, Description: b.decl.Description, Decl: b.decl.Decl}
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

var (
	anyOrNull    = types.A
	arrayOfAny   = types.NewArray(nil, types.A)
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

// noDir is the containment of paths in a directory that is no string or
// cannot be evaluated: it contains nothing we can name, but it cannot
// exclude anything either, so "unknown" unless there is no path at all.
func noDir(paths []string) *ast.Term {
	if len(paths) == 0 {
		return pathWord(matching.No)
	}
	return pathWord(matching.Unknown)
}

// foldedPath is p cleaned and folded (FoldPath of AbsClean), false when p
// is not absolute and evaluable. Each path of the call a decision is made
// for was folded once already, for matching: the decision's context holds
// those (lexical.FoldedPaths), and the floor's rules that ask about a path
// take it from there rather than fold it again.
func foldedPath(ctx context.Context, p string) (string, bool) {
	if ctx != nil && p != "" {
		if fp, ok := ctx.Value(lexical.FoldedPathsKey{}).(lexical.FoldedPaths); ok {
			if f, ok := fp.FoldedPath(p); ok {
				return f, true
			}
		}
	}
	return matching.CleanFolded(p)
}

func def2(d *rego.Function, f func(a, b *ast.Term) (*ast.Term, error)) builtin {
	return builtin{decl: d, register: func() {
		rego.RegisterBuiltin2(d, func(_ rego.BuiltinContext, a, b *ast.Term) (*ast.Term, error) { return f(a, b) })
	}}
}

var all = []builtin{
	def2(fn(namePathResolve,
		"Resolves a path argument against a root (null for none) and cleans it lexically; null when the path cannot be evaluated.",
		types.Args(anyOrNull, anyOrNull), stringOrNull),
		func(root, p *ast.Term) (*ast.Term, error) {
			ps, ok := str(p)
			if !ok {
				return ast.NullTerm(), nil
			}
			rs, _ := str(root)
			if r, ok := lexical.Resolve(rs, ps); ok {
				return ast.StringTerm(r), nil
			}
			return ast.NullTerm(), nil
		}),
	def2(fn(namePathWithin,
		`Lexical containment of a path in a directory: "inside" (equal counts), "outside" or "unknown" (either is null or cannot be evaluated).`,
		types.Args(anyOrNull, anyOrNull), types.S),
		func(dir, p *ast.Term) (*ast.Term, error) {
			d, _ := str(dir)
			ps, _ := str(p)
			return pathWord(matching.Contains(d, ps)), nil
		}),
	def2(fn(namePathWithinF,
		`Lexical containment of a path in a directory, both folded (case, Unicode normalisation, HFS+ ignorables): "inside", "outside" or "unknown". How deny and ask rules and the floor compare one path.`,
		types.Args(anyOrNull, anyOrNull), types.S),
		func(dir, p *ast.Term) (*ast.Term, error) {
			d, _ := str(dir)
			ps, _ := str(p)
			return pathWord(matching.FoldedContains(d, ps)), nil
		}),
	def2(fn(namePathWithinAll,
		`Containment of every path of a call in a directory: "inside" if all are, "outside" if any is (or there are none), else "unknown".`,
		types.Args(anyOrNull, arrayOfAny), types.S),
		func(dir, ps *ast.Term) (*ast.Term, error) {
			d, ok := str(dir)
			paths, err := strs(ps)
			if err != nil {
				return nil, err
			}
			if !ok {
				return noDir(paths), nil
			}
			return pathWord(matching.WithinAll(d, paths)), nil
		}),
	def2(fn(namePathWithinAny,
		`Containment of any path of a call in a directory, compared folded (case, Unicode normalisation, HFS+ ignorables): "inside" if any is, "outside" if none is and all are known (or there are none), else "unknown". How deny and ask rules read a call.`,
		types.Args(anyOrNull, arrayOfAny), types.S),
		func(dir, ps *ast.Term) (*ast.Term, error) {
			d, ok := str(dir)
			paths, err := strs(ps)
			if err != nil {
				return nil, err
			}
			if ok {
				d, ok = matching.CleanFolded(d)
			}
			if !ok {
				return noDir(paths), nil
			}
			folded := make([]string, len(paths))
			for i, p := range paths {
				folded[i], _ = matching.CleanFolded(p) // "" when it cannot be evaluated
			}
			return pathWord(matching.WithinAny(d, folded)), nil
		}),
	def1ctx(fn(namePathFold,
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
	floorEntry(namePathSensitive, `The danger floor's entry for a path whose change runs code or leaks access (see the table in docs/floor.md), compared folded: {"id", "why"}; null for any other path, a path that cannot be evaluated or is not absolute, or a non-string.`,
		lexical.SensitiveFile),
	floorEntry(namePathSecret, `The danger floor's entry for a path that holds secrets, asked on any read (see the secrets table in docs/floor.md), compared folded: {"id", "why"}; null for any other path, a path that cannot be evaluated or is not absolute, or a non-string.`,
		lexical.SecretFile),
	floorEntry(namePathSecretTree, `The danger floor's entry for a directory where secrets are kept (a home, one above homes, /etc, /proc: the secret trees in docs/floor.md), asked when a tool reads every file under it, compared folded: {"id", "why"}; null for any other path (a directory under one included), a path that cannot be evaluated or is not absolute, or a non-string.`,
		lexical.SecretTree),
	floorEntry(namePathSysWrite, `The danger floor's entry for a path where a write outside every root changes what runs for every user or shell (the system's directories, /proc and /sys, a home's hidden files: docs/floor.md), compared folded: {"id", "why"}; null for any other path, a path that cannot be evaluated or is not absolute, or a non-string.`,
		lexical.SystemWrite),
	def1(fn(namePathAncestors,
		"The clean absolute path and every directory above it, nearest first, ending with \"/\"; [] when the path is not absolute and evaluable.",
		types.Args(anyOrNull), arrayOfStr),
		func(p *ast.Term) (*ast.Term, error) {
			ps, ok := str(p)
			if !ok || matching.Contains("/", ps) != matching.Yes {
				return ast.ArrayTerm(), nil
			}
			return strArray(lexical.Ancestors(ps)), nil
		}),
	def1(fn(namePathCommonDir,
		"The deepest directory containing every path's parent; null for no paths or any path that is not absolute and evaluable.",
		types.Args(arrayOfAny), stringOrNull),
		func(ps *ast.Term) (*ast.Term, error) {
			paths, err := strs(ps)
			if err != nil {
				return nil, err
			}
			for _, p := range paths {
				if matching.Contains("/", p) != matching.Yes {
					return ast.NullTerm(), nil
				}
			}
			if len(paths) == 0 {
				return ast.NullTerm(), nil
			}
			return ast.StringTerm(lexical.CommonDir(paths)), nil
		}),
	def1(fn(nameURLHost,
		"The host a browser would connect to for an http(s) URL, normalised (case, IDNA, trailing dot, port); null when it cannot be told.",
		types.Args(anyOrNull), stringOrNull),
		func(u *ast.Term) (*ast.Term, error) {
			us, ok := str(u)
			if !ok {
				return ast.NullTerm(), nil
			}
			if h, ok := lexical.URLHost(us); ok {
				return ast.StringTerm(h), nil
			}
			return ast.NullTerm(), nil
		}),
	def2(fn(nameHostMatch,
		`Matches a host against a rule host ("docs.raku.org", "*.raku.org" or an IP range "10.0.0.0/8"): "match", "mismatch", or "unknown" for a null host.`,
		types.Args(types.S, anyOrNull), types.S),
		func(pat, h *ast.Term) (*ast.Term, error) {
			p, err := hostPattern(pat)
			if err != nil {
				return nil, err
			}
			hs, _ := str(h)
			return hostWord(matching.MatchAllHosts(p, []string{hs})), nil
		}),
	callHosts(nameHostMatchAll,
		`Matches every host of a call: "match" if all do, "mismatch" if any does not (or there are none), else "unknown".`,
		matching.MatchAllHosts),
	callHosts(nameHostMatchAny,
		`Matches any host of a call: "match" if any does, "mismatch" if none does and all are known (or there are none), else "unknown". How deny and ask rules read a call.`,
		matching.MatchAnyHosts),
	def1(fn(nameHostSuffixes,
		`The domains a host is a subdomain of, nearest first: "a.b.c" gives ["b.c", "c"].`,
		types.Args(anyOrNull), arrayOfStr),
		func(h *ast.Term) (*ast.Term, error) {
			hs, ok := str(h)
			if !ok {
				return ast.ArrayTerm(), nil
			}
			return strArray(lexical.HostSuffixes(hs)), nil
		}),
	def2(fn(nameToolMatch,
		`Matches a tool name against a rule's tool glob: "*" any run of characters, "?" one, "\" makes the next character literal.`,
		types.Args(types.S, types.S), types.B),
		func(pat, name *ast.Term) (*ast.Term, error) {
			p, _ := str(pat)
			n, _ := str(name)
			return ast.BooleanTerm(lexical.MatchTool(p, n)), nil
		}),
	def1(fn(nameToolDestroys,
		`Whether a tool's name has a word that deletes, moves or empties what it names (delete, remove, rm, move, rename, clean, wipe, ...): words split at anything not a letter or digit and where camel case starts one, compared in lower case.`,
		types.Args(types.S), types.B),
		func(name *ast.Term) (*ast.Term, error) {
			n, _ := str(name)
			return ast.BooleanTerm(lexical.ToolDestroys(n)), nil
		}),
	def1(fn(nameToolWrites,
		`Whether a tool's name has a word that writes, makes, changes or removes the files it names (write, edit, create, save, put, copy, mkdir, download, extract, install, and every word of mcp.tool.destroys), its words split as mcp.tool.destroys splits them.`,
		types.Args(types.S), types.B),
		func(name *ast.Term) (*ast.Term, error) {
			n, _ := str(name)
			return ast.BooleanTerm(lexical.ToolWrites(n)), nil
		}),
}

// floorEntry is a builtin that looks a path up in one of the floor's
// lists: the entry as {"id", "why"}, null for none.
func floorEntry(name, doc string, lookup func(string) *lexical.SensitiveEntry) builtin {
	return def1ctx(fn(name, doc, types.Args(anyOrNull), types.NewAny(types.Nl, types.NewObject([]*types.StaticProperty{
		types.NewStaticProperty("id", types.S), types.NewStaticProperty("why", types.S)}, nil))),
		func(ctx context.Context, p *ast.Term) (*ast.Term, error) {
			ps, _ := str(p)
			f, ok := foldedPath(ctx, ps)
			if !ok {
				return ast.NullTerm(), nil
			}
			e := lookup(f)
			if e == nil {
				return ast.NullTerm(), nil
			}
			return sensitiveTerms[e.ID], nil
		})
}

// sensitiveTerms are what mcp.path.sensitive, mcp.path.secret and
// mcp.path.secret_tree return for each entry of the floor's lists: {"id",
// "why"}, made once.
var sensitiveTerms = func() map[string]*ast.Term {
	out := map[string]*ast.Term{}
	for _, e := range slices.Concat(lexical.SensitiveEntries(), lexical.SecretEntries(), lexical.SecretTreeEntries(), lexical.SystemWriteEntries()) {
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
	return lexical.NormalizeHostPattern(p)
}

// pathWords and hostWords are a matching.Match as the path and host builtins spell
// it in Rego: "inside"/"outside" and "match"/"mismatch", "unknown" for both.
// Rules and security teams' modules compare these words, and
// mcp.engine.decide reads them back from a module's entry "status".
var (
	pathWords = [...]string{matching.Unknown: "unknown", matching.Yes: "inside", matching.No: "outside"}
	hostWords = [...]string{matching.Unknown: "unknown", matching.Yes: "match", matching.No: "mismatch"}
)

func pathWord(m matching.Match) *ast.Term { return ast.StringTerm(pathWords[m]) }

// callHosts is a builtin that matches a rule host against a call's hosts,
// as match reads them (all of them, or any).
func callHosts(name, desc string, match func(pattern string, hosts []string) matching.Match) builtin {
	return def2(fn(name, desc, types.Args(types.S, arrayOfAny), types.S),
		func(pat, hs *ast.Term) (*ast.Term, error) {
			p, err := hostPattern(pat)
			if err != nil {
				return nil, err
			}
			hosts, err := strs(hs)
			if err != nil {
				return nil, err
			}
			return hostWord(match(p, hosts)), nil
		})
}

func hostWord(m matching.Match) *ast.Term { return ast.StringTerm(hostWords[m]) }
