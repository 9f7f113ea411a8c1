package e2e_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/pgtest"
)

// TestProxyGrantsInPostgresAcrossTwoMachines: two proxy processes with
// different labels (A's grants lasting a day), in front of servers with different roots that share
// one directory, on one PostgreSQL, stand for two machines. An
// always-allow answered through A allows the same write through B without
// asking B's human; the grant records who answered what; a revocation
// through `mcp-policy grants revoke` makes the next such call on both ask
// again.
func TestProxyGrantsInPostgresAcrossTwoMachines(t *testing.T) {
	t.Parallel()
	server, dir := officialFSServer(t)
	mkdir(t, dir, "drafts")
	db := pgtest.NewDatabase(t)
	other, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	serverB := append(append([]string{}, server[:len(server)-1]...), other, dir) // B's roots: its own and the shared one

	personA := &human{answer: choose("always-allow")}
	personB := &human{answer: choose("deny-once")}
	a := startProxied(t, []string{"--grants", db, "--label", "machine-a", "--grant-ttl", "24h"}, server, hostOptions{elicit: personA})
	b := startProxied(t, []string{"--grants", db, "--label", "machine-b"}, serverB, hostOptions{elicit: personB})
	assert.Contains(t, a.stderr.String(), "grants: postgres://", "the start-up line names the database")
	write := func(ph *proxied, rel string) *mcp.CallToolResult {
		return ph.call("write_file", map[string]any{"path": filepath.Join(dir, rel), "content": rel})
	}

	progress(t, "A's human answers always-allow")
	wantCallOK(t, write(a, "drafts/a.md"))
	require.Len(t, personA.asked(), 1, "A's questions")

	progress(t, "B is allowed by A's grant without asking")
	// The grant reaches B by NOTIFY, in milliseconds; B's human refuses
	// meanwhile, so a call that beat it is refused and retried.
	deadline := time.Now().Add(10 * time.Second)
	start := time.Now()
	var r *mcp.CallToolResult
	for r = write(b, "drafts/b.md"); r.IsError && time.Now().Before(deadline); r = write(b, "drafts/b.md") {
		time.Sleep(20 * time.Millisecond)
	}
	wantCallOK(t, r)
	t.Logf("B allowed by A's grant %v after A's answer (%d question(s) to B before)", time.Since(start), len(personB.asked()))
	n := len(personB.asked())
	wantCallOK(t, write(b, "drafts/c.md"))
	wantFile(t, filepath.Join(dir, "drafts", "c.md"), "drafts/c.md")
	require.Len(t, personB.asked(), n, "B asked about a write A's grant covers")

	progress(t, "the grant's record")
	cli := func(args ...string) string {
		out, err := exec.Command(proxyBinary(t), append([]string{"grants"}, args...)...).CombinedOutput()
		require.NoError(t, err, "mcp-policy grants %s: %s", strings.Join(args, " "), out)
		return string(out)
	}
	list := cli("list", "--grants", db, "--label", "machine-a", "--json")
	for _, want := range []string{`"tool": "write_file"`, `"under": "` + filepath.Join(dir, "drafts") + `"`, `"id": "machine-a"`,
		`"paths": [`, filepath.Join(dir, "drafts", "a.md"), `"granted_at"`, `"expires"`} {
		assert.Contains(t, list, want, "the grant as listed")
	}
	assert.Equal(t, "[]\n", cli("list", "--grants", db, "--label", "machine-b", "--json"), "B made no grant")

	progress(t, "revoked through the CLI: both ask again")
	out := cli("revoke", "--grants", db, "--tool", "write_file", "--under", dir)
	assert.Contains(t, out, "1 grant(s) revoked")
	personA.answer = choose("deny-once")
	for _, m := range []struct {
		name   string
		ph     *proxied
		person *human
	}{{"A", a, personA}, {"B", b, personB}} {
		// The revocation reaches each by NOTIFY: a call that beat it is
		// still allowed, and the test tries again until one is asked.
		asked := len(m.person.asked())
		deadline := time.Now().Add(10 * time.Second)
		for i := 0; ; i++ {
			name := fmt.Sprintf("drafts/after-revoke-%s-%d.md", m.name, i)
			r := write(m.ph, name)
			if len(m.person.asked()) > asked {
				wantCallError(t, r, "declined")
				wantAbsent(t, filepath.Join(dir, name))
				t.Logf("%s asks again after the revocation (%d call(s) beat it)", m.name, i)
				break
			}
			require.True(t, time.Now().Before(deadline), "%s still allowed by the revoked grant", m.name)
			time.Sleep(20 * time.Millisecond)
		}
	}
}
