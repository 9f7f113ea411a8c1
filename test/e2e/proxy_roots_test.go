//go:build unix

package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rootsHost is a raw host that declares roots and answers every roots/list
// with one root URI, except that, while hold is set, it keeps those of the
// proxy's own (an id starting mcp-policy) unanswered.
type rootsHost struct {
	*rawHost
	uri      string
	hold     bool
	held     []map[string]any
	answered int
}

func startRootsHost(t *testing.T, flags, server []string, uri string) *rootsHost {
	t.Helper()
	return startRootsHostWith(t, flags, server, uri, map[string]any{"roots": map[string]any{"listChanged": true}})
}

func startRootsHostWith(t *testing.T, flags, server []string, uri string, caps map[string]any) *rootsHost {
	t.Helper()
	h := &rootsHost{rawHost: startRaw(t, flags, server, nil), uri: uri}
	h.send(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": caps,
		"clientInfo": map[string]any{"name": "raw", "version": "1"}}})
	h.until(func(m map[string]any) bool { return m["id"] == 0.0 && m["method"] == nil })
	h.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return h
}

func (h *rootsHost) answer(m map[string]any) {
	h.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": map[string]any{"roots": []any{map[string]any{"uri": h.uri}}}})
	h.answered++
}

// until reads the proxy's messages, answering roots/list on the way, until
// want is true of one (or, for a roots/list, of the state after it).
func (h *rootsHost) until(want func(map[string]any) bool) map[string]any {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		m := h.next(time.Until(deadline))
		if m["method"] == "roots/list" {
			if id, _ := m["id"].(string); h.hold && strings.HasPrefix(id, "mcp-policy") {
				h.held = append(h.held, m)
			} else {
				h.answer(m)
			}
		}
		if want(m) {
			return m
		}
	}
}

// rootsAnswered waits until n roots/list have been answered.
func (h *rootsHost) rootsAnswered(n int) {
	h.t.Helper()
	h.until(func(map[string]any) bool { return h.answered >= n })
}

// write calls write_file with a relative path and returns the result.
func (h *rootsHost) write(id int, tool, path string) (string, bool) {
	h.t.Helper()
	h.callTool(id, tool, map[string]any{"path": path, "content": "x"})
	m := h.until(func(m map[string]any) bool { return m["id"] == float64(id) && m["method"] == nil })
	return resultText(h.t, m)
}

// TestProxyRootsAsTheServerReadsThem: the policy resolves a relative path
// against the host's root only when the server does too. The TypeScript
// SDK refuses a roots/list whose URI does not start with exactly
// "file://", and the reference server then keeps the directories it was
// started with; Node's fileURLToPath refuses a remote host and an encoded
// slash, and the server skips such a root. The proxy took "file:/A" and
// "FILE:///A" for A (url.Parse), so a write the rules allow under A was
// allowed, and the server wrote it in its own directory (red team, fourth
// report, finding 2). Each URI here leaves the policy with no root: the
// relative write is unevaluable, and refused.
func TestProxyRootsAsTheServerReadsThem(t *testing.T) {
	t.Parallel()
	node, entry := needOfficialFS(t)
	for _, tc := range []struct {
		name  string
		uri   func(a string) string
		taken bool
	}{
		{"file:/A", func(a string) string { return "file:" + a }, false},
		{"FILE:///A", func(a string) string { return "FILE://" + a }, false},
		{"File:///A", func(a string) string { return "File://" + a }, false},
		{"a remote host", func(a string) string { return "file://127.0.0.1" + a }, false},
		{"an encoded slash", func(a string) string { return "file://" + filepath.Dir(a) + "%2F" + filepath.Base(a) }, false},
		{"a dot segment", func(a string) string { return "file://" + a + "/%2e%2e/" + filepath.Base(a) }, false},
		{"file:///A", func(a string) string { return "file://" + a }, true},
		{"file://localhost/A", func(a string) string { return "file://localhost" + a }, true},
		{"file://LOCALHOST/A", func(a string) string { return "file://LOCALHOST" + a }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp, err := filepath.EvalSymlinks(t.TempDir())
			require.NoError(t, err)
			a, s := mkdir(t, tmp, "rtA"), mkdir(t, tmp, "rtS")
			logFile := filepath.Join(t.TempDir(), "decisions.jsonl")
			h := startRootsHost(t, []string{"--rules", allowUnder(t, "write_file", a), "--log", logFile}, []string{node, entry, s}, tc.uri(a))
			h.rootsAnswered(1)
			text, isError := h.write(5, "write_file", "pwn.txt")
			es := logLines(t, logFile)
			require.Len(t, es, 1, "log lines")
			result := jsonObject(t, es[0]["result"], "result")
			if tc.taken {
				assert.False(t, isError, "root %s: %s", h.uri, text)
				assert.Equal(t, []any{filepath.Join(a, "pwn.txt")}, result["paths"], "root %s", h.uri)
				wantFile(t, filepath.Join(a, "pwn.txt"), "x")
				return
			}
			assert.True(t, isError, "root %s: the relative write was allowed: %s", h.uri, text)
			assert.Equal(t, "unevaluable-path", result["reason"], "root %s", h.uri)
			wantAbsent(t, filepath.Join(a, "pwn.txt"))
			wantAbsent(t, filepath.Join(s, "pwn.txt"))
		})
	}
}

// TestProxyRootsChangeWindow: when the host's roots change, the policy has
// no root from the moment the proxy reads the host's list_changed until the
// server has been given the new list and has had time to apply it; a call
// meanwhile waits, and is decided by the new root. Before, the proxy
// fetched the roots for itself and rebuilt the policy in the background:
// a call was decided by the old root while the server already used the
// new one (red team, fourth report, finding 3). Here the rules allow
// writes under the old root only, and the call must be refused wherever it
// comes.
func TestProxyRootsChangeWindow(t *testing.T) {
	t.Parallel()
	node, entry := needOfficialFS(t)
	for _, tc := range []struct {
		name string
		// change announces the change and writes pwn.txt; the host
		// answers roots/list with B from then on.
		change func(h *rootsHost) (string, bool)
	}{
		{"the call right after the server is given the new root", func(h *rootsHost) (string, bool) {
			n := h.answered
			h.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
			h.until(func(m map[string]any) bool {
				id, _ := m["id"].(string)
				return m["method"] == "roots/list" && !strings.HasPrefix(id, "mcp-policy") && h.answered > n
			})
			return h.write(5, "write_file", "pwn.txt")
		}},
		{"the call before the server asks", func(h *rootsHost) (string, bool) {
			h.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
			return h.write(5, "write_file", "pwn.txt")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp, err := filepath.EvalSymlinks(t.TempDir())
			require.NoError(t, err)
			a, b, s := mkdir(t, tmp, "rtA"), mkdir(t, tmp, "rtB"), mkdir(t, tmp, "rtS")
			h := startRootsHost(t, []string{"--rules", allowUnder(t, "write_file", a)}, []string{node, entry, s}, "file://"+a)
			h.rootsAnswered(1)
			text, isError := h.write(4, "write_file", "a.txt")
			require.False(t, isError, "the write under the first root: %s", text)
			wantFile(t, filepath.Join(a, "a.txt"), "x")

			h.uri, h.hold = "file://"+b, true
			text, isError = tc.change(h)
			assert.True(t, isError, "the relative write after the change was allowed: %s", text)
			for _, d := range []string{a, b, s} {
				wantAbsent(t, filepath.Join(d, "pwn.txt"))
			}
			for _, m := range h.held {
				h.answer(m)
			}
			// The server has the new root: a relative write lands there, as
			// the policy judges it (refused: not under A).
			text, isError = h.write(6, "write_file", "b.txt")
			assert.True(t, isError, "a relative write under the new root was allowed: %s", text)
			wantAbsent(t, filepath.Join(b, "b.txt"))
		})
	}
}

// TestProxyRootsChangeWhileAsking: a call is decided by the root it was
// asked about. When the host's roots change while the human is asked, the
// answer comes too late for that root: the call is not sent (the server
// would resolve its relative path against the new root), and the model is
// told to call again.
func TestProxyRootsChangeWhileAsking(t *testing.T) {
	t.Parallel()
	node, entry := needOfficialFS(t)
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	a, b, s := mkdir(t, tmp, "rtA"), mkdir(t, tmp, "rtB"), mkdir(t, tmp, "rtS")
	h := startRootsHostWith(t, nil, []string{node, entry, s}, "file://"+a,
		map[string]any{"roots": map[string]any{"listChanged": true}, "elicitation": map[string]any{}})
	h.rootsAnswered(1)
	h.callTool(5, "write_file", map[string]any{"path": "x.txt", "content": "x"})
	question := h.until(func(m map[string]any) bool { return m["method"] == "elicitation/create" })
	require.Contains(t, jsonObject(t, question["params"], "params")["message"], "write_file under "+a+" from now on", "the question")

	n := h.answered
	h.uri = "file://" + b
	h.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
	h.until(func(map[string]any) bool { return h.answered > n })
	h.send(map[string]any{"jsonrpc": "2.0", "id": question["id"], "result": map[string]any{
		"action": "accept", "content": map[string]any{"answer": "allow-once"}}})
	text, isError := resultText(t, h.until(func(m map[string]any) bool { return m["id"] == 5.0 && m["method"] == nil }))
	assert.True(t, isError, "the call allowed for %s was sent after the roots changed: %s", filepath.Join(a, "x.txt"), text)
	assert.Contains(t, text, "Call the tool again")
	for _, d := range []string{a, b, s} {
		wantAbsent(t, filepath.Join(d, "x.txt"))
	}
}

// TestProxyRootsOnlyWhenTheServerAsks: a server that never asks for roots
// resolves relative paths against its own directories, so the host's root
// is not the policy's. Before, the proxy asked the host for its roots
// itself and resolved against them: test/fsserver wrote in its own
// directory a relative write the rules allowed only under the host's root.
func TestProxyRootsOnlyWhenTheServerAsks(t *testing.T) {
	t.Parallel()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	a, s := mkdir(t, tmp, "rtA"), mkdir(t, tmp, "rtS")
	h := startRootsHost(t, []string{"--rules", allowUnder(t, "fs_write", a)}, []string{fsserver, s}, "file://"+a)
	h.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ping"})
	h.until(func(m map[string]any) bool { return m["id"] == 1.0 && m["method"] == nil })
	text, isError := h.write(5, "fs_write", "pwn.txt")
	assert.True(t, isError, "a relative write was judged against a root the server does not use: %s", text)
	wantAbsent(t, filepath.Join(s, "pwn.txt"))
	wantAbsent(t, filepath.Join(a, "pwn.txt"))
}

// allowUnder is a rules file allowing tool under dir.
func allowUnder(t *testing.T, tool, dir string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "rules.json")
	require.NoError(t, os.WriteFile(file, []byte(`[{"tool":"`+tool+`","decision":"allow","under":"`+dir+`"}]`), 0o644))
	return file
}
