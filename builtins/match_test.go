package builtins_test

import (
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-policy/mcp-policy/builtins"
	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

func TestContains(t *testing.T) {
	cases := []struct {
		dir, p string
		want   builtins.Match
	}{
		{"/srv", "/srv", builtins.Yes},
		{"/srv", "/srv/a/b", builtins.Yes},
		{"/srv/", "/srv/a", builtins.Yes},
		{"/", "/anything", builtins.Yes},
		{"/srv", "/srvx", builtins.No},        // a prefix is not a parent
		{"/srv", "/srv/../etc", builtins.No},  // cleaned before comparing
		{"/srv/a/..", "/srv/b", builtins.Yes}, // the directory is cleaned too
		{"/srv", "/srv/a/../../etc", builtins.No},
		{"/srv", "relative", builtins.Unknown}, // no root to resolve against
		{"/srv", "", builtins.Unknown},
		{"/srv", "~/x", builtins.Unknown},
		{"/srv", "/srv/${HOME}", builtins.Unknown},
		{"/srv", "$HOME/x", builtins.Unknown},
		{"/srv", "/srv/app/posts.$slug.tsx", builtins.Yes}, // a name only inserts text where it stands
		{"/srv", `/srv\..\etc`, builtins.Unknown},
		{"/srv", "C:/srv", builtins.Unknown},
		{"/srv", "//server/share", builtins.Unknown},
		{"/srv", "/srv/a\x00b", builtins.Unknown},
		{"", "/srv", builtins.Unknown},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, builtins.Contains(c.dir, c.p), "Contains(%q, %q)", c.dir, c.p)
	}
}

func TestWithinAll(t *testing.T) {
	assert.Equal(t, builtins.Yes, builtins.WithinAll("/srv", []string{"/srv/a", "/srv/b"}))
	assert.Equal(t, builtins.No, builtins.WithinAll("/srv", []string{"/srv/a", "/etc"}))
	assert.Equal(t, builtins.No, builtins.WithinAll("/srv", []string{"", "/etc"}), "an outside path settles it")
	assert.Equal(t, builtins.Unknown, builtins.WithinAll("/srv", []string{"/srv/a", ""}))
	assert.Equal(t, builtins.No, builtins.WithinAll("/srv", nil), "no path, no match")
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
		if builtins.Contains(dir, p) != builtins.Yes {
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
		assert.Equal(t, builtins.Unknown, builtins.Contains("/etc", p), "Contains(/etc, %q)", p)
	}
	for _, c := range [][2]string{{"/", ".nofollow/etc/x"}, {"/srv", "../.vol/1/2"}, {"/srv", "/srv/../.resolve/1/etc"},
		{"/Volumes", "Macintosh HD/etc"}, {"/x", "/x/../.file/id=1.2"},
		{"/srv/app", "../../proc/self/cwd/../secret/key"}, {"/srv", "file:///proc/self/./cwd/../k"}, {"/", "proc/self/cwd/.."}} {
		_, ok := builtins.Resolve(c[0], c[1])
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
