package lexical_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

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
			got, ok := lexical.FromFileURI(tc.uri)
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
			got, ok := lexical.HostOf(tc.in)
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
			got, err := lexical.NormalizeUnder(tc.in)
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
			glob := lexical.EscapeTool(name)
			require.NoError(t, lexical.ValidateToolGlob(glob))
			require.False(t, lexical.IsGlob(glob))
			require.Equal(t, name, lexical.UnescapeTool(glob))
			require.True(t, lexical.MatchTool(glob, name))
			require.False(t, lexical.MatchTool(glob, name+"x"))
			require.False(t, lexical.MatchTool(glob, "fs_writer"))
		})
	}
	require.True(t, lexical.IsGlob("fs_*"))
	require.Error(t, lexical.ValidateToolGlob(`fs_\`), "a lone backslash at the end means nothing")
}
