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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/testbuild"
	"github.com/mcp-policy/mcp-policy/mcpclient"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// pidOf waits for the pid a shell wrote to file.
func pidOf(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if b, err := os.ReadFile(file); err == nil && len(strings.TrimSpace(string(b))) > 0 {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			require.NoError(t, err, "pid in %s", file)
			return pid
		}
		if time.Now().After(deadline) {
			require.FailNowf(t, "no pid", "no pid in %s", file)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func wantDead(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	require.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "pid %d still runs", pid)
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
			require.Error(t, err, "connected to a silent server")
			require.LessOrEqual(t, time.Since(start), tc.limit, "connect took too long: %v", err)
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
	require.NoError(t, err)
	defer c.Close()
	start := time.Now()
	r := one(t, context.Background(), c, "anything", map[string]string{})
	wantError(t, r, "not JSON-RPC")
	wantError(t, r, "Traceback")
	require.LessOrEqual(t, time.Since(start), 3*time.Second, "the broken stream took too long to notice")
	wantDead(t, pidOf(t, pidFile))
	start = time.Now()
	wantError(t, one(t, context.Background(), c, "anything", map[string]string{}), "not JSON-RPC")
	_, err = c.ToolsForLLM(context.Background())
	require.ErrorContains(t, err, "not JSON-RPC", "ToolsForLLM")
	require.LessOrEqual(t, time.Since(start), 100*time.Millisecond, "calls after the break took too long")

	// Garbage during the handshake fails the connect with it.
	_, err = mcpclient.ConnectStdio(context.Background(), "sh", []string{"-c", `echo "Server starting..."; sleep 60`})
	require.ErrorContains(t, err, "Server starting...", "connect")
}

// everything starts server-everything from test/npm, or skips (fails
// under CI=true).
func everything(t *testing.T, opts ...mcpclient.Option) *mcpclient.Client {
	t.Helper()
	root, err := testbuild.ModuleRoot()
	require.NoError(t, err)
	entry := filepath.Join(root, "test", "npm", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	node, nodeErr := exec.LookPath("node")
	if _, err := os.Stat(entry); err != nil || nodeErr != nil {
		msg := fmt.Sprintf("server-everything unavailable (%v, %v); install it with: npm ci --prefix test/npm", err, nodeErr)
		if os.Getenv("CI") == "true" {
			require.FailNow(t, msg)
		}
		t.Skip(msg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mcpclient.ConnectStdio(ctx, node, []string{entry, "stdio"}, opts...)
	require.NoError(t, err, "ConnectStdio server-everything")
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
	require.Contains(t, r.Content, "stub-model", "result")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seen, 1, "the handler saw %q", seen)
	require.Contains(t, seen[0], "hi", "the handler's message")
	require.Equal(t, []string{"c1"}, calls, "the calls the handler saw")
}

func TestRootsAndEnvironment(t *testing.T) {
	dir := t.TempDir()
	c := everything(t, mcpclient.WithRoots(mcpclient.RootDirs(map[string]string{"*": dir, "fs": dir})...),
		mcpclient.WithEnviron([]string{"PATH=" + os.Getenv("PATH")}), mcpclient.WithEnv([]string{"ONLY_THIS=1"}))
	r := one(t, context.Background(), c, "get-roots-list", map[string]any{})
	wantOK(t, r)
	require.Contains(t, r.Content, "file://"+filepath.ToSlash(dir), "roots")
	r = one(t, context.Background(), c, "get-env", map[string]any{})
	wantOK(t, r)
	var env map[string]string
	require.NoError(t, json.Unmarshal([]byte(r.Content), &env), "get-env: %q", r.Content)
	assert.Equal(t, "1", env["ONLY_THIS"], "the server's environment: %v", env)
	assert.NotContains(t, env, "HOME", "the server's environment is only what was given")
	assert.NotEmpty(t, env["PATH"], "the server's environment: %v", env)
}

func TestContentBlocks(t *testing.T) {
	c := everything(t)
	r := one(t, context.Background(), c, "get-tiny-image", map[string]any{})
	wantOK(t, r)
	blocks, err := r.Blocks()
	require.NoError(t, err)
	var types []string
	for _, b := range blocks {
		types = append(types, b.Type)
	}
	require.GreaterOrEqual(t, len(blocks), 2, "blocks %v", types)
	require.Contains(t, types, "image", "blocks")
	var img struct {
		Data, MimeType string
	}
	for _, b := range blocks {
		if b.Type == "image" {
			require.NoError(t, json.Unmarshal(b.Raw, &img), "image block %s", b.Raw)
		}
	}
	require.Equal(t, "image/png", img.MimeType, "image block %+v", img)
	require.GreaterOrEqual(t, len(img.Data), 100, "image block %+v", img)
	require.Contains(t, r.Content, "[image: image/png]", "content")
}

func TestURLElicitation(t *testing.T) {
	var got []string
	c := everything(t, mcpclient.WithURLElicitation(), mcpclient.WithElicitHook(func(_ context.Context, req provider.ElicitRequest) (provider.ElicitResult, error) {
		var p struct{ Mode, URL string }
		assert.NoError(t, json.Unmarshal(req.Params, &p), "params %s", req.Params)
		got = append(got, p.Mode+" "+p.URL)
		return provider.ElicitResult{Action: provider.ElicitAccept}, nil
	}))
	r := one(t, context.Background(), c, "trigger-url-elicitation", map[string]any{"url": "https://example.com/consent"})
	wantOK(t, r)
	require.Equal(t, []string{"url https://example.com/consent"}, got, "what the hook saw; result %q", r.Content)
}

// An accepted answer is checked against the server's form before it goes
// back: a value of the wrong type, out of range or not among the choices,
// a field the form lacks or a missing required field fail the elicitation.
func TestAcceptedContentIsChecked(t *testing.T) {
	var answer map[string]any
	c := everything(t, mcpclient.WithElicitHook(func(context.Context, provider.ElicitRequest) (provider.ElicitResult, error) {
		return provider.ElicitResult{Action: provider.ElicitAccept, Content: answer}, nil
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
	require.Contains(t, r.Content, "Name: Ada", "result")
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
			return policy.Answer{Action: policy.Decline}
		}})
	require.NoError(t, err)
	rs := wired.ExecuteToolCalls(context.Background(), []provider.Call{mkcall("call-9", "trigger-elicitation-request", map[string]any{})})
	require.Len(t, rs, 1, "results")
	wantOK(t, rs[0])
	require.Len(t, questions, 1, "questions %+v", questions)
	require.Equal(t, policy.KindServerElicit, questions[0].Kind, "questions %+v", questions)
	require.Equal(t, "trigger-elicitation-request", questions[0].Tool, "questions %+v", questions)
	require.Equal(t, "call-9", questions[0].Call.ID, "questions %+v", questions)
}
