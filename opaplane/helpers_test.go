package opaplane_test

import (
	"bytes"
	"compress/gzip"
	"context"
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
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/opaplane"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// signer is a team's bundle signing key, and the public half an agent's
// configuration names.
type signer struct {
	private, public string
}

func newSigner(t testing.TB) signer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	priv := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	require.NoError(t, err)
	pub := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	return signer{private: string(priv), public: string(pub)}
}

// teamBundle is what a team puts in a bundle.
type teamBundle struct {
	revision string
	rules    string            // data.mcp.rules, JSON
	modules  map[string]string // path → Rego
}

// build writes b as a bundle with OPA's own bundle writer, signed with s
// (as `opa build --signing-key` does) unless s is nil.
func (b teamBundle) build(t testing.TB, s *signer) []byte {
	t.Helper()
	var rulesData any
	require.NoError(t, json.Unmarshal([]byte(b.rules), &rulesData))
	bun := bundle.Bundle{
		Manifest: bundle.Manifest{Revision: b.revision, Roots: &[]string{"mcp"}},
		Data:     map[string]any{"mcp": map[string]any{"rules": rulesData}},
	}
	for path, src := range b.modules {
		mod, err := ast.ParseModule(path, src)
		require.NoError(t, err, "the test's own module must parse: %s", path)
		bun.Modules = append(bun.Modules, bundle.ModuleFile{URL: path, Path: path, Raw: []byte(src), Parsed: mod})
	}
	if s != nil {
		require.NoError(t, bun.GenerateSignature(bundle.NewSigningConfig(s.private, "RS256", ""), "team", false))
	}
	var buf bytes.Buffer
	require.NoError(t, bundle.NewWriter(&buf).DisableFormat(true).Write(bun))
	return buf.Bytes()
}

// hub is a bundle server, decision-log collector and status receiver in
// one, as a team's control plane is.
type hub struct {
	*httptest.Server
	mu       sync.Mutex
	bundle   []byte        // served at /bundles/team.tar.gz; nil: 404
	fail     int           // an HTTP status to answer bundle requests with instead, 0 for none
	hang     time.Duration // how long to hold each bundle request before answering
	requests []time.Time   // bundle requests
	batches  [][]map[string]any
	statuses []map[string]any
	logsDown bool
}

func newHub(t testing.TB) *hub {
	h := &hub{}
	h.Server = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.Close)
	return h
}

func (h *hub) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/bundles/team.tar.gz":
		h.mu.Lock()
		h.requests = append(h.requests, time.Now())
		body, fail, hang := h.bundle, h.fail, h.hang
		h.mu.Unlock()
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
			etag := fmt.Sprintf(`"%x"`, len(body)) + fmt.Sprintf(`"%x"`, body[len(body)-8:])
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", etag)
			_, _ = w.Write(body)
		}
	case strings.HasPrefix(r.URL.Path, "/logs"):
		h.mu.Lock()
		down := h.logsDown
		h.mu.Unlock()
		if down {
			http.Error(w, "collector down", http.StatusServiceUnavailable)
			return
		}
		events := gunzipJSON[[]map[string]any](r)
		h.mu.Lock()
		h.batches = append(h.batches, events)
		h.mu.Unlock()
	case strings.HasPrefix(r.URL.Path, "/status"):
		var s map[string]any
		_ = json.NewDecoder(r.Body).Decode(&s)
		h.mu.Lock()
		h.statuses = append(h.statuses, s)
		h.mu.Unlock()
	default:
		http.NotFound(w, r)
	}
}

// gunzipJSON decodes a gzipped JSON body; the zero value when it is not
// gzipped JSON (which the test then notices as missing events).
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

func (h *hub) serveBundle(b []byte) {
	h.mu.Lock()
	h.bundle, h.fail, h.hang = b, 0, 0
	h.mu.Unlock()
}

func (h *hub) events() []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []map[string]any
	for _, b := range h.batches {
		out = append(out, b...)
	}
	return out
}

func (h *hub) lastStatus() map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.statuses) == 0 {
		return nil
	}
	return h.statuses[len(h.statuses)-1]
}

// config is an agent's OPA configuration for h: the team's signed bundle
// polled every second, decisions and status reported to h.
func (h *hub) config(s signer, extra string) []byte {
	pub, _ := json.Marshal(s.public)
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

const logsAndStatus = `
decision_logs:
  service: hub
  reporting:
    min_delay_seconds: 1
    max_delay_seconds: 1
status:
  service: hub
`

func startPlane(t testing.TB, config []byte, stderr io.Writer) *opaplane.Plane {
	t.Helper()
	if stderr == nil {
		stderr = io.Discard
	}
	plane, err := opaplane.New(context.Background(), opaplane.Options{Config: config, Stderr: stderr})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		plane.Stop(ctx)
	})
	return plane
}

// files is a provider with a file-writing tool: what the policy decides
// over.
type files struct {
	mu  sync.Mutex
	ran []string
}

func (*files) ToolsForLLM(context.Context) ([]provider.Tool, error) {
	no := false
	return []provider.Tool{{Type: "function", Function: provider.ToolFunction{Name: "fs_write", Parameters: json.RawMessage(`{"type":"object"}`)},
		Annotations: &provider.Annotations{ReadOnlyHint: &no}}}, nil
}

func (f *files) ExecuteToolCalls(_ context.Context, calls []provider.Call) []provider.Result {
	out := make([]provider.Result, len(calls))
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, c := range calls {
		f.ran = append(f.ran, c.Function.Arguments)
		out[i] = provider.TextResult(c.ID, "written")
	}
	return out
}

func write(path string) provider.Call {
	return provider.Call{ID: "c1", Type: "function", Function: provider.CallFunction{Name: "fs_write",
		Arguments: fmt.Sprintf(`{"path":%q,"content":"the secret text"}`, path)}}
}

// allowUnder is a rules document allowing fs_write under dir.
func allowUnder(dir string) string {
	return fmt.Sprintf(`[{"tool":"fs_write","decision":"allow","under":%q}]`, dir)
}

// eventually polls cond until it holds or d passes.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool, show ...func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			var seen []string
			for _, f := range show {
				seen = append(seen, f())
			}
			t.Fatalf("after %v: %s %s", d, what, strings.Join(seen, "\n"))
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// headless is a policy over files whose rules come from plane, decisions
// to plane's log.
func headless(t testing.TB, plane *opaplane.Plane, f *files) *policy.Policy {
	t.Helper()
	p, err := policy.New(policy.Options{Provider: f, Source: plane, OnDecision: plane.Log, Name: "mcp-policy"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p
}
