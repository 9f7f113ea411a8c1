package grants_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/rules"
)

// A file of bare rules is a file of grants; a record beside a rule is
// read with it; a bad record is an error naming the rule and the field.
func TestParseGrantsReadsRecordsBesideRules(t *testing.T) {
	gs, err := grants.ParseGrants([]byte(`[
		{"tool": "write_file", "decision": "allow", "under": "/srv"},
		{"tool": "rm", "decision": "deny", "id": "anything", "granted_at": "2026-01-02T03:04:05Z",
		 "labels": {"id": "ci-7"}, "question": {"tool": "rm", "paths": ["/srv/x"], "reason": "no-match"},
		 "expires": "2026-01-03T03:04:05Z"}
	]`), "g.json")
	require.NoError(t, err)
	require.Len(t, gs, 2)
	assert.Equal(t, grants.IDOf(gs[0].Rule), gs[0].ID, "an ID is derived from the rule")
	assert.Equal(t, grants.IDOf(rules.Rule{Tool: "rm", Decision: rules.Deny}), gs[1].ID, "a stored ID is not trusted")
	assert.Equal(t, "ci-7", gs[1].Labels["id"])
	assert.Equal(t, []string{"/srv/x"}, gs[1].Question.Paths)
	assert.True(t, gs[1].ExpiredAt(time.Date(2026, 1, 3, 3, 4, 5, 0, time.UTC)))

	for in, want := range map[string]string{
		`[{"tool": "x", "decision": "deny", "labels": ["a"]}]`:                   `g.json: rule 1: field "labels"`,
		`[{"tool": "x", "decision": "deny", "question": {"tool": "x", "y": 1}}]`: `g.json: rule 1: field "question"`,
		`[{"tool": "x", "decision": "deny", "question": {"paths": []}}]`:         "a question names its tool",
		`[{"tool": "x", "decision": "deny", "expires": "tomorrow"}]`:             `field "expires"`,
		`[{"tool": "x", "decision": "deny"}, {"tool": "y", "decision": "ask"}]`:  "g.json: rule 2",
		`[{"tool": "x", "decision": "deny", "granted": "2026-01-02T03:04:05Z"}]`: "granted",
		`{"tool": "x"}`: "must be a JSON array",
	} {
		_, err := grants.ParseGrants([]byte(in), "g.json")
		if assert.Error(t, err, in) {
			assert.Contains(t, err.Error(), want, in)
		}
	}
}

// Filters pick by each field, all of them at once.
func TestFilterPicksByEveryCondition(t *testing.T) {
	now := time.Now()
	g := grants.Grant{Rule: rules.Rule{Tool: "web_fetch", Decision: rules.Allow, Host: "api.example.com"},
		GrantedAt: now.Add(-2 * time.Hour), Labels: map[string]string{"id": "ci-7", "team": "web"}}
	d := grants.Grant{Rule: rules.Rule{Tool: "write_file", Decision: rules.Deny, Under: "/srv/app"}}
	g.ID, d.ID = grants.IDOf(g.Rule), grants.IDOf(d.Rule)
	for _, c := range []struct {
		f      grants.Filter
		g, d   bool
		reason string
	}{
		{grants.Filter{}, true, true, "the zero filter picks all"},
		{grants.Filter{Tool: "web_*"}, true, false, "tool glob"},
		{grants.Filter{Under: "/srv"}, false, true, "under a parent"},
		{grants.Filter{Under: "/srv/app/sub"}, false, false, "under a child is not under"},
		{grants.Filter{Under: "/sr"}, false, false, "a prefix is not a parent"},
		{grants.Filter{Host: "example.com"}, true, false, "a name under the host"},
		{grants.Filter{Host: "ample.com"}, false, false, "a suffix is not a parent domain"},
		{grants.Filter{Labels: map[string]string{"team": "web"}}, true, false, "label"},
		{grants.Filter{Labels: map[string]string{"team": "web", "id": "x"}}, false, false, "every label"},
		{grants.Filter{OlderThan: time.Hour}, true, true, "older, and unknown age counts as old"},
		{grants.Filter{OlderThan: 3 * time.Hour}, false, true, "not that old"},
		{grants.Filter{IDs: []string{d.ID}}, false, true, "by ID"},
		{grants.Filter{IDs: []string{d.ID}, Tool: "web_*"}, false, false, "ID and tool both"},
		{grants.Filter{Expired: true}, false, false, "nothing expired"},
	} {
		assert.Equal(t, c.g, c.f.Match(g, now), "%s: web_fetch grant", c.reason)
		assert.Equal(t, c.d, c.f.Match(d, now), "%s: write_file grant", c.reason)
	}
	assert.Error(t, grants.Filter{Under: "rel"}.Validate())
	assert.True(t, grants.Filter{}.Empty())
}

// FuzzParseGrants: whatever the bytes, ParseGrants does not panic, and
// grants it accepts are written and read back unchanged.
func FuzzParseGrants(f *testing.F) {
	for _, seed := range []string{
		`[]`, `[{"tool":"x","decision":"deny"}]`,
		`[{"tool":"w","decision":"allow","under":"/srv","id":"x","granted_at":"2026-01-02T03:04:05Z","labels":{"a":"b"},"question":{"tool":"w","paths":["/srv/a"]},"expires":"2027-01-01T00:00:00Z"}]`,
		`[{"tool":"f","decision":"allow","host":"*.example.com","arguments":{"url":"https://*"}}]`,
		`[{"tool":"x","decision":"deny","labels":null}]`, `[{"tool":"x","decision":"deny","question":null}]`,
		`[{"tool":"x","decision":"deny","tool":"y"}]`, `null`, `[1]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		gs, err := grants.ParseGrants(data, "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz") {
				t.Fatalf("an error that does not name the input: %v", err)
			}
			return
		}
		out, err := json.Marshal(gs)
		if err != nil {
			t.Fatal(err)
		}
		again, err := grants.ParseGrants(out, "again")
		if err != nil {
			t.Fatalf("written %s, not read back: %v", out, err)
		}
		for i := range gs {
			a, b := gs[i], again[i]
			if a.ID != b.ID || !a.GrantedAt.Equal(b.GrantedAt) || !a.Expires.Equal(b.Expires) ||
				!reflect.DeepEqual(a.Rule, b.Rule) || !reflect.DeepEqual(a.Question, b.Question) || len(a.Labels) != len(b.Labels) {
				t.Fatalf("grant %d changed on the way back:\n%+v\n%+v", i, a, b)
			}
		}
	})
}
