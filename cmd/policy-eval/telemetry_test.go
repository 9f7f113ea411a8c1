package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/otlptest"
)

// TestDecideSendsTelemetry: decide, given the standard OTEL_* variables,
// sends a span per decided line and the decision counts before it exits;
// and refuses a variable it cannot honour.
func TestDecideSendsTelemetry(t *testing.T) {
	recv := otlptest.Start()
	defer recv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL())
	t.Setenv("OTEL_SERVICE_NAME", "")
	rules := write(t, t.TempDir(), "rules.json", `[{"tool":"fs_write","decision":"deny"}]`)
	stdin := call("1", "fs_write", `{"path":"/srv/x"}`) + "\n" + call("2", "fs_read", `{"path":"/srv/x"}`) + "\n"
	code, out, errOut := cli(t, stdin, "decide", "--rules", rules)
	require.Equal(t, exitOK, code, "stderr: %s", errOut)
	require.Len(t, lines(t, out), 2)
	require.Empty(t, errOut, "nothing failed to export")

	byTool := map[string]*otlptest.Span{}
	for _, s := range recv.Spans() {
		byTool[s.Attrs["gen_ai.tool.name"]] = s
	}
	require.Contains(t, recv.Services(), "policy-eval")
	require.NotNil(t, byTool["fs_write"], "the denied line's span")
	require.Equal(t, "deny", byTool["fs_write"].Attrs["mcp_policy.decision"])
	require.NotNil(t, byTool["fs_read"], "the asked line's span")
	require.Equal(t, "ask", byTool["fs_read"].Attrs["mcp_policy.decision"])
	n, ok := recv.Sum("mcp_policy.decisions", map[string]string{"mcp_policy.decision": "deny", "mcp_policy.reason": "rule"})
	require.True(t, ok && n == 1, "the denial counted: %d", n)

	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
	code, _, errOut = cli(t, stdin, "decide", "--rules", rules)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, `OTEL_EXPORTER_OTLP_PROTOCOL="http/json": only http/protobuf and grpc are supported`)
}
