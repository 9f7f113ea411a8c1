package regoeval

import (
	"testing"

	"github.com/mcp-policy/mcp-policy/internal/matching"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-policy/mcp-policy/internal/verdict"
)

// An allow covers a call only in the dimensions it names; a deny or ask
// reads any path and any host, as before.
func TestAnAllowCoversEveryDimensionTheCallNames(t *testing.T) {
	for _, c := range []struct {
		decision    verdict.Decision
		under, host string
		paths       []string
		hosts       []string
		want        matching.Match
	}{
		{verdict.Allow, "/", "", []string{"/tmp"}, nil, matching.Yes},
		{verdict.Allow, "/", "", []string{"/tmp"}, []string{"169.254.169.254"}, matching.No},
		{verdict.Allow, "/", "", []string{"/tmp"}, []string{""}, matching.No},
		{verdict.Allow, "/", "", []string{""}, []string{"x.example"}, matching.No},
		{verdict.Allow, "", "x.example", nil, []string{"x.example"}, matching.Yes},
		{verdict.Allow, "", "x.example", []string{"/tmp"}, []string{"x.example"}, matching.No},
		{verdict.Allow, "", "x.example", []string{""}, []string{"x.example"}, matching.No},
		{verdict.Allow, "", "x.example", []string{"/tmp"}, []string{""}, matching.No},
		{verdict.Allow, "/srv", "x.example", []string{"/srv/a"}, []string{"x.example"}, matching.Yes},
		{verdict.Allow, "/srv", "x.example", []string{"/srv/a"}, []string{""}, matching.Unknown},
		{verdict.Allow, "", "", []string{"/tmp", ""}, []string{"x.example", ""}, matching.Yes},
		{verdict.Deny, "/tmp", "", []string{"/tmp"}, []string{"x.example"}, matching.Yes},
		{verdict.Deny, "", "x.example", []string{"/tmp"}, []string{"x.example"}, matching.Yes},
		{verdict.Ask, "/tmp", "", []string{"/tmp"}, []string{""}, matching.Yes},
	} {
		m := MatcherFor(c.decision, "t", c.under, c.host, nil)
		got := m.Status(NewCall("t", "", nil, c.paths, c.hosts))
		assert.Equal(t, c.want, got, "%s under %q host %q, paths %q hosts %q", c.decision, c.under, c.host, c.paths, c.hosts)
	}
}

// The suggestion names every dimension the call names, so that as an
// allow grant it matches that call.
func TestTheSuggestionNamesEveryDimension(t *testing.T) {
	for _, c := range []struct {
		paths, hosts []string
		under, host  string
	}{
		{[]string{"/w/a/x"}, nil, "/w/a", ""},
		{nil, []string{"x.example", "x.example"}, "", "x.example"},
		{[]string{"/w/a/x"}, []string{"x.example"}, "/w/a", "x.example"},
		{[]string{"/w/a/x"}, []string{"x.example", "y.example"}, "", ""},
		{[]string{"/w/a/x"}, []string{""}, "", ""},
		{[]string{""}, []string{"x.example"}, "", ""},
		{nil, nil, "", ""},
	} {
		call := NewCall("t", "", nil, c.paths, c.hosts)
		under, host := Suggest(call)
		assert.Equal(t, [2]string{c.under, c.host}, [2]string{under, host}, "paths %q hosts %q", c.paths, c.hosts)
		if under != "" || host != "" {
			m := MatcherFor(verdict.Allow, "t", under, host, nil)
			assert.Equal(t, matching.Yes, m.Status(call), "the suggestion as a grant matches its call")
		}
	}
}
