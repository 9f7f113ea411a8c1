package builtins

import (
	"path"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzCleanAbs: the shortcut Contains, Ancestors and CommonDir take is
// exactly "absolute, evaluable and already clean". A false yes would let an
// uncleaned "/srv/../etc" be compared as it is written; a false no only
// costs time, but is checked too so that the shortcut stays the common way.
func FuzzCleanAbs(f *testing.F) {
	for _, s := range []string{"/", "/a", "/a/b", "/a/", "//a", "/a/./b", "/a/../b", "/a/..", "/.", "/..",
		"/.a", "/a..", "/a/.b/c", "/.vol/1/2", "/.NOFOLLOW/x", "/Volumes/Macintosh HD", "/$HOME", `/a\b`, "/a\x00", "a", "", "/a//b", "/...",
		"/proc/self/root", "/proc/x", "/dev/fd/3", "/dev/null", "/System/Volumes/Data/x", "/sYstem/x", "/volumes/Macintosh HD/x", "/C:/x", "/pa", "/d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		want := path.IsAbs(p) && Unevaluable(p) == "" && path.Clean(p) == p
		require.Equal(t, want, cleanAbs(p), "cleanAbs(%q)", p)
	})
}
