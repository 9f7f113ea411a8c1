//go:build unix

package e2e_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// everythingHTTP runs server-everything over streamable HTTP on a free
// port and returns its URL.
func everythingHTTP(t *testing.T) string {
	t.Helper()
	server := everythingServer(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(server[0], server[1], "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(stderr.String(), "listening on port") {
		if time.Now().After(deadline) {
			t.Fatalf("server-everything did not start:\n%s", stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

// TestProxyRemoteServer: mcp-policy proxy --url in front of a server
// reached over streamable HTTP (server-everything). Its tools list as they
// would directly; an allowed call runs; a call nobody allowed is refused;
// the server's elicitation, sent on its SSE stream, reaches the human.
func TestProxyRemoteServer(t *testing.T) {
	url := everythingHTTP(t)
	person := &human{answer: func(req mcp.ElicitationRequest) *mcp.ElicitationResult {
		if strings.HasPrefix(req.Params.Message, "The agent wants to run") {
			return choose("deny-once")(req)
		}
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept,
			Content: map[string]any{"name": "Grace Hopper"}}}
	}}
	ph := startProxiedArgs(t, []string{"proxy", "--rules", allowRules(t, "echo", "trigger-elicitation-request"), "--url", url}, hostOptions{elicit: person})

	tr, err := transport.NewStreamableHTTP(url)
	if err != nil {
		t.Fatal(err)
	}
	dc := client.NewClient(tr, client.WithElicitationHandler(person))
	if err := dc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := dc.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	viaProxy := toolNames(t, ph)
	straight, err := dc.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(viaProxy) != len(straight.Tools) || !viaProxy["echo"] || !viaProxy["trigger-elicitation-request"] {
		t.Fatalf("tools through the proxy %v, direct %d", viaProxy, len(straight.Tools))
	}

	r := ph.call("echo", map[string]any{"message": "over http"})
	wantCallOK(t, r)
	if !strings.Contains(text(r), "over http") {
		t.Fatalf("echo: %s", text(r))
	}
	wantCallError(t, ph.call("get-sum", map[string]any{"a": 1, "b": 2}), "The user declined 'get-sum' this time")
	if qs := person.asked(); len(qs) != 1 || !strings.Contains(qs[0].Params.Message, "get-sum") {
		t.Fatalf("asked %+v", qs)
	}

	r = ph.call("trigger-elicitation-request", map[string]any{})
	wantCallOK(t, r)
	if !strings.Contains(text(r), "Name: Grace Hopper") {
		t.Fatalf("elicitation over http: %s", text(r))
	}
	if code := ph.exitCode(); code != 0 {
		t.Fatalf("the proxy exited %d\n%s", code, ph.stderr)
	}
}
