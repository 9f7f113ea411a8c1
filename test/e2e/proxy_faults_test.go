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
	stderr *syncBuffer
	exited chan struct{}
	code   int
}

func startRaw(t *testing.T, flags, server, env []string) *rawHost {
	t.Helper()
	args := append(append(append([]string{"proxy"}, flags...), "--"), server...)
	h := &rawHost{t: t, cmd: exec.Command(proxyBinary(t), args...), stderr: &syncBuffer{},
		lines: make(chan map[string]any, 100), exited: make(chan struct{})}
	h.cmd.Env = append(os.Environ(), env...)
	h.cmd.Stderr = h.stderr
	var err error
	if h.in, err = h.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if h.out, err = h.cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
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
			t.Errorf("the proxy did not exit after the test\n%s", h.stderr)
		}
		if strings.Contains(h.stderr.String(), "DATA RACE") {
			t.Errorf("the proxy raced:\n%s", h.stderr)
		}
	})
	return h
}

func (h *rawHost) send(v any) {
	h.t.Helper()
	b, _ := json.Marshal(v)
	if _, err := h.in.Write(append(b, '\n')); err != nil {
		h.t.Fatalf("write to the proxy: %v", err)
	}
}

// next is the next message from the proxy.
func (h *rawHost) next(timeout time.Duration) map[string]any {
	h.t.Helper()
	select {
	case m, ok := <-h.lines:
		if !ok {
			h.t.Fatalf("the proxy closed stdout\n%s", h.stderr)
		}
		return m
	case <-time.After(timeout):
		h.t.Fatalf("nothing from the proxy in %s\n%s", timeout, h.stderr)
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
	if r := h.response(0, 20*time.Second); r["result"] == nil {
		h.t.Fatalf("initialize: %v", r)
	}
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
		h.t.Fatalf("the proxy did not exit within %s\n%s", timeout, h.stderr)
		return 0
	}
}

// waitStderr waits for substr on the proxy's stderr (the server's stderr
// goes there).
func (h *rawHost) waitStderr(substr string) {
	h.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(h.stderr.String(), substr) {
		if time.Now().After(deadline) {
			h.t.Fatalf("no %q on stderr:\n%s", substr, h.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func resultText(t *testing.T, r map[string]any) (string, bool) {
	t.Helper()
	res, ok := r["result"].(map[string]any)
	if !ok {
		t.Fatalf("no result: %v", r)
	}
	var parts []string
	for _, c := range res["content"].([]any) {
		parts = append(parts, fmt.Sprint(c.(map[string]any)["text"]))
	}
	isErr, _ := res["isError"].(bool)
	return strings.Join(parts, "\n"), isErr
}

// TestProxyServerKilledMidCall: the server killed while a call runs. The
// call gets an is_error result saying so, the host is told, and the proxy
// exits with the server's status (128+9).
func TestProxyServerKilledMidCall(t *testing.T) {
	dir := t.TempDir()
	mkfile(t, dir, "slow.txt", "slow")
	server, pidf := pidFile(t, []string{fsserver, dir})
	h := startRaw(t, []string{"--root", "fs=" + dir}, server, []string{"FSSERVER_SLOW_MS=10000"})
	h.initialize(map[string]any{})
	pid := readPid(t, pidf)
	h.callTool(1, "fs_read", map[string]any{"path": "slow.txt"})
	h.waitStderr("fsserver: call fs_read")
	progress(t, "killing the server (pid %d) mid-call", pid)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	txt, isErr := resultText(t, h.response(1, 10*time.Second))
	if !isErr || !strings.Contains(txt, "killed by signal 9") {
		t.Fatalf("the pending call got %q (isError %v)", txt, isErr)
	}
	progress(t, "the call was answered")
	if code := h.waitExit(10 * time.Second); code != 128+9 {
		t.Fatalf("the proxy exited %d, want 137\n%s", code, h.stderr)
	}
	wantGone(t, pid, "the server")
}

// TestProxyServerExits: the server exiting with status 3 on a call. The
// call, and one sent after, get error results; the host gets a log
// notification; the proxy exits 3.
func TestProxyServerExits(t *testing.T) {
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
	if len(msgs) != 2 {
		t.Fatalf("the proxy said %v", msgs)
	}
	txt, isErr := resultText(t, msgs[0])
	if msgs[0]["id"] != 1.0 || !isErr || !strings.Contains(txt, "exited with status 3") {
		t.Fatalf("the call got %q (isError %v)", txt, isErr)
	}
	if msgs[1]["method"] != "notifications/message" || !strings.Contains(fmt.Sprint(msgs[1]["params"]), "exited with status 3") {
		t.Fatalf("the host was told %v", msgs[1])
	}
	if code := h.waitExit(10 * time.Second); code != 3 {
		t.Fatalf("the proxy exited %d, want 3\n%s", code, h.stderr)
	}
}

// TestProxyServerNeverStarts: a server that cannot be started is named to
// the host and the proxy exits 127 at once; a server that starts and never
// answers leaves nothing behind once the host gives up.
func TestProxyServerNeverStarts(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-server")
	h := startRaw(t, nil, []string{missing}, nil)
	h.send(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}}})
	r := h.response(0, 10*time.Second)
	if e, _ := r["error"].(map[string]any); e == nil || !strings.Contains(fmt.Sprint(e["message"]), "no-such-server did not start") {
		t.Fatalf("initialize got %v", r)
	}
	start := time.Now()
	if code := h.waitExit(5 * time.Second); code != 127 {
		t.Fatalf("the proxy exited %d, want 127\n%s", code, h.stderr)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("the proxy took %v to exit", d)
	}
	if !strings.Contains(h.stderr.String(), "no-such-server did not start") {
		t.Fatalf("stderr: %s", h.stderr)
	}

	server, pidf := pidFile(t, []string{"sleep", "300"})
	h = startRaw(t, nil, server, nil)
	pid := readPid(t, pidf)
	h.send(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}}})
	select {
	case m := <-h.lines:
		t.Fatalf("a silent server answered: %v", m)
	case <-time.After(500 * time.Millisecond):
	}
	progress(t, "the host gives up on a silent server")
	h.in.Close()
	h.waitExit(10 * time.Second)
	wantGone(t, pid, "the silent server")
}

// TestProxyHostDisappears: the host going away — mid-question, mid-call —
// stops the server; nothing is left running and nothing hangs.
func TestProxyHostDisappears(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		call func(h *rawHost)
	}{
		{"mid-question", nil, func(h *rawHost) {
			h.callTool(1, "fs_write", map[string]any{"path": "a.txt", "content": "x"})
			m := h.next(10 * time.Second)
			if m["method"] != "elicitation/create" {
				t.Fatalf("want the proxy's question, got %v", m)
			}
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
	dir := t.TempDir()
	badRules := mkfile(t, dir, "rules.json", "[\n  {\"tool\": \"write_file\", \"decision\": \"allow\"},\n  {\"tool\": \"x\", \"decision\": \"perhaps\"}\n]\n")
	badRego := mkfile(t, dir, "team.rego", "package mcp.custom\n\ndeny contains \"x\" if {\n  input.tool == undefined_fn(1)\n}\n")
	badGrants := mkfile(t, dir, "grants.json", "[\n{\"tool\": \"a\", \"decision\": \"allow\", \"under\": \"/a\"},\n{\"tool\": \"b\", \"decision\": \"allow\", \"under\": \"relative\"}\n]\n")
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--rules", badRules}, badRules + `:3: rule 2: field "decision": "perhaps"`},
		{[]string{"--policy", badRego}, badRego + ":4: rego_type_error: undefined function undefined_fn"},
		{[]string{"--grants", badGrants}, badGrants + ":3: rule 2"},
		{[]string{"--ask", "sometimes"}, `--ask "sometimes": want elicit or refuse`},
		{[]string{"--root", "fs"}, `--root "fs": want KEY=DIR`},
		{[]string{"--no-such-flag"}, "flag provided but not defined"},
	} {
		server, pidf := pidFile(t, []string{fsserver, dir})
		cmd := exec.Command(proxyBinary(t), append(append(append([]string{"proxy"}, tc.flags...), "--"), server...)...)
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), tc.want) {
			t.Errorf("%v: %v: %s\nwant status 2 and %q", tc.flags, err, out, tc.want)
		}
		if _, err := os.Stat(pidf); err == nil {
			t.Errorf("%v: the server was started", tc.flags)
		}
	}
	if b, _ := os.ReadFile(badGrants); !strings.Contains(string(b), `"relative"`) {
		t.Error("the bad grants file was rewritten")
	}
}
