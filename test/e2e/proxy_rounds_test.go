//go:build unix

package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProxyAbandonedRounds: a 2026-07-28 host that walks away from one of
// the proxy's input-required rounds does not hold every other question
// until --ask-timeout. The round holds the policy's ask lock (one human,
// one question at a time); before, a cancellation of the call found
// nothing (the round had answered the call's id and forgotten it), and a
// retry under another requestState left the round open (red team, fourth
// report, finding 4). Each way of walking away withdraws the round: the
// call is denied once, the lock released, and the round's requestState
// expired.
func TestProxyAbandonedRounds(t *testing.T) {
	t.Parallel()
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "1"},
	}
	start := func(t *testing.T) (*rawHost, string) {
		dir := t.TempDir()
		return startRaw(t, []string{"--root", "fs=" + dir}, []string{fsserver, dir}, nil), dir
	}
	// call sends a tools/call; within says how soon it must be answered.
	call := func(h *rawHost, id int, args map[string]any, extra map[string]any, within time.Duration) map[string]any {
		h.t.Helper()
		params := map[string]any{"name": "fs_write", "arguments": args, "_meta": meta}
		for k, v := range extra {
			params[k] = v
		}
		h.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
		return jsonObject(h.t, h.response(float64(id), within)["result"], "result")
	}
	round := func(t *testing.T, res map[string]any) (key, state string) {
		t.Helper()
		require.Equal(t, "input_required", res["resultType"], "want the proxy's question, got %v", res)
		for k := range jsonObject(t, res["inputRequests"], "inputRequests") {
			key = k
		}
		state, ok := res["requestState"].(string)
		require.True(t, ok, "requestState %v", res["requestState"])
		return key, state
	}
	refused := func(t *testing.T, res map[string]any, substr string) {
		t.Helper()
		require.Equal(t, true, res["isError"], "want an error result, got %v", res)
		content, ok := res["content"].([]any)
		require.True(t, ok, "result %v", res)
		require.NotEmpty(t, content, "result %v", res)
		assert.Contains(t, jsonObject(t, content[0], "content block")["text"], substr)
	}
	allow := func(key string) map[string]any {
		return map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"answer": "allow-once"}}}
	}
	// The next question comes at once, not after --ask-timeout (10m).
	const soon = 10 * time.Second

	t.Run("the call cancelled", func(t *testing.T) {
		h, dir := start(t)
		a := map[string]any{"path": "a.txt", "content": "a"}
		key, state := round(t, call(h, 1, a, nil, 20*time.Second))
		h.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": 1, "reason": "user stopped"}})
		b := map[string]any{"path": "b.txt", "content": "b"}
		key2, state2 := round(t, call(h, 2, b, nil, soon))
		res := call(h, 3, b, map[string]any{"requestState": state2, "inputResponses": allow(key2)}, 20*time.Second)
		require.NotEqual(t, true, res["isError"], "the second call, allowed: %v", res)
		wantFile(t, filepath.Join(dir, "b.txt"), "b")
		// The withdrawn round's answer comes too late.
		refused(t, call(h, 4, a, map[string]any{"requestState": state, "inputResponses": allow(key)}, 20*time.Second), "already answered or has expired")
		wantAbsent(t, filepath.Join(dir, "a.txt"))
		h.waitStderr("the host cancelled the call (taken as deny once)")
	})

	t.Run("a retry under an unknown requestState", func(t *testing.T) {
		h, dir := start(t)
		a := map[string]any{"path": "a.txt", "content": "a"}
		key, state := round(t, call(h, 1, a, nil, 20*time.Second))
		lost := state[:strings.LastIndex(state, "/")+1] + "lost"
		refused(t, call(h, 2, a, map[string]any{"requestState": lost, "inputResponses": allow(key)}, 20*time.Second), "already answered or has expired")
		b := map[string]any{"path": "b.txt", "content": "b"}
		round(t, call(h, 3, b, nil, soon))
		refused(t, call(h, 4, a, map[string]any{"requestState": state, "inputResponses": allow(key)}, 20*time.Second), "already answered or has expired")
		wantAbsent(t, filepath.Join(dir, "a.txt"))
	})

	t.Run("a retry under another call's requestState", func(t *testing.T) {
		h, dir := start(t)
		a := map[string]any{"path": "a.txt", "content": "a"}
		key, state := round(t, call(h, 1, a, nil, 20*time.Second))
		refused(t, call(h, 2, map[string]any{"path": "other.txt", "content": "a"}, map[string]any{"requestState": state, "inputResponses": allow(key)}, 20*time.Second),
			"does not match the call the question was about")
		round(t, call(h, 3, map[string]any{"path": "b.txt", "content": "b"}, nil, soon))
		wantAbsent(t, filepath.Join(dir, "a.txt"))
		wantAbsent(t, filepath.Join(dir, "other.txt"))
	})
}
