//go:build unix

package e2e_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawHost is a host that speaks JSON-RPC over pipes by hand, to do what a
// well-behaved client library would not: vanish mid-question, watch the
// proxy's exit status.
type rawHost struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    io.ReadCloser
	lines  chan map[string]any
	stderr *testkit.SyncBuffer
	exited chan struct{}
	code   int
}

func startRaw(t *testing.T, flags, server, env []string) *rawHost {
	t.Helper()
	args := append(append(append([]string{"proxy"}, flags...), "--"), server...)
	h := &rawHost{t: t, cmd: exec.Command(proxyBinary(t), args...), stderr: &testkit.SyncBuffer{},
		lines: make(chan map[string]any, 100), exited: make(chan struct{})}
	h.cmd.Env = append(os.Environ(), env...)
	h.cmd.Stderr = h.stderr
	var err error
	h.in, err = h.cmd.StdinPipe()
	require.NoError(t, err)
	h.out, err = h.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, h.cmd.Start())
	go func() {
		sc := bufio.NewScanner(h.out)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"unparsable": sc.Text()}
			}
			h.lines <- m
		}
		close(h.lines)
	}()
	go func() {
		_ = h.cmd.Wait()
		h.code = h.cmd.ProcessState.ExitCode()
		close(h.exited)
	}()
	t.Cleanup(func() {
		h.in.Close()
		select {
		case <-h.exited:
		case <-time.After(10 * time.Second):
			_ = h.cmd.Process.Kill()
			assert.Fail(t, "the proxy did not exit after the test", "%s", h.stderr)
		}
		assert.NotContains(t, h.stderr.String(), "DATA RACE", "the proxy raced")
	})
	return h
}

func (h *rawHost) send(v any) {
	h.t.Helper()
	b, err := json.Marshal(v)
	require.NoError(h.t, err)
	_, err = h.in.Write(append(b, '\n'))
	require.NoError(h.t, err, "write to the proxy")
}

// next is the next message from the proxy.
func (h *rawHost) next(timeout time.Duration) map[string]any {
	h.t.Helper()
	select {
	case m, ok := <-h.lines:
		require.True(h.t, ok, "the proxy closed stdout\n%s", h.stderr)
		return m
	case <-time.After(timeout):
		require.FailNowf(h.t, "nothing from the proxy", "nothing in %s\n%s", timeout, h.stderr)
		return nil
	}
}

// response waits for the response to id, skipping notifications.
func (h *rawHost) response(id float64, timeout time.Duration) map[string]any {
	h.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		m := h.next(time.Until(deadline))
		if m["id"] == id && m["method"] == nil {
			return m
		}
	}
}

func (h *rawHost) initialize(caps map[string]any) {
	h.t.Helper()
	h.send(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": caps, "clientInfo": map[string]any{"name": "raw", "version": "1"}}})
	r := h.response(0, 20*time.Second)
	require.NotNil(h.t, r["result"], "initialize: %v", r)
	h.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
}

func (h *rawHost) callTool(id int, name string, args map[string]any) {
	h.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
}

// waitExit waits for the proxy to exit and returns its status.
func (h *rawHost) waitExit(timeout time.Duration) int {
	h.t.Helper()
	select {
	case <-h.exited:
		return h.code
	case <-time.After(timeout):
		require.FailNowf(h.t, "the proxy did not exit", "not within %s\n%s", timeout, h.stderr)
		return 0
	}
}

// waitStderr waits for substr on the proxy's stderr (the server's stderr
// goes there).
func (h *rawHost) waitStderr(substr string) {
	h.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(h.stderr.String(), substr) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	require.Contains(h.t, h.stderr.String(), substr, "the proxy's stderr")
}

func resultText(t *testing.T, r map[string]any) (string, bool) {
	t.Helper()
	res := jsonObject(t, r["result"], "result")
	content, ok := res["content"].([]any)
	require.True(t, ok, "result %v has no content", res)
	var parts []string
	for _, c := range content {
		parts = append(parts, fmt.Sprint(jsonObject(t, c, "content block")["text"]))
	}
	isErr, _ := res["isError"].(bool)
	return strings.Join(parts, "\n"), isErr
}

// TestProxyServerKilledMidCall: the server killed while a call runs. The
// call gets an is_error result saying so, the host is told, and the proxy
// exits with the server's status (128+9).
func TestProxyServerKilledMidCall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mkfile(t, dir, "slow.txt", "slow")
	server, pidf := pidFile(t, []string{fsserver, dir})
	h := startRaw(t, []string{"--root", "fs=" + dir}, server, []string{"FSSERVER_SLOW_MS=10000"})
	h.initialize(map[string]any{})
	pid := readPid(t, pidf)
	h.callTool(1, "fs_read", map[string]any{"path": "slow.txt"})
	h.waitStderr("fsserver: call fs_read")
	progress(t, "killing the server (pid %d) mid-call", pid)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	txt, isErr := resultText(t, h.response(1, 10*time.Second))
	require.True(t, isErr, "the pending call got %q, not an error", txt)
	require.Contains(t, txt, "killed by signal 9", "the pending call")
	progress(t, "the call was answered")
	require.Equal(t, 128+9, h.waitExit(10*time.Second), "the proxy's exit status\n%s", h.stderr)
	wantGone(t, pid, "the server")
}

// TestProxyServerExits: the server exiting with status 3 on a call. The
// call, and one sent after, get error results; the host gets a log
// notification; the proxy exits 3.
func TestProxyServerExits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := startRaw(t, []string{"--root", "fs=" + dir, "--rules", allowRules(t, "fs_write")}, []string{fsserver, dir},
		[]string{"FSSERVER_DIE_ON=fs_write"})
	h.initialize(map[string]any{})
	h.callTool(1, "fs_write", map[string]any{"path": "a.txt", "content": "x"})
	// Everything the proxy says until it exits: the call's result, then a
	// log notification.
	var msgs []map[string]any
	for m := range h.lines {
		msgs = append(msgs, m)
	}
	require.Len(t, msgs, 2, "the proxy said %v", msgs)
	txt, isErr := resultText(t, msgs[0])
	require.Equal(t, 1.0, msgs[0]["id"], "the first message %v", msgs[0])
	require.True(t, isErr, "the call got %q, not an error", txt)
	require.Contains(t, txt, "exited with status 3", "the call")
	require.Equal(t, "notifications/message", msgs[1]["method"], "the host was told %v", msgs[1])
	require.Contains(t, fmt.Sprint(msgs[1]["params"]), "exited with status 3", "the host was told %v", msgs[1])
	require.Equal(t, 3, h.waitExit(10*time.Second), "the proxy's exit status\n%s", h.stderr)
}

// TestProxyServerExitsOnA2026Call: a 2026-07-28 call the server exits on
// was sent to it, so the host is told it may not have finished (and not
// that it was not run, which invites running it again).
func TestProxyServerExitsOnA2026Call(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := startRaw(t, []string{"--root", "fs=" + dir, "--rules", allowRules(t, "fs_write")}, []string{fsserver, dir},
		[]string{"FSSERVER_DIE_ON=fs_write"})
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "1"},
	}
	h.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "fs_write", "arguments": map[string]any{"path": "a.txt", "content": "x"}, "_meta": meta}})
	txt, isErr := resultText(t, h.response(1, 20*time.Second))
	require.True(t, isErr, "the call got %q, not an error", txt)
	require.Contains(t, txt, "exited with status 3", "the call")
	require.Contains(t, txt, "may not have finished", "the call was sent")
	require.Equal(t, 3, h.waitExit(10*time.Second), "the proxy's exit status\n%s", h.stderr)
}

// TestProxyServerNeverStarts: a server that cannot be started is named to
// the host and the proxy exits 127 at once; a server that starts and never
// answers leaves nothing behind once the host gives up.
func TestProxyServerNeverStarts(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "no-such-server")
	h := startRaw(t, nil, []string{missing}, nil)
	h.send(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}}})
	r := h.response(0, 10*time.Second)
	e := jsonObject(t, r["error"], "initialize's error")
	require.Contains(t, fmt.Sprint(e["message"]), "no-such-server did not start", "initialize got %v", r)
	start := time.Now()
	require.Equal(t, 127, h.waitExit(5*time.Second), "the proxy's exit status\n%s", h.stderr)
	require.LessOrEqual(t, time.Since(start), 2*time.Second, "the proxy took too long to exit")
	require.Contains(t, h.stderr.String(), "no-such-server did not start", "the proxy's stderr")

	server, pidf := pidFile(t, []string{"sleep", "300"})
	h = startRaw(t, nil, server, nil)
	pid := readPid(t, pidf)
	h.send(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}}})
	select {
	case m := <-h.lines:
		require.FailNowf(t, "a silent server answered", "%v", m)
	case <-time.After(500 * time.Millisecond):
	}
	progress(t, "the host gives up on a silent server")
	h.in.Close()
	h.waitExit(10 * time.Second)
	wantGone(t, pid, "the silent server")
}

// TestProxyHostDisappears: the host going away — mid-question, mid-round,
// mid-call — stops the server; nothing is left running and nothing hangs.
func TestProxyHostDisappears(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  []string
		call func(h *rawHost)
	}{
		{"mid-question", nil, func(h *rawHost) {
			h.callTool(1, "fs_write", map[string]any{"path": "a.txt", "content": "x"})
			m := h.next(10 * time.Second)
			require.Equal(h.t, "elicitation/create", m["method"], "want the proxy's question, got %v", m)
		}},
		{"mid-round", nil, func(h *rawHost) {
			// A 2026-07-28 host walks away from the proxy's input-required
			// round: the question it holds ends with the proxy.
			h.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
				"name": "fs_write", "arguments": map[string]any{"path": "a.txt", "content": "x"},
				"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
					"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}}}})
			res := jsonObject(h.t, h.response(1, 10*time.Second)["result"], "result")
			require.Equal(h.t, "input_required", res["resultType"], "want the proxy's round, got %v", res)
		}},
		{"mid-call", []string{"FSSERVER_SLOW_MS=10000"}, func(h *rawHost) {
			h.callTool(1, "fs_read", map[string]any{"path": "a.txt"})
			h.waitStderr("fsserver: call fs_read")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			mkfile(t, dir, "a.txt", "a")
			server, pidf := pidFile(t, []string{fsserver, dir})
			h := startRaw(t, []string{"--root", "fs=" + dir}, server, tc.env)
			h.initialize(map[string]any{"elicitation": map[string]any{}})
			pid := readPid(t, pidf)
			tc.call(h)
			progress(t, "the host vanishes")
			h.in.Close()
			h.out.Close()
			h.waitExit(10 * time.Second)
			wantGone(t, pid, "the server")
		})
	}
}

// TestProxyBadConfigStopsBeforeTheServer: bad flags, rules, Rego or grants
// stop the proxy with status 2 and a message naming the file and line; the
// server is never started.
func TestProxyBadConfigStopsBeforeTheServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	badRules := mkfile(t, dir, "rules.json", "[\n  {\"tool\": \"write_file\", \"decision\": \"allow\"},\n  {\"tool\": \"x\", \"decision\": \"perhaps\"}\n]\n")
	badRego := mkfile(t, dir, "team.rego", "package mcp.custom\n\ndeny contains \"x\" if {\n  input.tool == undefined_fn(1)\n}\n")
	badGrants := mkfile(t, dir, "grants.json", "[\n{\"tool\": \"a\", \"decision\": \"allow\", \"under\": \"/a\"},\n{\"tool\": \"b\", \"decision\": \"allow\", \"under\": \"relative\"}\n]\n")
	for _, tc := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"rules", []string{"--rules", badRules}, badRules + `:3: rule 2: field "decision": "perhaps"`},
		{"rego", []string{"--policy", badRego}, badRego + ":4: rego_type_error: undefined function undefined_fn"},
		{"grants", []string{"--grants", badGrants}, badGrants + ":3: rule 2"},
		{"ask", []string{"--ask", "sometimes"}, `--ask "sometimes": want elicit, approvals, elicit,approvals or refuse`},
		{"approvals-without-grants", []string{"--ask", "approvals"}, "--ask approvals needs --grants (a file or a postgres:// URL)"},
		{"root", []string{"--root", "fs"}, `--root "fs": want KEY=DIR`},
		{"unknown-flag", []string{"--no-such-flag"}, "flag provided but not defined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			server, pidf := pidFile(t, []string{fsserver, dir})
			cmd := exec.Command(proxyBinary(t), append(append(append([]string{"proxy"}, tc.flags...), "--"), server...)...)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if assert.ErrorAs(t, err, &ee, "%v: %s", tc.flags, out) {
				assert.Equal(t, 2, ee.ExitCode(), "%v: exit status: %s", tc.flags, out)
			}
			assert.Contains(t, string(out), tc.want, "%v", tc.flags)
			_, err = os.Stat(pidf)
			assert.Error(t, err, "%v: the server was started", tc.flags)
		})
	}
	b, err := os.ReadFile(badGrants)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"relative"`, "the bad grants file was rewritten")
}
