//go:build unix

package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-policy/mcp-policy/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The proxy decides resources/read, prompts/get and completion/complete as
// it decides tools/call, as calls to tools named by the method; these tests
// run them against the official server-everything, which serves all three.

// lineHost speaks JSON-RPC over a process's pipes and keeps every line it
// reads as bytes, to compare what reaches a host through the proxy with
// what the server sends straight.
type lineHost struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan []byte
	err   *testkit.SyncBuffer
}

func startLineHost(t *testing.T, argv []string) *lineHost {
	t.Helper()
	h := &lineHost{t: t, cmd: exec.Command(argv[0], argv[1:]...), lines: make(chan []byte, 100), err: &testkit.SyncBuffer{}}
	h.cmd.Stderr = h.err
	var err error
	h.in, err = h.cmd.StdinPipe()
	require.NoError(t, err)
	out, err := h.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, h.cmd.Start())
	go func() {
		r := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				h.lines <- line
			}
			if err != nil {
				close(h.lines)
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = h.in.Close()
		done := make(chan struct{})
		go func() { _ = h.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = h.cmd.Process.Kill()
		}
		assert.NotContains(t, h.err.String(), "DATA RACE", "the proxy raced")
	})
	return h
}

func (h *lineHost) send(line string) {
	h.t.Helper()
	_, err := io.WriteString(h.in, line+"\n")
	require.NoError(h.t, err)
}

// reply is the line answering id (raw JSON, as sent), skipping the rest.
func (h *lineHost) reply(id string) []byte {
	h.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-h.lines:
			require.True(h.t, ok, "stdout closed\n%s", h.err)
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(line, &m) == nil && m.Method == "" && string(m.ID) == id {
				return line
			}
		case <-deadline:
			require.FailNowf(h.t, "no answer", "to id %s\n%s", id, h.err)
		}
	}
}

func (h *lineHost) initialize() {
	h.t.Helper()
	h.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"lines","version":"1"}}}`)
	h.reply(`0`)
	h.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// rpcError is the error of a JSON-RPC response line, nil for a result.
func rpcError(t *testing.T, line []byte) *struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
} {
	t.Helper()
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(line, &m), "%s", line)
	return m.Error
}

func writeRules(t *testing.T, rules string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "rules.json")
	require.NoError(t, os.WriteFile(file, []byte(rules), 0o644))
	return file
}

// firstResource is the URI of the first resource server-everything lists.
func firstResource(t *testing.T, h *lineHost) string {
	t.Helper()
	h.send(`{"jsonrpc":"2.0","id":"list","method":"resources/list","params":{}}`)
	var res struct {
		Result struct {
			Resources []struct {
				URI string `json:"uri"`
			} `json:"resources"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(h.reply(`"list"`), &res))
	require.NotEmpty(t, res.Result.Resources, "no resources")
	return res.Result.Resources[0].URI
}

// TestProxyResourcesReadAllowedAndDenied: a resource read a rule allows
// reaches the host as the server wrote it, byte for byte, its id and the
// progress token in _meta untouched; resources/list passes through
// undecided, byte for byte, whatever the rules say of resources/read. A
// deny rule refuses the read with a JSON-RPC error naming the policy and
// the rule, and logs the decision. A file: URI is a path: a deny under a
// directory refuses a read in it, and the default rules pass a read
// elsewhere to the server (which has no such resource).
func TestProxyResourcesReadAllowedAndDenied(t *testing.T) {
	t.Parallel()
	server := everythingServer(t)
	straight := startLineHost(t, server)
	straight.initialize()
	uri := firstResource(t, straight)
	read := `{"jsonrpc":"2.0","id":"r-1","method":"resources/read","params":{"uri":` + quoteJSON(t, uri) + `,"_meta":{"progressToken":"p-1"}}}`
	straight.send(read)
	want := straight.reply(`"r-1"`)
	require.Nil(t, rpcError(t, want), "direct: %s", want)
	straight.send(`{"jsonrpc":"2.0","id":"list","method":"resources/list","params":{}}`)
	wantList := straight.reply(`"list"`)

	allowed := startLineHost(t, append([]string{proxyBinary(t), "proxy", "--rules", allowRules(t, "resources/read"), "--"}, server...))
	allowed.initialize()
	allowed.send(read)
	require.Equal(t, string(want), string(allowed.reply(`"r-1"`)), "an allowed resources/read through the proxy, against direct")
	allowed.send(`{"jsonrpc":"2.0","id":"list","method":"resources/list","params":{}}`)
	require.Equal(t, string(wantList), string(allowed.reply(`"list"`)), "resources/list through the proxy, against direct")

	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	logFile := filepath.Join(t.TempDir(), "decisions.jsonl")
	rules := writeRules(t, `[{"tool":"resources/read","decision":"deny","under":"`+dir+`","message":"not that directory"},
		{"tool":"resources/read","decision":"deny","host":"*.example","message":"no resources from there"}]`)
	denied := startLineHost(t, append([]string{proxyBinary(t), "proxy", "--rules", rules, "--log", logFile, "--"}, server...))
	denied.initialize()
	denied.send(`{"jsonrpc":"2.0","id":"list","method":"resources/list","params":{}}`)
	require.Equal(t, string(wantList), string(denied.reply(`"list"`)), "resources/list beside a deny on resources/read")

	denied.send(`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"file://` + dir + `/secret.txt","_meta":{"progressToken":1}}}`)
	line := denied.reply(`7`)
	e := rpcError(t, line)
	require.NotNil(t, e, "a denied read: %s", line)
	assert.Equal(t, -32010, e.Code, "a denied read: %s", line)
	assert.Contains(t, e.Message, "Denied by mcp-policy: 'resources/read' is not allowed by rule", "a denied read")
	assert.Contains(t, e.Message, `"under":"`+dir+`"`, "a denied read names its rule")
	assert.Contains(t, e.Message, "not that directory", "a denied read carries the rule's message")

	denied.send(`{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"https://data.example/x"}}`)
	e = rpcError(t, denied.reply(`8`))
	require.NotNil(t, e, "a read from a denied host")
	assert.Contains(t, e.Message, "no resources from there", "a read from a denied host")

	// Elsewhere a file: URI is a local read, allowed by the default rule:
	// the server answers it (it serves no such resource).
	denied.send(`{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"file:///nowhere-in-particular/x.txt"}}`)
	e = rpcError(t, denied.reply(`9`))
	require.NotNil(t, e, "the server has no such resource")
	assert.NotEqual(t, -32010, e.Code, "a read outside the denied directory was refused: %s", e.Message)
	assert.Contains(t, e.Message, "not found", "a read outside the denied directory was refused")

	// Its params are read one way: a uri twice, in two cases, is refused.
	denied.send(`{"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"uri":"file:///tmp/x","URI":"file://` + dir + `/secret.txt"}}`)
	e = rpcError(t, denied.reply(`10`))
	require.NotNil(t, e, "an ambiguous read")
	assert.Equal(t, -32602, e.Code, "an ambiguous read: %s", e.Message)

	es := logLines(t, logFile)
	require.Len(t, es, 3, "log lines: %v", es)
	in := jsonObject(t, es[0]["input"], "input")
	assert.Equal(t, "resources/read", in["tool"], "log %v", es[0])
	assert.Equal(t, "file://"+dir+"/secret.txt", jsonObject(t, in["arguments"], "arguments")["uri"], "log %v", es[0])
	assert.Nil(t, jsonObject(t, in["arguments"], "arguments")["_meta"], "_meta is no argument: log %v", es[0])
	assert.Equal(t, "deny", jsonObject(t, es[0]["result"], "result")["decision"], "log %v", es[0])
	assert.Equal(t, false, es[0]["allowed"], "log %v", es[0])
	assert.Equal(t, "allow", jsonObject(t, es[2]["result"], "result")["decision"], "log %v", es[2])
	assert.Equal(t, true, es[2]["allowed"], "log %v", es[2])
}

// TestProxyPromptsAndCompletionsDecided: prompts/get and completion/complete
// are allowed by the default rules, and answered as the server answers
// them; a rule denies them with the same JSON-RPC error.
func TestProxyPromptsAndCompletionsDecided(t *testing.T) {
	t.Parallel()
	server := everythingServer(t)
	get := `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"simple-prompt"}}`
	complete := `{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"completable-prompt"},"argument":{"name":"department","value":"E"}}}`
	straight := startLineHost(t, server)
	straight.initialize()
	straight.send(get)
	wantGet := straight.reply(`1`)
	straight.send(complete)
	wantComplete := straight.reply(`2`)
	require.Nil(t, rpcError(t, wantGet), "%s", wantGet)
	require.Nil(t, rpcError(t, wantComplete), "%s", wantComplete)

	ph := startLineHost(t, append([]string{proxyBinary(t), "proxy", "--"}, server...))
	ph.initialize()
	ph.send(get)
	assert.Equal(t, string(wantGet), string(ph.reply(`1`)), "prompts/get by the default rules")
	ph.send(complete)
	assert.Equal(t, string(wantComplete), string(ph.reply(`2`)), "completion/complete by the default rules")

	rules := writeRules(t, `[{"tool":"prompts/get","decision":"deny","message":"no prompts"},{"tool":"completion/*","decision":"deny"}]`)
	ph = startLineHost(t, append([]string{proxyBinary(t), "proxy", "--rules", rules, "--"}, server...))
	ph.initialize()
	ph.send(get)
	e := rpcError(t, ph.reply(`1`))
	require.NotNil(t, e, "a denied prompts/get")
	assert.Equal(t, -32010, e.Code)
	assert.Contains(t, e.Message, "Denied by mcp-policy: 'prompts/get' is not allowed by rule")
	assert.Contains(t, e.Message, "no prompts")
	ph.send(complete)
	e = rpcError(t, ph.reply(`2`))
	require.NotNil(t, e, "a denied completion/complete")
	assert.Contains(t, e.Message, `'completion/complete' is not allowed by rule {"tool":"completion/*","decision":"deny"}`)
	// A tool cannot be called by a request's name.
	ph.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"resources/read","arguments":{"uri":"file:///etc/hosts"}}}`)
	e = rpcError(t, ph.reply(`3`))
	require.NotNil(t, e, "a tools/call named resources/read")
	assert.Equal(t, -32602, e.Code)
}

// TestProxyResourcesReadAsked: a resource read no rule covers (a demo: URI
// is no local path) is asked through the host's elicitation, as a
// tools/call is. Deny once refuses it; always allow reads it and writes
// the grant, which then answers every resource read without a question.
// resources/list, prompts/get and completions ask nothing.
func TestProxyResourcesReadAsked(t *testing.T) {
	t.Parallel()
	server := everythingServer(t)
	grantsFile := filepath.Join(t.TempDir(), "grants.json")
	logFile := filepath.Join(t.TempDir(), "decisions.jsonl")
	person := &human{answer: choose("deny-once")}
	ph := startProxied(t, []string{"--grants", grantsFile, "--log", logFile}, server, hostOptions{elicit: person})
	dc := direct(t, server, hostOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	list, err := ph.ListResources(ctx, mcp.ListResourcesRequest{})
	require.NoError(t, err, "resources/list")
	require.GreaterOrEqual(t, len(list.Resources), 2, "resources")
	require.Empty(t, person.asked(), "resources/list asked")
	var read mcp.ReadResourceRequest
	read.Params.URI = list.Resources[0].URI

	progress(t, "deny once")
	_, err = ph.ReadResource(ctx, read)
	require.Error(t, err, "a declined resource read")
	assert.Contains(t, err.Error(), "The user declined 'resources/read' this time", "a declined resource read")
	qs := person.asked()
	require.Len(t, qs, 1, "questions")
	// A resource URI's authority is the host it names (demo://resource/...):
	// "always" is offered for that host, as for any URL.
	for _, want := range []string{"resources/read", read.Params.URI, "Always allow resources/read on resource"} {
		assert.Contains(t, qs[0].Params.Message+titles(t, qs[0]), want, "the question")
	}

	progress(t, "always allow")
	person.mu.Lock()
	person.answer = choose("always-allow")
	person.mu.Unlock()
	got, err := ph.ReadResource(ctx, read)
	require.NoError(t, err, "an allowed resource read")
	straight, err := dc.ReadResource(ctx, read)
	require.NoError(t, err)
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(straight)
	assert.Equal(t, string(b), string(a), "the read through the proxy, against direct")
	require.Len(t, person.asked(), 2, "questions")
	grants, err := os.ReadFile(grantsFile)
	require.NoError(t, err)
	assert.Contains(t, string(grants), `"tool": "resources/read"`, "the grant")

	progress(t, "the grant answers")
	read.Params.URI = list.Resources[1].URI
	_, err = ph.ReadResource(ctx, read)
	require.NoError(t, err, "a read the grant allows")
	var get mcp.GetPromptRequest
	get.Params.Name = "simple-prompt"
	_, err = ph.GetPrompt(ctx, get)
	require.NoError(t, err, "prompts/get")
	assert.Len(t, person.asked(), 2, "the grant, and the default rules, answer without a question")

	es := logLines(t, logFile)
	require.Len(t, es, 4, "log lines")
	assert.Equal(t, "deny-once", jsonObject(t, es[0]["answer"], "answer")["action"], "log %v", es[0])
	assert.Equal(t, "always-allow", jsonObject(t, es[1]["answer"], "answer")["action"], "log %v", es[1])
	assert.Equal(t, "grant", jsonObject(t, es[2]["result"], "result")["reason"], "log %v", es[2])
	assert.Equal(t, "prompts/get", jsonObject(t, es[3]["input"], "input")["tool"], "log %v", es[3])
}

// TestProxyResourcesReadAskedInARound: on protocol 2026-07-28 the question
// about a resource read rides an input-required round on the read itself,
// as it does on a tools/call, and the retry answering it gets the
// server's answer.
func TestProxyResourcesReadAskedInARound(t *testing.T) {
	t.Parallel()
	h := startRaw(t, nil, everythingServer(t), nil)
	h.initialize(map[string]any{})
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}},
	}
	h.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "resources/list", "params": map[string]any{}})
	resources := jsonObject(t, h.response(1, 20*time.Second)["result"], "result")["resources"].([]any)
	uri := jsonObject(t, resources[0], "resource")["uri"]
	params := func(extra map[string]any) map[string]any {
		p := map[string]any{"uri": uri, "_meta": meta}
		for k, v := range extra {
			p[k] = v
		}
		return p
	}
	h.send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": params(nil)})
	res := jsonObject(t, h.response(2, 20*time.Second)["result"], "result")
	require.Equal(t, "input_required", res["resultType"], "want a round, got %v", res)
	state, _ := res["requestState"].(string)
	var key string
	for k, v := range jsonObject(t, res["inputRequests"], "inputRequests") {
		key = k
		msg := jsonObject(t, jsonObject(t, v, "input request")["params"], "params")["message"]
		assert.Contains(t, msg, "resources/read", "the question")
	}
	answer := map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"answer": "allow-once"}}}
	h.send(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "resources/read",
		"params": params(map[string]any{"requestState": state, "inputResponses": answer})})
	got := h.response(3, 20*time.Second)
	require.Nil(t, got["error"], "after the answer: %v", got)
	contents := jsonObject(t, got["result"], "result")["contents"]
	require.NotEmpty(t, contents, "after the answer: %v", got)
}

func quoteJSON(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	require.NoError(t, err)
	return string(b)
}

// titles are the titles of a permission question's choices, a line each.
func titles(t *testing.T, req mcp.ElicitationRequest) string {
	_, ts := permissionChoices(t, req)
	return strings.Join(ts, "\n")
}
