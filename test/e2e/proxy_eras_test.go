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
			if got := ph.init.ProtocolVersion; got != era.protocol {
				t.Fatalf("the host speaks %s through the proxy, want %s", got, era.protocol)
			}

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
			if person.max != 1 {
				t.Errorf("the human was shown %d questions at once", person.max)
			}
			if len(person.messages) != 4 || !strings.Contains(person.messages[0], "fs_write") || !strings.Contains(person.messages[1], "full") {
				t.Errorf("the human was asked %q", person.messages)
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
		return h.response(float64(id), 20*time.Second)["result"].(map[string]any)
	}
	round := func(res map[string]any) (key string, req map[string]any, state string) {
		t.Helper()
		if res["resultType"] != "input_required" {
			t.Fatalf("want an input-required round, got %v", res)
		}
		reqs := res["inputRequests"].(map[string]any)
		if len(reqs) != 1 {
			t.Fatalf("input requests %v", reqs)
		}
		for k, v := range reqs {
			key, req = k, v.(map[string]any)
		}
		if req["method"] != "elicitation/create" {
			t.Fatalf("input request %v", req)
		}
		state, _ = res["requestState"].(string)
		if !strings.HasPrefix(state, "mcp-policy/") {
			t.Fatalf("requestState %q is not the proxy's", state)
		}
		return key, req, state
	}
	accept := func(content map[string]any) map[string]any {
		return map[string]any{"action": "accept", "content": content}
	}

	args := map[string]any{"path": "a.txt", "content": "a"}
	key, req, state := round(call(1, "fs_write", args, nil))
	if msg := req["params"].(map[string]any)["message"].(string); !strings.Contains(msg, "fs_write") {
		t.Fatalf("question %q", msg)
	}
	res := call(2, "fs_write", args, map[string]any{"requestState": state,
		"inputResponses": map[string]any{key: accept(map[string]any{"answer": "allow-once"})}})
	if res["isError"] == true || res["resultType"] == "input_required" {
		t.Fatalf("after the answer: %v", res)
	}
	wantFile(t, filepath.Join(dir, "a.txt"), "a")

	// A round answered twice, or a retry of another call, is refused.
	res = call(3, "fs_write", args, map[string]any{"requestState": state,
		"inputResponses": map[string]any{key: accept(map[string]any{"answer": "allow-once"})}})
	if res["isError"] != true || !strings.Contains(res["content"].([]any)[0].(map[string]any)["text"].(string), "already answered") {
		t.Fatalf("a replayed answer: %v", res)
	}

	del := map[string]any{"path": "full"}
	key, req, state = round(call(4, "fs_delete", del, nil))
	if msg := req["params"].(map[string]any)["message"].(string); !strings.Contains(msg, "full") || strings.Contains(msg, "The agent wants") {
		t.Fatalf("the server's question %q", msg)
	}
	res = call(5, "fs_delete", del, map[string]any{"requestState": state,
		"inputResponses": map[string]any{key: accept(map[string]any{"confirm": true})}})
	if res["isError"] == true || res["resultType"] == "input_required" {
		t.Fatalf("after confirming: %v", res)
	}
	wantAbsent(t, filepath.Join(dir, "full"))
}
