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
		want  builtins.Containment
	}{
		{"one inside of two", []string{"/srv/ok", "/srv/secret/key"}, builtins.Inside},
		{"inside settles it despite an unknown", []string{"", "/srv/secret/key"}, builtins.Inside},
		{"all outside", []string{"/srv/ok", "/etc"}, builtins.Outside},
		{"an unknown and the rest outside", []string{"/srv/ok", ""}, builtins.Unknown},
		{"no path at all", nil, builtins.Outside},
		{"the directory itself", []string{"/srv/secret"}, builtins.Inside},
		{"a prefix is not a parent", []string{"/srv/secretive"}, builtins.Outside},
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
		all, any builtins.HostMatch
	}{
		{"all match", []string{"docs.raku.org", "a.raku.org"}, builtins.HostMatches, builtins.HostMatches},
		{"one of two", []string{"docs.raku.org", "evil.example"}, builtins.HostMismatch, builtins.HostMatches},
		{"none", []string{"evil.example"}, builtins.HostMismatch, builtins.HostMismatch},
		{"a match and an unknown", []string{"docs.raku.org", ""}, builtins.HostUnknown, builtins.HostMatches},
		{"a miss and an unknown", []string{"evil.example", ""}, builtins.HostMismatch, builtins.HostUnknown},
		{"only an unknown", []string{""}, builtins.HostUnknown, builtins.HostUnknown},
		{"no host at all", nil, builtins.HostMismatch, builtins.HostMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.all, builtins.MatchAllHosts(pattern, tc.hosts), "MatchAllHosts")
			require.Equal(t, tc.any, builtins.MatchAnyHosts(pattern, tc.hosts), "MatchAnyHosts")
		})
	}
}

// FromFileURI accepts only a file URI that names one local absolute path;
// any other reading a server might make of it is refused.
func TestFromFileURI(t *testing.T) {
	for _, tc := range []struct {
		name, uri, want string
		ok              bool
	}{
		{"empty host", "file:///etc/hosts", "/etc/hosts", true},
		{"localhost", "file://localhost/etc/hosts", "/etc/hosts", true},
		{"escaped space", "file:///srv/a%20b", "/srv/a b", true},
		{"not a file URI", "/srv/a", "/srv/a", true},
		{"another host", "file://evil.example/etc/hosts", "", false},
		{"no slashes", "file:/etc/passwd", "", false},
		{"relative", "file:etc/passwd", "", false},
		{"query", "file:///etc/hosts?x=1", "", false},
		{"fragment", "file:///etc/hosts#x", "", false},
		{"user information", "file://u@localhost/etc/hosts", "", false},
		{"encoded slash", "file:///srv/a%2fb", "", false},
		{"encoded backslash", "file:///srv/a%5cb", "", false},
		{"encoded NUL", "file:///srv/a%00b", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := builtins.FromFileURI(tc.uri)
			require.Equal(t, tc.ok, ok)
			if ok {
				require.Equal(t, tc.want, got)
			}
		})
	}
}

// HostOf reads a bare host as URLHost reads a URL's, so a rule on a host
// catches an argument that names it in any spelling.
func TestHostOf(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"Docs.Raku.ORG.", "docs.raku.org", true},
		{"10.0.0.1:8080", "10.0.0.1", true},
		{"::1", "[::1]", true},
		{"[::ffff:127.0.0.1]", "127.0.0.1", true},
		{"bücher.de", "xn--bcher-kva.de", true},
		{"https://docs.raku.org", "", false},
		{"docs.raku.org/x", "", false},
		{"user@docs.raku.org", "", false},
		{"", "", false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := builtins.HostOf(tc.in)
			require.Equal(t, tc.ok, ok, "got %q", got)
			if ok {
				require.Equal(t, tc.want, got)
			}
		})
	}
}

// A relative "under" means a directory under each tool's root; one that
// climbs out of the root would mean something else per root, and is refused.
func TestNormalizeUnder(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"/srv/./scratch/", "/srv/scratch", true},
		{"scratch/../notes", "notes", true},
		{"file:///srv/scratch", "/srv/scratch", true},
		{"..", "", false},
		{"scratch/../../etc", "", false},
		{"~/scratch", "", false},
		{"", "", false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := builtins.NormalizeUnder(tc.in)
			if !tc.ok {
				require.Error(t, err, "got %q", got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// EscapeTool names exactly one tool: the glob it makes matches that name
// and no other, has no wildcard, and spells the name back.
func TestEscapeToolNamesOneTool(t *testing.T) {
	for _, name := range []string{"fs_write", "fs_*", "a?b", `back\slash`, `*\?`} {
		t.Run(name, func(t *testing.T) {
			glob := builtins.EscapeTool(name)
			require.NoError(t, builtins.ValidateToolGlob(glob))
			require.False(t, builtins.IsGlob(glob))
			require.Equal(t, name, builtins.UnescapeTool(glob))
			require.True(t, builtins.MatchTool(glob, name))
			require.False(t, builtins.MatchTool(glob, name+"x"))
			require.False(t, builtins.MatchTool(glob, "fs_writer"))
		})
	}
	require.True(t, builtins.IsGlob("fs_*"))
	require.Error(t, builtins.ValidateToolGlob(`fs_\`), "a lone backslash at the end means nothing")
}
