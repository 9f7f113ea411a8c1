package lexical

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
		want := path.IsAbs(p) && unevaluable(p) == "" && path.Clean(p) == p // not Unevaluable: it takes this very shortcut
		require.Equal(t, want, cleanAbs(p), "cleanAbs(%q)", p)
	})
}

// FuzzUnevaluable: Unevaluable's shortcut through cleanAbs (and so
// Resolve's, which returns a path cleanAbs accepts as it is) answers as the
// full test does.
func FuzzUnevaluable(f *testing.F) {
	for _, s := range []string{"/", "/a/b", "/srv/$HOME", "/proc/self/root", "/sys/x", "/System/Volumes/Data", "/a/../b", "rel", "/.vol/1", "/a\u200e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		require.Equal(t, unevaluable(p), Unevaluable(p), "Unevaluable(%q)", p)
	})
}
