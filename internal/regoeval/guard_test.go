package regoeval

// Guard tests: the fast path leans on OPA behaviour that is not OPA's
// public contract. Were an OPA upgrade to change one, the decisions would
// stay right (the differential test in internal/rules holds the fast path to
// the plain one) but the speed would go silently, or every call would fail
// closed. Each test here names one assumption, so that the upgrade fails
// it by name instead. scripts/opa-latest.sh runs them against the newest
// OPA.

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/verdict"
	"github.com/mcp-policy/mcp-policy/rego"
)

// guardRules are data rules as data, every field present.
var guardRules = []any{
	map[string]any{"tool": "fs_write", "decision": "allow", "under": "/srv", "host": "", "annotations": map[string]any{}, "message": ""},
	map[string]any{"tool": "fs_write", "decision": "deny", "under": "/srv/secret", "host": "", "annotations": map[string]any{}, "message": "secret"},
}

// guardCall is a call's input document and what CallOf reads of it.
func guardCall(t *testing.T, path string) (ast.Value, *Call) {
	t.Helper()
	in := ast.MustParseTerm(fmt.Sprintf(`{"tool": "fs_write", "root": null, "annotations": null, "hosts": [], "arguments": {"path": %q},
		"paths": [{"arg": "path", "raw": %q, "path": %q}]}`, path, path, path)).Value
	c := CallOf(in)
	return in, &c
}

func guardDecider(t *testing.T, s Spec) *Decider {
	t.Helper()
	if s.Rules == nil {
		s.Rules = func() []any { return guardRules }
	}
	s.Roots = []string{"/srv"}
	// A compile of its own (compiled.go shares one between equal specs):
	// the tests count and fill a Decider's hinted residuals.
	s.Protected = append(s.Protected, "/protected-for/"+t.Name())
	d, err := Compile(context.Background(), s)
	require.NoError(t, err)
	return d
}

// The sink: the engine's builtin is handed the very input value the query
// was evaluated with (OPA does not copy it), so it recognises its own call
// and gives the outcome to Eval instead of building a document. If OPA
// ever copied the input, the builtin would return the document and every
// call would fail closed with "the engine's builtin did not decide".
func TestGuardSinkReceivesTheInput(t *testing.T) {
	d := guardDecider(t, Spec{})
	set := readRuleSet(ast.MustParseTerm(mustJSON(t, guardRules)).Value.(*ast.Array))
	for path, want := range map[string]verdict.Decision{"/srv/a": verdict.Allow, "/srv/secret/k": verdict.Deny, "/etc/x": verdict.Ask} {
		in, c := guardCall(t, path)
		o, err := d.Eval(context.Background(), DocumentInput(in, c), set, 0)
		require.NoError(t, err, "the builtin did not receive the input value Eval gave OPA: does OPA copy the input now?")
		assert.Equal(t, want, o.Decision, path)
	}
}

// The rule-set cache: the store hands every evaluation the same immutable
// rules array, so a module that reads data.mcp_data has the rules indexed
// once, not on every call. If the store began to copy it, the index would
// be rebuilt per call: 100,000 rules would cost a tenth of a second each.
func TestGuardRuleSetIsReadOnce(t *testing.T) {
	d := guardDecider(t, Spec{Modules: []mcprego.Module{{Name: "reads.rego",
		Source: "package mcp.custom\n\ndeny contains \"too many rules\" if count(data.mcp_data.rules) > 1000\n"}}})
	require.True(t, d.RulesInData(), "a module that reads data.mcp_data gets the rules in data")
	for _, path := range []string{"/srv/a", "/srv/b", "/srv/secret/k", "/etc/x"} {
		in, c := guardCall(t, path)
		_, err := d.Eval(context.Background(), DocumentInput(in, c), nil, 0)
		require.NoError(t, err)
	}
	assert.Equal(t, int64(1), d.rules.reads.Load(), "the rules array was indexed more than once: does the store still hand out the same array?")
}

// The prune: rego/engine.rego's entry sets are `{e | some e in data.X}`,
// and the prune recognises that shape as OPA's parser desugars it (a
// SomeDecl of a call of internal.member_2). If the parser changed that,
// the sets of packages no module defines would be evaluated on every call.
func TestGuardPruneFires(t *testing.T) {
	count := func(m *ast.Module) (comprehensions, recognised int) {
		ast.WalkTerms(m, func(t *ast.Term) bool {
			if c, ok := t.Value.(*ast.SetComprehension); ok {
				comprehensions++
				if iteratedRef(c) != nil {
					recognised++
				}
			}
			return false
		})
		return
	}
	plain, err := parseModules(nil, false)
	require.NoError(t, err)
	all, recognised := count(plain["embedded/"+mcprego.EngineFile])
	assert.Equal(t, len(moduleSets), all, "the engine module's entry sets")
	assert.Equal(t, all, recognised, "the prune no longer recognises the entry sets as the parser writes them")

	pruned, err := parseModules(nil, true)
	require.NoError(t, err)
	left, _ := count(pruned["embedded/"+mcprego.EngineFile])
	assert.Zero(t, left, "with the default modules every entry set is pruned: to the empty set, or to the floor's partial set itself")
}

// The residual query: partial evaluation leaves, for the default modules,
// a query that only binds the input, reads the floor's ask set and calls
// the builtin, data.mcp_data inlined as a constant. A residual that still
// evaluated the floor's deny rules, or read the store, would cost each
// call what New was meant to pay once.
func TestGuardResidualQueryIsSmall(t *testing.T) {
	d := guardDecider(t, Spec{})
	body := d.fast.body
	require.NotEmpty(t, body)
	assert.Equal(t, NameEngineDecide, calledIn(body[len(body)-1]), "the residual ends in the builtin's call: %v", body)
	assert.LessOrEqual(t, len(body), 3, "the residual query grew: %v", body)
	ast.WalkRefs(body, func(r ast.Ref) bool {
		assert.False(t, r.HasPrefix(ast.MustParseRef("data.mcp_data")), "the residual reads the store (%v): %v", r, body)
		return false
	})
	// The prune hands the floor's ask set over as the partial set it is,
	// not copied into a new set on every call.
	ast.WalkTerms(body, func(term *ast.Term) bool {
		_, copied := term.Value.(*ast.SetComprehension)
		assert.False(t, copied, "the residual builds a set on every call: %v", body)
		return false
	})
}

// The virtual-document cache: OPA puts the value of each rule a
// decision refers to into the cache the engine hands it (refCache, which
// is cheaper than OPA's own). If OPA stopped using the cache it is given,
// rules would be evaluated as often as they are referred to.
func TestGuardVirtualCacheIsOurs(t *testing.T) {
	d := guardDecider(t, Spec{Modules: []mcprego.Module{{Name: "twice.rego", Source: `package mcp.custom

secret if {
	some p in input.paths
	startswith(p.path, "/srv/secret")
}

deny contains "secret" if secret

ask contains "secret, again" if secret
`}}})
	var puts int
	d.virtualCache = func() topdown.VirtualCache { return &countingCache{refCache: newRefCache(), puts: &puts} }
	in, c := guardCall(t, "/srv/secret/k")
	o, err := d.Eval(context.Background(), DocumentInput(in, c), nil, 0)
	require.NoError(t, err)
	assert.Equal(t, verdict.Deny, o.Decision)
	assert.Positive(t, puts, "OPA put nothing in the engine's virtual-document cache")
}

type countingCache struct {
	*refCache
	puts *int
}

func (c *countingCache) Put(ref ast.Ref, value *ast.Term) { *c.puts++; c.refCache.Put(ref, value) }

// Interning: the input's and the document's keys are OPA's interned terms
// (ast.InternStringTerm, documented as experimental), so building an
// input allocates no key. If OPA dropped interning, Key would still answer
// but every call would allocate each key anew.
func TestGuardKeysAreInterned(t *testing.T) {
	for _, k := range fieldNames {
		assert.Same(t, ast.InternedTerm(k), Key(k), "the key %q is not interned", k)
	}
	for k, term := range map[string]*ast.Term{"tool": keyTool, "paths": keyPaths, "under": keyUnder, "null": keyNull} {
		assert.Same(t, ast.InternedTerm(k), term, "the key %q is a term of its own, not the interned one", k)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// The rules are made as data only for a decision that reads them there:
// at 100,000 rules, making them anyway was a third of New's allocations.
func TestRulesAreMadeAsDataOnlyWhenRead(t *testing.T) {
	for _, c := range []struct {
		name string
		spec Spec
		want bool
	}{
		{"the default modules", Spec{}, false},
		{"a module that reads data.mcp_data", Spec{Modules: []mcprego.Module{{Name: "reads.rego",
			Source: "package mcp.custom\n\ndeny contains \"x\" if count(data.mcp_data.rules) > 1000\n"}}}, true},
		{"the plain path", Spec{Plain: true}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			made := false
			c.spec.Rules = func() []any { made = true; return guardRules }
			guardDecider(t, c.spec)
			assert.Equal(t, c.want, made)
		})
	}
}
