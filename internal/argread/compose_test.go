package argread_test

import (
	"encoding/json"
	"path"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/argread"
)

// FuzzComposeFile holds the Compose reader to two things: any text under a
// Compose name is read without failing the call, and a bind mount's source
// is always read, as itself or as an unknown path, however it is spelt.
func FuzzComposeFile(f *testing.F) {
	f.Add("services:\n  w:\n    volumes: ['./x:/y']\n", "/srv/secret")
	f.Add("services: {w: {build: {context: ., dockerfile: D}}}", "~/.ssh")
	f.Add("a: &a [*a]", "../up")
	r, err := argread.NewReader(nil)
	require.NoError(f, err)
	read := func(t *testing.T, doc string) argread.Reading {
		got, err := r.Read(argread.Call{Tool: "deploy_stack", Root: "/srv/app",
			Arguments: [][2]*ast.Term{{ast.StringTerm("compose"), ast.StringTerm(doc)}}})
		require.NoError(t, err)
		return got
	}
	f.Fuzz(func(t *testing.T, doc, src string) {
		read(t, doc)
		if src == "" || !utf8.ValidString(src) || strings.ContainsAny(src, ":\x00") || strings.TrimSpace(src) != src || !strings.ContainsAny(src[:1], "/.~") {
			return
		}
		mount, _ := json.Marshal(map[string]any{"services": map[string]any{"w": map[string]any{"volumes": []string{src + ":/t"}}}})
		got := read(t, string(mount))
		want := path.Clean(src)
		if !path.IsAbs(src) {
			want = path.Join("/srv/app", src)
		}
		for _, p := range got.Paths {
			if p.Resolved == "" || p.Resolved == want {
				return
			}
		}
		t.Fatalf("the mount of %q was not read: %+v", src, got.Paths)
	})
}
