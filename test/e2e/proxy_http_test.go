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
	"github.com/mcp-policy/mcp-policy/internal/testkit"
	"github.com/stretchr/testify/require"
)

// everythingHTTP runs server-everything over streamable HTTP on a free
// port and returns its URL.
func everythingHTTP(t *testing.T) string {
	t.Helper()
	server := everythingServer(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(server[0], server[1], "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	stderr := &testkit.SyncBuffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(stderr.String(), "listening on port") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	require.Contains(t, stderr.String(), "listening on port", "server-everything did not start")
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

// TestProxyRemoteServer: mcp-policy proxy --url in front of a server
// reached over streamable HTTP (server-everything). Its tools list as they
// would directly; an allowed call runs; a call nobody allowed is refused;
// the server's elicitation, sent on its SSE stream, reaches the human.
func TestProxyRemoteServer(t *testing.T) {
	t.Parallel()
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
	require.NoError(t, err)
	dc := client.NewClient(tr, client.WithElicitationHandler(person))
	require.NoError(t, dc.Start(context.Background()))
	defer dc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = dc.Initialize(ctx, mcp.InitializeRequest{})
	require.NoError(t, err)
	viaProxy := toolNames(t, ph)
	straight, err := dc.ListTools(ctx, mcp.ListToolsRequest{})
	require.NoError(t, err)
	require.Len(t, viaProxy, len(straight.Tools), "tools through the proxy %v, against direct", viaProxy)
	require.True(t, viaProxy["echo"], "tools through the proxy %v", viaProxy)
	require.True(t, viaProxy["trigger-elicitation-request"], "tools through the proxy %v", viaProxy)

	r := ph.call("echo", map[string]any{"message": "over http"})
	wantCallOK(t, r)
	require.Contains(t, text(r), "over http", "echo")
	wantCallError(t, ph.call("get-sum", map[string]any{"a": 1, "b": 2}), "The user declined 'get-sum' this time")
	qs := person.asked()
	require.Len(t, qs, 1, "questions %+v", qs)
	require.Contains(t, qs[0].Params.Message, "get-sum", "the question")

	r = ph.call("trigger-elicitation-request", map[string]any{})
	wantCallOK(t, r)
	require.Contains(t, text(r), "Name: Grace Hopper", "elicitation over http")
	require.Equal(t, 0, ph.exitCode(), "the proxy's exit status\n%s", ph.stderr)
}
