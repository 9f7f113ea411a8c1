//go:build unix

package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// npmEntry returns node and an npm package's entry point under test/npm,
// or skips the test — except under CI (CI=true), where a missing package
// fails it.
func npmEntry(t testing.TB, rel string) (node, entry string) {
	t.Helper()
	missing := func(format string, a ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, a...) + "; install it with: npm ci --prefix test/npm"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " (CI=true: not skipping)")
		}
		t.Skip(msg)
	}
	entry = filepath.Join(modRoot, "test", "npm", "node_modules", filepath.FromSlash(rel))
	if _, err := os.Stat(entry); err != nil {
		missing("%v", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node: %v", err)
	}
	return node, entry
}

// everythingServer is @modelcontextprotocol/server-everything over stdio.
func everythingServer(t testing.TB) []string {
	node, entry := npmEntry(t, "@modelcontextprotocol/server-everything/dist/index.js")
	return []string{node, entry, "stdio"}
}

// allowRules writes a rules file allowing the tools named by the globs.
func allowRules(t testing.TB, globs ...string) string {
	t.Helper()
	var rs []map[string]string
	for _, g := range globs {
		rs = append(rs, map[string]string{"tool": g, "decision": "allow"})
	}
	b, _ := json.Marshal(rs)
	file := filepath.Join(t.TempDir(), "rules.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func toolNames(t testing.TB, ph *proxied) map[string]bool {
	t.Helper()
	res, err := ph.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, tl := range res.Tools {
		out[tl.Name] = true
	}
	return out
}

// TestProxyEverythingElicitation: the server's own elicitation reaches the
// human through the proxy (through the policy's elicit hook), and the
// answer reaches the server. The server offers its elicitation tool only to
// a host that declared elicitation: the proxy passed the host's
// capabilities on, and invents none for a host without.
func TestProxyEverythingElicitation(t *testing.T) {
	server := everythingServer(t)
	rulesFile := allowRules(t, "trigger-*")
	person := &human{answer: func(mcp.ElicitationRequest) *mcp.ElicitationResult {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept,
			Content: map[string]any{"name": "Ada Lovelace", "check": true}}}
	}}
	ph := startProxied(t, []string{"--rules", rulesFile}, server, hostOptions{elicit: person})
	if !toolNames(t, ph)["trigger-elicitation-request"] {
		t.Fatal("the server did not see the host's elicitation capability")
	}
	r := ph.call("trigger-elicitation-request", map[string]any{})
	wantCallOK(t, r)
	if !strings.Contains(text(r), "Name: Ada Lovelace") || !strings.Contains(text(r), "Agreed to terms: true") {
		t.Fatalf("the server did not get the answer: %s", text(r))
	}
	qs := person.asked()
	if len(qs) != 1 || qs[0].Params.Message != "Please provide inputs for the following fields:" {
		t.Fatalf("the human was asked %+v", qs)
	}
	schema, _ := json.Marshal(qs[0].Params.RequestedSchema)
	if !strings.Contains(string(schema), `"legacyTitledEnum"`) || !strings.Contains(string(schema), `"Your full, legal name"`) {
		t.Fatalf("the server's schema did not arrive whole: %s", schema)
	}

	plain := startProxied(t, []string{"--rules", rulesFile}, server, hostOptions{})
	if names := toolNames(t, plain); names["trigger-elicitation-request"] || !names["echo"] {
		t.Fatalf("a host without elicitation: tools %v", names)
	}
}

// sampler is a host's sampling handler.
type sampler struct {
	mu   sync.Mutex
	seen []string
}

func (s *sampler) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	s.mu.Lock()
	for _, m := range req.Messages {
		if tc, ok := mcp.AsTextContent(m.Content); ok {
			s.seen = append(s.seen, tc.Text)
		}
	}
	s.mu.Unlock()
	return &mcp.CreateMessageResult{Model: "test-model", StopReason: "endTurn",
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("a sampled answer")}}, nil
}

// TestProxyEverythingSampling: the server's sampling request reaches the
// host's model through the proxy and the completion reaches the server.
func TestProxyEverythingSampling(t *testing.T) {
	s := &sampler{}
	ph := startProxied(t, []string{"--rules", allowRules(t, "trigger-*")}, everythingServer(t), hostOptions{sampling: s})
	r := ph.call("trigger-sampling-request", map[string]any{"prompt": "hello there", "maxTokens": 20})
	wantCallOK(t, r)
	if !strings.Contains(text(r), "a sampled answer") || !strings.Contains(text(r), "test-model") {
		t.Fatalf("result %s", text(r))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) != 1 || !strings.Contains(s.seen[0], "hello there") {
		t.Fatalf("the host's model saw %q", s.seen)
	}
}

// TestProxyEverythingPassThrough: resources, resource templates, prompts,
// completions, logging and ping pass through as they would directly; progress
// notifications of a long call arrive; an image result arrives as the
// server sent it.
func TestProxyEverythingPassThrough(t *testing.T) {
	server := everythingServer(t)
	ph := startProxied(t, []string{"--rules", allowRules(t, "trigger-long-running-operation", "get-tiny-image")}, server, hostOptions{})
	dc := direct(t, server, hostOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	same := func(what string, a, b any, errA, errB error) {
		t.Helper()
		if errA != nil || errB != nil {
			t.Fatalf("%s: proxy %v, direct %v", what, errA, errB)
		}
		x, _ := json.Marshal(a)
		y, _ := json.Marshal(b)
		if string(x) != string(y) {
			t.Fatalf("%s through the proxy differs:\nproxy:  %.400s\ndirect: %.400s", what, x, y)
		}
	}
	rp, errP := ph.ListResources(ctx, mcp.ListResourcesRequest{})
	rd, errD := dc.ListResources(ctx, mcp.ListResourcesRequest{})
	same("resources/list", rp, rd, errP, errD)
	if len(rp.Resources) == 0 {
		t.Fatal("no resources")
	}
	var read mcp.ReadResourceRequest
	read.Params.URI = rp.Resources[0].URI
	cp, errP := ph.ReadResource(ctx, read)
	cd, errD := dc.ReadResource(ctx, read)
	same("resources/read", cp, cd, errP, errD)
	tp, errP := ph.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	td, errD := dc.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	same("resources/templates/list", tp, td, errP, errD)
	pp, errP := ph.ListPrompts(ctx, mcp.ListPromptsRequest{})
	pd, errD := dc.ListPrompts(ctx, mcp.ListPromptsRequest{})
	same("prompts/list", pp, pd, errP, errD)
	var get mcp.GetPromptRequest
	get.Params.Name = "simple-prompt"
	gp, errP := ph.GetPrompt(ctx, get)
	gd, errD := dc.GetPrompt(ctx, get)
	same("prompts/get", gp, gd, errP, errD)
	var complete mcp.CompleteRequest
	complete.Params.Ref = mcp.PromptReference{Type: "ref/prompt", Name: "completable-prompt"}
	complete.Params.Argument = mcp.CompleteArgument{Name: "department", Value: "E"}
	kp, errP := ph.Complete(ctx, complete)
	kd, errD := dc.Complete(ctx, complete)
	same("completion/complete", kp, kd, errP, errD)
	if len(kp.Completion.Values) != 1 || kp.Completion.Values[0] != "Engineering" {
		t.Fatalf("completion %+v", kp.Completion)
	}
	if err := ph.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelDebug}}); err != nil {
		t.Fatalf("logging/setLevel: %v", err)
	}
	if err := ph.Ping(ctx); err != nil {
		t.Fatalf("ping: %v", err)
	}

	var mu sync.Mutex
	var steps []float64
	ph.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != "notifications/progress" || n.Params.AdditionalFields["progressToken"] != "tok-1" {
			return
		}
		mu.Lock()
		steps = append(steps, n.Params.AdditionalFields["progress"].(float64))
		mu.Unlock()
	})
	var req mcp.CallToolRequest
	req.Params.Name = "trigger-long-running-operation"
	req.Params.Arguments = map[string]any{"duration": 0.4, "steps": 4}
	req.Params.Meta = &mcp.Meta{ProgressToken: "tok-1"}
	r, err := ph.CallTool(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	wantCallOK(t, r)
	mu.Lock()
	if !reflect.DeepEqual(steps, []float64{1, 2, 3, 4}) {
		t.Errorf("progress notifications %v", steps)
	}
	mu.Unlock()

	var img mcp.CallToolRequest
	img.Params.Name = "get-tiny-image"
	ip, errP := ph.CallTool(ctx, img)
	id, errD := dc.CallTool(ctx, img)
	same("get-tiny-image", ip, id, errP, errD)
	found := false
	for _, c := range ip.Content {
		if ic, ok := c.(mcp.ImageContent); ok && ic.MIMEType == "image/png" && len(ic.Data) > 100 {
			found = true
		}
	}
	if !found {
		t.Fatalf("no image in %+v", ip.Content)
	}
}

// TestProxyEverythingURLElicitation: a host that can elicit in URL mode
// only gets the server's URL elicitation through the proxy; its permission
// questions, which need a form, get the headless refusal.
func TestProxyEverythingURLElicitation(t *testing.T) {
	person := &human{answer: func(mcp.ElicitationRequest) *mcp.ElicitationResult {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept}}
	}}
	ph := startProxied(t, []string{"--rules", allowRules(t, "trigger-url-elicitation")}, everythingServer(t), hostOptions{elicit: person,
		caps: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{URL: &struct{}{}}}})
	wantCallOK(t, ph.call("trigger-url-elicitation", map[string]any{"url": "https://example.com/consent"}))
	qs := person.asked()
	if len(qs) != 1 || qs[0].Params.Mode != "url" || qs[0].Params.URL != "https://example.com/consent" {
		t.Fatalf("the host was asked %+v", qs)
	}
	wantCallError(t, ph.call("get-sum", map[string]any{"a": 1, "b": 2}), "Permission required: 'get-sum' needs approval, but")
	if len(person.asked()) != 1 {
		t.Fatal("a permission question went to a host that cannot show a form")
	}
}
