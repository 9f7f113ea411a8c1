// Package e2e_test runs mcp-policy end to end: real MCP servers as stdio
// subprocesses (the repository's test/fsserver, and the official
// @modelcontextprotocol/server-filesystem from npm), an mcpclient.Client over
// each, and policies over those — checking what lands on disk, not only what
// the results say.
package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/pgtest"
	"github.com/mcp-policy/mcp-policy/internal/testbuild"
	"github.com/mcp-policy/mcp-policy/mcpclient"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

var (
	// fsserver is the test filesystem server, built once by TestMain.
	fsserver string
	// lenientserver reads its input as the most lenient readers do (see
	// test/lenientserver), built once by TestMain.
	lenientserver string
	// modRoot is the module's root directory.
	modRoot string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	if modRoot, err = testbuild.ModuleRoot(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "e2e-fsserver")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	defer pgtest.Stop()
	if fsserver, err = testbuild.FSServer(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if lenientserver, err = testbuild.Program(dir, "lenientserver"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// connectCmd starts an MCP server over stdio; it is closed when the test ends.
func connectCmd(t testing.TB, command string, args []string, opts ...mcpclient.Option) *mcpclient.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mcpclient.ConnectStdio(ctx, command, args, opts...)
	if err != nil {
		t.Fatalf("ConnectStdio %s: %v", command, err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return c
}

// connect starts fsserver sandboxed to dir.
func connect(t testing.TB, dir string, opts ...mcpclient.Option) *mcpclient.Client {
	t.Helper()
	return connectCmd(t, fsserver, []string{dir}, opts...)
}

func newPolicy(t testing.TB, o policy.Options) *policy.Policy {
	t.Helper()
	p, err := policy.New(o)
	if err != nil {
		t.Fatalf("policy.New: %v", err)
	}
	return p
}

// mkcall builds a call; args is JSON text or a value to marshal.
func mkcall(id, name string, args any) provider.Call {
	text, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			panic(err)
		}
		text = string(b)
	}
	return provider.Call{ID: id, Type: "function", Function: provider.CallFunction{Name: name, Arguments: text}}
}

// execute runs one batch and checks the envelope of every result.
func execute(t *testing.T, p provider.Provider, calls ...provider.Call) []provider.Result {
	t.Helper()
	rs := p.ExecuteToolCalls(context.Background(), calls)
	if len(rs) != len(calls) {
		t.Fatalf("got %d results for %d calls", len(rs), len(calls))
	}
	for i, r := range rs {
		if r.Role != "tool" || r.ToolCallID != calls[i].ID {
			t.Fatalf("result %d envelope = %+v, want role tool and id %q", i, r, calls[i].ID)
		}
	}
	return rs
}

func wantOK(t *testing.T, r provider.Result) {
	t.Helper()
	if r.IsError {
		t.Fatalf("call %s: unexpected error result: %s", r.ToolCallID, r.Content)
	}
}

func wantError(t *testing.T, r provider.Result, substr string) {
	t.Helper()
	if !r.IsError {
		t.Fatalf("call %s: want an error result containing %q, got success: %s", r.ToolCallID, substr, r.Content)
	}
	if !strings.Contains(r.Content, substr) {
		t.Fatalf("call %s: error result %q does not contain %q", r.ToolCallID, r.Content, substr)
	}
}

// mkfile writes a file under dir, creating parents.
func mkfile(t *testing.T, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func mkdir(t *testing.T, dir, rel string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// wantFile checks that a file exists with the given content.
func wantFile(t *testing.T, path, content string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("want %s on disk: %v", path, err)
	}
	if string(got) != content {
		t.Fatalf("%s = %q, want %q", path, got, content)
	}
}

// wantAbsent checks that nothing exists at path.
func wantAbsent(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Fatalf("want nothing at %s, got err=%v", path, err)
	}
}

// asker is a scripted human: it records every question and answers with
// answer (AllowOnce when answer is nil). Safe for concurrent use.
type asker struct {
	mu        sync.Mutex
	questions []policy.Question
	answer    func(q policy.Question) policy.Answer
}

func (a *asker) ask(_ context.Context, q policy.Question) policy.Answer {
	a.mu.Lock()
	a.questions = append(a.questions, q)
	answer := a.answer
	a.mu.Unlock()
	if answer == nil {
		return policy.Answer{Action: policy.AllowOnce}
	}
	return answer(q)
}

func (a *asker) asked() []policy.Question {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]policy.Question(nil), a.questions...)
}

// refuse is an OnAsk for a human who must not be asked.
func refuse(t *testing.T, who string) policy.AskFunc {
	return func(_ context.Context, q policy.Question) policy.Answer {
		t.Errorf("%s was asked, and should not have been: %+v", who, q)
		return policy.Answer{Action: policy.DenyOnce}
	}
}

// lineWatch is an io.Writer for a server's stderr: it keeps the lines, and
// closes seen once a line starting with prefix went past. fsserver logs
// "fsserver: call TOOL (in flight: N)" before running each call, in order,
// so once a sentinel call's line is seen every earlier call's line is too.
type lineWatch struct {
	mu     sync.Mutex
	prefix string
	buf    []byte
	lines  []string
	seen   chan struct{}
	done   bool
}

func newLineWatch(prefix string) *lineWatch {
	return &lineWatch{prefix: prefix, seen: make(chan struct{})}
}

func (w *lineWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		line := string(w.buf[:i])
		w.buf = w.buf[i+1:]
		w.lines = append(w.lines, line)
		if !w.done && strings.HasPrefix(line, w.prefix) {
			w.done = true
			close(w.seen)
		}
	}
	return len(p), nil
}

// serverCalls runs the sentinel call fs_list on c (straight on the client,
// no policy), waits for its log line, and returns the tools the server was
// called with before it, in order. w must watch for "fsserver: call fs_list".
func serverCalls(t *testing.T, c *mcpclient.Client, w *lineWatch) []string {
	t.Helper()
	wantOK(t, execute(t, c, mkcall("sentinel", "fs_list", map[string]string{"path": "."}))[0])
	<-w.seen
	w.mu.Lock()
	defer w.mu.Unlock()
	var tools []string
	for _, line := range w.lines {
		rest, ok := strings.CutPrefix(line, "fsserver: call ")
		if !ok {
			continue
		}
		tool, _, _ := strings.Cut(rest, " ")
		if tool == "fs_list" {
			break
		}
		tools = append(tools, tool)
	}
	return tools
}
