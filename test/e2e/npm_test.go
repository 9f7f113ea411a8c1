package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// officialFS is the entry point of @modelcontextprotocol/server-filesystem
// (its package.json "bin"), installed into test/npm by `npm ci --prefix
// test/npm` (.ci/run does it; test/npm/node_modules is not committed).
const officialFS = "test/npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"

// needOfficialFS returns node and the server's entry, or skips the test —
// except under CI (CI=true), where a missing server fails it, so that CI
// cannot pass by silently testing nothing.
func needOfficialFS(t testing.TB) (node, entry string) {
	t.Helper()
	missing := func(format string, a ...any) {
		t.Helper()
		msg := "official filesystem server unavailable: " + strings.TrimSpace(fmt.Sprintf(format, a...)) +
			"; install it with: npm ci --prefix test/npm"
		if os.Getenv("CI") == "true" {
			require.FailNow(t, msg+" (CI=true: not skipping)")
		}
		t.Skip(msg)
	}
	entry = filepath.Join(modRoot, filepath.FromSlash(officialFS))
	if _, err := os.Stat(entry); err != nil {
		missing("%v", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node: %v", err)
	}
	return node, entry
}

// TestOfficialFilesystemServer: the policy in front of the reference
// filesystem server from npm. Its tools (read_text_file, write_file,
// list_directory, …) carry readOnlyHint, so reads pass by the default rules;
// a write_file into the directory a rule allows lands on disk; a write_file
// elsewhere — still inside the server's own sandbox, so the server would
// have written it — is refused by the headless policy before the server
// sees it.
func TestOfficialFilesystemServer(t *testing.T) {
	t.Parallel()
	node, entry := needOfficialFS(t)
	dir := t.TempDir()
	// The server resolves its allowed directory through symlinks and reports
	// real paths; the policy compares lexically, so give both the real one.
	dir, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	mkfile(t, dir, "hello.txt", "hello, world\n")
	mkdir(t, dir, "drafts")

	client := connectCmd(t, node, []string{entry, dir})
	p := newPolicy(t, policy.Options{
		Provider: client,
		Rules: append(policy.DefaultRules(),
			rules.Rule{Tool: "write_file", Decision: rules.Allow, Under: "drafts"},
		),
		// The server's tool names share no prefix: one root for all of them.
		// Relative paths in calls resolve against it, as the server itself
		// resolves them against its (only) allowed directory.
		Roots: map[string]string{"*": dir},
	})

	tools, err := p.ToolsForLLM(t.Context())
	require.NoError(t, err)
	byName := map[string]provider.Tool{}
	for _, tl := range tools {
		byName[tl.Function.Name] = tl
	}
	for name, readOnly := range map[string]bool{"read_text_file": true, "list_directory": true, "write_file": false} {
		t.Run(name, func(t *testing.T) {
			tl, ok := byName[name]
			require.True(t, ok, "the server has no %s tool (tools: %v)", name, keys(byName))
			a := tl.Annotations
			require.NotNil(t, a, "annotations")
			require.NotNil(t, a.ReadOnlyHint, "annotations %+v: no readOnlyHint", a)
			require.Equal(t, readOnly, *a.ReadOnlyHint, "readOnlyHint")
		})
	}

	rs := execute(t, p,
		mkcall("read", "read_text_file", map[string]string{"path": filepath.Join(dir, "hello.txt")}),
		mkcall("list", "list_directory", map[string]string{"path": dir}),
		mkcall("relread", "read_text_file", map[string]string{"path": "hello.txt"}),
	)
	wantOK(t, rs[0])
	require.Equal(t, "hello, world\n", rs[0].Content, "read_text_file")
	wantOK(t, rs[1])
	require.Contains(t, rs[1].Content, "hello.txt", "list_directory")
	require.Contains(t, rs[1].Content, "drafts", "list_directory")
	wantOK(t, rs[2])
	require.Equal(t, "hello, world\n", rs[2].Content, "relative read_text_file")

	rs = execute(t, p,
		mkcall("draft", "write_file", map[string]string{"path": filepath.Join(dir, "drafts", "plan.md"), "content": "# plan\n"}),
		mkcall("reldraft", "write_file", map[string]string{"path": "drafts/rel.md", "content": "rel\n"}),
		mkcall("stray", "write_file", map[string]string{"path": filepath.Join(dir, "stray.md"), "content": "stray\n"}),
		mkcall("relstray", "write_file", map[string]string{"path": "stray2.md", "content": "stray\n"}),
		mkcall("mkdir", "create_directory", map[string]string{"path": filepath.Join(dir, "newdir")}),
	)
	wantOK(t, rs[0])
	wantFile(t, filepath.Join(dir, "drafts", "plan.md"), "# plan\n")
	wantOK(t, rs[1])
	wantFile(t, filepath.Join(dir, "drafts", "rel.md"), "rel\n")
	for i, name := range []string{"stray.md", "stray2.md"} {
		t.Run(name, func(t *testing.T) {
			wantError(t, rs[2+i], "Permission required: 'write_file' needs approval, but")
			wantAbsent(t, filepath.Join(dir, name))
		})
	}
	wantError(t, rs[4], "Permission required: 'create_directory' needs approval, but")
	wantAbsent(t, filepath.Join(dir, "newdir"))

	// The server's own sandbox still stands behind the policy: a read the
	// default rules allow (read-only, a local path) but outside the
	// server's allowed directory is refused by the server.
	outside := mkfile(t, t.TempDir(), "secret.txt", "secret")
	rs = execute(t, p, mkcall("escape", "read_text_file", map[string]string{"path": outside}))
	wantError(t, rs[0], "Access denied")
}

func keys(m map[string]provider.Tool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
