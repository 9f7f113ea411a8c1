//go:build unix

package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inspector runs the MCP inspector's headless CLI (npx
// @modelcontextprotocol/inspector --cli, from test/npm) with args, and
// returns its stdout and exit status.
func inspector(t *testing.T, args ...string) (string, int) {
	t.Helper()
	node, entry := npmEntry(t, "@modelcontextprotocol/inspector/clients/launcher/build/index.js")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{entry, "--cli"}, args...)...)
	// No OS keychain here: keep the inspector's secrets in memory, quietly.
	cmd.Env = append(os.Environ(), "MCP_INSPECTOR_SECRET_STORE=memory", "HOME="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "inspector\n%s", stderr.String())
		code = ee.ExitCode()
	}
	assert.NotContains(t, stderr.String(), "DATA RACE", "the proxy raced")
	return stdout.String(), code
}

// TestProxyInspectorCLI: the MCP inspector as a third-party host. Its
// tools/list through the proxy is what it lists straight from the server,
// an allowed tools/call returns the file, a write nobody allowed is
// refused; the proxy is configured the way hosts configure servers, in an
// mcpServers file.
func TestProxyInspectorCLI(t *testing.T) {
	t.Parallel()
	server, dir := officialFSServer(t)
	mkfile(t, dir, "hello.txt", "hello from the inspector\n")
	proxy := append([]string{proxyBinary(t), "proxy", "--"}, server...)

	progress(t, "tools/list, direct and through the proxy")
	straight, code := inspector(t, append([]string{"--method", "tools/list", "--"}, server...)...)
	require.Equal(t, 0, code, "inspector direct: %s", straight)
	through, code := inspector(t, append([]string{"--method", "tools/list", "--"}, proxy...)...)
	require.Equal(t, 0, code, "inspector through the proxy: %s", through)
	require.Equal(t, straight, through, "tools/list through the proxy differs from direct")
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal([]byte(through), &list), "tools/list output %.300s", through)
	require.GreaterOrEqual(t, len(list.Tools), 5, "tools/list output %.300s", through)

	progress(t, "tools/call through an mcpServers config")
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"filesystem": map[string]any{"command": proxy[0], "args": proxy[1:]},
	}})
	require.NoError(t, err)
	cfgFile := filepath.Join(t.TempDir(), "mcp.json")
	require.NoError(t, os.WriteFile(cfgFile, cfg, 0o644))
	out, code := inspector(t, "--config", cfgFile, "--server", "filesystem", "--method", "tools/call",
		"--tool-name", "read_text_file", "--tool-arg", "path="+filepath.Join(dir, "hello.txt"))
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	require.Equal(t, 0, code, "tools/call: %s", out)
	require.NoError(t, json.Unmarshal([]byte(out), &res), "tools/call: %s", out)
	require.False(t, res.IsError, "tools/call: %s", out)
	require.Len(t, res.Content, 1, "tools/call: %s", out)
	require.Equal(t, "hello from the inspector\n", res.Content[0].Text, "tools/call")

	out, code = inspector(t, "--config", cfgFile, "--server", "filesystem", "--method", "tools/call",
		"--tool-name", "write_file", "--tool-arg", "path="+filepath.Join(dir, "x.txt"), "content=x")
	require.NotEqual(t, 0, code, "refused write: exit status: %s", out)
	require.Contains(t, out, "Permission required: 'write_file' needs approval", "refused write")
	require.Contains(t, out, `"isError": true`, "refused write")
	wantAbsent(t, filepath.Join(dir, "x.txt"))
}
