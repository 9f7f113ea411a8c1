package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/rules"
)

// TestProxyAllowForADay: through the real proxy and a host that elicits,
// "Allow for a day" is offered beside "Always allow", and answering it
// writes a grant to the grants file that expires about 24 hours later and
// allows the next such write without asking. A grant whose expiry has
// passed answers nothing: the write is asked again, and the question says
// a grant did not answer.
func TestProxyAllowForADay(t *testing.T) {
	t.Parallel()
	server, dir := officialFSServer(t)
	drafts := mkdir(t, dir, "drafts")
	old := mkdir(t, dir, "old")
	grantsFile := filepath.Join(t.TempDir(), "grants.json")
	person := &human{answer: choose("allow-for-a-day")}
	ph := startProxied(t, []string{"--grants", grantsFile}, server, hostOptions{elicit: person})
	write := func(path string) *mcp.CallToolResult {
		return ph.call("write_file", map[string]any{"path": path, "content": "x"})
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
	wantCallOK(t, write(filepath.Join(drafts, "b.md")))
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
	wantCallError(t, write(filepath.Join(old, "c.md")), "The user declined")
	wantAbsent(t, filepath.Join(old, "c.md"))
	qs = person.asked()
	require.Len(t, qs, 2, "the write an expired grant covers is asked")
	assert.Contains(t, qs[1].Params.Message, "\"Always allow\" would allow write_file under "+old, "the question about the expired grant's place")
}

// TestProxyAllowForADayInARound: a 2026-07-28 host, asked by an
// input-required round, is offered "Allow for a day" too, and answering
// it leaves a grant expiring a day later that answers the next call
// without a round.
func TestProxyAllowForADayInARound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	grantsFile := filepath.Join(t.TempDir(), "grants.json")
	h := startRaw(t, []string{"--root", "fs=" + dir, "--grants", grantsFile}, []string{fsserver, dir}, nil)
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "1"},
	}
	call := func(id int, args map[string]any, extra map[string]any) map[string]any {
		params := map[string]any{"name": "fs_write", "arguments": args, "_meta": meta}
		for k, v := range extra {
			params[k] = v
		}
		h.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
		return jsonObject(t, h.response(float64(id), 20*time.Second)["result"], "result")
	}

	args := map[string]any{"path": "a.txt", "content": "a"}
	res := call(1, args, nil)
	require.Equal(t, "input_required", res["resultType"], "want an input-required round, got %v", res)
	reqs := jsonObject(t, res["inputRequests"], "inputRequests")
	require.Len(t, reqs, 1, "input requests %v", reqs)
	var key string
	var req map[string]any
	for k, v := range reqs {
		key, req = k, jsonObject(t, v, "input request")
	}
	schema := jsonObject(t, jsonObject(t, req["params"], "params")["requestedSchema"], "requestedSchema")
	field := jsonObject(t, jsonObject(t, schema["properties"], "properties")["answer"], "answer field")
	var values []string
	for _, o := range field["oneOf"].([]any) {
		values = append(values, jsonObject(t, o, "choice")["const"].(string))
	}
	require.Equal(t, []string{"allow-once", "always-allow", "allow-for-a-day", "deny-once", "always-deny"}, values, "the round's choices")

	before := time.Now()
	res = call(2, args, map[string]any{"requestState": res["requestState"],
		"inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"answer": "allow-for-a-day"}}}})
	require.NotEqual(t, true, res["isError"], "after the answer: %v", res)
	require.NotEqual(t, "input_required", res["resultType"], "after the answer: %v", res)
	wantFile(t, filepath.Join(dir, "a.txt"), "a")

	s, err := grants.Open(grantsFile)
	require.NoError(t, err)
	records := s.Records()
	require.NoError(t, s.Close())
	require.Len(t, records, 1, "grants after the answer")
	assert.WithinRange(t, records[0].Expires, before.Add(24*time.Hour-time.Millisecond), time.Now().Add(24*time.Hour), "the grant's expiry")

	res = call(3, map[string]any{"path": "b.txt", "content": "b"}, nil)
	require.NotEqual(t, "input_required", res["resultType"], "a call the day grant covers was asked: %v", res)
	require.NotEqual(t, true, res["isError"], "a call the day grant covers: %v", res)
	wantFile(t, filepath.Join(dir, "b.txt"), "b")
}
