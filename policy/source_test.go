package policy_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rulefiles"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/verdict"
	"github.com/mcp-policy/mcp-policy/policy"
)

// A Source's set follows the policy's own rules: SetRules replaces those
// and keeps the source's; after Close the source's edits no longer reach
// the policy, and the rules in force stay.
func TestSourceFollowsSetRulesAndCloseStopsIt(t *testing.T) {
	file := filepath.Join(t.TempDir(), "rules.json")
	require.NoError(t, os.WriteFile(file, []byte(`[{"tool":"fs_write","decision":"allow","under":"/srv/b"}]`), 0o600))
	src, err := rulefiles.Open(file, nil, nil)
	require.NoError(t, err)
	p := newPolicy(t, policy.Options{Provider: newFake(), Rules: []rules.Rule{allowA}, Source: src})
	decision := func(rel string) verdict.Decision {
		t.Helper()
		d, err := p.Decide(context.Background(), write("1", rel))
		require.NoError(t, err)
		return d.Decision
	}
	assert.Equal(t, rules.Allow, decision("a/x"), "Options.Rules")
	assert.Equal(t, rules.Allow, decision("b/x"), "the source's")

	require.NoError(t, p.SetRules([]rules.Rule{{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/c"}}, nil))
	assert.Equal(t, rules.Ask, decision("a/x"), "replaced by SetRules")
	assert.Equal(t, rules.Allow, decision("c/x"))
	assert.Equal(t, rules.Allow, decision("b/x"), "the source's set stays after SetRules")

	require.NoError(t, p.Close())
	require.NoError(t, os.WriteFile(file, []byte(`[{"tool":"fs_write","decision":"allow","under":"/srv/d"}]`), 0o600))
	src.Reload()
	assert.Equal(t, rules.Allow, decision("b/x"), "closed: the source's edit did not reach the policy")
	assert.Equal(t, rules.Ask, decision("d/x"))
}

// A source whose current set does not compile beside the policy's own
// modules is New's error, naming the module: not a policy that refuses
// every call without saying why.
func TestSourceSetThatDoesNotCompileWithTheOptionsIsNewsError(t *testing.T) {
	mod := filepath.Join(t.TempDir(), "limit.rego")
	require.NoError(t, os.WriteFile(mod, []byte("package mcp.custom\n\nlimit(x) := x\n"), 0o600))
	src, err := rulefiles.Open("", []string{mod}, nil)
	require.NoError(t, err, "on its own the module compiles")
	_, err = policy.New(policy.Options{Provider: newFake(), Source: src,
		Modules: []rules.Module{{Name: "own.rego", Source: "package mcp.custom\n\nlimit := 1\n"}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the source's rules")
	assert.Contains(t, err.Error(), mod+":3:", "the module's file and line")
}
