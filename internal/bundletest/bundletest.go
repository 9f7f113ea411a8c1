// Package bundletest is a team's side of OPA's management plane, for
// tests: bundles built with OPA's own bundle writer and signed with OPA's
// signing, and a hub — an HTTP server that serves them, collects decision
// logs and receives status reports, as a team's control plane does.
package bundletest

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
)

// Signer is a team's bundle signing key, and the public half an agent's
// configuration names.
type Signer struct {
	Private, Public string
}

// NewSigner makes an RSA key pair.
func NewSigner(t testing.TB) Signer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	priv := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pub := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	return Signer{Private: string(priv), Public: string(pub)}
}

// Bundle is what a team puts in a bundle.
type Bundle struct {
	Revision string
	Rules    string            // data.mcp.rules, JSON
	Modules  map[string]string // path → Rego
}

// Build writes b as a bundle with OPA's own bundle writer, signed with s
// under key id "team" (as `opa build --signing-key` does) unless s is nil.
func (b Bundle) Build(t testing.TB, s *Signer) []byte {
	t.Helper()
	var rulesData any
	if err := json.Unmarshal([]byte(b.Rules), &rulesData); err != nil {
		t.Fatalf("the test's own rules must be JSON: %v", err)
	}
	bun := bundle.Bundle{
		Manifest: bundle.Manifest{Revision: b.Revision, Roots: &[]string{"mcp"}},
		Data:     map[string]any{"mcp": map[string]any{"rules": rulesData}},
	}
	for path, src := range b.Modules {
		mod, err := ast.ParseModule(path, src)
		if err != nil {
			t.Fatalf("the test's own module must parse: %s: %v", path, err)
		}
		bun.Modules = append(bun.Modules, bundle.ModuleFile{URL: path, Path: path, Raw: []byte(src), Parsed: mod})
	}
	if s != nil {
		if err := bun.GenerateSignature(bundle.NewSigningConfig(s.Private, "RS256", ""), "team", false); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := bundle.NewWriter(&buf).DisableFormat(true).Write(bun); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// AllowUnder is a rules document allowing tool under dir.
func AllowUnder(tool, dir string) string {
	return fmt.Sprintf(`[{"tool":%q,"decision":"allow","under":%q}]`, tool, dir)
}

// Hub is a bundle server (/bundles/team.tar.gz), decision-log collector
// (/logs) and status receiver (/status) in one.
type Hub struct {
	*httptest.Server
	Mu       sync.Mutex
	bundle   []byte        // nil: 404
	Fail     int           // an HTTP status to answer bundle requests with instead, 0 for none
	Hang     time.Duration // how long to hold each bundle request before answering
	Requests []time.Time   // bundle requests
	Batches  [][]map[string]any
	statuses []map[string]any
	LogsDown bool // the collector answers 503
}

// NewHub starts a hub, closed when the test ends.
func NewHub(t testing.TB) *Hub {
	h := &Hub{}
	h.Server = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.Close)
	return h
}

func (h *Hub) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/bundles/team.tar.gz":
		h.Mu.Lock()
		h.Requests = append(h.Requests, time.Now())
		body, fail, hang := h.bundle, h.Fail, h.Hang
		h.Mu.Unlock()
		if hang > 0 {
			select {
			case <-time.After(hang):
			case <-r.Context().Done():
				return
			}
		}
		switch {
		case fail != 0:
			http.Error(w, "failing on purpose", fail)
		case body == nil:
			http.NotFound(w, r)
		default:
			etag := fmt.Sprintf(`"%x-%x"`, len(body), body[len(body)-8:])
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", etag)
			_, _ = w.Write(body)
		}
	case strings.HasPrefix(r.URL.Path, "/logs"):
		h.Mu.Lock()
		down := h.LogsDown
		h.Mu.Unlock()
		if down {
			http.Error(w, "collector down", http.StatusServiceUnavailable)
			return
		}
		events := gunzipJSON[[]map[string]any](r)
		h.Mu.Lock()
		h.Batches = append(h.Batches, events)
		h.Mu.Unlock()
	case strings.HasPrefix(r.URL.Path, "/status"):
		var s map[string]any
		_ = json.NewDecoder(r.Body).Decode(&s)
		h.Mu.Lock()
		h.statuses = append(h.statuses, s)
		h.Mu.Unlock()
	default:
		http.NotFound(w, r)
	}
}

// gunzipJSON decodes a gzipped JSON body; the zero value when it is not
// gzipped JSON (which a test then notices as missing events).
func gunzipJSON[T any](r *http.Request) T {
	var v T
	if r.Header.Get("Content-Encoding") != "gzip" {
		return v
	}
	z, err := gzip.NewReader(r.Body)
	if err != nil {
		return v
	}
	data, _ := io.ReadAll(z)
	_ = json.Unmarshal(data, &v)
	return v
}

// Serve makes b the bundle served, and the server healthy again.
func (h *Hub) Serve(b []byte) {
	h.Mu.Lock()
	h.bundle, h.Fail, h.Hang = b, 0, 0
	h.Mu.Unlock()
}

// RequestCount is how many bundle requests the hub has had.
func (h *Hub) RequestCount() int {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	return len(h.Requests)
}

// Events are the decision-log events collected, in order.
func (h *Hub) Events() []map[string]any {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	var out []map[string]any
	for _, b := range h.Batches {
		out = append(out, b...)
	}
	return out
}

// LastStatus is the last status report received; nil before any.
func (h *Hub) LastStatus() map[string]any {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	if len(h.statuses) == 0 {
		return nil
	}
	return h.statuses[len(h.statuses)-1]
}

// Config is an agent's OPA configuration for h: the team's bundle,
// signature required with s's key, polled every 1–2 s; extra is appended
// (LogsAndStatus, say).
func (h *Hub) Config(s Signer, extra string) []byte {
	pub, _ := json.Marshal(s.Public)
	return []byte(fmt.Sprintf(`
services:
  hub:
    url: %s
    response_header_timeout_seconds: 1
labels:
  team: platform
bundles:
  team:
    service: hub
    resource: bundles/team.tar.gz
    polling:
      min_delay_seconds: 1
      max_delay_seconds: 2
    signing:
      keyid: team
keys:
  team:
    algorithm: RS256
    key: %s
%s`, h.URL, pub, extra))
}

// LogsAndStatus sends decision logs (uploaded every second) and status to
// the hub.
const LogsAndStatus = `
decision_logs:
  service: hub
  reporting:
    min_delay_seconds: 1
    max_delay_seconds: 1
status:
  service: hub
`
