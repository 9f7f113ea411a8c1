package rules

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/regoeval"
	"github.com/mcp-policy/mcp-policy/provider"
)

// A reload that changes only the rules keeps the compiled query: it costs
// what its rules cost. One that changes anything else compiles anew.
func TestReloadKeepsTheQueryWhenOnlyTheRulesChange(t *testing.T) {
	ctx := context.Background()
	cfg := Config{Rules: []Rule{{Tool: "fs_write", Decision: Allow, Under: "/srv/a"}}, Roots: map[string]string{"fs": "/srv"},
		Protected: []string{"/etc/mcp/rules.json"}}
	e, err := NewEngine(ctx, cfg)
	require.NoError(t, err)
	cfg.Rules = []Rule{{Tool: "fs_write", Decision: Allow, Under: "/srv/b"}}
	r, err := e.Reload(ctx, cfg)
	require.NoError(t, err)
	assert.Same(t, e.decider, r.decider, "only the rules changed")
	d, _, err := r.Decide(ctx, provider.Call{Function: provider.CallFunction{Name: "fs_write", Arguments: `{"path":"b/x"}`}}, nil)
	require.NoError(t, err)
	assert.Equal(t, Allow, d.Decision)
	d, _, err = e.Decide(ctx, provider.Call{Function: provider.CallFunction{Name: "fs_write", Arguments: `{"path":"b/x"}`}}, nil)
	require.NoError(t, err)
	assert.Equal(t, Ask, d.Decision, "the old engine is unchanged")

	for name, change := range map[string]func(c *Config){
		"roots":     func(c *Config) { c.Roots = map[string]string{"fs": "/other"} },
		"protected": func(c *Config) { c.Protected = nil },
		"modules":   func(c *Config) { c.Modules = []Module{{Name: "m.rego", Source: "package mcp.custom\n"}} },
		"arguments": func(c *Config) { c.Arguments = []ArgumentSpec{{Tool: "x", Paths: []string{"p"}}} },
	} {
		c := cfg
		change(&c)
		r, err := e.Reload(ctx, c)
		require.NoError(t, err, name)
		assert.NotSame(t, e.decider, r.decider, name)
	}
}

// The data rules are handed to the builtin from Go and kept out of data,
// unless a module reads data.mcp_data: then they are in data for it, and
// decisions are the same either way.
func TestRulesAreInDataOnlyForAModuleThatReadsThem(t *testing.T) {
	ctx := context.Background()
	rs := []Rule{{Tool: "fs_write", Decision: Allow, Under: "/srv/a"}, {Tool: "fs_delete", Decision: Deny}}
	plain, err := NewEngine(ctx, Config{Rules: rs})
	require.NoError(t, err)
	assert.False(t, plain.decider.RulesInData())
	reader, err := NewEngine(ctx, Config{Rules: rs, Modules: []Module{{Name: "count.rego", Source: `package mcp.custom

deny contains "too few rules" if count(data.mcp_data.rules) < 2
`}}})
	require.NoError(t, err)
	assert.True(t, reader.decider.RulesInData())
	for body, reads := range map[string]bool{
		"x := data":                       true,
		"x if data[input.tool]":           true,
		"x := data.mcp_data":              true,
		`x := data["mcp_data"].roots`:     true,
		"x := data.mcp.floor.ask":         false,
		`x := count(data.other.list) > 1`: false,
	} {
		m, err := ast.ParseModuleWithOpts("m.rego", "package team\n\n"+body+"\n", ast.ParserOptions{RegoVersion: ast.RegoV1})
		require.NoError(t, err, body)
		assert.Equal(t, reads, regoeval.ModulesReadData(map[string]*ast.Module{"user/m.rego": m}), body)
	}
	for _, c := range []string{`{"path":"/srv/a/x"}`, `{"path":"/srv/b"}`} {
		for _, tool := range []string{"fs_write", "fs_delete"} {
			call := provider.Call{Function: provider.CallFunction{Name: tool, Arguments: c}}
			a, _, err := plain.Decide(ctx, call, nil)
			require.NoError(t, err)
			b, _, err := reader.Decide(ctx, call, nil)
			require.NoError(t, err)
			assert.Equal(t, a, b, "%s %s: the module found the rules it counts, and denied nothing", tool, c)
		}
	}
}
