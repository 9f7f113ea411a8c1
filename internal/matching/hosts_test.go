package matching_test

import (
	"testing"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/internal/matching"

	"github.com/stretchr/testify/require"
)

// A deny or ask rule reads a call's paths with WithinAny: one path inside is
// enough, and a path that cannot be evaluated ("") keeps "outside" from
// being the answer, since it may be inside.
func TestWithinAny(t *testing.T) {
	for _, tc := range []struct {
		name  string
		paths []string
		want  matching.Match
	}{
		{"one inside of two", []string{"/srv/ok", "/srv/secret/key"}, matching.Yes},
		{"inside settles it despite an unknown", []string{"", "/srv/secret/key"}, matching.Yes},
		{"all outside", []string{"/srv/ok", "/etc"}, matching.No},
		{"an unknown and the rest outside", []string{"/srv/ok", ""}, matching.Unknown},
		{"no path at all", nil, matching.No},
		{"the directory itself", []string{"/srv/secret"}, matching.Yes},
		{"a prefix is not a parent", []string{"/srv/secretive"}, matching.No},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, matching.WithinAny("/srv/secret", tc.paths))
		})
	}
}

// Hosts have the same tri-state as paths: an allow rule (MatchAllHosts)
// needs every host, a deny or ask rule (MatchAnyHosts) any; an unparseable
// URL's host ("") is never taken for a match nor, under deny, for a miss.
func TestMatchAllAndAnyHosts(t *testing.T) {
	pattern, err := lexical.NormalizeHostPattern("*.raku.org")
	require.NoError(t, err)
	for _, tc := range []struct {
		name     string
		hosts    []string
		all, any matching.Match
	}{
		{"all match", []string{"docs.raku.org", "a.raku.org"}, matching.Yes, matching.Yes},
		{"one of two", []string{"docs.raku.org", "evil.example"}, matching.No, matching.Yes},
		{"none", []string{"evil.example"}, matching.No, matching.No},
		{"a match and an unknown", []string{"docs.raku.org", ""}, matching.Unknown, matching.Yes},
		{"a miss and an unknown", []string{"evil.example", ""}, matching.No, matching.Unknown},
		{"only an unknown", []string{""}, matching.Unknown, matching.Unknown},
		{"no host at all", nil, matching.No, matching.No},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.all, matching.MatchAllHosts(pattern, tc.hosts), "MatchAllHosts")
			require.Equal(t, tc.any, matching.MatchAnyHosts(pattern, tc.hosts), "MatchAnyHosts")
		})
	}
}
