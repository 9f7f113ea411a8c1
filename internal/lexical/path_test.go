package lexical_test

import (
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

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
		got, ok := lexical.Resolve(c.root, c.p)
		assert.Equal(t, c.ok, ok, "Resolve(%q, %q)", c.root, c.p)
		assert.Equal(t, c.want, got, "Resolve(%q, %q)", c.root, c.p)
	}
}

func TestCommonDir(t *testing.T) {
	assert.Equal(t, "/srv/scratch", lexical.CommonDir([]string{"/srv/scratch/notes.md"}))
	assert.Equal(t, "/srv", lexical.CommonDir([]string{"/srv/a/x", "/srv/b/y"}))
	assert.Equal(t, "/", lexical.CommonDir([]string{"/etc/passwd", "/srv/x"}))
	assert.Equal(t, "/srv", lexical.CommonDir([]string{"/srv/a", "/srv/ab/c"}), "not a string prefix")
	assert.Equal(t, "/", lexical.CommonDir([]string{"/"}))
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
		assert.Equal(t, c.want, lexical.CommonDir(c.paths), "CommonDir(%q)", c.paths)
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
			r, ok := lexical.AbsClean(p)
			if !ok {
				return
			}
			paths[i] = r
		}
		scope := lexical.Scope(paths, []bool{dir, false}, "")
		if lexical.Unevaluable(scope) != "" || !strings.HasPrefix(scope, "/") {
			t.Fatalf("Scope(%q) = %q: not an evaluable directory", paths, scope)
		}
		for _, p := range paths {
			if !lexical.ContainsClean(scope, p) {
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
		assert.True(t, lexical.MatchTool(c[0], c[1]), "%q should match %q", c[0], c[1])
	}
	for _, c := range no {
		assert.False(t, lexical.MatchTool(c[0], c[1]), "%q should not match %q", c[0], c[1])
	}
}

// FuzzResolve: a resolved path is clean and absolute, and a relative path
// resolved against a root never lands inside it unless it has no "..".
func FuzzResolve(f *testing.F) {
	f.Add("/srv", "a/b")
	f.Add("/srv", "../x")
	f.Add("/srv", "file:///etc")
	f.Fuzz(func(t *testing.T, root, p string) {
		r, ok := lexical.Resolve(root, p)
		if !ok {
			return
		}
		if !strings.HasPrefix(r, "/") || path.Clean(r) != r {
			t.Fatalf("Resolve(%q, %q) = %q: not clean and absolute", root, p, r)
		}
		if lexical.Unevaluable(r) != "" {
			t.Fatalf("Resolve(%q, %q) = %q: unevaluable result", root, p, r)
		}
	})
}
