package builtins_test

import (
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-policy/mcp-policy/builtins"
)

func TestContains(t *testing.T) {
	cases := []struct {
		dir, p string
		want   builtins.Containment
	}{
		{"/srv", "/srv", builtins.Inside},
		{"/srv", "/srv/a/b", builtins.Inside},
		{"/srv/", "/srv/a", builtins.Inside},
		{"/", "/anything", builtins.Inside},
		{"/srv", "/srvx", builtins.Outside},       // a prefix is not a parent
		{"/srv", "/srv/../etc", builtins.Outside}, // cleaned before comparing
		{"/srv/a/..", "/srv/b", builtins.Inside},  // the directory is cleaned too
		{"/srv", "/srv/a/../../etc", builtins.Outside},
		{"/srv", "relative", builtins.Unknown}, // no root to resolve against
		{"/srv", "", builtins.Unknown},
		{"/srv", "~/x", builtins.Unknown},
		{"/srv", "/srv/${HOME}", builtins.Unknown},
		{"/srv", "$HOME/x", builtins.Unknown},
		{"/srv", "/srv/app/posts.$slug.tsx", builtins.Inside}, // a name only inserts text where it stands
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

func TestResolve(t *testing.T) {
	cases := []struct {
		root, p, want string
		ok            bool
	}{
		{"/srv", "scratch/notes.md", "/srv/scratch/notes.md", true},
		{"/srv", "./a/../b", "/srv/b", true},
		{"/srv", "../etc/passwd", "/etc/passwd", true}, // resolved, and then outside /srv
		{"/srv", "/abs/x", "/abs/x", true},
		{"", "/abs//x/", "/abs/x", true},
		{"", "rel", "", false},
		{"/srv", "file:///etc/hosts", "/etc/hosts", true},
		{"/srv", "file://localhost/etc/hosts", "/etc/hosts", true},
		{"/srv", "file://evil.example/etc/hosts", "", false},
		{"/srv", "~root/x", "", false},
		{"/srv", "${HOME}/x", "", false},
	}
	for _, c := range cases {
		got, ok := builtins.Resolve(c.root, c.p)
		assert.Equal(t, c.ok, ok, "Resolve(%q, %q)", c.root, c.p)
		assert.Equal(t, c.want, got, "Resolve(%q, %q)", c.root, c.p)
	}
}

func TestWithinAll(t *testing.T) {
	assert.Equal(t, builtins.Inside, builtins.WithinAll("/srv", []string{"/srv/a", "/srv/b"}))
	assert.Equal(t, builtins.Outside, builtins.WithinAll("/srv", []string{"/srv/a", "/etc"}))
	assert.Equal(t, builtins.Outside, builtins.WithinAll("/srv", []string{"", "/etc"}), "an outside path settles it")
	assert.Equal(t, builtins.Unknown, builtins.WithinAll("/srv", []string{"/srv/a", ""}))
	assert.Equal(t, builtins.Outside, builtins.WithinAll("/srv", nil), "no path, no match")
}

func TestCommonDir(t *testing.T) {
	assert.Equal(t, "/srv/scratch", builtins.CommonDir([]string{"/srv/scratch/notes.md"}))
	assert.Equal(t, "/srv", builtins.CommonDir([]string{"/srv/a/x", "/srv/b/y"}))
	assert.Equal(t, "/", builtins.CommonDir([]string{"/etc/passwd", "/srv/x"}))
	assert.Equal(t, "/srv", builtins.CommonDir([]string{"/srv/a", "/srv/ab/c"}), "not a string prefix")
	assert.Equal(t, "/", builtins.CommonDir([]string{"/"}))
	// A path may be evaluable while its parent is not (a name ending in a
	// space or a dot, which a server may trim): the scope is the nearest
	// directory that is, and finding it ends (it looped for ever before, in
	// every decision of such a call: red team 4).
	for _, c := range []struct {
		paths []string
		want  string
	}{
		{[]string{"/srv/pub/a", "/srv/secret /x"}, "/srv"},
		{[]string{"/srv/secret /x"}, "/srv"},
		{[]string{"/srv/secret. /x", "/srv/secret. /y"}, "/srv"},
		{[]string{"/srv/a\u00a0/x", "/srv/a\u00a0/y"}, "/srv"},
		{[]string{"/srv/pub /a/b"}, "/srv/pub /a"},
		{[]string{"/x /y", "/x /z"}, "/"},
	} {
		assert.Equal(t, c.want, builtins.CommonDir(c.paths), "CommonDir(%q)", c.paths)
	}
}

// FuzzScope: the scope of any evaluable paths is found (the search ends),
// is evaluable itself, and contains every one of them.
func FuzzScope(f *testing.F) {
	f.Add("/srv/pub/a", "/srv/secret /x", false)
	f.Add("/srv/a. /b", "/etc/x", true)
	f.Add("/a/b", "/a/b", false)
	f.Fuzz(func(t *testing.T, a, b string, dir bool) {
		paths := []string{a, b}
		for i, p := range paths {
			r, ok := builtins.AbsClean(p)
			if !ok {
				return
			}
			paths[i] = r
		}
		scope := builtins.Scope(paths, []bool{dir, false}, "")
		if builtins.Unevaluable(scope) != "" || !strings.HasPrefix(scope, "/") {
			t.Fatalf("Scope(%q) = %q: not an evaluable directory", paths, scope)
		}
		for _, p := range paths {
			if builtins.Contains(scope, p) != builtins.Inside {
				t.Fatalf("Scope(%q) = %q does not contain %q", paths, scope, p)
			}
		}
	})
}

func TestMatchTool(t *testing.T) {
	yes := [][2]string{{"*", ""}, {"*", "fs_write"}, {"fs_*", "fs_"}, {"fs_*", "fs_write"}, {"*_user_ask", "fs_user_ask"},
		{"fs_?rite", "fs_write"}, {"a*b*c", "aXXbYYc"}, {"[x]", "[x]"}, {"ü?", "üß"}}
	no := [][2]string{{"fs_*", "fs"}, {"fs_?", "fs_ab"}, {"*_user_ask", "user_ask"}, {"[x]", "x"}, {"a*b", "ab_"}, {"fs_write", "fs_writes"}}
	for _, c := range yes {
		assert.True(t, builtins.MatchTool(c[0], c[1]), "%q should match %q", c[0], c[1])
	}
	for _, c := range no {
		assert.False(t, builtins.MatchTool(c[0], c[1]), "%q should not match %q", c[0], c[1])
	}
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
		if builtins.Contains(dir, p) != builtins.Inside {
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

// FuzzResolve: a resolved path is clean and absolute, and a relative path
// resolved against a root never lands inside it unless it has no "..".
func FuzzResolve(f *testing.F) {
	f.Add("/srv", "a/b")
	f.Add("/srv", "../x")
	f.Add("/srv", "file:///etc")
	f.Fuzz(func(t *testing.T, root, p string) {
		r, ok := builtins.Resolve(root, p)
		if !ok {
			return
		}
		if !strings.HasPrefix(r, "/") || path.Clean(r) != r {
			t.Fatalf("Resolve(%q, %q) = %q: not clean and absolute", root, p, r)
		}
		if builtins.Unevaluable(r) != "" {
			t.Fatalf("Resolve(%q, %q) = %q: unevaluable result", root, p, r)
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
	} {
		assert.NotEmpty(t, builtins.Unevaluable(p), "%q", p)
		_, ok := builtins.AbsClean(p)
		assert.False(t, ok, "AbsClean(%q)", p)
		assert.Equal(t, builtins.Unknown, builtins.Contains("/etc", p), "Contains(/etc, %q)", p)
	}
	for _, c := range [][2]string{{"/", ".nofollow/etc/x"}, {"/srv", "../.vol/1/2"}, {"/srv", "/srv/../.resolve/1/etc"},
		{"/Volumes", "Macintosh HD/etc"}, {"/x", "/x/../.file/id=1.2"}} {
		_, ok := builtins.Resolve(c[0], c[1])
		assert.False(t, ok, "Resolve(%q, %q)", c[0], c[1])
	}
	for _, p := range []string{"/.nofollowing/x", "/.resolved/x", "/.volume/x", "/.files/x", "/srv/.nofollow/x", "/srv/.vol/1/2",
		"/.config/x", "/Volumes/Backup/x", "/Volumes/Macintosh HDX/x", "/System/Volumes/Preboot/x", "/proc/self/status"} {
		assert.Empty(t, builtins.Unevaluable(p), "%q", p)
		_, ok := builtins.AbsClean(p)
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
