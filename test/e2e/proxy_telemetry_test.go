//go:build unix

package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/otlptest"
)

// TestProxyTelemetryReachesACollector: the proxy, given only the standard
// OTEL_* variables, sends an OTLP/HTTP endpoint a span per decided call —
// an asked call's with the wait for the human as its child — and the
// metrics; none of the call's arguments travel with them.
func TestProxyTelemetryReachesACollector(t *testing.T) {
	t.Parallel()
	recv := otlptest.Start()
	defer recv.Close()
	dir := t.TempDir()
	mkfile(t, dir, "a.txt", "a")
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.URL(), "OTEL_METRIC_EXPORT_INTERVAL=200", "OTEL_BSP_SCHEDULE_DELAY=50",
		"OTEL_SERVICE_NAME=proxy-under-test"}
	h := startRaw(t, []string{"--root", "fs=" + dir, "--rules", allowRules(t, "fs_read")}, []string{fsserver, dir}, env)
	h.initialize(map[string]any{"elicitation": map[string]any{}})

	h.callTool(1, "fs_read", map[string]any{"path": "a.txt"})
	_, isErr := resultText(t, h.response(1, 20*time.Second))
	require.False(t, isErr, "the allowed read")

	h.callTool(2, "fs_write", map[string]any{"path": "s3cr3t-name.txt", "content": "x"})
	q := h.next(10 * time.Second)
	require.Equal(t, "elicitation/create", q["method"], "want the proxy's question, got %v", q)
	time.Sleep(30 * time.Millisecond) // the human reads the question
	h.send(map[string]any{"jsonrpc": "2.0", "id": q["id"], "result": map[string]any{"action": "accept", "content": map[string]any{"answer": "allow-once"}}})
	_, isErr = resultText(t, h.response(2, 20*time.Second))
	require.False(t, isErr, "the write the human allowed")
	_, err := os.Stat(filepath.Join(dir, "s3cr3t-name.txt"))
	require.NoError(t, err, "the server wrote the file")

	progress(t, "the host goes: the proxy flushes its telemetry")
	h.in.Close()
	require.Equal(t, 0, h.waitExit(20*time.Second), "the proxy's exit status\n%s", h.stderr)
	require.NotContains(t, h.stderr.String(), "telemetry:", "the export failed")

	require.Empty(t, recv.Refused())
	require.Contains(t, recv.Services(), "proxy-under-test")
	var read, write, ask *otlptest.Span
	for _, s := range recv.Spans() {
		require.False(t, strings.Contains(s.String(), "s3cr3t") || strings.Contains(s.String(), dir),
			"an argument was exported: %v", s)
		switch {
		case s.Name == "mcp-policy ask":
			ask = s
		case s.Attrs["gen_ai.tool.name"] == "fs_read":
			read = s
		case s.Attrs["gen_ai.tool.name"] == "fs_write":
			write = s
		}
	}
	require.NotNil(t, read, "the read's span")
	require.Equal(t, "allow", read.Attrs["mcp_policy.decision"])
	require.Equal(t, "rule", read.Attrs["mcp_policy.rule"], "the default read-only rule decided")
	require.NotNil(t, write, "the write's span")
	require.Equal(t, "ask", write.Attrs["mcp_policy.decision"])
	require.Equal(t, "true", write.Attrs["mcp_policy.forwarded"])
	require.NotNil(t, ask, "the question's span")
	require.Equal(t, write.SpanId, ask.ParentSpanId, "the wait for the human is a child of the write's span")
	require.Equal(t, "allow-once", ask.Attrs["mcp_policy.answer"])
	require.GreaterOrEqual(t, time.Duration(ask.EndTimeUnixNano-ask.StartTimeUnixNano), 30*time.Millisecond)

	n, ok := recv.Sum("mcp_policy.decisions", map[string]string{"mcp_policy.decision": "ask", "mcp_policy.forwarded": "true"})
	require.True(t, ok && n == 1, "the asked decision counted: %d", n)
	n, ok = recv.Sum("mcp_policy.decisions", map[string]string{"mcp_policy.decision": "allow"})
	require.True(t, ok && n == 1, "the allowed decision counted: %d", n)
	c, ok := recv.Count("mcp_policy.human_wait.duration", map[string]string{"mcp_policy.answer": "allow-once"})
	require.True(t, ok && c == 1, "the human's wait: %d", c)
	pending, ok := recv.Sum("mcp_policy.questions.pending", nil)
	require.True(t, ok && pending == 0, "nothing pending at the end: %d", pending)
}
