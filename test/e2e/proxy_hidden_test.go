//go:build unix

package e2e_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tool a rule denies outright (a deny naming only the tool) is left out
// of the tools/list the host shows the model, and a call to it is still
// denied; a deny that names a directory hides nothing. --list-denied
// lists it again.
func TestAToolDeniedOutrightIsNotListed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rules := filepath.Join(t.TempDir(), "rules.json")
	require.NoError(t, os.WriteFile(rules, []byte(`[{"tool":"fs_delete","decision":"deny"},{"tool":"fs_write","decision":"deny","under":"/srv/x"}]`), 0o600))
	listed := func(flags ...string) (map[string]bool, *rawHost) {
		h := startRaw(t, append([]string{"--root", "fs=" + dir, "--rules", rules, "--ask", "refuse"}, flags...), []string{fsserver, dir}, nil)
		h.initialize(map[string]any{})
		h.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": map[string]any{}})
		r := h.response(1, 20*time.Second)
		names := map[string]bool{}
		for _, tool := range jsonObject(t, r["result"], "result")["tools"].([]any) {
			names[jsonObject(t, tool, "tool")["name"].(string)] = true
		}
		return names, h
	}

	names, h := listed()
	assert.False(t, names["fs_delete"], "denied outright: left out")
	assert.True(t, names["fs_write"], "denied under a directory only: listed")
	assert.True(t, names["fs_read"])
	h.waitStderr("left out of tools/list, as a rule or grant denies every call of them (--list-denied lists them): fs_delete")
	h.callTool(2, "fs_delete", map[string]any{"path": "a.txt"})
	text, isError := resultText(t, h.response(2, 20*time.Second))
	assert.True(t, isError, "a call to it is still denied: %s", text)

	names, _ = listed("--list-denied")
	assert.True(t, names["fs_delete"], "--list-denied lists it")
}
