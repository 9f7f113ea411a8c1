package builtins_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/builtins"
)

// A deny or ask rule reads a call's paths with WithinAny: one path inside is
// enough, and a path that cannot be evaluated ("") keeps "outside" from
// being the answer, since it may be inside.
func TestWithinAny(t *testing.T) {
	for _, tc := range []struct {
		name  string
		paths []string
		want  builtins.Match
	}{
		{"one inside of two", []string{"/srv/ok", "/srv/secret/key"}, builtins.Yes},
		{"inside settles it despite an unknown", []string{"", "/srv/secret/key"}, builtins.Yes},
		{"all outside", []string{"/srv/ok", "/etc"}, builtins.No},
		{"an unknown and the rest outside", []string{"/srv/ok", ""}, builtins.Unknown},
		{"no path at all", nil, builtins.No},
		{"the directory itself", []string{"/srv/secret"}, builtins.Yes},
		{"a prefix is not a parent", []string{"/srv/secretive"}, builtins.No},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, builtins.WithinAny("/srv/secret", tc.paths))
		})
	}
}

// Hosts have the same tri-state as paths: an allow rule (MatchAllHosts)
// needs every host, a deny or ask rule (MatchAnyHosts) any; an unparseable
// URL's host ("") is never taken for a match nor, under deny, for a miss.
func TestMatchAllAndAnyHosts(t *testing.T) {
	pattern, err := builtins.NormalizeHostPattern("*.raku.org")
	require.NoError(t, err)
	for _, tc := range []struct {
		name     string
		hosts    []string
		all, any builtins.Match
	}{
		{"all match", []string{"docs.raku.org", "a.raku.org"}, builtins.Yes, builtins.Yes},
		{"one of two", []string{"docs.raku.org", "evil.example"}, builtins.No, builtins.Yes},
		{"none", []string{"evil.example"}, builtins.No, builtins.No},
		{"a match and an unknown", []string{"docs.raku.org", ""}, builtins.Unknown, builtins.Yes},
		{"a miss and an unknown", []string{"evil.example", ""}, builtins.No, builtins.Unknown},
		{"only an unknown", []string{""}, builtins.Unknown, builtins.Unknown},
		{"no host at all", nil, builtins.No, builtins.No},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.all, builtins.MatchAllHosts(pattern, tc.hosts), "MatchAllHosts")
			require.Equal(t, tc.any, builtins.MatchAnyHosts(pattern, tc.hosts), "MatchAnyHosts")
		})
	}
}
