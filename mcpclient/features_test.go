//go:build unix

package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-policy/mcp-policy/internal/testbuild"
	"github.com/mcp-policy/mcp-policy/mcpclient"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/policy/rules"
	"github.com/mcp-policy/mcp-policy/provider"
)

// pidOf waits for the pid a shell wrote to file.
func pidOf(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if b, err := os.ReadFile(file); err == nil && len(strings.TrimSpace(string(b))) > 0 {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", file)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func wantDead(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d still runs", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A server that never answers: the default handshake timeout (or the
// caller's) ends the connect on time, and the process is killed.
func TestHandshakeTimeout(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ctx   func() (context.Context, context.CancelFunc)
		opts  []mcpclient.Option
		limit time.Duration
	}{
		{"no deadline, option", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			[]mcpclient.Option{mcpclient.WithHandshakeTimeout(time.Second)}, 2 * time.Second},
		{"ctx deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 2*time.Second)
		},
			nil, 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			ctx, cancel := tc.ctx()
			defer cancel()
			start := time.Now()
			_, err := mcpclient.ConnectStdio(ctx, "sh", []string{"-c", `echo $$ > "$0"; exec sleep 60`, pidFile}, tc.opts...)
			if err == nil {
				t.Fatal("connected to a silent server")
			}
			if d := time.Since(start); d > tc.limit {
				t.Fatalf("connect took %v (limit %v): %v", d, tc.limit, err)
			}
			wantDead(t, pidOf(t, pidFile))
		})
	}
}

// fakeServer answers the handshake (mcp-go's client probes server/discover
// as request 1, then initializes as request 2) and then writes garbage.
const fakeServer = `echo $$ > "$0"
read l; echo '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no such method"}}'
read l; echo '{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"sh","version":"1"}}}'
read l
read l; echo 'Traceback (most recent call last): oops'
exec sleep 60`

// Garbage on stdout fails the waiting call at once, names what the server
// wrote, and stops the server; later calls fail at once too.
func TestGarbageOnStdoutFailsFast(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	c, err := mcpclient.ConnectStdio(context.Background(), "sh", []string{"-c", fakeServer, pidFile})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	r := one(t, context.Background(), c, "anything", map[string]string{})
	wantError(t, r, "not JSON-RPC")
	wantError(t, r, "Traceback")
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("the broken stream took %v to notice", d)
	}
	wantDead(t, pidOf(t, pidFile))
	start = time.Now()
	wantError(t, one(t, context.Background(), c, "anything", map[string]string{}), "not JSON-RPC")
	if _, err := c.ToolsForLLM(context.Background()); err == nil || !strings.Contains(err.Error(), "not JSON-RPC") {
		t.Fatalf("ToolsForLLM: %v", err)
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Fatalf("calls after the break took %v", d)
	}

	// Garbage during the handshake fails the connect with it.
	_, err = mcpclient.ConnectStdio(context.Background(), "sh", []string{"-c", `echo "Server starting..."; sleep 60`})
	if err == nil || !strings.Contains(err.Error(), "Server starting...") {
		t.Fatalf("connect: %v", err)
	}
}

// everything starts server-everything from test/npm, or skips (fails
// under CI=true).
func everything(t *testing.T, opts ...mcpclient.Option) *mcpclient.Client {
	t.Helper()
	root, err := testbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(root, "test", "npm", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	node, nodeErr := exec.LookPath("node")
	if _, err := os.Stat(entry); err != nil || nodeErr != nil {
		msg := fmt.Sprintf("server-everything unavailable (%v, %v); install it with: npm ci --prefix test/npm", err, nodeErr)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mcpclient.ConnectStdio(ctx, node, []string{entry, "stdio"}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestSamplingHandler(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	var calls []string
	c := everything(t, mcpclient.WithSamplingHandler(func(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		mu.Lock()
		defer mu.Unlock()
		if tc, ok := mcp.AsTextContent(req.Messages[0].Content); ok {
			seen = append(seen, tc.Text)
		}
		if call, ok := provider.CallFrom(ctx); ok {
			calls = append(calls, call.ID)
		}
		return &mcp.CreateMessageResult{Model: "stub-model", StopReason: "endTurn",
			SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("sampled")}}, nil
	}))
	r := one(t, context.Background(), c, "trigger-sampling-request", map[string]any{"prompt": "hi", "maxTokens": 5})
	wantOK(t, r)
	if !strings.Contains(r.Content, "stub-model") {
		t.Fatalf("result %q", r.Content)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || !strings.Contains(seen[0], "hi") || len(calls) != 1 || calls[0] != "c1" {
		t.Fatalf("the handler saw %q for calls %q", seen, calls)
	}
}

func TestRootsAndEnvironment(t *testing.T) {
	dir := t.TempDir()
	c := everything(t, mcpclient.WithRoots(mcpclient.RootDirs(map[string]string{"*": dir, "fs": dir})...),
		mcpclient.WithEnviron([]string{"PATH=" + os.Getenv("PATH")}), mcpclient.WithEnv([]string{"ONLY_THIS=1"}))
	r := one(t, context.Background(), c, "get-roots-list", map[string]any{})
	wantOK(t, r)
	if !strings.Contains(r.Content, "file://"+filepath.ToSlash(dir)) {
		t.Fatalf("roots: %q", r.Content)
	}
	r = one(t, context.Background(), c, "get-env", map[string]any{})
	wantOK(t, r)
	var env map[string]string
	if err := json.Unmarshal([]byte(r.Content), &env); err != nil {
		t.Fatalf("get-env: %v: %q", err, r.Content)
	}
	if env["ONLY_THIS"] != "1" || env["HOME"] != "" || env["PATH"] == "" {
		t.Fatalf("the server's environment: %v", env)
	}
}

func TestContentBlocks(t *testing.T) {
	c := everything(t)
	r := one(t, context.Background(), c, "get-tiny-image", map[string]any{})
	wantOK(t, r)
	blocks, err := r.Blocks()
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, b := range blocks {
		types = append(types, b.Type)
	}
	if len(blocks) < 2 || !strings.Contains(strings.Join(types, ","), "image") {
		t.Fatalf("blocks %v", types)
	}
	var img struct {
		Data, MimeType string
	}
	for _, b := range blocks {
		if b.Type == "image" {
			_ = json.Unmarshal(b.Raw, &img)
		}
	}
	if img.MimeType != "image/png" || len(img.Data) < 100 {
		t.Fatalf("image block %+v", img)
	}
	if !strings.Contains(r.Content, "[image: image/png]") {
		t.Fatalf("content %q", r.Content)
	}
}

func TestURLElicitation(t *testing.T) {
	var got []string
	c := everything(t, mcpclient.WithURLElicitation(), mcpclient.WithElicitHook(func(_ context.Context, req provider.ElicitRequest) (provider.ElicitResult, error) {
		var p struct{ Mode, URL string }
		_ = json.Unmarshal(req.Params, &p)
		got = append(got, p.Mode+" "+p.URL)
		return provider.ElicitResult{Action: "accept"}, nil
	}))
	r := one(t, context.Background(), c, "trigger-url-elicitation", map[string]any{"url": "https://example.com/consent"})
	wantOK(t, r)
	if len(got) != 1 || got[0] != "url https://example.com/consent" {
		t.Fatalf("the hook saw %q; result %q", got, r.Content)
	}
}

// An accepted answer is checked against the server's form before it goes
// back: a value of the wrong type, out of range or not among the choices,
// a field the form lacks or a missing required field fail the elicitation.
func TestAcceptedContentIsChecked(t *testing.T) {
	var answer map[string]any
	c := everything(t, mcpclient.WithElicitHook(func(context.Context, provider.ElicitRequest) (provider.ElicitResult, error) {
		return provider.ElicitResult{Action: "accept", Content: answer}, nil
	}))
	for _, tc := range []struct {
		name    string
		content map[string]any
		want    string
	}{
		{"wrong type", map[string]any{"name": 5}, `field "name": want a string`},
		{"above maximum", map[string]any{"name": "Ada", "integer": 500}, `field "integer": 500 is above 100`},
		{"not an integer", map[string]any{"name": "Ada", "integer": 2.5}, `is not an integer`},
		{"not a choice", map[string]any{"name": "Ada", "untitledSingleSelectEnum": "Gunther"}, `"Gunther" is not one of the choices`},
		{"not a titled choice", map[string]any{"name": "Ada", "titledSingleSelectEnum": "hero-9"}, `"hero-9" is not one of the choices`},
		{"bad email", map[string]any{"name": "Ada", "email": "not an address"}, `is not a valid email`},
		{"too few choices", map[string]any{"name": "Ada", "untitledMultipleSelectEnum": []any{}}, `fewer than 1 choices`},
		{"field not in form", map[string]any{"name": "Ada", "color": "red"}, `field "color" is not in the form`},
		{"required missing", map[string]any{"check": true}, `field "name" is required`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer = tc.content
			r := one(t, context.Background(), c, "trigger-elicitation-request", map[string]any{})
			wantError(t, r, tc.want)
		})
	}
	answer = map[string]any{"name": "Ada", "integer": 7, "email": "ada@example.com", "birthdate": "1815-12-10",
		"titledMultipleSelectEnum": []any{"fish-1"}, "check": true}
	r := one(t, context.Background(), c, "trigger-elicitation-request", map[string]any{})
	wantOK(t, r)
	if !strings.Contains(r.Content, "Name: Ada") {
		t.Fatalf("result %q", r.Content)
	}
}

// A server's question, answered through a policy's elicit hook, names the
// tool and the call that provoked it.
func TestServerElicitQuestionNamesItsCall(t *testing.T) {
	var questions []policy.Question
	var wired *policy.Policy
	c := everything(t, mcpclient.WithElicitHook(func(ctx context.Context, req provider.ElicitRequest) (provider.ElicitResult, error) {
		return wired.ElicitHook()(ctx, req)
	}))
	var err error
	wired, err = policy.New(policy.Options{Provider: c, Rules: []rules.Rule{{Tool: "trigger-*", Decision: rules.Allow}},
		OnAsk: func(_ context.Context, q policy.Question) policy.Answer {
			questions = append(questions, q)
			return policy.Answer{Action: "decline"}
		}})
	if err != nil {
		t.Fatal(err)
	}
	rs := wired.ExecuteToolCalls(context.Background(), []provider.Call{mkcall("call-9", "trigger-elicitation-request", map[string]any{})})
	wantOK(t, rs[0])
	if len(questions) != 1 || questions[0].Kind != policy.KindServerElicit || questions[0].Tool != "trigger-elicitation-request" || questions[0].Call.ID != "call-9" {
		t.Fatalf("questions %+v", questions)
	}
}
