//go:build unix

package e2e_test

import (
	"bytes"
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

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The proxy's end-to-end tests run the real mcp-policy binary between a
// real host (mark3labs/mcp-go's client, the MCP inspector's CLI, or raw
// JSON-RPC over pipes) and real servers (the official server-filesystem and
// server-everything from npm, and test/fsserver).

var (
	proxyOnce sync.Once
	proxyBin  string
	proxyErr  error
)

// proxyBinary builds cmd/mcp-policy once, beside fsserver (TestMain removes
// that directory), with the race detector when the tests have it.
func proxyBinary(t testing.TB) string {
	t.Helper()
	proxyOnce.Do(func() {
		proxyBin = filepath.Join(filepath.Dir(fsserver), "mcp-policy")
		args := []string{"build", "-o", proxyBin}
		if raceEnabled {
			args = append(args, "-race")
		}
		build := exec.Command("go", append(args, "./cmd/mcp-policy")...)
		build.Dir = modRoot
		if out, err := build.CombinedOutput(); err != nil {
			proxyErr = fmt.Errorf("building mcp-policy: %v\n%s", err, out)
		}
	})
	if proxyErr != nil {
		t.Fatal(proxyErr)
	}
	return proxyBin
}

// hostOptions make the mcp-go client a host with these capabilities.
type hostOptions struct {
	elicit   client.ElicitationHandler
	sampling client.SamplingHandler
	roots    client.RootsHandler
	env      []string // added to the proxy's environment (and so the server's)
	legacy   bool     // speak protocol 2025-11-25 even to a server that speaks 2026-07-28
	caps     *mcp.ClientCapabilities
}

// proxied is an mcp-go client host talking to a server through the proxy.
type proxied struct {
	*client.Client
	t      testing.TB
	cmd    *exec.Cmd
	stderr *testkit.SyncBuffer
	init   *mcp.InitializeResult
	closed bool
}

// startProxied runs `mcp-policy proxy FLAGS -- SERVER...` as the host's
// server and initializes it. It is closed when the test ends.
func startProxied(t testing.TB, flags []string, server []string, ho hostOptions) *proxied {
	t.Helper()
	return startProxiedArgs(t, append(append(append([]string{"proxy"}, flags...), "--"), server...), ho)
}

// startProxiedArgs runs `mcp-policy ARGS...` as the host's server.
func startProxiedArgs(t testing.TB, args []string, ho hostOptions) *proxied {
	t.Helper()
	ph := &proxied{t: t, stderr: &testkit.SyncBuffer{}}
	tr := transport.NewStdioWithOptions(proxyBinary(t), nil, args,
		transport.WithCommandFunc(func(_ context.Context, command string, _, args []string) (*exec.Cmd, error) {
			cmd := exec.Command(command, args...)
			cmd.Env = append(os.Environ(), ho.env...)
			ph.cmd = cmd
			return cmd, nil
		}),
		transport.WithCommandStderrWriter(ph.stderr))
	var opts []client.ClientOption
	if ho.elicit != nil {
		opts = append(opts, client.WithElicitationHandler(ho.elicit))
	}
	if ho.sampling != nil {
		opts = append(opts, client.WithSamplingHandler(ho.sampling))
	}
	if ho.roots != nil {
		opts = append(opts, client.WithRootsHandler(ho.roots))
	}
	if ho.legacy {
		opts = append(opts, client.WithLegacyProtocolOnly())
	}
	if ho.caps != nil {
		opts = append(opts, client.WithClientCapabilities(*ho.caps))
	}
	ph.Client = client.NewClient(tr, opts...)
	// Start's ctx is the one the client answers the server's requests on
	// (and for direct, the one its process lives by): it must outlive the
	// start.
	if err := ph.Start(context.Background()); err != nil {
		t.Fatalf("start proxy: %v\nstderr: %s", err, ph.stderr)
	}
	t.Cleanup(func() { ph.close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "e2e-host", Version: "1"}
	res, err := ph.Initialize(ctx, init)
	if err != nil {
		t.Fatalf("initialize through the proxy: %v\nstderr: %s", err, ph.stderr)
	}
	ph.init = res
	return ph
}

// close closes the host's side and checks the proxy left cleanly, race
// detector quiet.
func (ph *proxied) close() {
	if ph.closed {
		return
	}
	ph.closed = true
	_ = ph.Close()
	if strings.Contains(ph.stderr.String(), "DATA RACE") {
		ph.t.Errorf("the proxy raced:\n%s", ph.stderr)
	}
}

// exitCode is the proxy's exit status once closed.
func (ph *proxied) exitCode() int {
	ph.close()
	if ph.cmd.ProcessState == nil {
		ph.t.Fatal("the proxy was not reaped")
	}
	return ph.cmd.ProcessState.ExitCode()
}

// call calls a tool through the proxy and fails the test on a protocol
// error (an is_error result is not one).
func (ph *proxied) call(name string, args any) *mcp.CallToolResult {
	ph.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := ph.CallTool(ctx, req)
	if err != nil {
		ph.t.Fatalf("tools/call %s: %v\nproxy stderr: %s", name, err, ph.stderr)
	}
	return res
}

// text joins a result's text content.
func text(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func wantCallOK(t testing.TB, r *mcp.CallToolResult) {
	t.Helper()
	if r.IsError {
		t.Fatalf("want success, got an is_error result: %s", text(r))
	}
}

func wantCallError(t testing.TB, r *mcp.CallToolResult, substr string) {
	t.Helper()
	if !r.IsError || !strings.Contains(text(r), substr) {
		t.Fatalf("want an is_error result containing %q, got isError=%v: %s", substr, r.IsError, text(r))
	}
}

// direct is an mcp-go client straight to a server, for comparison.
func direct(t testing.TB, server []string, ho hostOptions) *client.Client {
	t.Helper()
	tr := transport.NewStdio(server[0], ho.env, server[1:]...)
	var opts []client.ClientOption
	if ho.elicit != nil {
		opts = append(opts, client.WithElicitationHandler(ho.elicit))
	}
	if ho.sampling != nil {
		opts = append(opts, client.WithSamplingHandler(ho.sampling))
	}
	c := client.NewClient(tr, opts...)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "e2e-host", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c
}

// human is a scripted person behind the host's elicitation: it records
// every question and answers with answer.
type human struct {
	mu        sync.Mutex
	questions []mcp.ElicitationRequest
	answer    func(mcp.ElicitationRequest) *mcp.ElicitationResult
}

func (h *human) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	h.mu.Lock()
	h.questions = append(h.questions, req)
	answer := h.answer
	h.mu.Unlock()
	return answer(req), nil
}

func (h *human) asked() []mcp.ElicitationRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]mcp.ElicitationRequest(nil), h.questions...)
}

// choose answers a permission question with one of its choices.
func choose(choice string) func(mcp.ElicitationRequest) *mcp.ElicitationResult {
	return func(mcp.ElicitationRequest) *mcp.ElicitationResult {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
			Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"answer": choice}}}
	}
}

// permissionChoices are the values a permission question offers.
func permissionChoices(t testing.TB, req mcp.ElicitationRequest) (values, titles []string) {
	t.Helper()
	b, err := json.Marshal(req.Params.RequestedSchema)
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]struct {
			OneOf []struct {
				Const string `json:"const"`
				Title string `json:"title"`
			} `json:"oneOf"`
			Enum      []string `json:"enum"`
			EnumNames []string `json:"enumNames"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	f, ok := schema.Properties["answer"]
	if !ok || len(schema.Properties) != 1 || len(schema.Required) != 1 {
		t.Fatalf("the permission form is not one answer field: %s", b)
	}
	for _, o := range f.OneOf {
		values, titles = append(values, o.Const), append(titles, o.Title)
	}
	if len(values) == 0 {
		values, titles = f.Enum, f.EnumNames
	}
	return values, titles
}

// pidFile runs server under sh so that its pid is written to a file first:
// the tests check by pid that nothing is left running.
func pidFile(t testing.TB, server []string) (wrapped []string, file string) {
	file = filepath.Join(t.TempDir(), "server.pid")
	return append([]string{"sh", "-c", `echo $$ > "$0"; exec "$@"`, file}, server...), file
}

// readPid waits for the pid file and reads it.
func readPid(t testing.TB, file string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(file)
		if err == nil && len(bytes.TrimSpace(b)) > 0 {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", file)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// wantGone waits (a little) for pid to be gone.
func wantGone(t testing.TB, pid int, what string) {
	t.Helper()
	deadline := time.Now().Add(8 * time.Second)
	for {
		err := syscall.Kill(pid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) is still running: %v", what, pid, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// logLines reads a decision log.
func logLines(t testing.TB, file string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

func progress(t testing.TB, format string, a ...any) {
	t.Helper()
	t.Logf("[%s] %s", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, a...))
}
