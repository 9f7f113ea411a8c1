package matching_test

import (
	"path"
	"strings"
	"testing"

	"github.com/mcp-policy/mcp-policy/internal/matching"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

func TestContains(t *testing.T) {
	cases := []struct {
		dir, p string
		want   matching.Match
	}{
		{"/srv", "/srv", matching.Yes},
		{"/srv", "/srv/a/b", matching.Yes},
		{"/srv/", "/srv/a", matching.Yes},
		{"/", "/anything", matching.Yes},
		{"/srv", "/srvx", matching.No},        // a prefix is not a parent
		{"/srv", "/srv/../etc", matching.No},  // cleaned before comparing
		{"/srv/a/..", "/srv/b", matching.Yes}, // the directory is cleaned too
		{"/srv", "/srv/a/../../etc", matching.No},
		{"/srv", "relative", matching.Unknown}, // no root to resolve against
		{"/srv", "", matching.Unknown},
		{"/srv", "~/x", matching.Unknown},
		{"/srv", "/srv/${HOME}", matching.Unknown},
		{"/srv", "$HOME/x", matching.Unknown},
		{"/srv", "/srv/app/posts.$slug.tsx", matching.Yes}, // a name only inserts text where it stands
		{"/srv", `/srv\..\etc`, matching.Unknown},
		{"/srv", "C:/srv", matching.Unknown},
		{"/srv", "//server/share", matching.Unknown},
		{"/srv", "/srv/a\x00b", matching.Unknown},
		{"", "/srv", matching.Unknown},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, matching.Contains(c.dir, c.p), "Contains(%q, %q)", c.dir, c.p)
	}
}

func TestWithinAll(t *testing.T) {
	assert.Equal(t, matching.Yes, matching.WithinAll("/srv", []string{"/srv/a", "/srv/b"}))
	assert.Equal(t, matching.No, matching.WithinAll("/srv", []string{"/srv/a", "/etc"}))
	assert.Equal(t, matching.No, matching.WithinAll("/srv", []string{"", "/etc"}), "an outside path settles it")
	assert.Equal(t, matching.Unknown, matching.WithinAll("/srv", []string{"/srv/a", ""}))
	assert.Equal(t, matching.No, matching.WithinAll("/srv", nil), "no path, no match")
}

// FuzzContains checks the one property a user relies on: Contains never says
// Inside for a path that is not lexically inside the directory, judged by an
// independent reading (clean both, compare path segments).
func FuzzContains(f *testing.F) {
	for _, s := range [][2]string{{"/srv", "/srv/a"}, {"/srv", "/srv/../etc"}, {"/srv", "/srvx"}, {"/", "/a"},
		{"/a/b", "/a/b/./c/.."}, {"/srv", "~/x"}, {"/srv", `/srv\x`}, {"/srv/", "/srv//a"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, dir, p string) {
		if matching.Contains(dir, p) != matching.Yes {
			return
		}
		for _, s := range []string{dir, p} {
			if !strings.HasPrefix(s, "/") || strings.ContainsAny(s, "\\\x00`*?") || strings.HasPrefix(s, "//") || shellExpands(s) ||
				strings.Contains(s, "=~") || strings.Contains(s, ":~") {
				t.Fatalf("Inside for unevaluable input %q in %q", p, dir)
			}
		}
		d, q := strings.Split(path.Clean(dir), "/"), strings.Split(path.Clean(p), "/")
		if path.Clean(dir) == "/" {
			return
		}
		if len(q) < len(d) {
			t.Fatalf("Contains(%q, %q) = Inside, but the path is shorter", dir, p)
		}
		for i := range d {
			if d[i] != q[i] {
				t.Fatalf("Contains(%q, %q) = Inside, but segment %d differs", dir, p, i)
			}
		}
		for _, seg := range q {
			if seg == ".." {
				t.Fatalf("a clean absolute path kept ..: %q", p)
			}
		}
	})
}

// A start the platform's own lookup reads as another place than the text
// is unknown, however it is reached (written, cleaned to, or resolved to
// from a relative path), and a near miss is an ordinary name.
func TestLookupAnchorsAreUnknown(t *testing.T) {
	for _, p := range []string{
		"/.nofollow/etc/sudoers", "/.nofollow/", "/.NoFollow/etc/x", "/.resolve/1/etc/sudoers", "/.resolve/3/Users/u/.ssh",
		"/.vol/16777220/2/etc/sudoers", "/.vol/16777220/12345", "/.VOL/1/2", "/.file/id=6571367.2773272", "/.nofollow/.vol/1/2",
		"/System/Volumes/Data/Users/u/.npmrc", "/system/volumes/data", "/Volumes/Macintosh HD/etc/sudoers", "/volumes/macintosh hd",
		"/proc/self/root/etc/sudoers", "/proc/thread-self/root/x", "/proc/1/task/1/cwd/x", "/dev/fd/3", "/dev/stdin",
		// A link at any step of the walk, hidden by cleaning (outside round
		// on links): the kernel follows cwd before "..", the text does not.
		"/proc/self/./cwd/../secret/key", "/proc//self/cwd/x", "/proc/self/ns/../cwd/x", "/proc/self/task/./1/cwd/x",
		"/x/../proc/self/cwd/../etc", "/proc/self/./cwd/../../etc/sudoers.d/x", "/dev/./fd/../fd/3", "/proc/self/fd/../../1/root",
	} {
		assert.NotEmpty(t, lexical.Unevaluable(p), "%q", p)
		_, ok := lexical.AbsClean(p)
		assert.False(t, ok, "AbsClean(%q)", p)
		assert.Equal(t, matching.Unknown, matching.Contains("/etc", p), "Contains(/etc, %q)", p)
	}
	for _, c := range [][2]string{{"/", ".nofollow/etc/x"}, {"/srv", "../.vol/1/2"}, {"/srv", "/srv/../.resolve/1/etc"},
		{"/Volumes", "Macintosh HD/etc"}, {"/x", "/x/../.file/id=1.2"},
		{"/srv/app", "../../proc/self/cwd/../secret/key"}, {"/srv", "file:///proc/self/./cwd/../k"}, {"/", "proc/self/cwd/.."}} {
		_, ok := lexical.Resolve(c[0], c[1])
		assert.False(t, ok, "Resolve(%q, %q)", c[0], c[1])
	}
	for _, p := range []string{"/.nofollowing/x", "/.resolved/x", "/.volume/x", "/.files/x", "/srv/.nofollow/x", "/srv/.vol/1/2",
		"/.config/x", "/Volumes/Backup/x", "/Volumes/Macintosh HDX/x", "/System/Volumes/Preboot/x", "/proc/self/status",
		"/proc/self/../cpuinfo", "/srv/proc/self/cwd/x", "/srv/dev/fd/3", "/proc/cwd/x"} {
		assert.Empty(t, lexical.Unevaluable(p), "%q", p)
		_, ok := lexical.AbsClean(p)
		assert.True(t, ok, "AbsClean(%q)", p)
	}
}

// shellExpands reports a "$" a shell expands into anything: one that
// starts the path or follows "..", or opens "${", "$(", "$[" or a quoted
// string. (Any other "$name" only inserts text where it stands.)
func shellExpands(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			continue
		}
		seg := s[strings.LastIndexByte(s[:i], '/')+1 : i]
		if i == 0 || seg == ".." || i+1 < len(s) && strings.IndexByte("{(['\"", s[i+1]) >= 0 || strings.Contains(s[i:]+"/", "/../") {
			return true
		}
	}
	return false
}
