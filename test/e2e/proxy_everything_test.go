//go:build unix

package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
			require.FailNow(t, msg+" (CI=true: not skipping)")
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
	b, err := json.Marshal(rs)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "rules.json")
	require.NoError(t, os.WriteFile(file, b, 0o644))
	return file
}

func toolNames(t testing.TB, ph *proxied) map[string]bool {
	t.Helper()
	res, err := ph.ListTools(context.Background(), mcp.ListToolsRequest{})
	require.NoError(t, err)
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
	t.Parallel()
	server := everythingServer(t)
	rulesFile := allowRules(t, "trigger-*")
	person := &human{answer: func(mcp.ElicitationRequest) *mcp.ElicitationResult {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept,
			Content: map[string]any{"name": "Ada Lovelace", "check": true}}}
	}}
	ph := startProxied(t, []string{"--rules", rulesFile}, server, hostOptions{elicit: person})
	require.True(t, toolNames(t, ph)["trigger-elicitation-request"], "the server did not see the host's elicitation capability")
	r := ph.call("trigger-elicitation-request", map[string]any{})
	wantCallOK(t, r)
	require.Contains(t, text(r), "Name: Ada Lovelace", "the server did not get the answer")
	require.Contains(t, text(r), "Agreed to terms: true", "the server did not get the answer")
	qs := person.asked()
	require.Len(t, qs, 1, "the human was asked %+v", qs)
	require.Equal(t, "Please provide inputs for the following fields:", qs[0].Params.Message, "the question")
	schema, err := json.Marshal(qs[0].Params.RequestedSchema)
	require.NoError(t, err)
	require.Contains(t, string(schema), `"legacyTitledEnum"`, "the server's schema did not arrive whole")
	require.Contains(t, string(schema), `"Your full, legal name"`, "the server's schema did not arrive whole")

	plain := startProxied(t, []string{"--rules", rulesFile}, server, hostOptions{})
	names := toolNames(t, plain)
	require.False(t, names["trigger-elicitation-request"], "a host without elicitation: tools %v", names)
	require.True(t, names["echo"], "a host without elicitation: tools %v", names)
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
	t.Parallel()
	s := &sampler{}
	ph := startProxied(t, []string{"--rules", allowRules(t, "trigger-*")}, everythingServer(t), hostOptions{sampling: s})
	r := ph.call("trigger-sampling-request", map[string]any{"prompt": "hello there", "maxTokens": 20})
	wantCallOK(t, r)
	require.Contains(t, text(r), "a sampled answer", "result")
	require.Contains(t, text(r), "test-model", "result")
	s.mu.Lock()
	defer s.mu.Unlock()
	require.Len(t, s.seen, 1, "the host's model saw %q", s.seen)
	require.Contains(t, s.seen[0], "hello there", "what the host's model saw")
}

// TestProxyEverythingPassThrough: resources, resource templates, prompts,
// completions, logging and ping pass through as they would directly (a
// resource read once a rule allows it: its demo: URI is no local path;
// prompts and completions by the default rules); progress notifications of
// a long call arrive; an image result arrives as the server sent it.
func TestProxyEverythingPassThrough(t *testing.T) {
	t.Parallel()
	server := everythingServer(t)
	ph := startProxied(t, []string{"--rules", allowRules(t, "trigger-long-running-operation", "get-tiny-image", "resources/read")}, server, hostOptions{})
	dc := direct(t, server, hostOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	same := func(what string, a, b any, errA, errB error) {
		t.Helper()
		require.NoError(t, errA, "%s through the proxy", what)
		require.NoError(t, errB, "%s direct", what)
		x, err := json.Marshal(a)
		require.NoError(t, err)
		y, err := json.Marshal(b)
		require.NoError(t, err)
		require.Equal(t, string(y), string(x), "%s through the proxy differs from direct", what)
	}
	rp, errP := ph.ListResources(ctx, mcp.ListResourcesRequest{})
	rd, errD := dc.ListResources(ctx, mcp.ListResourcesRequest{})
	same("resources/list", rp, rd, errP, errD)
	require.NotEmpty(t, rp.Resources, "no resources")
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
	require.Equal(t, []string{"Engineering"}, kp.Completion.Values, "completion %+v", kp.Completion)
	require.NoError(t, ph.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelDebug}}), "logging/setLevel")
	require.NoError(t, ph.Ping(ctx), "ping")

	var mu sync.Mutex
	var steps []float64
	ph.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != "notifications/progress" || n.Params.AdditionalFields["progressToken"] != "tok-1" {
			return
		}
		mu.Lock()
		p, ok := n.Params.AdditionalFields["progress"].(float64)
		assert.True(t, ok, "progress %v is not a number", n.Params.AdditionalFields["progress"])
		steps = append(steps, p)
		mu.Unlock()
	})
	var req mcp.CallToolRequest
	req.Params.Name = "trigger-long-running-operation"
	req.Params.Arguments = map[string]any{"duration": 0.4, "steps": 4}
	req.Params.Meta = &mcp.Meta{ProgressToken: "tok-1"}
	r, err := ph.CallTool(ctx, req)
	require.NoError(t, err)
	wantCallOK(t, r)
	mu.Lock()
	assert.Equal(t, []float64{1, 2, 3, 4}, steps, "progress notifications")
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
	require.True(t, found, "no image in %+v", ip.Content)
}

// TestProxyEverythingURLElicitation: a host that can elicit in URL mode
// only gets the server's URL elicitation through the proxy; its permission
// questions, which need a form, get the headless refusal.
func TestProxyEverythingURLElicitation(t *testing.T) {
	t.Parallel()
	person := &human{answer: func(mcp.ElicitationRequest) *mcp.ElicitationResult {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept}}
	}}
	ph := startProxied(t, []string{"--rules", allowRules(t, "trigger-url-elicitation")}, everythingServer(t), hostOptions{elicit: person,
		caps: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{URL: &struct{}{}}}})
	wantCallOK(t, ph.call("trigger-url-elicitation", map[string]any{"url": "https://example.com/consent"}))
	qs := person.asked()
	require.Len(t, qs, 1, "the host was asked %+v", qs)
	require.Equal(t, "url", qs[0].Params.Mode, "the host was asked %+v", qs)
	require.Equal(t, "https://example.com/consent", qs[0].Params.URL, "the host was asked %+v", qs)
	wantCallError(t, ph.call("get-sum", map[string]any{"a": 1, "b": 2}), "Permission required: 'get-sum' needs approval, but")
	require.Len(t, person.asked(), 1, "a permission question went to a host that cannot show a form")
}
