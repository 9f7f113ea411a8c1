package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/testbuild"
	"github.com/mcp-policy/mcp-policy/mcpclient"
	"github.com/mcp-policy/mcp-policy/provider"
)

// fsserver is the test filesystem server, built once by TestMain.
var fsserver string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "mcpclient-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if fsserver, err = testbuild.FSServer(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// connect starts fsserver on dir; the client is closed at the end of the test.
func connect(t *testing.T, dir string, opts ...mcpclient.Option) *mcpclient.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := mcpclient.ConnectStdio(ctx, fsserver, []string{dir}, opts...)
	require.NoError(t, err, "ConnectStdio")
	t.Cleanup(func() { assert.NoError(t, c.Close(), "Close") })
	return c
}

func mkcall(id, name string, args any) provider.Call {
	var text string
	switch a := args.(type) {
	case string:
		text = a
	default:
		b, _ := json.Marshal(a)
		text = string(b)
	}
	return provider.Call{ID: id, Type: "function", Function: provider.CallFunction{Name: name, Arguments: text}}
}

// one executes a single call.
func one(t *testing.T, ctx context.Context, c *mcpclient.Client, name string, args any) provider.Result {
	t.Helper()
	rs := c.ExecuteToolCalls(ctx, []provider.Call{mkcall("c1", name, args)})
	require.Len(t, rs, 1, "results")
	require.Equal(t, "tool", rs[0].Role, "result envelope %+v", rs[0])
	require.Equal(t, "c1", rs[0].ToolCallID, "result envelope %+v", rs[0])
	return rs[0]
}

func wantOK(t *testing.T, r provider.Result) {
	t.Helper()
	require.False(t, r.IsError, "unexpected error result: %s", r.Content)
}

// wantError requires r to be an error result whose text holds substr; an
// empty substr would accept any error, so it is refused.
func wantError(t *testing.T, r provider.Result, substr string) {
	t.Helper()
	require.NotEmpty(t, substr, "wantError needs the text the error must hold")
	require.True(t, r.IsError, "want an error result containing %q, got success: %s", substr, r.Content)
	require.Contains(t, r.Content, substr, "error result")
}

// settle waits for the goroutine count to come back to at most before.
func settle(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		k := runtime.Stack(buf, true)
		require.FailNowf(t, "goroutines left running", "%d goroutines, want <= %d\n%s", n, before, buf[:k])
	}
}

func TestToolsForLLM(t *testing.T) {
	c := connect(t, t.TempDir())
	tools, err := c.ToolsForLLM(context.Background())
	require.NoError(t, err)
	byName := map[string]provider.Tool{}
	for _, tl := range tools {
		byName[tl.Function.Name] = tl
	}
	type hints struct{ readOnly, destructive, idempotent bool }
	want := map[string]hints{
		"fs_read":   {true, false, true},
		"fs_list":   {true, false, true},
		"fs_write":  {false, true, true},
		"fs_edit":   {false, true, false},
		"fs_mkdir":  {false, false, true},
		"fs_move":   {false, true, false},
		"fs_delete": {false, true, true},
	}
	require.Len(t, tools, len(want), "tools %v", byName)
	for name, h := range want {
		t.Run(name, func(t *testing.T) {
			tl, ok := byName[name]
			require.True(t, ok, "tool %s missing", name)
			assert.Equal(t, "function", tl.Type, "type")
			assert.NotEmpty(t, tl.Function.Description, "description")
			a := tl.Annotations
			require.NotNil(t, a, "annotations")
			require.NotNil(t, a.ReadOnlyHint, "readOnlyHint in %+v", a)
			require.NotNil(t, a.DestructiveHint, "destructiveHint in %+v", a)
			require.NotNil(t, a.IdempotentHint, "idempotentHint in %+v", a)
			require.NotNil(t, a.OpenWorldHint, "openWorldHint in %+v", a)
			assert.Equal(t, h, hints{*a.ReadOnlyHint, *a.DestructiveHint, *a.IdempotentHint}, "hints")
			assert.False(t, *a.OpenWorldHint, "openWorldHint")
			var schema struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			require.NoError(t, json.Unmarshal(tl.Function.Parameters, &schema), "parameters %s", tl.Function.Parameters)
			assert.Equal(t, "object", schema.Type, "parameters %s", tl.Function.Parameters)
			assert.NotEmpty(t, schema.Required, "parameters %s", tl.Function.Parameters)
		})
	}
	var move struct{ Properties map[string]any }
	require.NoError(t, json.Unmarshal(byName["fs_move"].Function.Parameters, &move), "fs_move parameters %s", byName["fs_move"].Function.Parameters)
	assert.NotNil(t, move.Properties["source"], "fs_move parameters: %s", byName["fs_move"].Function.Parameters)
	assert.NotNil(t, move.Properties["destination"], "fs_move parameters: %s", byName["fs_move"].Function.Parameters)
	// The chat-completion shape, annotations kept out of it.
	b, err := json.Marshal(byName["fs_read"])
	require.NoError(t, err)
	var shape struct {
		Type     string                     `json:"type"`
		Function map[string]json.RawMessage `json:"function"`
	}
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &shape), "%s", b)
	require.NoError(t, json.Unmarshal(b, &top), "%s", b)
	assert.Len(t, top, 2, "marshalled tool %s", b)
	assert.Equal(t, "function", shape.Type, "marshalled tool %s", b)
	assert.Len(t, shape.Function, 3, "marshalled tool %s", b)
}

func TestReadWriteRoundTrip(t *testing.T) {
	dir := t.TempDir()
	c := connect(t, dir)
	ctx := context.Background()

	wantOK(t, one(t, ctx, c, "fs_write", map[string]string{"path": "notes/a.txt", "content": "hello\nworld\n"}))
	b, err := os.ReadFile(filepath.Join(dir, "notes", "a.txt"))
	require.NoError(t, err)
	require.Equal(t, "hello\nworld\n", string(b), "on disk")
	r := one(t, ctx, c, "fs_read", map[string]string{"path": "notes/a.txt"})
	wantOK(t, r)
	require.Equal(t, "hello\nworld\n", r.Content, "read")
	// An absolute path inside the root is accepted.
	r = one(t, ctx, c, "fs_read", map[string]string{"path": filepath.Join(dir, "notes", "a.txt")})
	wantOK(t, r)

	wantOK(t, one(t, ctx, c, "fs_edit", map[string]string{"path": "notes/a.txt", "old": "world", "new": "there"}))
	wantError(t, one(t, ctx, c, "fs_edit", map[string]string{"path": "notes/a.txt", "old": "l", "new": "L"}), "2 times")
	wantError(t, one(t, ctx, c, "fs_edit", map[string]string{"path": "notes/a.txt", "old": "absent", "new": "x"}), "0 times")
	wantOK(t, one(t, ctx, c, "fs_mkdir", map[string]string{"path": "sub/deeper"}))
	wantOK(t, one(t, ctx, c, "fs_mkdir", map[string]string{"path": "sub/deeper"})) // idempotent
	wantOK(t, one(t, ctx, c, "fs_move", map[string]string{"source": "notes/a.txt", "destination": "sub/b.txt"}))
	wantOK(t, one(t, ctx, c, "fs_write", map[string]string{"path": "c.txt", "content": ""}))
	wantError(t, one(t, ctx, c, "fs_move", map[string]string{"source": "c.txt", "destination": "sub/b.txt"}), "already exists")

	r = one(t, ctx, c, "fs_list", map[string]string{"path": "."})
	wantOK(t, r)
	require.Equal(t, "c.txt\nnotes/\nsub/\n", r.Content, "list")
	b, err = os.ReadFile(filepath.Join(dir, "sub", "b.txt"))
	require.NoError(t, err, "moved file")
	require.Equal(t, "hello\nthere\n", string(b), "moved file")
	wantOK(t, one(t, ctx, c, "fs_delete", map[string]string{"path": "sub/b.txt"}))
	wantOK(t, one(t, ctx, c, "fs_delete", map[string]string{"path": "notes"})) // empty: no question
	_, err = os.Stat(filepath.Join(dir, "notes"))
	require.ErrorIs(t, err, os.ErrNotExist, "notes still there")

	// Outside the sandbox, by absolute path, by .. and through a symlink.
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link")))
	wantError(t, one(t, ctx, c, "fs_read", map[string]string{"path": filepath.Join(outside, "secret")}), "outside the sandbox")
	rel, err := filepath.Rel(dir, filepath.Join(outside, "secret"))
	require.NoError(t, err)
	// os.Root, the server's sandbox, refuses each of these.
	for _, tc := range []struct{ name, path string }{
		{"relative", rel},
		{"symlink", "link/secret"},
		{"dotdot", "../x"},
	} {
		t.Run("read-"+tc.name, func(t *testing.T) {
			wantError(t, one(t, ctx, c, "fs_read", map[string]string{"path": tc.path}), "path escapes from parent")
		})
	}
	// A write through the symlink is refused as it makes the parent directory.
	wantError(t, one(t, ctx, c, "fs_write", map[string]string{"path": "link/new", "content": "x"}), "mkdirat link: statat link: path escapes from parent")
	_, err = os.Stat(filepath.Join(outside, "new"))
	require.ErrorIs(t, err, os.ErrNotExist, "wrote outside the sandbox")
	wantError(t, one(t, ctx, c, "fs_delete", map[string]string{"path": "."}), "sandbox root")
	// An unknown tool: the client's wording around the server's refusal.
	r = one(t, ctx, c, "no_such_tool", map[string]string{})
	wantError(t, r, "mcp tool call 'no_such_tool' failed: ")
	assert.Contains(t, r.Content, "tool 'no_such_tool' not found", "the server's refusal")
}

func TestBadArgumentsAffectOnlyTheirCall(t *testing.T) {
	c := connect(t, t.TempDir())
	calls := []provider.Call{
		mkcall("ok", "fs_list", `{"path": "."}`),
		mkcall("array", "fs_list", `[1, 2]`),
		mkcall("broken", "fs_list", `{"path": `),
		mkcall("trailing", "fs_list", `{} {}`),
		mkcall("null", "fs_list", `null`),
		mkcall("empty", "fs_list", ``), // {}: reaches the server, which wants a path
	}
	rs := c.ExecuteToolCalls(context.Background(), calls)
	require.Len(t, rs, len(calls), "results")
	for i, r := range rs {
		require.Equal(t, calls[i].ID, r.ToolCallID, "result %d", i)
	}
	wantOK(t, rs[0])
	for i, r := range rs[1:5] {
		t.Run(calls[i+1].ID, func(t *testing.T) { wantError(t, r, "arguments") })
	}
	wantError(t, rs[5], "path")
}

func TestBatchRunsConcurrently(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a", "b"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte(n), 0o644))
	}
	var stderr testkit.SyncBuffer
	c := connect(t, dir, mcpclient.WithEnv([]string{"FSSERVER_SLOW_MS=500"}), mcpclient.WithStderr(&stderr))
	rs := c.ExecuteToolCalls(context.Background(), []provider.Call{
		mkcall("1", "fs_read", map[string]string{"path": "a"}),
		mkcall("2", "fs_read", map[string]string{"path": "b"}),
	})
	require.Len(t, rs, 2, "results")
	wantOK(t, rs[0])
	wantOK(t, rs[1])
	require.Equal(t, "1", rs[0].ToolCallID, "results out of order: %+v", rs)
	require.Equal(t, "a", rs[0].Content, "results out of order: %+v", rs)
	require.Equal(t, "2", rs[1].ToolCallID, "results out of order: %+v", rs)
	require.Equal(t, "b", rs[1].Content, "results out of order: %+v", rs)
	// The server logs how many calls it is running as each one starts; with
	// 500 ms reads, the second sees the first only if both were sent at once.
	const both = "call fs_read (in flight: 2)"
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(stderr.String(), both) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	require.Contains(t, stderr.String(), both, "the server never ran two reads at once (its stderr)")
}

func TestCallTimeout(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a"), []byte("a"), 0o644))
	c := connect(t, dir, mcpclient.WithEnv([]string{"FSSERVER_SLOW_MS=5000"}), mcpclient.WithCallTimeout(200*time.Millisecond))
	start := time.Now()
	rs := c.ExecuteToolCalls(context.Background(), []provider.Call{
		mkcall("slow", "fs_read", map[string]string{"path": "a"}),
		mkcall("fast", "fs_list", map[string]string{"path": "."}),
	})
	require.Len(t, rs, 2, "results")
	wantError(t, rs[0], "timed out after 200ms")
	wantOK(t, rs[1])
	require.LessOrEqual(t, time.Since(start), 4*time.Second, "the timeout took too long")
	// The server is still there for the next call.
	wantOK(t, one(t, context.Background(), c, "fs_list", map[string]string{"path": "."}))

	// The caller's own cancellation is worded as such.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	wantError(t, one(t, ctx, c, "fs_list", map[string]string{"path": "."}), "cancelled")
}

func TestServerDiesMidBatch(t *testing.T) {
	before := runtime.NumGoroutine()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a"), []byte("a"), 0o644))
	ctx := context.Background()
	c, err := mcpclient.ConnectStdio(ctx, fsserver, []string{dir},
		mcpclient.WithEnv([]string{"FSSERVER_DIE_ON=fs_delete", "FSSERVER_SLOW_MS=3000"}))
	require.NoError(t, err)
	start := time.Now()
	rs := c.ExecuteToolCalls(ctx, []provider.Call{
		mkcall("read", "fs_read", map[string]string{"path": "a"}), // in flight when the server dies
		mkcall("del", "fs_delete", map[string]string{"path": "a"}),
	})
	require.Len(t, rs, 2, "results")
	wantError(t, rs[0], "mcp server exited")
	wantError(t, rs[1], "mcp server exited")
	assert.Contains(t, rs[1].Content, "exit status 3", "no exit status")
	assert.LessOrEqual(t, time.Since(start), 2500*time.Millisecond, "the batch took too long: the dead server was waited for")
	start = time.Now()
	wantError(t, one(t, ctx, c, "fs_list", map[string]string{"path": "."}), "mcp server exited: exit status 3")
	assert.LessOrEqual(t, time.Since(start), 100*time.Millisecond, "a call after the death took too long")
	_, err = c.ToolsForLLM(ctx)
	assert.ErrorContains(t, err, "mcp server exited", "ToolsForLLM after the death")
	assert.NoError(t, c.Close(), "Close")
	wantError(t, one(t, ctx, c, "fs_list", map[string]string{"path": "."}), "closed")
	settle(t, before)
}

func TestCloseReapsAndSettles(t *testing.T) {
	before := runtime.NumGoroutine()
	c, err := mcpclient.ConnectStdio(context.Background(), fsserver, []string{t.TempDir()},
		mcpclient.WithElicitHook(func(context.Context, provider.ElicitRequest) (provider.ElicitResult, error) {
			return provider.ElicitResult{Action: provider.ElicitDecline}, nil
		}))
	require.NoError(t, err)
	wantOK(t, one(t, context.Background(), c, "fs_list", map[string]string{"path": "."}))
	require.NoError(t, c.Close(), "Close")
	require.NoError(t, c.Close(), "second Close")
	_, err = c.ToolsForLLM(context.Background())
	require.Error(t, err, "ToolsForLLM after Close succeeded")
	settle(t, before)
}

func TestConnectFails(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// fsserver without its directory argument exits at once.
	_, err := mcpclient.ConnectStdio(ctx, fsserver, nil)
	require.Error(t, err, "connected to a server that exited")
	_, err = mcpclient.ConnectStdio(ctx, filepath.Join(t.TempDir(), "missing"), nil)
	require.Error(t, err, "connected to a missing command")
}

// ctxKey carries a marker from the caller's ctx to the hook.
type ctxKey struct{}

// eras are the two ways a server can ask, chosen by the test server's env.
var eras = []struct {
	name, protocol string
	env            []string
}{
	{"2026-07-28", "2026-07-28", nil},
	{"legacy", "2025-11-25", []string{"FSSERVER_LEGACY_ELICIT=1"}},
}

// fullDir makes dir/name with a file in it.
func fullDir(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(p, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(p, "f"), []byte("f"), 0o644))
	return p
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// recorder is an elicitation hook that remembers what it saw.
type recorder struct {
	mu     sync.Mutex
	values []any // ctx.Value(ctxKey{}) per question
	reqs   []provider.ElicitRequest
	answer provider.ElicitResult
	err    error
	delay  time.Duration
}

func (r *recorder) hook(ctx context.Context, req provider.ElicitRequest) (provider.ElicitResult, error) {
	r.mu.Lock()
	r.values = append(r.values, ctx.Value(ctxKey{}))
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	if r.delay > 0 {
		select {
		case <-time.After(r.delay):
		case <-ctx.Done():
			return provider.ElicitResult{}, ctx.Err()
		}
	}
	return r.answer, r.err
}

func (r *recorder) seen() ([]any, []provider.ElicitRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]any(nil), r.values...), append([]provider.ElicitRequest(nil), r.reqs...)
}

func TestElicitationCarriesTheCallsContext(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			dir := t.TempDir()
			target := fullDir(t, dir, "full")
			rec := &recorder{answer: provider.ElicitResult{Action: provider.ElicitAccept, Content: map[string]any{"confirm": true}}}
			c := connect(t, dir, mcpclient.WithEnv(era.env), mcpclient.WithElicitHook(rec.hook))
			require.Equal(t, era.protocol, c.ProtocolVersion(), "protocol")
			ctx := context.WithValue(context.Background(), ctxKey{}, "call-1")
			r := one(t, ctx, c, "fs_delete", map[string]string{"path": "full"})
			wantOK(t, r)
			require.False(t, exists(target), "confirmed delete left the directory")
			values, reqs := rec.seen()
			require.Equal(t, []any{"call-1"}, values, "ctx values the hook saw")
			require.Len(t, reqs, 1, "requests the hook saw")
			assert.Equal(t, "elicitation/create", reqs[0].Method, "method")
			var params struct {
				Message         string `json:"message"`
				RequestedSchema struct {
					Properties map[string]struct{ Type string } `json:"properties"`
				} `json:"requestedSchema"`
			}
			require.NoError(t, json.Unmarshal(reqs[0].Params, &params), "params %s", reqs[0].Params)
			assert.Contains(t, params.Message, "full", "params %s", reqs[0].Params)
			assert.Equal(t, "boolean", params.RequestedSchema.Properties["confirm"].Type, "params %s", reqs[0].Params)
		})
	}
}

func TestElicitationDeclinedOrFailed(t *testing.T) {
	for _, era := range eras {
		for _, tc := range []struct {
			name   string
			answer provider.ElicitResult
			err    error
			want   string
		}{
			{"decline", provider.ElicitResult{Action: provider.ElicitDecline}, nil, "did not confirm"},
			{"cancel", provider.ElicitResult{Action: provider.ElicitCancel}, nil, "did not confirm"},
			{"accept-false", provider.ElicitResult{Action: provider.ElicitAccept, Content: map[string]any{"confirm": false}}, nil, "did not confirm"},
			{"hook-error", provider.ElicitResult{}, errors.New("no human today"), "no human today"},
			{"bad-action", provider.ElicitResult{Action: "maybe"}, nil, "unknown action"},
		} {
			t.Run(era.name+"/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				target := fullDir(t, dir, "full")
				rec := &recorder{answer: tc.answer, err: tc.err}
				c := connect(t, dir, mcpclient.WithEnv(era.env), mcpclient.WithElicitHook(rec.hook))
				wantError(t, one(t, context.Background(), c, "fs_delete", map[string]string{"path": "full"}), tc.want)
				require.True(t, exists(filepath.Join(target, "f")), "refused delete touched the disk")
				// The connection survives a failed elicitation.
				wantOK(t, one(t, context.Background(), c, "fs_list", map[string]string{"path": "."}))
			})
		}
	}
}

func TestLegacyElicitationWithTwoCallsInFlightIsUncorrelated(t *testing.T) {
	dir := t.TempDir()
	target := fullDir(t, dir, "full")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a"), []byte("a"), 0o644))
	rec := &recorder{answer: provider.ElicitResult{Action: provider.ElicitAccept, Content: map[string]any{"confirm": true}}}
	c := connect(t, dir,
		mcpclient.WithEnv([]string{"FSSERVER_LEGACY_ELICIT=1", "FSSERVER_SLOW_MS=5000"}),
		mcpclient.WithElicitHook(rec.hook))
	ctx := context.WithValue(context.Background(), ctxKey{}, "batch")
	rs := c.ExecuteToolCalls(ctx, []provider.Call{
		mkcall("read", "fs_read", map[string]string{"path": "a"}), // still sleeping when the question comes
		mkcall("del", "fs_delete", map[string]string{"path": "full"}),
	})
	require.Len(t, rs, 2, "results")
	wantOK(t, rs[0])
	wantOK(t, rs[1])
	require.False(t, exists(target), "confirmed delete left the directory")
	values, _ := rec.seen()
	require.Equal(t, []any{nil}, values, "ctx values the hook saw: want one question on an uncorrelated ctx")

	// The same batch on the 2026-07-28 protocol is correlated.
	rec2 := &recorder{answer: rec.answer}
	target = fullDir(t, dir, "full")
	c2 := connect(t, dir, mcpclient.WithEnv([]string{"FSSERVER_SLOW_MS=1500"}), mcpclient.WithElicitHook(rec2.hook))
	rs = c2.ExecuteToolCalls(ctx, []provider.Call{
		mkcall("read", "fs_read", map[string]string{"path": "a"}),
		mkcall("del", "fs_delete", map[string]string{"path": "full"}),
	})
	require.Len(t, rs, 2, "results")
	wantOK(t, rs[0])
	wantOK(t, rs[1])
	require.False(t, exists(target), "2026-07-28: confirmed delete left the directory")
	values, _ = rec2.seen()
	require.Equal(t, []any{"batch"}, values, "2026-07-28: ctx values the hook saw")
}

func TestNoHookNoCapability(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			dir := t.TempDir()
			target := fullDir(t, dir, "full")
			c := connect(t, dir, mcpclient.WithEnv(era.env))
			wantError(t, one(t, context.Background(), c, "fs_delete", map[string]string{"path": "full"}), "no elicitation capability")
			require.True(t, exists(filepath.Join(target, "f")), "refused delete touched the disk")
		})
	}
}

func TestTimeoutPausedWhileHookAnswers(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			dir := t.TempDir()
			target := fullDir(t, dir, "full")
			rec := &recorder{
				answer: provider.ElicitResult{Action: provider.ElicitAccept, Content: map[string]any{"confirm": true}},
				delay:  800 * time.Millisecond,
			}
			c := connect(t, dir, mcpclient.WithEnv(era.env), mcpclient.WithElicitHook(rec.hook),
				mcpclient.WithCallTimeout(300*time.Millisecond))
			wantOK(t, one(t, context.Background(), c, "fs_delete", map[string]string{"path": "full"}))
			require.False(t, exists(target), "confirmed delete left the directory")
		})
	}
}
