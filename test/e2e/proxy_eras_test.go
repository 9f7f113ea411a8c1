//go:build unix

package e2e_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowHuman answers every question after a pause, recording how many it
// was shown at once: a permission question by its one choice, a server's
// question by confirming.
type slowHuman struct {
	mu       sync.Mutex
	now, max int
	messages []string
	choice   string
}

func (h *slowHuman) Elicit(_ any, req mcp.ElicitationRequest) *mcp.ElicitationResult {
	h.mu.Lock()
	h.now++
	h.max = max(h.max, h.now)
	h.messages = append(h.messages, req.Params.Message)
	h.mu.Unlock()
	time.Sleep(300 * time.Millisecond)
	h.mu.Lock()
	h.now--
	h.mu.Unlock()
	content := map[string]any{"confirm": true}
	if strings.Contains(req.Params.Message, "The agent wants to run") {
		content = map[string]any{"answer": h.choice}
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: content}}
}

// TestProxyBothEras: with test/fsserver (mcp-go's server) behind the proxy
// the host speaks 2026-07-28, where questions ride input-required rounds
// inside tools/call; with FSSERVER_LEGACY_ELICIT the handshake era, where
// they are elicitation/create requests. In both, the proxy's permission
// question and the server's own question (fs_delete of a full directory
// asks to confirm) reach the human through the host, one at a time: they
// share the policy's ask lock even when the host would show both at once.
func TestProxyBothEras(t *testing.T) {
	t.Parallel()
	for _, era := range []struct {
		name, protocol string
		env            []string
	}{
		{"2026-07-28", "2026-07-28", nil},
		{"legacy", "2025-11-25", []string{"FSSERVER_LEGACY_ELICIT=1"}},
	} {
		t.Run(era.name, func(t *testing.T) {
			dir := t.TempDir()
			mkfile(t, dir, "full/f", "f")
			person := &slowHuman{choice: "allow-once"}
			ph := startProxied(t, []string{"--root", "fs=" + dir, "--rules", allowRules(t, "fs_delete")},
				[]string{fsserver, dir}, hostOptions{env: era.env, elicit: elicitAdapter(person.Elicit)})
			require.Equal(t, era.protocol, ph.init.ProtocolVersion, "the protocol the host speaks through the proxy")

			progress(t, "a permission question")
			wantCallOK(t, ph.call("fs_write", map[string]any{"path": "a.txt", "content": "a"}))
			wantFile(t, filepath.Join(dir, "a.txt"), "a")

			progress(t, "the server's question")
			wantCallOK(t, ph.call("fs_delete", map[string]any{"path": "full"}))
			wantAbsent(t, filepath.Join(dir, "full"))

			progress(t, "both at once")
			mkfile(t, dir, "full/f", "f")
			var wg sync.WaitGroup
			var write, del *mcp.CallToolResult
			wg.Go(func() { write = ph.call("fs_write", map[string]any{"path": "b.txt", "content": "b"}) })
			wg.Go(func() { del = ph.call("fs_delete", map[string]any{"path": "full"}) })
			wg.Wait()
			wantCallOK(t, write)
			wantCallOK(t, del)
			wantFile(t, filepath.Join(dir, "b.txt"), "b")
			wantAbsent(t, filepath.Join(dir, "full"))

			person.mu.Lock()
			defer person.mu.Unlock()
			assert.Equal(t, 1, person.max, "questions the human was shown at once")
			if assert.Len(t, person.messages, 4, "the human was asked %q", person.messages) {
				assert.Contains(t, person.messages[0], "fs_write", "the first question")
				assert.Contains(t, person.messages[1], "full", "the second question")
			}
		})
	}
}

// elicitAdapter makes a function an mcp-go elicitation handler.
type elicitAdapter func(any, mcp.ElicitationRequest) *mcp.ElicitationResult

func (f elicitAdapter) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return f(ctx, req), nil
}

// TestProxyInputRequiredRounds: what a 2026-07-28 host sees on the wire.
// A call the policy asks about is answered with an input-required result
// carrying the proxy's question and a requestState of its own; the retry
// with the answer gets the server's result. The server's own round (its
// confirmation) comes to the host the same way, as a round of the
// proxy's: the host never sees the server's requestState.
func TestProxyInputRequiredRounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mkfile(t, dir, "full/f", "f")
	h := startRaw(t, []string{"--root", "fs=" + dir, "--rules", allowRules(t, "fs_delete")}, []string{fsserver, dir}, nil)
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "1"},
	}
	call := func(id int, name string, args map[string]any, extra map[string]any) map[string]any {
		params := map[string]any{"name": name, "arguments": args, "_meta": meta}
		for k, v := range extra {
			params[k] = v
		}
		h.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
		return jsonObject(t, h.response(float64(id), 20*time.Second)["result"], "result")
	}
	round := func(res map[string]any) (key string, req map[string]any, state string) {
		t.Helper()
		require.Equal(t, "input_required", res["resultType"], "want an input-required round, got %v", res)
		reqs := jsonObject(t, res["inputRequests"], "inputRequests")
		require.Len(t, reqs, 1, "input requests %v", reqs)
		for k, v := range reqs {
			key, req = k, jsonObject(t, v, "input request")
		}
		require.Equal(t, "elicitation/create", req["method"], "input request %v", req)
		state, ok := res["requestState"].(string)
		require.True(t, ok, "requestState %v is not a string", res["requestState"])
		require.True(t, strings.HasPrefix(state, "mcp-policy/"), "requestState %q is not the proxy's", state)
		return key, req, state
	}
	message := func(req map[string]any) string {
		t.Helper()
		msg, ok := jsonObject(t, req["params"], "params")["message"].(string)
		require.True(t, ok, "input request %v has no message", req)
		return msg
	}
	accept := func(content map[string]any) map[string]any {
		return map[string]any{"action": "accept", "content": content}
	}

	args := map[string]any{"path": "a.txt", "content": "a"}
	key, req, state := round(call(1, "fs_write", args, nil))
	require.Contains(t, message(req), "fs_write", "the proxy's question")
	res := call(2, "fs_write", args, map[string]any{"requestState": state,
		"inputResponses": map[string]any{key: accept(map[string]any{"answer": "allow-once"})}})
	require.NotEqual(t, true, res["isError"], "after the answer: %v", res)
	require.NotEqual(t, "input_required", res["resultType"], "after the answer: %v", res)
	wantFile(t, filepath.Join(dir, "a.txt"), "a")

	// A round answered twice, or a retry of another call, is refused.
	res = call(3, "fs_write", args, map[string]any{"requestState": state,
		"inputResponses": map[string]any{key: accept(map[string]any{"answer": "allow-once"})}})
	require.Equal(t, true, res["isError"], "a replayed answer: %v", res)
	content, ok := res["content"].([]any)
	require.True(t, ok, "a replayed answer: %v", res)
	require.NotEmpty(t, content, "a replayed answer: %v", res)
	require.Contains(t, jsonObject(t, content[0], "content block")["text"], "already answered", "a replayed answer")

	del := map[string]any{"path": "full"}
	key, req, state = round(call(4, "fs_delete", del, nil))
	msg := message(req)
	require.Contains(t, msg, "full", "the server's question")
	require.NotContains(t, msg, "The agent wants", "the server's question is not the proxy's")
	res = call(5, "fs_delete", del, map[string]any{"requestState": state,
		"inputResponses": map[string]any{key: accept(map[string]any{"confirm": true})}})
	require.NotEqual(t, true, res["isError"], "after confirming: %v", res)
	require.NotEqual(t, "input_required", res["resultType"], "after confirming: %v", res)
	wantAbsent(t, filepath.Join(dir, "full"))
}

// jsonObject is v as a JSON object, failing the test when it is not one.
func jsonObject(t testing.TB, v any, what string) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	require.True(t, ok, "%s is %T (%v), want a JSON object", what, v, v)
	return m
}
