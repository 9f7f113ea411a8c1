package e2e_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/pgtest"
)

// TestProxyGrantsSurviveTheDatabaseKilled: three `mcp-policy proxy`
// processes share grants on a real PostgreSQL, which is killed (as a crash
// would: pg_ctl stop -m immediate) while they run and then restarted.
// While it is down, a write an allow grant answered before is no longer
// allowed once the staleness bound has passed: it is asked (a host that
// elicits) or refused (a headless proxy). An always-deny given meanwhile
// denies at once and goes on denying; once the database is back it is
// written to it exactly once and reaches the other proxies, and the allow
// grant answers again.
func TestProxyGrantsSurviveTheDatabaseKilled(t *testing.T) {
	t.Parallel()
	server, dir := officialFSServer(t)
	drafts := mkdir(t, dir, "drafts")
	secret := mkdir(t, dir, "secret")
	srv := pgtest.Own(t)
	db := srv.NewDatabase(t)

	personA := &human{answer: choose("always-allow")}
	personB := &human{answer: choose("deny-once")}
	a := startProxied(t, []string{"--grants", db, "--label", "machine-a"}, server, hostOptions{elicit: personA})
	b := startProxied(t, []string{"--grants", db, "--label", "machine-b"}, server, hostOptions{elicit: personB})
	headless := startProxied(t, []string{"--grants", db, "--ask", "refuse"}, server, hostOptions{})
	n := 0
	write := func(ph *proxied, under string) (*mcp.CallToolResult, string) {
		n++
		path := filepath.Join(under, fmt.Sprintf("f%d.md", n))
		return ph.call("write_file", map[string]any{"path": path, "content": "x"}), path
	}
	// until retries a write through ph until done says it has its answer:
	// grants and their revocations travel by NOTIFY and the staleness
	// bound, so a call may beat them.
	until := func(what string, ph *proxied, under string, done func(r *mcp.CallToolResult, path string) bool) time.Duration {
		t.Helper()
		start := time.Now()
		deadline := start.Add(20 * time.Second)
		for {
			r, path := write(ph, under)
			if done(r, path) {
				return time.Since(start)
			}
			require.True(t, time.Now().Before(deadline), "%s: not within 20s (last: %s)", what, text(r))
			time.Sleep(50 * time.Millisecond)
		}
	}
	allowedUnasked := func(person *human) func(*mcp.CallToolResult, string) bool {
		asked := 0
		if person != nil {
			asked = len(person.asked())
		}
		return func(r *mcp.CallToolResult, _ string) bool {
			if person != nil && len(person.asked()) > asked {
				asked = len(person.asked()) // asked: no grant answered this one
				return false
			}
			return !r.IsError
		}
	}

	progress(t, "A's human answers always-allow; B and the headless proxy follow the grant")
	r, path := write(a, drafts)
	wantCallOK(t, r)
	wantFile(t, path, "x")
	require.Len(t, personA.asked(), 1, "A's questions")
	until("B allowed by A's grant", b, drafts, allowedUnasked(nil))
	until("the headless proxy allowed by A's grant", headless, drafts, allowedUnasked(nil))
	asked := len(personB.asked())
	r, _ = write(b, drafts)
	wantCallOK(t, r)
	require.Len(t, personB.asked(), asked, "B asked about a write A's grant covers")

	progress(t, "the database killed")
	srv.Kill(t)
	killed := time.Now()
	restarted := false
	t.Cleanup(func() {
		if !restarted {
			srv.Restart(t)
		}
	})

	progress(t, "past the staleness bound the allow grant answers nothing")
	personA.answer = choose("deny-once")
	for _, m := range []struct {
		name   string
		ph     *proxied
		person *human
	}{{"A", a, personA}, {"B", b, personB}} {
		before := len(m.person.asked())
		until(m.name+" asks again with the database down", m.ph, drafts, func(r *mcp.CallToolResult, path string) bool {
			if len(m.person.asked()) == before {
				require.False(t, r.IsError, "%s refused a write without asking: %s", m.name, text(r))
				return false // allowed by the grant, within the staleness bound
			}
			wantCallError(t, r, "declined")
			wantAbsent(t, path)
			return true
		})
		t.Logf("%s asks again %v after the kill", m.name, time.Since(killed).Round(time.Millisecond))
	}
	until("the headless proxy refuses with the database down", headless, drafts, func(r *mcp.CallToolResult, path string) bool {
		if !r.IsError {
			return false // allowed by the grant, within the staleness bound
		}
		wantCallError(t, r, "Permission required")
		wantAbsent(t, path)
		return true
	})
	// Past the bound every proxy stays closed: none is allowed again.
	for _, ph := range []*proxied{a, b, headless} {
		r, path := write(ph, drafts)
		require.True(t, r.IsError, "a write allowed by a stale grant with the database down")
		wantAbsent(t, path)
	}

	progress(t, "an always-deny while the database is down")
	personA.answer = choose("always-deny")
	r, path = write(a, secret)
	wantCallError(t, r, "The user chose to always deny")
	wantAbsent(t, path)
	asked = len(personA.asked())
	r, path = write(a, secret)
	wantCallError(t, r, "always deny")
	wantAbsent(t, path)
	require.Len(t, personA.asked(), asked, "A asked again about a write its queued deny covers")

	progress(t, "the database restarted")
	srv.Restart(t)
	restarted = true
	personA.answer, personB.answer = choose("deny-once"), choose("deny-once")
	until("A allowed by the grant again", a, drafts, allowedUnasked(personA))
	until("B allowed by the grant again", b, drafts, allowedUnasked(personB))
	until("the headless proxy allowed by the grant again", headless, drafts, allowedUnasked(nil))
	// The deny answered on A reaches B from the database: refused, unasked.
	asked = len(personB.asked())
	until("B refused by A's deny", b, secret, func(r *mcp.CallToolResult, path string) bool {
		wantAbsent(t, path)
		if len(personB.asked()) > asked {
			asked = len(personB.asked())
			return false // asked: the deny has not reached B yet
		}
		wantCallError(t, r, "always deny")
		return true
	})

	progress(t, "every answer in the database once")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, db)
	require.NoError(t, err)
	defer c.Close(ctx)
	var allows, denies int
	require.NoError(t, c.QueryRow(ctx, `SELECT count(*) FILTER (WHERE grant_json->>'decision' = 'allow'),
		count(*) FILTER (WHERE grant_json->>'decision' = 'deny') FROM mcp_policy_grants`).Scan(&allows, &denies))
	var total int
	require.NoError(t, c.QueryRow(ctx, "SELECT count(*) FROM mcp_policy_grants").Scan(&total))
	assert.Equal(t, 1, allows, "allow grants in the database")
	assert.Equal(t, 1, denies, "deny grants in the database: the one answered while it was down, written once")
	assert.Equal(t, 2, total, "grants in the database")
}
