package telemetry_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/otlptest"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
	"github.com/mcp-policy/mcp-policy/telemetry"
)

func server() provider.Func {
	tool := func(name string) provider.Tool {
		return provider.Tool{Type: "function", Function: provider.ToolFunction{Name: name,
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
	}
	return provider.Func{
		Tools: []provider.Tool{tool("fs_write"), tool("fs_delete")},
		Run:   func(context.Context, provider.Call) (string, error) { return "ran", nil },
	}
}

func call(id, tool, args string) provider.Call {
	return provider.Call{ID: id, Type: "function", Function: provider.CallFunction{Name: tool, Arguments: args}}
}

// otlpEnv points the standard variables at r, with short export intervals.
func otlpEnv(t *testing.T, r *otlptest.Receiver) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", r.URL())
	t.Setenv("OTEL_METRIC_EXPORT_INTERVAL", "100")
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	t.Setenv("OTEL_SERVICE_NAME", "")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "")
}

// TestDecisionsReachACollector: a policy's decisions — one allowed by a
// rule, one denied, one asked and answered — arrive at an OTLP/HTTP
// endpoint as spans (the question as a child span of its decision) and
// metrics; no argument value travels with them.
func TestDecisionsReachACollector(t *testing.T) {
	recv := otlptest.Start()
	defer recv.Close()
	otlpEnv(t, recv)
	ctx := context.Background()
	providers, shutdown, err := telemetry.FromEnv(ctx, "policy-under-test")
	require.NoError(t, err)
	require.NotNil(t, providers.TracerProvider, "an endpoint set turns traces on")
	rec, err := telemetry.New(providers)
	require.NoError(t, err)
	require.NoError(t, rec.GrantsInForce(func(context.Context) (int, error) { return 3, nil }))

	p, err := policy.New(policy.Options{
		Provider: server(),
		Rules: []policy.Rule{
			{Tool: "fs_write", Decision: policy.Allow, Under: "/srv/scratch"},
			{Tool: "fs_delete", Decision: policy.Deny},
		},
		OnDecision: rec.Record,
		OnAsk: rec.Asking(func(context.Context, policy.Question) policy.Answer {
			time.Sleep(20 * time.Millisecond) // a human, quick
			return policy.Answer{Action: policy.AlwaysAllow}
		}),
	})
	require.NoError(t, err)
	defer p.Close()
	secret := "/srv/s3cr3t-dir/name.txt"
	rs := p.ExecuteToolCalls(ctx, []provider.Call{
		call("1", "fs_write", `{"path":"/srv/scratch/a.txt"}`),
		call("2", "fs_delete", `{"path":"/srv/scratch/a.txt"}`),
		call("3", "fs_write", `{"path":"`+secret+`"}`),
		call("4", "fs_write", `{"path":"`+secret+`"}`), // the grant the answer left decides it
	})
	require.False(t, rs[0].IsError)
	require.True(t, rs[1].IsError)
	require.False(t, rs[2].IsError, "the human allowed it")
	require.False(t, rs[3].IsError, "the grant allowed it")
	rec.Activated(map[string]string{"rules": "r42"}, nil)
	rec.Activated(map[string]string{"rules": "r43"}, errors.New("invalid"))
	require.NoError(t, shutdown(ctx), "the exporters flush on shutdown")

	require.Empty(t, recv.Refused(), "every export decoded")
	spans := map[string]*otlptest.Span{}
	var ask *otlptest.Span
	for _, s := range recv.Spans() {
		require.NotContains(t, s.String(), "s3cr3t", "an argument value was exported")
		if s.Name == "mcp-policy ask" {
			ask = s
			continue
		}
		spans[s.Attrs["mcp_policy.decision"]+"/"+s.Attrs["mcp_policy.reason"]] = s
	}
	require.Contains(t, recv.Services(), "policy-under-test")
	allowed := spans["allow/rule"]
	require.NotNil(t, allowed, "the allowed call's span; got %v", spans)
	require.Equal(t, "mcp-policy decide", allowed.Name)
	require.Equal(t, "fs_write", allowed.Attrs["gen_ai.tool.name"])
	require.Equal(t, "true", allowed.Attrs["mcp_policy.forwarded"])
	require.Equal(t, "rule", allowed.Attrs["mcp_policy.rule"])
	granted := spans["allow/grant"]
	require.NotNil(t, granted, "the call the grant allowed")
	require.Equal(t, "true", granted.Attrs["mcp_policy.grant"])
	require.NotEmpty(t, allowed.Attrs["mcp_policy.decision_id"])
	denied := spans["deny/rule"]
	require.NotNil(t, denied, "the denied call's span")
	require.Equal(t, "false", denied.Attrs["mcp_policy.forwarded"])
	asked := spans["ask/no-match"]
	require.NotNil(t, asked, "the asked call's span")
	require.Equal(t, "true", asked.Attrs["mcp_policy.forwarded"])

	require.NotNil(t, ask, "the wait for the human is a span")
	require.Equal(t, asked.SpanId, ask.ParentSpanId, "the question's span is a child of its call's")
	require.Equal(t, asked.TraceId, ask.TraceId)
	require.Equal(t, "always-allow", ask.Attrs["mcp_policy.answer"])
	require.GreaterOrEqual(t, time.Duration(ask.EndTimeUnixNano-ask.StartTimeUnixNano), 20*time.Millisecond, "the span covers the wait")
	require.LessOrEqual(t, asked.StartTimeUnixNano, ask.StartTimeUnixNano)
	require.GreaterOrEqual(t, asked.EndTimeUnixNano, ask.EndTimeUnixNano)

	for _, want := range []map[string]string{
		{"mcp_policy.decision": "allow", "mcp_policy.reason": "rule"},
		{"mcp_policy.decision": "deny", "mcp_policy.reason": "rule"},
		{"mcp_policy.decision": "ask", "mcp_policy.reason": "no-match", "mcp_policy.forwarded": "true"},
	} {
		n, ok := recv.Sum("mcp_policy.decisions", want)
		require.True(t, ok && n == 1, "decisions %v: %d", want, n)
	}
	n, ok := recv.Count("mcp_policy.decision.duration", map[string]string{"mcp_policy.reason": "rule"})
	require.True(t, ok && n == 2, "decision latencies by rule: %d", n)
	n, ok = recv.Count("mcp_policy.human_wait.duration", map[string]string{"mcp_policy.answer": "always-allow"})
	require.True(t, ok && n == 1, "human waits: %d", n)
	pending, ok := recv.Sum("mcp_policy.questions.pending", nil)
	require.True(t, ok && pending == 0, "no question pending once answered: %d", pending)
	g, ok := recv.Sum("mcp_policy.grants", nil)
	require.True(t, ok && g == 3, "grants in force: %d", g)
	for outcome, rev := range map[string]string{"activated": "rules=r42", "refused": "rules=r43"} {
		n, ok := recv.Sum("mcp_policy.rules.activations", map[string]string{"mcp_policy.outcome": outcome, "mcp_policy.revisions": rev})
		require.True(t, ok && n == 1, "%s: %d", outcome, n)
	}
}

// TestFromEnvOffAndBadValues: nothing set is off; each value the exporters
// cannot honour is an error naming its variable.
func TestFromEnvOffAndBadValues(t *testing.T) {
	for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
		"OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_SDK_DISABLED", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		t.Setenv(k, "")
	}
	o, stop, err := telemetry.FromEnv(context.Background(), "x")
	require.NoError(t, err)
	require.Equal(t, telemetry.Options{}, o, "off unless set")
	require.NoError(t, stop(context.Background()))

	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_SDK_DISABLED", "true")
	o, _, err = telemetry.FromEnv(context.Background(), "x")
	require.NoError(t, err)
	require.Equal(t, telemetry.Options{}, o, "OTEL_SDK_DISABLED wins")
	t.Setenv("OTEL_SDK_DISABLED", "")

	t.Setenv("OTEL_TRACES_EXPORTER", "none")
	o, stop, err = telemetry.FromEnv(context.Background(), "x")
	require.NoError(t, err)
	require.Nil(t, o.TracerProvider, "traces off")
	require.NotNil(t, o.MeterProvider, "metrics on")
	_ = stop(context.Background()) // nothing listens there: its flush fails
	t.Setenv("OTEL_TRACES_EXPORTER", "")

	for k, v := range map[string]string{"OTEL_TRACES_EXPORTER": "zipkin", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "OTEL_SDK_DISABLED": "maybe",
		"OTEL_BSP_MAX_QUEUE_SIZE": "-1", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "999999999999", "OTEL_METRIC_EXPORT_INTERVAL": "0"} {
		t.Setenv(k, v)
		_, _, err := telemetry.FromEnv(context.Background(), "x")
		require.Error(t, err, "%s=%s", k, v)
		require.True(t, strings.HasPrefix(err.Error(), k+"="), "the error names the variable: %v", err)
		t.Setenv(k, "")
	}
}

// TestExportErrorsAreRedacted: an exporter's error names the collector's
// host, never its path or a header's token.
func TestExportErrorsAreRedacted(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer s3cr3t-token")
	got := telemetry.Redact(`failed to upload: Post "https://collector.example:4318/v1/traces?key=abc": 401; header authorization=Bearer s3cr3t-token`)
	assert.Equal(t, `failed to upload: Post "https://collector.example:4318/…": 401; header …`, got)
}
