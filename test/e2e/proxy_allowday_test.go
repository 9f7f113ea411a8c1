package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/policy/rules"
)

// TestProxyAllowForADay: through the real proxy and a host that elicits,
// "Allow for a day" is offered beside "Always allow", and answering it
// writes a grant to the grants file that expires about 24 hours later and
// allows the next such write without asking. A grant whose expiry has
// passed answers nothing: the write is asked again, and the question says
// a grant did not answer.
func TestProxyAllowForADay(t *testing.T) {
	server, dir := officialFSServer(t)
	drafts := mkdir(t, dir, "drafts")
	old := mkdir(t, dir, "old")
	grantsFile := filepath.Join(t.TempDir(), "grants.json")
	person := &human{answer: choose("allow-for-a-day")}
	ph := startProxied(t, []string{"--grants", grantsFile}, server, hostOptions{elicit: person})
	write := func(path string) error {
		r := ph.call("write_file", map[string]any{"path": path, "content": "x"})
		if r.IsError {
			return assert.AnError
		}
		return nil
	}

	progress(t, "answer allow for a day")
	before := time.Now()
	wantCallOK(t, ph.call("write_file", map[string]any{"path": filepath.Join(drafts, "a.md"), "content": "a"}))
	after := time.Now()
	wantFile(t, filepath.Join(drafts, "a.md"), "a")
	qs := person.asked()
	require.Len(t, qs, 1, "questions")
	values, titles := permissionChoices(t, qs[0])
	require.Equal(t, []string{"allow-once", "always-allow", "allow-for-a-day", "deny-once", "always-deny"}, values, "choices (titles %v)", titles)
	assert.Equal(t, "Allow for a day write_file under "+drafts, titles[2], "the allow-for-a-day choice's title")

	s, err := grants.Open(grantsFile)
	require.NoError(t, err)
	records := s.Records()
	require.NoError(t, s.Close())
	require.Len(t, records, 1, "grants after the answer")
	g := records[0]
	assert.Equal(t, rules.Rule{Tool: "write_file", Decision: rules.Allow, Under: drafts}, g.Rule, "the grant")
	require.False(t, g.Expires.IsZero(), "an allow-for-a-day grant with no expiry")
	// GrantedAt is cut to the microsecond, as PostgreSQL keeps it.
	assert.WithinRange(t, g.Expires, before.Add(24*time.Hour-time.Millisecond), after.Add(24*time.Hour),
		"the grant's expiry: want 24h after the answer")
	assert.Equal(t, 24*time.Hour, g.Expires.Sub(g.GrantedAt), "the grant's lifetime")

	progress(t, "the grant answers the next write")
	require.NoError(t, write(filepath.Join(drafts, "b.md")), "a write the day grant covers")
	wantFile(t, filepath.Join(drafts, "b.md"), "x")
	require.Len(t, person.asked(), 1, "asked about a write the day grant covers")

	progress(t, "a grant whose day has passed answers nothing")
	s, err = grants.Open(grantsFile)
	require.NoError(t, err)
	yesterday := time.Now().Add(-25 * time.Hour).UTC()
	expired := rules.Rule{Tool: "write_file", Decision: rules.Allow, Under: old}
	require.NoError(t, s.AddGrants(context.Background(), grants.Grant{Rule: expired, GrantedAt: yesterday, Expires: yesterday.Add(24 * time.Hour)}))
	require.NoError(t, s.Close())
	data, err := os.ReadFile(grantsFile)
	require.NoError(t, err)
	require.Contains(t, string(data), old, "the expired grant is in the grants file")
	person.answer = choose("deny-once")
	require.Error(t, write(filepath.Join(old, "c.md")), "a write only an expired grant covers was run")
	wantAbsent(t, filepath.Join(old, "c.md"))
	qs = person.asked()
	require.Len(t, qs, 2, "the write an expired grant covers is asked")
	assert.Contains(t, qs[1].Params.Message, "\"Always allow\" would allow write_file under "+old, "the question about the expired grant's place")
}
