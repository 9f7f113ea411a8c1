package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// FromEnv builds OTLP exporters as OpenTelemetry's standard environment
// variables say, and returns the providers over them, with the function
// that flushes and stops them. It is off — zero Options, a no-op shutdown
// — unless an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT, or the
// _TRACES_ or _METRICS_ one) or OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER
// is "otlp"; OTEL_SDK_DISABLED=true and an exporter of "none" turn a
// signal off. OTEL_EXPORTER_OTLP_PROTOCOL picks http/protobuf (the
// default) or grpc; the exporters read the rest (headers, timeout,
// certificates, OTEL_BSP_*, OTEL_METRIC_EXPORT_INTERVAL) themselves.
// service is service.name unless OTEL_SERVICE_NAME or
// OTEL_RESOURCE_ATTRIBUTES names one. A value it cannot honour is an
// error naming the variable.
func FromEnv(ctx context.Context, service string) (Options, func(context.Context) error, error) {
	none := func(context.Context) error { return nil }
	if err := checkNumbers(); err != nil {
		return Options{}, none, err
	}
	if v := os.Getenv("OTEL_SDK_DISABLED"); v != "" {
		off, err := strconv.ParseBool(v)
		if err != nil {
			return Options{}, none, fmt.Errorf("OTEL_SDK_DISABLED=%q: not true or false", v)
		}
		if off {
			return Options{}, none, nil
		}
	}
	traces, err := signalOn("TRACES")
	if err != nil {
		return Options{}, none, err
	}
	metrics, err := signalOn("METRICS")
	if err != nil {
		return Options{}, none, err
	}
	if !traces && !metrics {
		return Options{}, none, nil
	}
	res, err := resource.New(ctx, resource.WithAttributes(semconv.ServiceName(service)), resource.WithFromEnv(),
		resource.WithTelemetrySDK())
	if err != nil {
		return Options{}, none, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %v", err)
	}
	var o Options
	var stops []func(context.Context) error
	if traces {
		exp, err := traceExporter(ctx)
		if err != nil {
			return Options{}, none, err
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		o.TracerProvider, stops = tp, append(stops, tp.Shutdown)
	}
	if metrics {
		exp, err := metricExporter(ctx)
		if err != nil {
			return Options{}, none, errors.Join(err, stopAll(ctx, stops))
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
		o.MeterProvider, stops = mp, append(stops, mp.Shutdown)
	}
	return o, func(ctx context.Context) error { return stopAll(ctx, stops) }, nil
}

// numberLimits are the OTEL_* numbers the SDK reads itself, with the
// largest each may be: a negative or huge one makes it panic or run out of
// memory at start, where an error naming the variable is due.
var numberLimits = map[string]int64{
	"OTEL_BSP_MAX_QUEUE_SIZE": 1 << 20, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": 1 << 20,
	"OTEL_BSP_SCHEDULE_DELAY": 86_400_000, "OTEL_BSP_EXPORT_TIMEOUT": 86_400_000,
	"OTEL_METRIC_EXPORT_INTERVAL": 86_400_000, "OTEL_METRIC_EXPORT_TIMEOUT": 86_400_000,
	"OTEL_EXPORTER_OTLP_TIMEOUT": 86_400_000, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": 86_400_000,
	"OTEL_EXPORTER_OTLP_METRICS_TIMEOUT": 86_400_000,
}

// checkNumbers refuses an OTEL_* number that is not a whole number from 1
// to its limit.
func checkNumbers() error {
	for name, limit := range numberLimits {
		v := os.Getenv(name)
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 1 || n > limit {
			return fmt.Errorf("%s=%q: want a whole number from 1 to %d", name, v, limit)
		}
	}
	if q, b := os.Getenv("OTEL_BSP_MAX_QUEUE_SIZE"), os.Getenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE"); q != "" && b != "" {
		qn, _ := strconv.ParseInt(strings.TrimSpace(q), 10, 64)
		if bn, _ := strconv.ParseInt(strings.TrimSpace(b), 10, 64); bn > qn {
			return fmt.Errorf("OTEL_BSP_MAX_EXPORT_BATCH_SIZE=%q: more than OTEL_BSP_MAX_QUEUE_SIZE=%q", b, q)
		}
	}
	return nil
}

// Start is FromEnv and New together, for a command: a nil Recorder when
// the environment leaves telemetry off. warn is told of the exporters'
// errors (a collector down, refusing), at most one line every half
// minute, with URLs cut to their host and header values left out.
func Start(ctx context.Context, service string, warn func(string)) (*Recorder, func(context.Context) error, error) {
	o, stop, err := FromEnv(ctx, service)
	if err != nil || o == (Options{}) {
		return nil, stop, err
	}
	otel.SetErrorHandler(newErrorHandler(warn, time.Now))
	if o.TracerProvider == nil {
		o.TracerProvider = tracenoop.NewTracerProvider()
	}
	if o.MeterProvider == nil {
		o.MeterProvider = metricnoop.NewMeterProvider()
	}
	r, err := New(o)
	if err != nil {
		return nil, stop, errors.Join(err, stop(ctx))
	}
	return r, stop, nil
}

// errorHandler says the SDK's errors, redacted and rate-limited: a
// collector that is down makes every export fail, each interval.
type errorHandler struct {
	warn       func(string)
	now        func() time.Time
	mu         sync.Mutex
	last       time.Time
	suppressed int
}

// errorEvery is the least time between two error lines.
const errorEvery = 30 * time.Second

func newErrorHandler(warn func(string), now func() time.Time) *errorHandler {
	return &errorHandler{warn: warn, now: now}
}

// Handle is otel.ErrorHandler's.
func (h *errorHandler) Handle(err error) {
	h.mu.Lock()
	t := h.now()
	if !h.last.IsZero() && t.Sub(h.last) < errorEvery {
		h.suppressed++
		h.mu.Unlock()
		return
	}
	h.last = t
	n := h.suppressed
	h.suppressed = 0
	h.mu.Unlock()
	msg := "telemetry: " + Redact(err.Error())
	if n > 0 {
		msg += fmt.Sprintf(" (and %d more errors since the last one said)", n)
	}
	if h.warn != nil {
		h.warn(msg)
	}
}

// urlPattern finds URLs in an error's text.
var urlPattern = regexp.MustCompile(`(?i)\b(https?|grpc)://([^/\s"']+)[^\s"']*`)

// Redact is an exporter's error as stderr may show it: each URL cut to its
// scheme and host (a path or query may hold a token), and the values of
// the OTLP header variables (tokens, as often as not) left out.
func Redact(s string) string {
	s = urlPattern.ReplaceAllString(s, "$1://$2/…")
	for _, name := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS"} {
		v := os.Getenv(name)
		if v == "" {
			continue
		}
		s = strings.ReplaceAll(s, v, "…")
		for _, kv := range strings.Split(v, ",") {
			if _, val, ok := strings.Cut(kv, "="); ok && len(strings.TrimSpace(val)) >= 4 {
				s = strings.ReplaceAll(s, strings.TrimSpace(val), "…")
			}
		}
	}
	return s
}

func stopAll(ctx context.Context, stops []func(context.Context) error) error {
	var errs []error
	for _, stop := range stops {
		errs = append(errs, stop(ctx))
	}
	return errors.Join(errs...)
}

// signalOn says whether a signal ("TRACES" or "METRICS") is exported.
func signalOn(signal string) (bool, error) {
	name := "OTEL_" + signal + "_EXPORTER"
	switch v := strings.TrimSpace(os.Getenv(name)); v {
	case "none":
		return false, nil
	case "otlp":
		return true, nil
	case "":
		return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") != "", nil
	default:
		return false, fmt.Errorf("%s=%q: only otlp and none are supported", name, v)
	}
}

// protocol is the OTLP protocol for a signal: its own variable, else the
// general one, else http/protobuf.
func protocol(signal string) (string, error) {
	name := "OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL"
	v := os.Getenv(name)
	if v == "" {
		name = "OTEL_EXPORTER_OTLP_PROTOCOL"
		v = os.Getenv(name)
	}
	switch v {
	case "", "http/protobuf":
		return "http/protobuf", nil
	case "grpc":
		return "grpc", nil
	}
	return "", fmt.Errorf("%s=%q: only http/protobuf and grpc are supported", name, v)
}

func traceExporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	p, err := protocol("TRACES")
	if err != nil {
		return nil, err
	}
	if p == "grpc" {
		return otlptracegrpc.New(ctx)
	}
	return otlptracehttp.New(ctx)
}

func metricExporter(ctx context.Context) (sdkmetric.Exporter, error) {
	p, err := protocol("METRICS")
	if err != nil {
		return nil, err
	}
	if p == "grpc" {
		return otlpmetricgrpc.New(ctx)
	}
	return otlpmetrichttp.New(ctx)
}
