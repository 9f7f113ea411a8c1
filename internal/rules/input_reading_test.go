package rules

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/provider"
)

// A path relative to another argument is resolved against each distinct
// value of the arguments that fold to its name, once (red team 5: 5,000
// spellings of repo_path and 3,000 files took 2 s).
func TestRelativeBasesAreDistinct(t *testing.T) {
	e, err := NewEngine(context.Background(), Config{Roots: map[string]string{"*": "/srv"},
		Arguments: []ArgumentSpec{{Tool: "git_add", Relative: map[string]string{"files": "repo_path"}}}})
	require.NoError(t, err)
	args := map[string]any{"files": []string{"a", "b"}, "repo_path": "/srv/r", "REPO_PATH": "/srv/r", "Repo-Path": "/srv/r", "repoPath": "/srv/other"}
	text, _ := json.Marshal(args)
	in, err := e.newInput(provider.Call{Function: provider.CallFunction{Name: "git_add", Arguments: string(text)}}, nil)
	require.NoError(t, err)
	var files []string
	for _, p := range in.Paths {
		if p.Arg == "files" {
			files = append(files, p.Resolved)
		}
	}
	assert.ElementsMatch(t, []string{"/srv/r/a", "/srv/other/a", "/srv/r/b", "/srv/other/b"}, files)
}

// A call costs memory in proportion to its text, not to the names in a
// path: a path of 800,000 names (1.6 MB) is unknown past MaxPathBytes and
// never cleaned, split or indexed name by name.
func TestAHugePathCostsItsTextNotItsNames(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's own allocations are counted: the bound is held without it")
	}
	e, err := NewEngine(context.Background(), Config{Rules: []Rule{{Tool: "*", Decision: Deny, Under: "/srv/secret"}}})
	require.NoError(t, err)
	args := `{"path":"/srv/` + strings.Repeat("a/", 800_000) + `x"}`
	call := provider.Call{Function: provider.CallFunction{Name: "write", Arguments: args}}
	_, _, err = e.Decide(context.Background(), call, nil) // warm the caches
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d, _, err := e.Decide(context.Background(), call, nil)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Equal(t, ReasonUnevaluable, d.Reason)
	perByte := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(args))
	t.Logf("%.1f bytes allocated per byte of arguments", perByte)
	assert.Less(t, perByte, 8.0, "a decision allocates a few copies of the text at most")
}

// Many long paths, a deny to weigh them against: the index walks up each
// distinct path once, it does not list every ancestor of every path.
func TestManyLongPathsCostTheirText(t *testing.T) {
	e, err := NewEngine(context.Background(), Config{Rules: []Rule{{Tool: "*", Decision: Deny, Under: "/srv/secret"},
		{Tool: "*", Decision: Allow, Under: "/a"}}})
	require.NoError(t, err)
	long := "/" + strings.Repeat("a/", 2000) + "a"
	args := `{"paths":["` + strings.Repeat(long+`","`, 999) + long + `"]}`
	call := provider.Call{Function: provider.CallFunction{Name: "write", Arguments: args}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d, _, err := e.Decide(context.Background(), call, nil)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Equal(t, Allow, d.Decision)
	perByte := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(args))
	t.Logf("%.1f bytes allocated per byte of arguments", perByte)
	assert.Less(t, perByte, 16.0)
}

// Every server name the proxy recognises names shipped specs.
func TestServerArgumentsNamed(t *testing.T) {
	name, ok := ServerArgumentsNamed("github-mcp-server")
	require.True(t, ok)
	assert.Equal(t, "github", name)
	_, ok = ServerArgumentsNamed("some-other-server")
	assert.False(t, ok)
	byName, err := serverNames()
	require.NoError(t, err)
	for server, specs := range byName {
		_, err := ServerArguments(specs)
		assert.NoError(t, err, "%s names %s", server, specs)
	}
}
