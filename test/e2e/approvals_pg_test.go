//go:build unix

package e2e_test

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/pgtest"
)

// TestApproveAnswersAProxyThroughPostgres: with --grants postgres://, a
// proxy whose host cannot elicit holds a write and says where to answer;
// `mcp-policy approve` — another process, on another machine as far as
// the database knows — lists the question, refuses an unknown id, and its
// allow lets the held call run; the proxy logs who answered. Before any
// question, approve warns that no proxy has used the database.
func TestApproveAnswersAProxyThroughPostgres(t *testing.T) {
	t.Parallel()
	// A password in the URL (the test server trusts every connection,
	// so any will do) is never printed.
	u, err := url.Parse(pgtest.NewDatabase(t))
	require.NoError(t, err)
	u.User = url.UserPassword(u.User.Username(), "hunter2")
	db := u.String()
	out, err := approve(t, db, "list")
	require.NoError(t, err, out)
	assert.Contains(t, out, "No question is waiting.")
	assert.NotContains(t, out, "hunter2")
	assert.Contains(t, out, "no proxy has put a question in postgres://", "an unused database is pointed out")

	dir := t.TempDir()
	h := startRaw(t, []string{"--root", "fs=" + dir, "--grants", db}, []string{fsserver, dir}, nil)
	h.initialize(map[string]any{})
	h.waitStderr("waits for an answer at `mcp-policy approvals --grants 'postgres://")
	h.callTool(1, "fs_write", map[string]any{"path": "notes.md", "content": "hi"})

	id := waitQuestion(t, db, "fs_write")
	out, err = approve(t, db, "list")
	require.NoError(t, err)
	assert.Contains(t, out, "The agent wants to run fs_write.")
	assert.NotContains(t, out, "no proxy has put a question")
	assert.NotContains(t, out, "hunter2", "the database's password is hidden, as the proxy hides it")
	assert.Contains(t, out, ":xxxxx@")

	approveOnce(t, h, db, id, dir)

	out, err = approve(t, db, "allow", id)
	assert.Error(t, err, "answered and withdrawn")
	assert.Contains(t, out, "is pending")
	out, err = approve(t, db)
	require.NoError(t, err)
	assert.Equal(t, "No question is waiting.\n", out)
}
