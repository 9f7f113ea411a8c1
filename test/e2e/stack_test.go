package e2e_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/leases"
	"github.com/mcp-policy/mcp-policy/mcpclient"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
	"github.com/mcp-policy/mcp-policy/reasons"
)

// TestFullStack is the order the reference gives the composers:
// Policy(Reasons(Leases(Registry))). The registry publishes fsserver's tools
// under the prefix "local" (local_fs_write), so every layer above it —
// leases, reasons, the policy's rules and roots — speaks those names. The
// model's reason reaches the human's question; a call the policy refuses
// spends no lease; a call past its budget never reaches the server.
func TestFullStack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := newLineWatch("fsserver: call fs_list")
	client := connect(t, dir, mcpclient.WithStderr(log))
	reg := provider.NewRegistry()
	require.NoError(t, reg.Add(client, "local"))
	ls, err := leases.New(reg, leases.Limit{Tool: "local_fs_write", Count: 2})
	require.NoError(t, err)
	human := &asker{answer: func(policy.Question) policy.Answer { return policy.Answer{Action: policy.DenyOnce} }}
	p := newPolicy(t, policy.Options{
		Provider: reasons.New(ls),
		Rules: append(policy.DefaultRules(),
			rules.Rule{Tool: "local_fs_write", Decision: rules.Allow, Under: "scratch"},
		),
		Roots: map[string]string{"local": dir},
		OnAsk: human.ask,
	})

	tools, err := p.ToolsForLLM(t.Context())
	require.NoError(t, err)
	i := slices.IndexFunc(tools, func(tl provider.Tool) bool { return tl.Function.Name == "local_fs_write" })
	require.GreaterOrEqual(t, i, 0, "local_fs_write missing: %+v", tools)
	require.Contains(t, string(tools[i].Function.Parameters), `"reason"`, "local_fs_write without the reason parameter")

	write := func(id, path, reason string) provider.Call {
		return mkcall(id, "local_fs_write", map[string]string{"path": path, "content": id, "reason": reason})
	}
	// Refused by the human: the question carries the reason; no lease spent.
	rs := execute(t, p, write("elsewhere", "notes.md", "to take notes"))
	wantError(t, rs[0], "The user declined 'local_fs_write'")
	qs := human.asked()
	require.Len(t, qs, 1, "questions %+v", qs)
	require.Equal(t, "to take notes", qs[0].Arguments["reason"], "the question carries the reason: %+v", qs[0])
	require.Equal(t, []string{filepath.Join(dir, "notes.md")}, qs[0].Paths, "the question's paths")
	// Allowed: two fit the lease, the third does not and is never sent.
	for _, id := range []string{"one", "two"} {
		rs = execute(t, p, write(id, "scratch/"+id, "scratch work"))
		wantOK(t, rs[0])
		wantFile(t, filepath.Join(dir, "scratch", id), id)
	}
	rs = execute(t, p, write("three", "scratch/three", "scratch work"))
	wantError(t, rs[0], "lease exhausted: 'local_fs_write'")
	wantAbsent(t, filepath.Join(dir, "scratch", "three"))
	// Reads are not leased and pass by the server's readOnlyHint, which the
	// registry and reasons keep.
	rs = execute(t, p, mkcall("read", "local_fs_read", map[string]string{"path": "scratch/one", "reason": "check"}))
	wantOK(t, rs[0])
	require.Equal(t, "one", rs[0].Content, "read")
	require.Equal(t, []string{"fs_write", "fs_write", "fs_read"}, serverCalls(t, client, log), "the server's calls: the two allowed writes and the read")
}

// TestFloorOverRealServer: a rule that allows every fs tool everywhere
// still cannot let a headless agent write .git/, a .env file or a shell
// start-up file, or delete the whole sandbox: the danger floor asks, nobody
// can answer, and the server never sees those calls.
func TestFloorOverRealServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mkfile(t, dir, ".git/config", "[core]\n")
	mkfile(t, dir, "keep.txt", "keep\n")
	log := newLineWatch("fsserver: call fs_list")
	client := connect(t, dir, mcpclient.WithStderr(log))
	p := newPolicy(t, policy.Options{
		Provider: client,
		Rules:    []rules.Rule{{Tool: "fs_*", Decision: rules.Allow}},
		Roots:    map[string]string{"fs": dir},
	})
	rs := execute(t, p,
		mkcall("git", "fs_write", map[string]string{"path": ".git/config", "content": "pwned"}),
		mkcall("env", "fs_write", map[string]string{"path": "app/.env.local", "content": "TOKEN=x"}),
		mkcall("rc", "fs_write", map[string]string{"path": ".bashrc", "content": "curl | sh"}),
		mkcall("root", "fs_delete", map[string]string{"path": "."}),
		mkcall("abs-root", "fs_delete", map[string]string{"path": dir}),
		mkcall("ok", "fs_write", map[string]string{"path": "src/main.go", "content": "package main\n"}),
		mkcall("read-git", "fs_read", map[string]string{"path": ".git/config"}),
	)
	for _, r := range rs[:5] {
		t.Run(r.ToolCallID, func(t *testing.T) { wantError(t, r, "Permission required:") })
	}
	wantFile(t, filepath.Join(dir, ".git", "config"), "[core]\n")
	wantAbsent(t, filepath.Join(dir, "app"))
	wantAbsent(t, filepath.Join(dir, ".bashrc"))
	wantFile(t, filepath.Join(dir, "keep.txt"), "keep\n")
	wantOK(t, rs[5])
	wantFile(t, filepath.Join(dir, "src", "main.go"), "package main\n")
	wantOK(t, rs[6]) // reading is not what the floor guards
	require.Equal(t, "[core]\n", rs[6].Content, "read .git/config")
	got := serverCalls(t, client, log)
	slices.Sort(got)
	require.Equal(t, []string{"fs_read", "fs_write"}, got, "the server's calls: only the allowed write and the read")
}
