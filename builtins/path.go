// Package builtins holds the few pieces of logic every decision rests on —
// lexical path containment with its tri-state, resolution against a root,
// host extraction and matching, tool-name globs, the common directory — as
// plain Go functions, and registers them as Rego builtins (see rego.go).
//
// There is one copy of each: the Rego engine and the Go grant matcher both
// call these, so a grant and a rule can never disagree about what "inside"
// means.
package builtins

import (
	"fmt"
	"net/url"
	"path"
	"strings"
)

// Containment is the tri-state answer to "is this path inside that
// directory?". Unknown means the question cannot be answered lexically, and
// callers must fail closed on it.
type Containment int

const (
	Unknown Containment = iota
	Inside
	Outside
)

func (c Containment) String() string {
	switch c {
	case Inside:
		return "inside"
	case Outside:
		return "outside"
	default:
		return "unknown"
	}
}

// Unevaluable reports why p cannot be evaluated lexically, or "" when it
// can. Anything a shell, a Windows API or a URL parser could turn into a
// different path than the text says is unevaluable: empty, NUL, a leading
// "~", "$" expansion, backslashes, drive letters and UNC forms.
func Unevaluable(p string) string {
	switch {
	case p == "":
		return "empty path"
	case strings.ContainsRune(p, 0):
		return "path contains NUL"
	case strings.HasPrefix(p, "~"):
		return "path starts with ~"
	case strings.Contains(p, "$"):
		return "path contains $ expansion"
	case strings.Contains(p, `\`):
		return "path contains a backslash"
	case len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0]):
		return "path has a Windows drive"
	case strings.HasPrefix(p, "//"):
		return "path is a UNC or network path"
	}
	return ""
}

func isASCIILetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// FromFileURI turns a file:// URI into its path. ok is false when p is a
// file URI that does not name a local absolute path; a p that is not a file
// URI is returned unchanged.
func FromFileURI(p string) (string, bool) {
	if len(p) < 7 || !strings.EqualFold(p[:7], "file://") {
		return p, true
	}
	u, err := url.Parse(p)
	if err != nil || u.Opaque != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", false
	}
	if h := strings.ToLower(u.Host); h != "" && h != "localhost" {
		return "", false
	}
	if u.Path == "" || !strings.HasPrefix(u.Path, "/") {
		return "", false
	}
	return u.Path, true
}

// Resolve makes p absolute against root and cleans it lexically; symlinks
// are not followed. ok is false when p is unevaluable, or relative with no
// (absolute, evaluable) root.
func Resolve(root, p string) (string, bool) {
	p, ok := FromFileURI(p)
	if !ok || Unevaluable(p) != "" {
		return "", false
	}
	if path.IsAbs(p) {
		return clean(p), true
	}
	if root == "" || !path.IsAbs(root) || Unevaluable(root) != "" {
		return "", false
	}
	return path.Join(path.Clean(root), p), true
}

// NormalizeUnder is a rule's "under" as matching uses it: a file URI made a
// path, cleaned; absolute, or relative to the tool's root. An unevaluable
// directory, or a relative one that climbs out of the root (it would mean
// something else per root), is an error.
func NormalizeUnder(under string) (string, error) {
	u, ok := FromFileURI(under)
	if !ok {
		return "", fmt.Errorf("%q is not a local file URI", under)
	}
	if why := Unevaluable(u); why != "" {
		return "", fmt.Errorf("%q cannot be evaluated: %s", under, why)
	}
	u = path.Clean(u)
	if u == ".." || strings.HasPrefix(u, "../") {
		return "", fmt.Errorf("%q leaves the root; write the directory as an absolute path", under)
	}
	return u, nil
}

// Contains answers whether path p lies lexically inside directory dir (equal
// counts as inside). Both must be absolute and evaluable, else Unknown; both
// are cleaned first, so "/srv/../etc" is outside "/srv".
func Contains(dir, p string) Containment {
	dir, dirOK := absClean(dir)
	p, pOK := absClean(p)
	if !dirOK || !pOK {
		return Unknown
	}
	if dir == "/" || p == dir || len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir {
		return Inside
	}
	return Outside
}

// absClean is p cleaned, if it is absolute and evaluable; else "", false.
func absClean(p string) (string, bool) {
	if cleanAbs(p) {
		return p, true
	}
	if Unevaluable(p) != "" || !path.IsAbs(p) {
		return "", false
	}
	return path.Clean(p), true
}

// cleanAbs reports whether p is absolute, evaluable and already clean, in
// one pass over its bytes: the paths a decision compares nearly always are
// (resolution cleaned them), and cleaning a clean path again is most of
// what a comparison would cost. False sends the caller the long way round.
func cleanAbs(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	if len(p) == 1 {
		return true
	}
	// Track the current segment from its start: "", "." and ".." segments
	// (and so "//", a trailing "/", "/./", "/../") are what Clean would
	// change.
	seg := 1
	for i := 1; i <= len(p); i++ {
		if i < len(p) {
			switch p[i] {
			case 0, '$', '\\':
				return false
			case '/':
			default:
				continue
			}
		}
		switch p[seg:i] {
		case "", ".", "..":
			return false
		}
		seg = i + 1
	}
	return true
}

// Ancestors returns clean absolute p and every directory above it, nearest
// first, ending with "/".
func Ancestors(p string) []string {
	p = clean(p)
	out := []string{p}
	for p != "/" && p != "." {
		p = parent(p)
		out = append(out, p)
	}
	return out
}

// clean is path.Clean, skipping the work for a path that already is.
func clean(p string) string {
	if cleanAbs(p) {
		return p
	}
	return path.Clean(p)
}

// parent is path.Dir of a clean path, without cleaning it again.
func parent(p string) string {
	switch i := strings.LastIndexByte(p, '/'); i {
	case -1:
		return "."
	case 0:
		return "/"
	default:
		return p[:i]
	}
}

// CommonDir is the deepest directory that contains every path's parent
// directory: the honest scope of an "always" answer. The paths must be clean
// and absolute; the answer can be as wide as "/". It returns "" for no paths.
func CommonDir(paths []string) string {
	common := ""
	for i, p := range paths {
		dir := parent(clean(p))
		if i == 0 {
			common = dir
			continue
		}
		for Contains(common, dir) != Inside {
			common = path.Dir(common)
		}
	}
	return common
}

// WithinAll is the containment of a whole call in dir: Inside when every
// path is inside, Outside when any is outside (or there is no path at all —
// a rule with "under" only matches calls that name a path), else Unknown.
// An unresolvable path is passed as "".
func WithinAll(dir string, paths []string) Containment {
	if len(paths) == 0 {
		return Outside
	}
	all := Inside
	for _, p := range paths {
		if p == "" {
			all = Unknown
			continue
		}
		switch Contains(dir, p) {
		case Outside:
			return Outside
		case Unknown:
			all = Unknown
		}
	}
	return all
}
