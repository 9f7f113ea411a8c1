package mcpclient_test

import (
	"bytes"
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
	if err != nil {
		t.Fatalf("ConnectStdio: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
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
	if len(rs) != 1 {
		t.Fatalf("got %d results, want 1", len(rs))
	}
	if rs[0].Role != "tool" || rs[0].ToolCallID != "c1" {
		t.Fatalf("result envelope = %+v", rs[0])
	}
	return rs[0]
}

func wantOK(t *testing.T, r provider.Result) {
	t.Helper()
	if r.IsError {
		t.Fatalf("unexpected error result: %s", r.Content)
	}
}

func wantError(t *testing.T, r provider.Result, substr string) {
	t.Helper()
	if !r.IsError {
		t.Fatalf("want an error result containing %q, got success: %s", substr, r.Content)
	}
	if !strings.Contains(r.Content, substr) {
		t.Fatalf("error result %q does not contain %q", r.Content, substr)
	}
}

// settle waits for the goroutine count to come back to at most before.
func settle(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Fatalf("goroutines: %d, want <= %d\n%s", runtime.NumGoroutine(), before, buf[:n])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// syncBuffer is a goroutine-safe bytes.Buffer for the server's stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestToolsForLLM(t *testing.T) {
	c := connect(t, t.TempDir())
	tools, err := c.ToolsForLLM(context.Background())
	if err != nil {
		t.Fatal(err)
	}
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
	if len(tools) != len(want) {
		t.Fatalf("got %d tools, want %d: %v", len(tools), len(want), byName)
	}
	for name, h := range want {
		tl, ok := byName[name]
		if !ok {
			t.Fatalf("tool %s missing", name)
		}
		if tl.Type != "function" || tl.Function.Description == "" {
			t.Errorf("%s: type %q, description %q", name, tl.Type, tl.Function.Description)
		}
		a := tl.Annotations
		if a == nil || a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
			t.Fatalf("%s: annotations %+v, want all four hints", name, a)
		}
		got := hints{*a.ReadOnlyHint, *a.DestructiveHint, *a.IdempotentHint}
		if got != h || *a.OpenWorldHint {
			t.Errorf("%s: hints %+v openWorld %v, want %+v and false", name, got, *a.OpenWorldHint, h)
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(tl.Function.Parameters, &schema); err != nil {
			t.Fatalf("%s: parameters %s: %v", name, tl.Function.Parameters, err)
		}
		if schema.Type != "object" || len(schema.Required) == 0 {
			t.Errorf("%s: parameters %s", name, tl.Function.Parameters)
		}
	}
	if _, ok := byName["fs_move"]; ok {
		var s struct{ Properties map[string]any }
		_ = json.Unmarshal(byName["fs_move"].Function.Parameters, &s)
		if s.Properties["source"] == nil || s.Properties["destination"] == nil {
			t.Errorf("fs_move parameters: %s", byName["fs_move"].Function.Parameters)
		}
	}
	// The chat-completion shape, annotations kept out of it.
	b, err := json.Marshal(byName["fs_read"])
	if err != nil {
		t.Fatal(err)
	}
	var shape struct {
		Type     string                     `json:"type"`
		Function map[string]json.RawMessage `json:"function"`
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &shape); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	_ = json.Unmarshal(b, &top)
	if len(top) != 2 || shape.Type != "function" || len(shape.Function) != 3 {
		t.Errorf("marshalled tool %s", b)
	}
}

func TestReadWriteRoundTrip(t *testing.T) {
	dir := t.TempDir()
	c := connect(t, dir)
	ctx := context.Background()

	wantOK(t, one(t, ctx, c, "fs_write", map[string]string{"path": "notes/a.txt", "content": "hello\nworld\n"}))
	if b, err := os.ReadFile(filepath.Join(dir, "notes", "a.txt")); err != nil || string(b) != "hello\nworld\n" {
		t.Fatalf("on disk: %q, %v", b, err)
	}
	r := one(t, ctx, c, "fs_read", map[string]string{"path": "notes/a.txt"})
	wantOK(t, r)
	if r.Content != "hello\nworld\n" {
		t.Fatalf("read %q", r.Content)
	}
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
	if r.Content != "c.txt\nnotes/\nsub/\n" {
		t.Fatalf("list: %q", r.Content)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "sub", "b.txt")); string(b) != "hello\nthere\n" {
		t.Fatalf("moved file: %q", b)
	}
	wantOK(t, one(t, ctx, c, "fs_delete", map[string]string{"path": "sub/b.txt"}))
	wantOK(t, one(t, ctx, c, "fs_delete", map[string]string{"path": "notes"})) // empty: no question
	if _, err := os.Stat(filepath.Join(dir, "notes")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("notes still there: %v", err)
	}

	// Outside the sandbox, by absolute path, by .. and through a symlink.
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	wantError(t, one(t, ctx, c, "fs_read", map[string]string{"path": filepath.Join(outside, "secret")}), "outside the sandbox")
	rel, _ := filepath.Rel(dir, filepath.Join(outside, "secret"))
	for _, p := range []string{rel, "link/secret", "../x"} {
		r := one(t, ctx, c, "fs_read", map[string]string{"path": p})
		if !r.IsError {
			t.Errorf("read %s escaped the sandbox: %q", p, r.Content)
		}
	}
	wantError(t, one(t, ctx, c, "fs_write", map[string]string{"path": "link/new", "content": "x"}), "")
	if _, err := os.Stat(filepath.Join(outside, "new")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("wrote outside the sandbox: %v", err)
	}
	wantError(t, one(t, ctx, c, "fs_delete", map[string]string{"path": "."}), "sandbox root")
	wantError(t, one(t, ctx, c, "no_such_tool", map[string]string{}), "")
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
	if len(rs) != len(calls) {
		t.Fatalf("%d results", len(rs))
	}
	for i, r := range rs {
		if r.ToolCallID != calls[i].ID {
			t.Fatalf("result %d is for %s, want %s", i, r.ToolCallID, calls[i].ID)
		}
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
		if err := os.WriteFile(filepath.Join(dir, n), []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stderr syncBuffer
	c := connect(t, dir, mcpclient.WithEnv([]string{"FSSERVER_SLOW_MS=500"}), mcpclient.WithStderr(&stderr))
	rs := c.ExecuteToolCalls(context.Background(), []provider.Call{
		mkcall("1", "fs_read", map[string]string{"path": "a"}),
		mkcall("2", "fs_read", map[string]string{"path": "b"}),
	})
	wantOK(t, rs[0])
	wantOK(t, rs[1])
	if rs[0].Content != "a" || rs[1].Content != "b" || rs[0].ToolCallID != "1" || rs[1].ToolCallID != "2" {
		t.Fatalf("results out of order: %+v", rs)
	}
	// The server logs how many calls it is running as each one starts; with
	// 500 ms reads, the second sees the first only if both were sent at once.
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(stderr.String(), "call fs_read (in flight: 2)") {
		if time.Now().After(deadline) {
			t.Fatalf("the server never ran two reads at once; stderr:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCallTimeout(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := connect(t, dir, mcpclient.WithEnv([]string{"FSSERVER_SLOW_MS=5000"}), mcpclient.WithCallTimeout(200*time.Millisecond))
	start := time.Now()
	rs := c.ExecuteToolCalls(context.Background(), []provider.Call{
		mkcall("slow", "fs_read", map[string]string{"path": "a"}),
		mkcall("fast", "fs_list", map[string]string{"path": "."}),
	})
	wantError(t, rs[0], "timed out after 200ms")
	wantOK(t, rs[1])
	if d := time.Since(start); d > 4*time.Second {
		t.Fatalf("timeout took %v", d)
	}
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
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := mcpclient.ConnectStdio(ctx, fsserver, []string{dir},
		mcpclient.WithEnv([]string{"FSSERVER_DIE_ON=fs_delete", "FSSERVER_SLOW_MS=3000"}))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rs := c.ExecuteToolCalls(ctx, []provider.Call{
		mkcall("read", "fs_read", map[string]string{"path": "a"}), // in flight when the server dies
		mkcall("del", "fs_delete", map[string]string{"path": "a"}),
	})
	wantError(t, rs[0], "mcp server exited")
	wantError(t, rs[1], "mcp server exited")
	if !strings.Contains(rs[1].Content, "exit status 3") {
		t.Errorf("no exit status in %q", rs[1].Content)
	}
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Errorf("the batch took %v: the dead server was waited for", d)
	}
	start = time.Now()
	wantError(t, one(t, ctx, c, "fs_list", map[string]string{"path": "."}), "mcp server exited: exit status 3")
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("a call after the death took %v", d)
	}
	if _, err := c.ToolsForLLM(ctx); err == nil || !strings.Contains(err.Error(), "mcp server exited") {
		t.Errorf("ToolsForLLM after the death: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	wantError(t, one(t, ctx, c, "fs_list", map[string]string{"path": "."}), "closed")
	settle(t, before)
}

func TestCloseReapsAndSettles(t *testing.T) {
	before := runtime.NumGoroutine()
	c, err := mcpclient.ConnectStdio(context.Background(), fsserver, []string{t.TempDir()},
		mcpclient.WithElicitHook(func(context.Context, provider.ElicitRequest) (provider.ElicitResult, error) {
			return provider.ElicitResult{Action: "decline"}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	wantOK(t, one(t, context.Background(), c, "fs_list", map[string]string{"path": "."}))
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := c.ToolsForLLM(context.Background()); err == nil {
		t.Fatal("ToolsForLLM after Close succeeded")
	}
	settle(t, before)
}

func TestConnectFails(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// fsserver without its directory argument exits at once.
	if _, err := mcpclient.ConnectStdio(ctx, fsserver, nil); err == nil {
		t.Fatal("connected to a server that exited")
	}
	if _, err := mcpclient.ConnectStdio(ctx, filepath.Join(t.TempDir(), "missing"), nil); err == nil {
		t.Fatal("connected to a missing command")
	}
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
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p, "f"), []byte("f"), 0o644); err != nil {
		t.Fatal(err)
	}
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
			rec := &recorder{answer: provider.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}}
			c := connect(t, dir, mcpclient.WithEnv(era.env), mcpclient.WithElicitHook(rec.hook))
			if got := c.ProtocolVersion(); got != era.protocol {
				t.Fatalf("protocol %s, want %s", got, era.protocol)
			}
			ctx := context.WithValue(context.Background(), ctxKey{}, "call-1")
			r := one(t, ctx, c, "fs_delete", map[string]string{"path": "full"})
			wantOK(t, r)
			if exists(target) {
				t.Fatal("confirmed delete left the directory")
			}
			values, reqs := rec.seen()
			if len(values) != 1 || values[0] != "call-1" {
				t.Fatalf("hook saw ctx values %v, want [call-1]", values)
			}
			if reqs[0].Method != "elicitation/create" {
				t.Errorf("method %q", reqs[0].Method)
			}
			var params struct {
				Message         string `json:"message"`
				RequestedSchema struct {
					Properties map[string]struct{ Type string } `json:"properties"`
				} `json:"requestedSchema"`
			}
			if err := json.Unmarshal(reqs[0].Params, &params); err != nil {
				t.Fatalf("params %s: %v", reqs[0].Params, err)
			}
			if !strings.Contains(params.Message, "full") || params.RequestedSchema.Properties["confirm"].Type != "boolean" {
				t.Errorf("params %s", reqs[0].Params)
			}
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
			{"decline", provider.ElicitResult{Action: "decline"}, nil, "did not confirm"},
			{"cancel", provider.ElicitResult{Action: "cancel"}, nil, "did not confirm"},
			{"accept-false", provider.ElicitResult{Action: "accept", Content: map[string]any{"confirm": false}}, nil, "did not confirm"},
			{"hook-error", provider.ElicitResult{}, errors.New("no human today"), "no human today"},
			{"bad-action", provider.ElicitResult{Action: "maybe"}, nil, "unknown action"},
		} {
			t.Run(era.name+"/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				target := fullDir(t, dir, "full")
				rec := &recorder{answer: tc.answer, err: tc.err}
				c := connect(t, dir, mcpclient.WithEnv(era.env), mcpclient.WithElicitHook(rec.hook))
				wantError(t, one(t, context.Background(), c, "fs_delete", map[string]string{"path": "full"}), tc.want)
				if !exists(filepath.Join(target, "f")) {
					t.Fatal("refused delete touched the disk")
				}
				// The connection survives a failed elicitation.
				wantOK(t, one(t, context.Background(), c, "fs_list", map[string]string{"path": "."}))
			})
		}
	}
}

func TestLegacyElicitationWithTwoCallsInFlightIsUncorrelated(t *testing.T) {
	dir := t.TempDir()
	target := fullDir(t, dir, "full")
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{answer: provider.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}}
	c := connect(t, dir,
		mcpclient.WithEnv([]string{"FSSERVER_LEGACY_ELICIT=1", "FSSERVER_SLOW_MS=1500"}),
		mcpclient.WithElicitHook(rec.hook))
	ctx := context.WithValue(context.Background(), ctxKey{}, "batch")
	rs := c.ExecuteToolCalls(ctx, []provider.Call{
		mkcall("read", "fs_read", map[string]string{"path": "a"}), // still sleeping when the question comes
		mkcall("del", "fs_delete", map[string]string{"path": "full"}),
	})
	wantOK(t, rs[0])
	wantOK(t, rs[1])
	if exists(target) {
		t.Fatal("confirmed delete left the directory")
	}
	values, _ := rec.seen()
	if len(values) != 1 || values[0] != nil {
		t.Fatalf("hook saw ctx values %v, want one question on an uncorrelated ctx", values)
	}

	// The same batch on the 2026-07-28 protocol is correlated.
	rec2 := &recorder{answer: rec.answer}
	target = fullDir(t, dir, "full")
	c2 := connect(t, dir, mcpclient.WithEnv([]string{"FSSERVER_SLOW_MS=1500"}), mcpclient.WithElicitHook(rec2.hook))
	rs = c2.ExecuteToolCalls(ctx, []provider.Call{
		mkcall("read", "fs_read", map[string]string{"path": "a"}),
		mkcall("del", "fs_delete", map[string]string{"path": "full"}),
	})
	wantOK(t, rs[0])
	wantOK(t, rs[1])
	if values, _ := rec2.seen(); len(values) != 1 || values[0] != "batch" {
		t.Fatalf("2026-07-28: hook saw ctx values %v, want [batch]", values)
	}
}

func TestNoHookNoCapability(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			dir := t.TempDir()
			target := fullDir(t, dir, "full")
			c := connect(t, dir, mcpclient.WithEnv(era.env))
			wantError(t, one(t, context.Background(), c, "fs_delete", map[string]string{"path": "full"}), "no elicitation capability")
			if !exists(filepath.Join(target, "f")) {
				t.Fatal("refused delete touched the disk")
			}
		})
	}
}

func TestTimeoutPausedWhileHookAnswers(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			dir := t.TempDir()
			target := fullDir(t, dir, "full")
			rec := &recorder{
				answer: provider.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}},
				delay:  800 * time.Millisecond,
			}
			c := connect(t, dir, mcpclient.WithEnv(era.env), mcpclient.WithElicitHook(rec.hook),
				mcpclient.WithCallTimeout(300*time.Millisecond))
			wantOK(t, one(t, context.Background(), c, "fs_delete", map[string]string{"path": "full"}))
			if exists(target) {
				t.Fatal("confirmed delete left the directory")
			}
		})
	}
}
