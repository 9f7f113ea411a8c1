package regoeval

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mcprego "github.com/mcp-policy/mcp-policy/rego"
)

// A compile is shared only with a Compile of exactly what it was made
// from: the same modules under the same names, the same roots and
// protected files. Anything else would decide a call by another policy's
// modules or roots.
func TestCompileSharedOnlyForTheSameSpec(t *testing.T) {
	ctx := context.Background()
	team := mcprego.Module{Name: "team.rego", Source: "package team\n\nx := 1\n"}
	base := Spec{Modules: []mcprego.Module{team}, Roots: []string{"/srv/shared-a"}, Protected: []string{"/srv/shared-a/.env"}}
	compile := func(s Spec) *Decider {
		t.Helper()
		d, err := Compile(ctx, s)
		require.NoError(t, err)
		return d
	}
	first := compile(base)
	again := compile(base)
	assert.Same(t, first.fast, again.fast, "the same spec is compiled once")
	assert.Same(t, first.hinted, again.hinted, "and its hinted residuals made once")
	again.hinted = nil
	assert.NotNil(t, compile(base).hinted, "what is set on one Decider stays on it")

	for name, s := range map[string]Spec{
		"another root":           {Modules: base.Modules, Roots: []string{"/srv/shared-b"}, Protected: base.Protected},
		"one more root":          {Modules: base.Modules, Roots: []string{"/srv/shared-a", "/srv/shared-c"}, Protected: base.Protected},
		"another protected file": {Modules: base.Modules, Roots: base.Roots, Protected: []string{"/srv/shared-a/.envrc"}},
		"a root as a protected":  {Modules: base.Modules, Roots: nil, Protected: []string{"/srv/shared-a", "/srv/shared-a/.env"}},
		"another module text":    {Modules: []mcprego.Module{{Name: "team.rego", Source: "package team\n\nx := 2\n"}}, Roots: base.Roots, Protected: base.Protected},
		"another module name":    {Modules: []mcprego.Module{{Name: "other.rego", Source: team.Source}}, Roots: base.Roots, Protected: base.Protected},
		"no team module":         {Roots: base.Roots, Protected: base.Protected},
	} {
		assert.NotSame(t, first.fast, compile(s).fast, "%s: compiled again", name)
	}

	// Rules read from data are in the compile's store: never shared.
	reads := Spec{Modules: []mcprego.Module{{Name: "reads.rego", Source: "package reads\n\nn := count(data.mcp_data.rules)\n"}},
		Rules: func() []any { return []any{} }}
	one, two := compile(reads), compile(reads)
	require.True(t, one.RulesInData())
	assert.NotSame(t, one.fast, two.fast, "rules in data are not shared")
}

// The kept compiles are bounded: a process that compiles new modules
// again and again (a bundle a minute) keeps the last keptCompiles, the
// most recently used.
func TestCompilesKeptAreBounded(t *testing.T) {
	ctx := context.Background()
	spec := func(i int) Spec {
		return Spec{Modules: []mcprego.Module{{Name: "m.rego", Source: fmt.Sprintf("package bounded\n\nx := %d\n", i)}}}
	}
	first, err := Compile(ctx, spec(0))
	require.NoError(t, err)
	var last *Decider
	for i := 1; i <= keptCompiles; i++ {
		last, err = Compile(ctx, spec(i))
		require.NoError(t, err)
	}
	compiles.mu.Lock()
	n := len(compiles.kept)
	compiles.mu.Unlock()
	assert.LessOrEqual(t, n, keptCompiles)
	again, err := Compile(ctx, spec(0))
	require.NoError(t, err)
	assert.NotSame(t, first.fast, again.fast, "the least recently used compile was dropped")
	latest, err := Compile(ctx, spec(keptCompiles))
	require.NoError(t, err)
	assert.Same(t, last.fast, latest.fast, "the most recently used compile is kept")
}
