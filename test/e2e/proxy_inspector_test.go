//go:build unix

package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("inspector: %v\n%s", err, stderr.String())
		}
		code = ee.ExitCode()
	}
	if strings.Contains(stderr.String(), "DATA RACE") {
		t.Errorf("the proxy raced:\n%s", stderr.String())
	}
	return stdout.String(), code
}

// TestProxyInspectorCLI: the MCP inspector as a third-party host. Its
// tools/list through the proxy is what it lists straight from the server,
// an allowed tools/call returns the file, a write nobody allowed is
// refused; the proxy is configured the way hosts configure servers, in an
// mcpServers file.
func TestProxyInspectorCLI(t *testing.T) {
	server, dir := officialFSServer(t)
	mkfile(t, dir, "hello.txt", "hello from the inspector\n")
	proxy := append([]string{proxyBinary(t), "proxy", "--"}, server...)

	progress(t, "tools/list, direct and through the proxy")
	straight, code := inspector(t, append([]string{"--method", "tools/list", "--"}, server...)...)
	if code != 0 {
		t.Fatalf("inspector direct: exit %d: %s", code, straight)
	}
	through, code := inspector(t, append([]string{"--method", "tools/list", "--"}, proxy...)...)
	if code != 0 {
		t.Fatalf("inspector through the proxy: exit %d: %s", code, through)
	}
	if through != straight {
		t.Fatalf("tools/list through the proxy differs:\nproxy:  %.500s\ndirect: %.500s", through, straight)
	}
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(through), &list); err != nil || len(list.Tools) < 5 {
		t.Fatalf("tools/list output %v: %.300s", err, through)
	}

	progress(t, "tools/call through an mcpServers config")
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"filesystem": map[string]any{"command": proxy[0], "args": proxy[1:]},
	}})
	cfgFile := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfgFile, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := inspector(t, "--config", cfgFile, "--server", "filesystem", "--method", "tools/call",
		"--tool-name", "read_text_file", "--tool-arg", "path="+filepath.Join(dir, "hello.txt"))
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.IsError || len(res.Content) != 1 || res.Content[0].Text != "hello from the inspector\n" {
		t.Fatalf("tools/call: exit %d: %s", code, out)
	}

	out, code = inspector(t, "--config", cfgFile, "--server", "filesystem", "--method", "tools/call",
		"--tool-name", "write_file", "--tool-arg", "path="+filepath.Join(dir, "x.txt"), "content=x")
	if code == 0 || !strings.Contains(out, "Permission required: 'write_file' needs approval") || !strings.Contains(out, `"isError": true`) {
		t.Fatalf("refused write: exit %d: %s", code, out)
	}
	wantAbsent(t, filepath.Join(dir, "x.txt"))
}
