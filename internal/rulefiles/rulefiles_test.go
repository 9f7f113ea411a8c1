package rulefiles_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rulefiles"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// files is a provider with one file-writing tool.
type files struct{}

func (files) ToolsForLLM(context.Context) ([]provider.Tool, error) {
	no := false
	return []provider.Tool{{Type: "function", Function: provider.ToolFunction{Name: "fs_write", Parameters: json.RawMessage(`{"type":"object"}`)},
		Annotations: &provider.Annotations{ReadOnlyHint: &no}}}, nil
}

func (files) ExecuteToolCalls(_ context.Context, calls []provider.Call) []provider.Result {
	out := make([]provider.Result, len(calls))
	for i, c := range calls {
		out[i] = provider.TextResult(c.ID, "written")
	}
	return out
}

// said collects the source's messages.
type said struct {
	mu    sync.Mutex
	lines []string
}

func (s *said) say(line string) { s.mu.Lock(); s.lines = append(s.lines, line); s.mu.Unlock() }
func (s *said) all() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines, "\n")
}

func decisionFor(t *testing.T, p *policy.Policy, path string) rules.Decision {
	t.Helper()
	d, err := p.Decide(context.Background(), provider.Call{ID: "1", Function: provider.CallFunction{Name: "fs_write",
		Arguments: fmt.Sprintf(`{"path":%q}`, path)}})
	require.NoError(t, err)
	return d
}

func allowUnder(dir string) string {
	return fmt.Sprintf("[\n  {\"tool\": \"fs_write\", \"decision\": \"allow\", \"under\": %q}\n]\n", dir)
}

// An edit to the rules file takes effect on the next call, whether the
// editor writes the file in place or renames a new one over it; an edit
// that does not validate is refused naming the file and line, and the
// rules in force stay.
func TestRulesFileEditsTakeEffectAndBadOnesAreRefused(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "rules.json")
	require.NoError(t, os.WriteFile(file, []byte(allowUnder("/srv/a")), 0o600))
	var out said
	src, err := rulefiles.Open(file, nil, out.say)
	require.NoError(t, err)
	var mu sync.Mutex
	var outcomes []bool // each reload told to OnActivation: taken or not
	src.OnActivation = func(_ map[string]string, err error) {
		mu.Lock()
		outcomes = append(outcomes, err == nil)
		mu.Unlock()
	}
	require.NoError(t, src.Start())
	defer src.Stop()
	p, err := policy.New(policy.Options{Provider: files{}, Source: src})
	require.NoError(t, err)
	defer p.Close()
	assert.Equal(t, rules.Allow, decisionFor(t, p, "/srv/a/x").Decision)

	require.NoError(t, os.WriteFile(file, []byte(allowUnder("/srv/b")), 0o600))
	testkit.Eventually(t, 10*time.Second, "the edit written in place in force", func() bool { return decisionFor(t, p, "/srv/b/x").Decision == rules.Allow })
	assert.Equal(t, rules.Ask, decisionFor(t, p, "/srv/a/x").Decision)

	tmp := filepath.Join(dir, ".rules.json.swp")
	require.NoError(t, os.WriteFile(tmp, []byte(allowUnder("/srv/c")), 0o600))
	require.NoError(t, os.Rename(tmp, file))
	testkit.Eventually(t, 10*time.Second, "the edit renamed over the file in force", func() bool { return decisionFor(t, p, "/srv/c/x").Decision == rules.Allow })

	bad := "[\n  {\"tool\": \"fs_write\", \"decision\": \"allow\", \"under\": \"/srv/d\"},\n  {\"tool\": \"fs_write\", \"decision\": \"maybe\"}\n]\n"
	require.NoError(t, os.WriteFile(file, []byte(bad), 0o600))
	testkit.Eventually(t, 10*time.Second, "the bad edit refused", func() bool { return strings.Contains(out.all(), "refused") })
	assert.Contains(t, out.all(), file+":3:", "the file and line at fault")
	assert.Contains(t, out.all(), "the rules in force stay")
	assert.Equal(t, rules.Allow, decisionFor(t, p, "/srv/c/x").Decision, "the rules in force stay")
	assert.Equal(t, rules.Ask, decisionFor(t, p, "/srv/d/x").Decision, "nothing of the bad edit is in force")
	mu.Lock()
	defer mu.Unlock()
	require.GreaterOrEqual(t, len(outcomes), 3, "two edits taken and one refused were told")
	assert.True(t, outcomes[0], "the first edit was taken")
	assert.False(t, outcomes[len(outcomes)-1], "the bad edit was told as refused")
}

// A module that does not compile is refused naming its file and line; the
// fix is taken. Reload (SIGHUP) reads the files without any file event.
func TestModuleEditsAndReload(t *testing.T) {
	dir := t.TempDir()
	mods := filepath.Join(dir, "policy")
	require.NoError(t, os.Mkdir(mods, 0o700))
	mod := filepath.Join(mods, "custom.rego")
	deny := func(ext string) string {
		return fmt.Sprintf("package mcp.custom\n\ndeny contains \"no %s files\" if endswith(input.arguments.path, %q)\n", ext, ext)
	}
	require.NoError(t, os.WriteFile(mod, []byte(deny(".tmp")), 0o600))
	var out said
	src, err := rulefiles.Open("", []string{mods}, out.say)
	require.NoError(t, err)
	p, err := policy.New(policy.Options{Provider: files{}, Source: src, Rules: []rules.Rule{{Tool: "fs_write", Decision: rules.Allow}}})
	require.NoError(t, err)
	defer p.Close()
	assert.Equal(t, rules.Deny, decisionFor(t, p, "/srv/x.tmp").Decision)

	// Not started: only Reload reads the files, as SIGHUP does.
	require.NoError(t, os.WriteFile(mod, []byte(deny(".bak")), 0o600))
	assert.Equal(t, rules.Deny, decisionFor(t, p, "/srv/x.tmp").Decision, "no reload yet")
	src.Reload()
	assert.Equal(t, rules.Allow, decisionFor(t, p, "/srv/x.tmp").Decision)
	assert.Equal(t, rules.Deny, decisionFor(t, p, "/srv/x.bak").Decision)

	require.NoError(t, src.Start())
	defer src.Stop()
	require.NoError(t, os.WriteFile(mod, []byte("package mcp.custom\n\ndeny contains x if {\n\tx := nope(1)\n}\n"), 0o600))
	testkit.Eventually(t, 10*time.Second, "the module that does not compile refused", func() bool { return strings.Contains(out.all(), "refused") })
	assert.Contains(t, out.all(), mod+":4", "the module's file and line")
	assert.Equal(t, rules.Deny, decisionFor(t, p, "/srv/x.bak").Decision, "the module in force stays")

	added := filepath.Join(mods, "more.rego")
	require.NoError(t, os.WriteFile(mod, []byte(deny(".bak")), 0o600))
	require.NoError(t, os.WriteFile(added, []byte("package mcp.custom\n\ndeny contains \"no logs\" if endswith(input.arguments.path, \".log\")\n"), 0o600))
	testkit.Eventually(t, 10*time.Second, "a module added to the directory in force", func() bool { return decisionFor(t, p, "/srv/x.log").Decision == rules.Deny })
}
