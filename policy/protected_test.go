package policy_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/policy/rules"
)

// The policy's own files are guarded by the floor without being listed,
// and Options.Protected adds any other: an allow rule over the directory
// holding them does not let a tool change them.
func TestThePolicysOwnFilesAreProtected(t *testing.T) {
	dir := t.TempDir()
	store, err := grants.Open(filepath.Join(dir, "state", "grants.json"))
	require.NoError(t, err)
	module := filepath.Join(dir, "team.rego")
	require.NoError(t, os.WriteFile(module, []byte("package mcp.custom\n"), 0o600))
	src, err := os.ReadFile(module)
	require.NoError(t, err)

	p := newPolicy(t, policy.Options{
		Provider: newFake(), GrantsStore: store, Roots: map[string]string{"fs": dir},
		Rules:     withDefaults(rules.Rule{Tool: "fs_*", Decision: rules.Allow, Under: dir}),
		Modules:   []rules.Module{{Name: module, Source: string(src)}},
		Protected: []string{filepath.Join(dir, "rules.json")},
	})
	for _, f := range []string{"state/grants.json", "state/grants.json.lock", "team.rego", "rules.json"} {
		t.Run(f, func(t *testing.T) {
			d, err := p.Decide(context.Background(), write("1", f))
			require.NoError(t, err)
			assert.Equal(t, rules.Ask, d.Decision)
			assert.Equal(t, rules.ReasonFloor, d.Reason)
		})
	}
	d, err := p.Decide(context.Background(), write("1", "notes.md"))
	require.NoError(t, err)
	assert.Equal(t, rules.Allow, d.Decision, "everything else under the rule is allowed")
}
