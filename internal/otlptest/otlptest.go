// Package otlptest is an OTLP/HTTP endpoint for tests: it takes what an
// OpenTelemetry exporter sends to /v1/traces and /v1/metrics, decodes it
// with the OpenTelemetry project's own protobuf definitions, and keeps the
// spans and metrics for a test to read. It answers as a collector does:
// 200 with an empty response, 400 for a body it cannot decode.
package otlptest

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Receiver is a running endpoint. Its methods are safe for concurrent use.
type Receiver struct {
	srv *httptest.Server

	mu       sync.Mutex
	spans    []*Span
	metrics  []*metricpb.Metric
	services []string
	refused  []string
}

// Span is a received span with its attributes as strings.
type Span struct {
	*tracepb.Span
	Attrs map[string]string
}

// Start starts a receiver on a loopback port; Close stops it.
func Start() *Receiver {
	r := &Receiver{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", func(w http.ResponseWriter, req *http.Request) {
		var m coltracepb.ExportTraceServiceRequest
		if !r.decode(w, req, &m) {
			return
		}
		r.mu.Lock()
		for _, rs := range m.ResourceSpans {
			r.services = append(r.services, attr(rs.GetResource().GetAttributes(), "service.name"))
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					r.spans = append(r.spans, &Span{Span: s, Attrs: attrs(s.Attributes)})
				}
			}
		}
		r.mu.Unlock()
		r.answer(w, &coltracepb.ExportTraceServiceResponse{})
	})
	mux.HandleFunc("POST /v1/metrics", func(w http.ResponseWriter, req *http.Request) {
		var m colmetricpb.ExportMetricsServiceRequest
		if !r.decode(w, req, &m) {
			return
		}
		r.mu.Lock()
		for _, rm := range m.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				r.metrics = append(r.metrics, sm.Metrics...)
			}
		}
		r.mu.Unlock()
		r.answer(w, &colmetricpb.ExportMetricsServiceResponse{})
	})
	r.srv = httptest.NewServer(mux)
	return r
}

// URL is the endpoint's base, for OTEL_EXPORTER_OTLP_ENDPOINT.
func (r *Receiver) URL() string { return r.srv.URL }

// Close stops the receiver.
func (r *Receiver) Close() { r.srv.Close() }

func (r *Receiver) decode(w http.ResponseWriter, req *http.Request, m proto.Message) bool {
	body := io.Reader(req.Body)
	if req.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(req.Body)
		if err != nil {
			r.refuse(w, fmt.Sprintf("%s: gzip: %v", req.URL.Path, err))
			return false
		}
		body = z
	}
	b, err := io.ReadAll(body)
	if err == nil && req.Header.Get("Content-Type") != "application/x-protobuf" {
		err = fmt.Errorf("content type %q", req.Header.Get("Content-Type"))
	}
	if err == nil {
		err = proto.Unmarshal(b, m)
	}
	if err != nil {
		r.refuse(w, fmt.Sprintf("%s: %v", req.URL.Path, err))
		return false
	}
	return true
}

func (r *Receiver) refuse(w http.ResponseWriter, why string) {
	r.mu.Lock()
	r.refused = append(r.refused, why)
	r.mu.Unlock()
	http.Error(w, why, http.StatusBadRequest)
}

func (r *Receiver) answer(w http.ResponseWriter, m proto.Message) {
	b, _ := proto.Marshal(m)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(b)
}

// Spans are the spans received so far.
func (r *Receiver) Spans() []*Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Span(nil), r.spans...)
}

// Services are the service.name of each batch of spans received.
func (r *Receiver) Services() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.services...)
}

// Refused are the requests the receiver could not decode, and why.
func (r *Receiver) Refused() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.refused...)
}

// Metric is the last export of the named metric, nil before one came.
func (r *Receiver) Metric(name string) *metricpb.Metric {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.metrics) - 1; i >= 0; i-- {
		if r.metrics[i].Name == name {
			return r.metrics[i]
		}
	}
	return nil
}

// Sum is the value of a counter's (or up-down counter's, or gauge's)
// data point whose attributes include want, in its last export; ok is
// false when there is none.
func (r *Receiver) Sum(name string, want map[string]string) (v int64, ok bool) {
	m := r.Metric(name)
	var points []*metricpb.NumberDataPoint
	switch {
	case m == nil:
		return 0, false
	case m.GetSum() != nil:
		points = m.GetSum().DataPoints
	case m.GetGauge() != nil:
		points = m.GetGauge().DataPoints
	}
	for _, p := range points {
		if includes(attrs(p.Attributes), want) {
			return p.GetAsInt(), true
		}
	}
	return 0, false
}

// Count is the number of values a histogram's data point whose
// attributes include want holds, in its last export.
func (r *Receiver) Count(name string, want map[string]string) (uint64, bool) {
	m := r.Metric(name)
	if m == nil || m.GetHistogram() == nil {
		return 0, false
	}
	for _, p := range m.GetHistogram().DataPoints {
		if includes(attrs(p.Attributes), want) {
			return p.Count, true
		}
	}
	return 0, false
}

func includes(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[kv.Key] = valueString(kv.Value)
	}
	return m
}

func attr(kvs []*commonpb.KeyValue, key string) string { return attrs(kvs)[key] }

func valueString(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	}
	return v.String()
}
