//go:build unix

package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/policy/rules"
)

// officialFSServer is the command line of the official filesystem server
// sandboxed to a fresh directory (symlinks resolved: the server reports
// real paths and the policy compares lexically).
func officialFSServer(t *testing.T) (server []string, dir string) {
	t.Helper()
	node, entry := needOfficialFS(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return []string{node, entry, dir}, dir
}

// TestProxyFilesystemTransparent: through the proxy the host sees the
// official server exactly as it would directly: the same initialize
// answer, the same tools (annotations, schemas, output schemas), the same
// result of an allowed read, byte for byte where the proxy forwards.
func TestProxyFilesystemTransparent(t *testing.T) {
	server, dir := officialFSServer(t)
	mkfile(t, dir, "hello.txt", "hello, world\n")
	logFile := filepath.Join(t.TempDir(), "decisions.jsonl")
	ph := startProxied(t, []string{"--log", logFile}, server, hostOptions{})
	dc := direct(t, server, hostOptions{})

	ctx := context.Background()
	viaProxy, err := ph.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	straight, err := dc.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(viaProxy)
	b, _ := json.Marshal(straight)
	if string(a) != string(b) {
		t.Fatalf("tools/list through the proxy differs from direct:\nproxy:  %.600s\ndirect: %.600s", a, b)
	}
	names := map[string]mcp.Tool{}
	for _, tl := range viaProxy.Tools {
		names[tl.Name] = tl
	}
	if tl, ok := names["read_text_file"]; !ok || tl.Annotations.ReadOnlyHint == nil || !*tl.Annotations.ReadOnlyHint || tl.OutputSchema.Type == "" {
		t.Fatalf("read_text_file through the proxy: %+v", tl)
	}

	args := map[string]any{"path": filepath.Join(dir, "hello.txt")}
	r := ph.call("read_text_file", args)
	wantCallOK(t, r)
	var req mcp.CallToolRequest
	req.Params.Name, req.Params.Arguments = "read_text_file", args
	d, err := dc.CallTool(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r, d) || text(r) != "hello, world\n" {
		t.Fatalf("read through the proxy %+v, direct %+v", r, d)
	}

	// One decision logged, in OPA's shape, allowed by the default rule.
	es := logLines(t, logFile)
	if len(es) != 1 {
		t.Fatalf("%d log lines", len(es))
	}
	if res := es[0]["result"].(map[string]any); res["decision"] != "allow" || es[0]["allowed"] != true ||
		es[0]["input"].(map[string]any)["tool"] != "read_text_file" || es[0]["path"] != "mcp/engine/decision" {
		t.Fatalf("log %v", es[0])
	}
	if code := ph.exitCode(); code != 0 {
		t.Fatalf("the proxy exited %d\n%s", code, ph.stderr)
	}
}

// TestProxyFilesystemDenyAndRefuse: a write a rule denies never reaches
// the server; with a host that cannot elicit, a write nobody allowed is
// refused with the headless message, and --ask refuse does the same for a
// host that can.
func TestProxyFilesystemDenyAndRefuse(t *testing.T) {
	server, dir := officialFSServer(t)
	mkdir(t, dir, "prod")
	rulesFile := filepath.Join(t.TempDir(), "rules.json")
	if err := os.WriteFile(rulesFile, []byte(`[{"tool":"write_file","decision":"deny","under":"`+filepath.Join(dir, "prod")+`","message":"prod changes go through review"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	ph := startProxied(t, []string{"--rules", rulesFile}, server, hostOptions{})
	r := ph.call("write_file", map[string]any{"path": filepath.Join(dir, "prod", "app.conf"), "content": "x"})
	wantCallError(t, r, "Denied by mcp-policy: 'write_file' is not allowed by rule")
	wantCallError(t, r, "prod changes go through review")
	wantAbsent(t, filepath.Join(dir, "prod", "app.conf"))

	r = ph.call("write_file", map[string]any{"path": filepath.Join(dir, "notes.md"), "content": "x"})
	wantCallError(t, r, "Permission required: 'write_file' needs approval, but no one is available to approve it")
	wantAbsent(t, filepath.Join(dir, "notes.md"))

	nobody := &human{answer: func(req mcp.ElicitationRequest) *mcp.ElicitationResult {
		t.Errorf("--ask refuse asked the human: %s", req.Params.Message)
		return nil
	}}
	ph = startProxied(t, []string{"--ask", "refuse"}, server, hostOptions{elicit: nobody})
	r = ph.call("write_file", map[string]any{"path": filepath.Join(dir, "notes.md"), "content": "x"})
	wantCallError(t, r, "Permission required: 'write_file' needs approval, but")
	wantAbsent(t, filepath.Join(dir, "notes.md"))
}

// TestProxyFilesystemAskThroughHost: an ask reaches the human as an
// elicitation through the host. Allow once writes and remembers nothing;
// deny once and a declined form refuse; always allow writes the suggestion
// to the grants file, after which such writes are not asked — not by this
// proxy, and not by a second proxy process sharing the file, whose human
// must not be asked at all.
func TestProxyFilesystemAskThroughHost(t *testing.T) {
	server, dir := officialFSServer(t)
	mkdir(t, dir, "drafts")
	grantsFile := filepath.Join(t.TempDir(), "grants.json")
	logFile := filepath.Join(t.TempDir(), "decisions.jsonl")
	person := &human{answer: choose("allow-once")}
	ph := startProxied(t, []string{"--grants", grantsFile, "--log", logFile}, server, hostOptions{elicit: person})

	write := func(rel, content string) *mcp.CallToolResult {
		return ph.call("write_file", map[string]any{"path": filepath.Join(dir, rel), "content": content,
			"reason": "saving the plan the user asked for"})
	}

	progress(t, "allow once")
	wantCallOK(t, write("drafts/a.md", "a"))
	wantFile(t, filepath.Join(dir, "drafts", "a.md"), "a")
	qs := person.asked()
	if len(qs) != 1 {
		t.Fatalf("asked %d times", len(qs))
	}
	msg := qs[0].Params.Message
	for _, want := range []string{"write_file", filepath.Join(dir, "drafts", "a.md"), "saving the plan the user asked for",
		"no rule covers this call", "write_file under " + filepath.Join(dir, "drafts")} {
		if !strings.Contains(msg, want) {
			t.Errorf("the question does not say %q:\n%s", want, msg)
		}
	}
	values, titles := permissionChoices(t, qs[0])
	if strings.Join(values, ",") != "allow-once,always-allow,deny-once,always-deny" ||
		titles[1] != "Always allow write_file under "+filepath.Join(dir, "drafts") {
		t.Fatalf("choices %v %v", values, titles)
	}
	if gs, err := grants.Open(grantsFile); err != nil || len(gs.List()) != 0 {
		t.Fatalf("allow once remembered something: %v %v", gs.List(), err)
	}

	progress(t, "deny once, decline")
	person.answer = choose("deny-once")
	wantCallError(t, write("drafts/b.md", "b"), "The user declined 'write_file' this time")
	wantAbsent(t, filepath.Join(dir, "drafts", "b.md"))
	person.answer = func(mcp.ElicitationRequest) *mcp.ElicitationResult {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}
	}
	wantCallError(t, write("drafts/b.md", "b"), "The user declined")
	wantAbsent(t, filepath.Join(dir, "drafts", "b.md"))

	progress(t, "always allow")
	person.answer = choose("always-allow")
	wantCallOK(t, write("drafts/c.md", "c"))
	wantFile(t, filepath.Join(dir, "drafts", "c.md"), "c")
	gs, err := grants.LoadFile(grantsFile)
	if err != nil {
		t.Fatal(err)
	}
	want := []rules.Rule{{Tool: "write_file", Decision: rules.Allow, Under: filepath.Join(dir, "drafts")}}
	if !reflect.DeepEqual(gs, want) {
		t.Fatalf("grants file holds %+v, want %+v", gs, want)
	}
	n := len(person.asked())
	wantCallOK(t, write("drafts/d.md", "d"))
	wantFile(t, filepath.Join(dir, "drafts", "d.md"), "d")
	if len(person.asked()) != n {
		t.Fatal("asked about a write the grant covers")
	}

	progress(t, "a second proxy process sharing the grants file")
	nobody := &human{answer: func(req mcp.ElicitationRequest) *mcp.ElicitationResult {
		t.Errorf("the second proxy asked: %s", req.Params.Message)
		return nil
	}}
	second := startProxied(t, []string{"--grants", grantsFile}, server, hostOptions{elicit: nobody})
	r := second.call("write_file", map[string]any{"path": filepath.Join(dir, "drafts", "e.md"), "content": "e"})
	wantCallOK(t, r)
	wantFile(t, filepath.Join(dir, "drafts", "e.md"), "e")

	// The danger floor asks every time: "always allow" is not offered.
	person.answer = choose("allow-once")
	wantCallOK(t, ph.call("write_file", map[string]any{"path": filepath.Join(dir, ".env"), "content": "K=v"}))
	qs = person.asked()
	values, _ = permissionChoices(t, qs[len(qs)-1])
	if strings.Join(values, ",") != "allow-once,deny-once,always-deny" || !strings.Contains(qs[len(qs)-1].Params.Message, "protected") {
		t.Fatalf("floor question offers %v: %s", values, qs[len(qs)-1].Params.Message)
	}

	// A write outside the grant is still asked; always deny remembers it.
	person.answer = choose("always-deny")
	wantCallError(t, write("elsewhere.md", "x"), "The user chose to always deny")
	wantAbsent(t, filepath.Join(dir, "elsewhere.md"))
	n = len(person.asked())
	wantCallError(t, write("elsewhere2.md", "x"), "the user chose to always deny")
	if len(person.asked()) != n {
		t.Fatal("asked about a write a deny grant covers")
	}

	// The log: each decision with its question and answer, contents erased.
	es := logLines(t, logFile)
	if len(es) != 8 { // a, b, b, c, d, .env, elsewhere, elsewhere2
		t.Fatalf("%d log lines", len(es))
	}
	always := es[3]
	if always["answer"].(map[string]any)["action"] != "always-allow" || always["question"].(map[string]any)["reason"] != "no-match" ||
		always["remembered"].([]any)[0].(map[string]any)["under"] != filepath.Join(dir, "drafts") {
		t.Fatalf("always-allow log line %v", always)
	}
	if byGrant := es[4]["result"].(map[string]any); byGrant["reason"] != "grant" || byGrant["decision"] != "allow" {
		t.Fatalf("grant log line %v", es[4])
	}
	data, _ := os.ReadFile(logFile)
	if strings.Contains(string(data), `"content":"c"`) {
		t.Fatal("the log holds file contents")
	}
}

// TestProxyFilesystemHostRoots: a host that declares roots has them passed
// up to the server, and the first becomes the policy's root: a relative
// path is resolved against it.
func TestProxyFilesystemHostRoots(t *testing.T) {
	server, dir := officialFSServer(t)
	mkfile(t, dir, "notes.md", "notes\n")
	logFile := filepath.Join(t.TempDir(), "decisions.jsonl")
	roots := &rootsOf{dirs: []string{dir}}
	ph := startProxied(t, []string{"--log", logFile}, server, hostOptions{roots: roots})
	wantCallOK(t, ph.call("list_directory", map[string]any{"path": dir}))
	// The server asked the host for its roots, through the proxy, as the
	// proxy did for the policy.
	if n := roots.calls(); n < 2 {
		t.Fatalf("roots/list reached the host %d times, want the server's and the proxy's", n)
	}
	// The policy resolved the relative path against the host's root.
	lastPaths := func() []any {
		es := logLines(t, logFile)
		return es[len(es)-1]["result"].(map[string]any)["paths"].([]any)
	}
	ph.call("get_file_info", map[string]any{"path": "notes.md"})
	if ps := lastPaths(); len(ps) != 1 || ps[0] != filepath.Join(dir, "notes.md") {
		t.Fatalf("paths %v: the host's root is not the policy's", ps)
	}

	// The host's roots change: the policy follows.
	other := mkdir(t, dir, "other")
	roots.set(other, dir)
	n := roots.calls()
	if err := ph.RootListChanges(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for roots.calls() < n+2 { // the server's roots/list and the proxy's
		if time.Now().After(deadline) {
			t.Fatalf("roots/list after the change reached the host %d times", roots.calls()-n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The new policy is in place by the time the proxy's roots/list is
	// answered and read; a call a moment later decides by it.
	deadline = time.Now().Add(10 * time.Second)
	for {
		ph.call("get_file_info", map[string]any{"path": "notes.md"})
		if ps := lastPaths(); len(ps) == 1 && ps[0] == filepath.Join(other, "notes.md") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("paths %v: the policy did not take the host's new root", lastPaths())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// rootsOf is a host's roots handler: its roots can change, and it counts
// the times it was asked.
type rootsOf struct {
	mu    sync.Mutex
	dirs  []string
	asked int
}

func (r *rootsOf) calls() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.asked
}

func (r *rootsOf) set(dirs ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dirs = dirs
}

func (r *rootsOf) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked++
	var out mcp.ListRootsResult
	for _, d := range r.dirs {
		out.Roots = append(out.Roots, mcp.Root{URI: "file://" + d, Name: filepath.Base(d)})
	}
	return &out, nil
}
