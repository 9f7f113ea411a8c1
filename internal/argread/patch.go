package argread

import (
	"os"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/open-policy-agent/opa/v1/ast"
)

// Patches name the files they change. A patch is read in one of two
// grammars: Codex's ("*** Begin Patch", then "*** Add File: P", "***
// Update File: P", "*** Delete File: P", "*** Move to: P"), or a unified
// or git diff, parsed with github.com/bluekeyes/go-gitdiff ("diff --git",
// "---"/"+++", renames and copies). Every file a patch creates, changes,
// deletes, renames or copies is a path the call writes; a diff's "a/" and
// "b/" are read with and without that first name (git apply strips it,
// patch -p0 does not). A patch that makes a symbolic link, and one that
// does not parse, is an unknown path.

// maxPatchBytes bounds the patch read; a longer one is an unknown path.
const maxPatchBytes = 8 << 20

// patchString reads v, a patch, at s.
func (w *walker) patchString(s site, t *ast.Term, v string) {
	w.out.Acts = true
	r := &shellReader{w: w, s: s.as(Class{Kind: Path, Evidence: Name}), cur: -1}
	dirs := w.shellDirs()
	if len(w.dirs) == 0 && w.root == "" {
		dirs = []string{""} // relative to where the server runs: unknown
	}
	r.patch(v, dirs)
}

// readsAsPatch reports text that starts as a patch does: Codex's "***
// Begin Patch", or a git or unified diff's first header ("diff --git",
// "--- a/x" then "+++ b/x"). Under no name, or a content name, such text
// is a patch a server may apply (an edit tool's "input").
func readsAsPatch(v string) bool {
	t := strings.TrimLeft(v, " \t\r\n")
	if strings.HasPrefix(t, "*** Begin Patch") || strings.HasPrefix(t, "diff --git ") {
		return true
	}
	if rest, ok := strings.CutPrefix(t, "--- "); ok {
		_, next, ok := strings.Cut(rest, "\n")
		return ok && strings.HasPrefix(next, "+++ ")
	}
	return false
}

// patch reads v, a patch, its relative names against dirs.
func (r *shellReader) patch(v string, dirs []string) {
	if len(v) > maxPatchBytes {
		r.unknown("a patch of more than 8 MiB")
		return
	}
	trimmed := strings.TrimSpace(v)
	if strings.HasPrefix(trimmed, "*** Begin Patch") {
		r.codexPatch(trimmed, dirs)
		return
	}
	files, _, err := gitdiff.Parse(strings.NewReader(v))
	if err != nil || len(files) == 0 && mayBeDiff(v) {
		r.unknown("a patch that does not parse")
		return
	}
	for _, f := range files {
		for _, name := range []string{f.OldName, f.NewName} {
			if name == "" || name == "/dev/null" {
				continue
			}
			r.path(name, dirs, false)
			if rest, ok := cutDiffPrefix(name); ok {
				r.path(rest, dirs, false)
			}
		}
		if f.NewMode&os.ModeType == os.ModeSymlink || f.NewMode == 0o120000 || f.OldMode == 0o120000 {
			r.unknown(f.NewName + " as a symbolic link") // a link may point anywhere
		}
	}
}

// mayBeDiff reports text that holds a diff's file header: one that does
// not parse is not read as nothing.
func mayBeDiff(v string) bool {
	return strings.Contains(v, "\n+++ ") || strings.HasPrefix(v, "+++ ") || strings.Contains(v, "diff --git") ||
		strings.Contains(v, "\n--- ") || strings.HasPrefix(v, "--- ") || strings.Contains(v, "*** ")
}

// cutDiffPrefix is a diff's name without its first name ("a/x" is "x"),
// as git apply and patch -p1 read it.
func cutDiffPrefix(name string) (string, bool) {
	if strings.HasPrefix(name, "/") {
		return "", false
	}
	_, rest, ok := strings.Cut(name, "/")
	return rest, ok && rest != ""
}

// codexPatch reads Codex's patch format: each file it adds, updates,
// deletes or moves to.
func (r *shellReader) codexPatch(v string, dirs []string) {
	found := false
	for _, line := range strings.Split(v, "\n") {
		line = strings.TrimSpace(line) // Codex's parser trims a line before it reads a header
		for _, marker := range []string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"} {
			if rest, ok := strings.CutPrefix(line, marker); ok {
				found = true
				if p := strings.TrimSpace(rest); p != "" {
					r.path(p, dirs, false)
				} else {
					r.unknown(line)
				}
			}
		}
		if strings.HasPrefix(line, "***") && !strings.HasPrefix(line, "*** Begin Patch") && !strings.HasPrefix(line, "*** End Patch") &&
			!strings.HasPrefix(line, "*** End of File") && !strings.HasPrefix(line, "*** Add File:") && !strings.HasPrefix(line, "*** Update File:") &&
			!strings.HasPrefix(line, "*** Delete File:") && !strings.HasPrefix(line, "*** Move to:") {
			r.unknown(line) // a header this reader does not know
		}
	}
	if !found {
		r.unknown("a patch that names no file")
	}
}
