// Package telemetry tells OpenTelemetry what a policy decided: a span per
// decided call (its tool, decision, reason, the kind of rule or grant that
// decided, the rule sets' revisions, and the wait for a human as a child
// span) and
// metrics (decisions by decision and reason, decision latency, the wait
// for a human, pending questions, grants in force, rule-set activations).
//
// A Recorder is built over the caller's tracer and meter providers (a Go
// agent passes its own); FromEnv builds OTLP exporters from the standard
// OTEL_* environment variables, as the proxy and policy-eval do:
//
//	providers, shutdown, err := telemetry.FromEnv(ctx, "my-agent")
//	…
//	defer shutdown(context.Background())
//	rec, err := telemetry.New(providers)
//	p, err := policy.New(policy.Options{…, OnDecision: rec.Record, OnAsk: rec.Asking(ask)})
//
// Nothing of a call's arguments is exported: a span carries the tool's
// name and what the rules said, not the paths, hosts or values the call
// named (the decision log, masked, is where those are kept).
package telemetry

import (
	"context"
	"maps"
	"slices"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-policy/mcp-policy/policy"
)

// instrumentation is the scope every span and instrument is made under.
const instrumentation = "github.com/mcp-policy/mcp-policy/telemetry"

// The attribute keys of a decision's span and metrics.
const (
	KeyTool       = attribute.Key("gen_ai.tool.name") // OTel's GenAI name for a tool
	KeyDecisionID = attribute.Key("mcp_policy.decision_id")
	KeyDecision   = attribute.Key("mcp_policy.decision") // allow, deny or ask: the rules' and grants'
	KeyReason     = attribute.Key("mcp_policy.reason")
	// KeyRule is which kind of rule decided: "rule" (the user's rules or
	// a bundle's), "floor", "custom" (a team's Rego), "default"; KeyGrant
	// says a remembered answer decided. Their contents are not exported:
	// a grant's directory and a floor rule's message come from the call.
	KeyRule      = attribute.Key("mcp_policy.rule")
	KeyGrant     = attribute.Key("mcp_policy.grant")
	KeyRevisions = attribute.Key("mcp_policy.revisions")
	KeyForwarded = attribute.Key("mcp_policy.forwarded") // the call went on to the server
	KeyAnswer    = attribute.Key("mcp_policy.answer")    // the human's answer, "" when none came
	KeyOutcome   = attribute.Key("mcp_policy.outcome")   // a rule set's activation: activated or refused
)

// Options are the providers a Recorder reports through; nil takes
// OpenTelemetry's global one (a no-op until the program sets one).
type Options struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
}

// Recorder turns a policy's records into spans and metrics. It is safe
// for concurrent use.
type Recorder struct {
	tracer      trace.Tracer
	meter       metric.Meter
	decisions   metric.Int64Counter
	latency     metric.Float64Histogram
	humanWait   metric.Float64Histogram
	pending     metric.Int64UpDownCounter
	activations metric.Int64Counter
}

// New makes the recorder's instruments.
func New(o Options) (*Recorder, error) {
	tp, mp := o.TracerProvider, o.MeterProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	r := &Recorder{tracer: tp.Tracer(instrumentation), meter: mp.Meter(instrumentation)}
	var err error
	if r.decisions, err = r.meter.Int64Counter("mcp_policy.decisions",
		metric.WithDescription("Calls decided, by decision and reason."), metric.WithUnit("{call}")); err != nil {
		return nil, err
	}
	// The SDK's default buckets start at 5 (seconds here): a decision
	// takes tens of microseconds, a human tens of seconds.
	if r.latency, err = r.meter.Float64Histogram("mcp_policy.decision.duration",
		metric.WithDescription("Time the rules and grants took to decide a call, before anyone was asked."), metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.1, 1)); err != nil {
		return nil, err
	}
	if r.humanWait, err = r.meter.Float64Histogram("mcp_policy.human_wait.duration",
		metric.WithDescription("Time a question waited for the human's answer."), metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600)); err != nil {
		return nil, err
	}
	if r.pending, err = r.meter.Int64UpDownCounter("mcp_policy.questions.pending",
		metric.WithDescription("Questions put to a human and not answered yet."), metric.WithUnit("{question}")); err != nil {
		return nil, err
	}
	if r.activations, err = r.meter.Int64Counter("mcp_policy.rules.activations",
		metric.WithDescription("Rule sets (bundles, reloaded files) offered to the policy, by outcome: activated or refused."),
		metric.WithUnit("{activation}")); err != nil {
		return nil, err
	}
	return r, nil
}

// Record reports one decided call: the function to give
// policy.Options.OnDecision. The span is written after the fact, with the
// times the record carries.
func (r *Recorder) Record(rec policy.Record) {
	decision, reason := "none", "error"
	if rec.Decision != nil {
		decision, reason = string(rec.Decision.Decision), string(rec.Decision.Reason)
	}
	tool := shownTool(rec.Call.Function.Name)
	counted := metric.WithAttributeSet(attribute.NewSet(KeyDecision.String(decision), KeyReason.String(reason),
		KeyForwarded.Bool(rec.Allowed)))
	ctx := context.Background()
	r.decisions.Add(ctx, 1, counted)
	if rec.Decision != nil {
		r.latency.Record(ctx, rec.Deciding.Seconds(), metric.WithAttributeSet(attribute.NewSet(KeyReason.String(reason))))
	}
	answer := answerOf(rec)
	if !rec.Asked.IsZero() {
		r.humanWait.Record(ctx, rec.Waited.Seconds(), metric.WithAttributeSet(attribute.NewSet(KeyAnswer.String(answer))))
	}

	started := rec.Started
	if started.IsZero() {
		started = rec.Time
	}
	attrs := []attribute.KeyValue{KeyTool.String(tool), KeyDecisionID.String(rec.ID), KeyDecision.String(decision),
		KeyReason.String(reason), KeyForwarded.Bool(rec.Allowed)}
	if d := rec.Decision; d != nil && d.Rule != nil {
		attrs = append(attrs, KeyRule.String(ruleKind(reason)))
	}
	if d := rec.Decision; d != nil && d.Grant != nil {
		attrs = append(attrs, KeyGrant.Bool(true))
	}
	if len(rec.Revisions) > 0 {
		attrs = append(attrs, KeyRevisions.String(joinRevisions(rec.Revisions)))
	}
	ctx, span := r.tracer.Start(ctx, "mcp-policy decide", trace.WithTimestamp(started),
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	if !rec.Asked.IsZero() {
		_, ask := r.tracer.Start(ctx, "mcp-policy ask", trace.WithTimestamp(rec.Asked),
			trace.WithAttributes(KeyTool.String(tool), KeyAnswer.String(answer)))
		if answer == "" {
			ask.SetStatus(codes.Error, "no answer")
		}
		ask.End(trace.WithTimestamp(rec.Asked.Add(rec.Waited)))
	}
	if rec.Error != "" {
		span.SetStatus(codes.Error, rec.Error)
	}
	span.End(trace.WithTimestamp(rec.Time))
}

// answerOf is the human's answer as a word, "" when none came.
func answerOf(rec policy.Record) string {
	if rec.Answer == nil || rec.Answer.Unanswered != nil {
		return ""
	}
	return string(rec.Answer.Action)
}

// Asking wraps the human's question callback to count the questions
// waiting for an answer (mcp_policy.questions.pending).
func (r *Recorder) Asking(ask policy.AskFunc) policy.AskFunc {
	if ask == nil {
		return nil
	}
	return func(ctx context.Context, q policy.Question) policy.Answer {
		r.pending.Add(ctx, 1)
		defer r.pending.Add(context.WithoutCancel(ctx), -1)
		return ask(ctx, q)
	}
}

// Activated reports a rule set offered to the policy: activated when err
// is nil, else refused.
func (r *Recorder) Activated(revisions map[string]string, err error) {
	outcome := "activated"
	if err != nil {
		outcome = "refused"
	}
	attrs := []attribute.KeyValue{KeyOutcome.String(outcome)}
	if len(revisions) > 0 {
		attrs = append(attrs, KeyRevisions.String(joinRevisions(revisions)))
	}
	r.activations.Add(context.Background(), 1, metric.WithAttributes(attrs...))
}

// GrantsInForce reports count's answer, when the metrics are collected,
// as mcp_policy.grants: the grants in force (unexpired, revoked ones
// left out). count's error leaves the observation out.
func (r *Recorder) GrantsInForce(count func(context.Context) (int, error)) error {
	_, err := r.meter.Int64ObservableGauge("mcp_policy.grants",
		metric.WithDescription("Grants in force: remembered \"always\" answers, unexpired."), metric.WithUnit("{grant}"),
		metric.WithInt64Callback(func(ctx context.Context, o metric.Int64Observer) error {
			n, err := count(ctx)
			if err != nil {
				return nil // a store out of touch is no metric, not an error to log every interval
			}
			o.Observe(int64(n))
			return nil
		}))
	return err
}

// ruleKind is which kind of rule decided, by the decision's reason.
func ruleKind(reason string) string {
	if reason == string(policy.ReasonFloor) {
		return "floor"
	}
	return "rule"
}

// maxTool bounds the tool name a span carries: the model writes it.
const maxTool = 128

// shownTool is a tool name as an attribute carries it: valid UTF-8, at
// most maxTool bytes.
func shownTool(s string) string {
	s = strings.ToValidUTF8(s, "?")
	if len(s) > maxTool {
		s = strings.ToValidUTF8(s[:maxTool], "") + "…"
	}
	return s
}

// joinRevisions is "name=revision" for each rule set, by name.
func joinRevisions(m map[string]string) string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k + "=" + m[k])
	}
	return b.String()
}
