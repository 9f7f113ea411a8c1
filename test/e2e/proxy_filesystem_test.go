//go:build unix

package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/rules"
)

// officialFSServer is the command line of the official filesystem server
// sandboxed to a fresh directory (symlinks resolved: the server reports
// real paths and the policy compares lexically).
func officialFSServer(t *testing.T) (server []string, dir string) {
	t.Helper()
	node, entry := needOfficialFS(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return []string{node, entry, dir}, dir
}

// TestProxyFilesystemTransparent: through the proxy the host sees the
// official server exactly as it would directly: the same initialize
// answer, the same tools (annotations, schemas, output schemas), the same
// result of an allowed read, byte for byte where the proxy forwards.
func TestProxyFilesystemTransparent(t *testing.T) {
	t.Parallel()
	server, dir := officialFSServer(t)
	mkfile(t, dir, "hello.txt", "hello, world\n")
	logFile := filepath.Join(t.TempDir(), "decisions.jsonl")
	ph := startProxied(t, []string{"--log", logFile}, server, hostOptions{})
	dc := direct(t, server, hostOptions{})

	ctx := context.Background()
	viaProxy, err := ph.ListTools(ctx, mcp.ListToolsRequest{})
	require.NoError(t, err)
	straight, err := dc.ListTools(ctx, mcp.ListToolsRequest{})
	require.NoError(t, err)
	a, err := json.Marshal(viaProxy)
	require.NoError(t, err)
	b, err := json.Marshal(straight)
	require.NoError(t, err)
	require.Equal(t, string(b), string(a), "tools/list through the proxy differs from direct")
	names := map[string]mcp.Tool{}
	for _, tl := range viaProxy.Tools {
		names[tl.Name] = tl
	}
	tl, ok := names["read_text_file"]
	require.True(t, ok, "no read_text_file through the proxy")
	require.NotNil(t, tl.Annotations.ReadOnlyHint, "read_text_file through the proxy: %+v", tl)
	require.True(t, *tl.Annotations.ReadOnlyHint, "read_text_file through the proxy: %+v", tl)
	require.NotEmpty(t, tl.OutputSchema.Type, "read_text_file through the proxy: %+v", tl)

	args := map[string]any{"path": filepath.Join(dir, "hello.txt")}
	r := ph.call("read_text_file", args)
	wantCallOK(t, r)
	var req mcp.CallToolRequest
	req.Params.Name, req.Params.Arguments = "read_text_file", args
	d, err := dc.CallTool(ctx, req)
	require.NoError(t, err)
	require.Equal(t, d, r, "read through the proxy, against direct")
	require.Equal(t, "hello, world\n", text(r), "read through the proxy")

	// One decision logged, in OPA's shape, allowed by the default rule.
	es := logLines(t, logFile)
	require.Len(t, es, 1, "log lines")
	require.Equal(t, "allow", jsonObject(t, es[0]["result"], "result")["decision"], "log %v", es[0])
	require.Equal(t, true, es[0]["allowed"], "log %v", es[0])
	require.Equal(t, "read_text_file", jsonObject(t, es[0]["input"], "input")["tool"], "log %v", es[0])
	require.Equal(t, "mcp/engine/decision", es[0]["path"], "log %v", es[0])
	require.Equal(t, 0, ph.exitCode(), "the proxy's exit status\n%s", ph.stderr)
}

// TestProxyFilesystemDenyAndRefuse: a write a rule denies never reaches
// the server; with a host that cannot elicit, a write nobody allowed is
// refused with the headless message, and --ask refuse does the same for a
// host that can.
func TestProxyFilesystemDenyAndRefuse(t *testing.T) {
	t.Parallel()
	server, dir := officialFSServer(t)
	mkdir(t, dir, "prod")
	rulesFile := filepath.Join(t.TempDir(), "rules.json")
	require.NoError(t, os.WriteFile(rulesFile, []byte(`[{"tool":"write_file","decision":"deny","under":"`+filepath.Join(dir, "prod")+`","message":"prod changes go through review"}]`), 0o644))
	ph := startProxied(t, []string{"--rules", rulesFile}, server, hostOptions{})
	r := ph.call("write_file", map[string]any{"path": filepath.Join(dir, "prod", "app.conf"), "content": "x"})
	wantCallError(t, r, "Denied by mcp-policy: 'write_file' is not allowed by rule")
	wantCallError(t, r, "prod changes go through review")
	wantAbsent(t, filepath.Join(dir, "prod", "app.conf"))

	r = ph.call("write_file", map[string]any{"path": filepath.Join(dir, "notes.md"), "content": "x"})
	wantCallError(t, r, "Permission required: 'write_file' needs approval, but no one is available to approve it")
	wantAbsent(t, filepath.Join(dir, "notes.md"))

	nobody := &human{answer: func(req mcp.ElicitationRequest) *mcp.ElicitationResult {
		assert.Fail(t, "--ask refuse asked the human", "%s", req.Params.Message)
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
	t.Parallel()
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
	require.Len(t, qs, 1, "questions")
	msg := qs[0].Params.Message
	for _, want := range []string{"write_file", filepath.Join(dir, "drafts", "a.md"), "saving the plan the user asked for",
		"no rule covers this call", "write_file under " + filepath.Join(dir, "drafts")} {
		assert.Contains(t, msg, want, "the question")
	}
	values, titles := permissionChoices(t, qs[0])
	require.Equal(t, []string{"allow-once", "always-allow", "allow-for-a-day", "deny-once", "always-deny"}, values, "choices (titles %v)", titles)
	require.Len(t, titles, len(values), "titles %v", titles)
	require.Equal(t, "Always allow write_file under "+filepath.Join(dir, "drafts"), titles[1], "the always-allow choice's title")
	gs0, err := grants.Open(grantsFile)
	require.NoError(t, err)
	require.Empty(t, gs0.List(), "allow once remembered something")

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
	require.NoError(t, err)
	want := []rules.Rule{{Tool: "write_file", Decision: rules.Allow, Under: filepath.Join(dir, "drafts")}}
	require.Equal(t, want, gs, "the grants file")
	n := len(person.asked())
	wantCallOK(t, write("drafts/d.md", "d"))
	wantFile(t, filepath.Join(dir, "drafts", "d.md"), "d")
	require.Len(t, person.asked(), n, "asked about a write the grant covers")

	progress(t, "a second proxy process sharing the grants file")
	nobody := &human{answer: func(req mcp.ElicitationRequest) *mcp.ElicitationResult {
		assert.Fail(t, "the second proxy asked", "%s", req.Params.Message)
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
	require.Equal(t, []string{"allow-once", "deny-once", "always-deny"}, values, "the floor question's choices")
	require.Contains(t, qs[len(qs)-1].Params.Message, "protected", "the floor question")

	// A write outside the grant is still asked; always deny remembers it.
	person.answer = choose("always-deny")
	wantCallError(t, write("elsewhere.md", "x"), "The user chose to always deny")
	wantAbsent(t, filepath.Join(dir, "elsewhere.md"))
	n = len(person.asked())
	wantCallError(t, write("elsewhere2.md", "x"), "the user chose to always deny")
	require.Len(t, person.asked(), n, "asked about a write a deny grant covers")

	// The log: each decision with its question and answer, contents erased.
	es := logLines(t, logFile)
	require.Len(t, es, 8, "log lines") // a, b, b, c, d, .env, elsewhere, elsewhere2
	always := es[3]
	require.Equal(t, "always-allow", jsonObject(t, always["answer"], "answer")["action"], "always-allow log line %v", always)
	require.Equal(t, "no-match", jsonObject(t, always["question"], "question")["reason"], "always-allow log line %v", always)
	remembered, ok := always["remembered"].([]any)
	require.True(t, ok, "always-allow log line %v", always)
	require.NotEmpty(t, remembered, "always-allow log line %v", always)
	require.Equal(t, filepath.Join(dir, "drafts"), jsonObject(t, remembered[0], "remembered")["under"], "always-allow log line %v", always)
	byGrant := jsonObject(t, es[4]["result"], "result")
	require.Equal(t, "grant", byGrant["reason"], "grant log line %v", es[4])
	require.Equal(t, "allow", byGrant["decision"], "grant log line %v", es[4])
	data, err := os.ReadFile(logFile)
	require.NoError(t, err)
	require.NotContains(t, string(data), `"content":"c"`, "the log holds file contents")
}

// TestProxyFilesystemHostRoots: a host that declares roots has them passed
// up to the server, and the one root the server is given becomes the
// policy's: a relative path is resolved against it. With two roots, or one
// the server would skip, a relative path is unevaluable: the server tries
// each root in turn, and could act on another path than the policy saw
// (red team, third report, finding 2).
func TestProxyFilesystemHostRoots(t *testing.T) {
	t.Parallel()
	server, dir := officialFSServer(t)
	mkfile(t, dir, "notes.md", "notes\n")
	logFile := filepath.Join(t.TempDir(), "decisions.jsonl")
	roots := &rootsOf{dirs: []string{dir}}
	ph := startProxied(t, []string{"--log", logFile}, server, hostOptions{roots: roots})
	wantCallOK(t, ph.call("list_directory", map[string]any{"path": dir}))
	// The server asked the host for its roots, through the proxy; the
	// proxy asks nothing of its own: the policy follows the server's.
	deadline := time.Now().Add(10 * time.Second)
	for roots.calls() < 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	require.Equal(t, 1, roots.calls(), "times roots/list reached the host: want the server's alone")
	// The policy resolved the relative path against the host's root.
	lastPaths := func() []any {
		t.Helper()
		es := logLines(t, logFile)
		require.NotEmpty(t, es, "log lines")
		ps, ok := jsonObject(t, es[len(es)-1]["result"], "result")["paths"].([]any)
		require.True(t, ok, "log line %v has no paths", es[len(es)-1])
		return ps
	}
	ph.call("get_file_info", map[string]any{"path": "notes.md"})
	require.Equal(t, []any{filepath.Join(dir, "notes.md")}, lastPaths(), "paths: the host's root is the policy's")

	// The host's roots change: the policy follows.
	other := mkdir(t, dir, "other")
	roots.set(other)
	n := roots.calls()
	require.NoError(t, ph.RootListChanges(context.Background()))
	deadline = time.Now().Add(10 * time.Second)
	for roots.calls() < n+1 && time.Now().Before(deadline) { // the server's roots/list
		time.Sleep(10 * time.Millisecond)
	}
	require.Equal(t, 1, roots.calls()-n, "times roots/list reached the host after the change")
	// A call waits until the server has been given the new root and has
	// had time to apply it, and decides by it.
	ph.call("get_file_info", map[string]any{"path": "notes.md"})
	require.Equal(t, []any{filepath.Join(other, "notes.md")}, lastPaths(), "paths: the policy did not take the host's new root")

	// Roots the server could resolve a relative path against otherwise:
	// the policy has no root, and the call is refused as unevaluable.
	for _, rs := range [][]string{{other, dir}, {filepath.Join(dir, "missing"), dir}, {filepath.Join(dir, "notes.md")}} {
		roots.set(rs...)
		require.NoError(t, ph.RootListChanges(context.Background()))
		deadline = time.Now().Add(10 * time.Second)
		for {
			r := ph.call("get_file_info", map[string]any{"path": "notes.md"})
			es := logLines(t, logFile)
			reason := jsonObject(t, es[len(es)-1]["result"], "result")["reason"]
			if r.IsError && reason == "unevaluable-path" {
				break
			}
			if time.Now().After(deadline) {
				require.Failf(t, "a relative path was judged", "roots %v: reason %v, result %s", rs, reason, text(r))
			}
			time.Sleep(20 * time.Millisecond)
		}
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

// TestProxyGuardsItsOwnFiles: the proxy's program and its decision log are
// the policy's files too: a rule that allows writing where they are does
// not let a tool replace the program (the policy the next time the host
// starts it) or rewrite the log (what the agent did); the floor asks.
func TestProxyGuardsItsOwnFiles(t *testing.T) {
	t.Parallel()
	server, dir := officialFSServer(t)
	logFile := filepath.Join(dir, "decisions.jsonl")
	rulesFile := filepath.Join(t.TempDir(), "rules.json")
	require.NoError(t, os.WriteFile(rulesFile, []byte(`[{"tool":"*","decision":"allow","under":"/"}]`), 0o644))
	ph := startProxied(t, []string{"--rules", rulesFile, "--log", logFile}, server, hostOptions{})

	wantCallOK(t, ph.call("write_file", map[string]any{"path": filepath.Join(dir, "notes.md"), "content": "x"}))
	r := ph.call("write_file", map[string]any{"path": logFile, "content": "nothing happened"})
	wantCallError(t, r, "Permission required: 'write_file' needs approval")
	r = ph.call("write_file", map[string]any{"path": proxyBinary(t), "content": "#!/bin/sh\nexec \"$@\"\n"})
	wantCallError(t, r, "Permission required: 'write_file' needs approval")

	es := logLines(t, logFile)
	require.Len(t, es, 3, "log lines")
	for _, e := range es[1:] {
		result := jsonObject(t, e["result"], "result")
		require.Equal(t, "ask", result["decision"], "log line %v", e)
		require.Equal(t, "floor", result["reason"], "log line %v", e)
	}
}

// TestProxyFilesystemRootKeyNamesNoTool: the official server's tools have
// no fs_ prefix, so --root fs=DIR is no tool's root; the proxy says so
// once it has the catalogue, after its start-up line and the host's.
func TestProxyFilesystemRootKeyNamesNoTool(t *testing.T) {
	t.Parallel()
	server, dir := officialFSServer(t)
	ph := startProxied(t, []string{"--root", "fs=" + dir}, server, hostOptions{})
	_, err := ph.ListTools(context.Background(), mcp.ListToolsRequest{})
	require.NoError(t, err)
	// The catalogue is read after it is relayed: wait for the line.
	warning := "mcp-policy proxy: --root fs=" + dir + ": no tool of the server's is named fs or fs_* (its tools: "
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(ph.stderr.String(), warning) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	require.Equal(t, 0, ph.exitCode(), "the proxy's exit status\n%s", ph.stderr)
	stderr := ph.stderr.String()
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	assert.Contains(t, stderr, "mcp-policy proxy: rules: default; grants: in memory until the proxy exits (no --grants); log: none; roots: fs="+dir+"; home: "+filepath.Clean(home)+"; links: resolved; questions: to the host (refused if it cannot elicit; give --grants FILE to approve with `mcp-policy approvals` instead)\n")
	assert.Contains(t, stderr, "cannot elicit", "the host line: this host declares no elicitation")
	assert.Contains(t, stderr, warning)
}

// TestProxyFilesystemAsksBeforeReadingSecrets: with the default rules, the
// official server's read-only read_text_file reads ordinary files without a
// question, but a private key, a .env file or a shell history is asked on
// every read (a key read into the model's context can leave through any
// later call), and with nobody to ask the file is not read. The question
// offers no "always allow".
func TestProxyFilesystemAsksBeforeReadingSecrets(t *testing.T) {
	t.Parallel()
	server, dir := officialFSServer(t)
	mkdir(t, dir, ".ssh")
	for name, content := range map[string]string{"notes.md": "ordinary", ".env.example": "KEY=", ".ssh/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----",
		".env": "STRIPE_KEY=sk_live_x", ".bash_history": "mysql -p hunter2"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600))
	}
	ph := startProxied(t, nil, server, hostOptions{})
	for _, name := range []string{"notes.md", ".env.example"} {
		r := ph.call("read_text_file", map[string]any{"path": filepath.Join(dir, name)})
		assert.False(t, r.IsError, "%s: %s", name, text(r))
	}
	for _, name := range []string{".ssh/id_rsa", ".env", ".bash_history"} {
		r := ph.call("read_text_file", map[string]any{"path": filepath.Join(dir, name)})
		wantCallError(t, r, "Permission required: 'read_text_file' needs approval")
		for _, secret := range []string{"PRIVATE KEY", "sk_live", "hunter2"} {
			assert.NotContains(t, text(r), secret, name)
		}
	}

	var offered []string
	asker := &human{answer: func(req mcp.ElicitationRequest) *mcp.ElicitationResult {
		offered = append(offered, fmt.Sprint(req.Params.RequestedSchema))
		assert.Contains(t, req.Params.Message, "reads a file that holds secrets")
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}
	}}
	ph = startProxied(t, nil, server, hostOptions{elicit: asker})
	wantCallError(t, ph.call("read_text_file", map[string]any{"path": filepath.Join(dir, ".ssh", "id_rsa")}), "declined")
	require.Len(t, offered, 1, "the human was asked once")
	assert.NotContains(t, offered[0], "Always allow", "a secret's question offers no always allow")
}

// A symbolic link inside a directory the user allowed writes where it
// leads: after "Always allow write_file under docs", with docs/keys a link
// to .ssh, write_file docs/keys/x is asked through the proxy, and nothing
// is written (outside round on links). A path with no link is allowed as
// before, and --links lexical reads as written (a server elsewhere).
func TestProxyFilesystemFollowsLinksBeforeWriting(t *testing.T) {
	t.Parallel()
	server, dir := officialFSServer(t)
	mkdir(t, dir, "docs")
	mkdir(t, dir, ".ssh")
	require.NoError(t, os.Symlink(filepath.Join(dir, ".ssh"), filepath.Join(dir, "docs", "keys")))
	grantsFile := filepath.Join(t.TempDir(), "grants.json")
	require.NoError(t, os.WriteFile(grantsFile, []byte(fmt.Sprintf(`[{"tool":"write_file","decision":"allow","under":%q}]`, filepath.Join(dir, "docs"))), 0o600))

	ph := startProxied(t, []string{"--grants", grantsFile, "--ask", "refuse"}, server, hostOptions{})
	r := ph.call("write_file", map[string]any{"path": filepath.Join(dir, "docs", "notes.md"), "content": "ok"})
	assert.False(t, r.IsError, text(r))
	r = ph.call("write_file", map[string]any{"path": filepath.Join(dir, "docs", "keys", "authorized_keys2"), "content": "ssh-ed25519 AAAA attacker"})
	wantCallError(t, r, "Permission required: 'write_file' needs approval")
	_, err := os.Stat(filepath.Join(dir, ".ssh", "authorized_keys2"))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing was written through the link")
	assert.Contains(t, ph.stderr.String(), "links: resolved")
	// The kernel goes up from where the link leads: docs/keys/.. is the
	// directory above .ssh, outside docs, though the path cleaned reads
	// docs/escaped.md (red team round 3).
	r = ph.call("write_file", map[string]any{"path": filepath.Join(dir, "docs", "keys") + "/../escaped.md", "content": "x"})
	wantCallError(t, r, "Permission required: 'write_file' needs approval")
	for _, p := range []string{filepath.Join(dir, "escaped.md"), filepath.Join(dir, "docs", "escaped.md")} {
		_, err := os.Stat(p)
		assert.ErrorIs(t, err, os.ErrNotExist, "nothing was written: %s", p)
	}

	lexical := startProxied(t, []string{"--grants", grantsFile, "--ask", "refuse", "--links", "lexical"}, server, hostOptions{})
	r = lexical.call("write_file", map[string]any{"path": filepath.Join(dir, "docs", "keys", "notes.md"), "content": "x"})
	assert.False(t, r.IsError, "read as written, the grant covers it: %s", text(r))
}
