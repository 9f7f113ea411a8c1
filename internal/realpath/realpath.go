// Package realpath names a file by the path the file system resolves it
// to. The policy compares paths lexically, so a file it must guard (its
// own grants and rules, a root) is guarded under every spelling it knows
// of: the one it was given and, when a symbolic link makes that another
// place, the one the link leads to. An agent writing to either reaches the
// same file.
package realpath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Resolve returns p made absolute and clean, with every symbolic link in
// it resolved as far as the file system has it: the deepest ancestor that
// exists (p itself, when it does) is resolved by filepath.EvalSymlinks,
// and the names below it, which do not exist yet, are kept as they are.
// A link whose target does not exist, a loop, or an ancestor that cannot
// be read is an error: where the file would be written cannot be told.
//
// An absolute p with a name followed by ".." ("/srv/app/keys/../x") is
// read as the kernel reads it, name by name: the ".." is the parent of
// where "keys" leads, which a link at keys makes another directory than
// /srv/app. Cleaning p first, as filepath.Abs does, would take the link
// away with its name.
func Resolve(p string) (string, error) {
	if filepath.IsAbs(p) && NameThenDotDot(p) {
		return resolveDotDot(p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if real, ok, err := kernelResolve(abs); ok {
		if err == nil && real != abs && throughProc(abs) {
			return "", errThroughProc
		}
		return real, err
	}
	if throughProc(abs) {
		return "", errThroughProc
	}
	rest := ""
	for cur := abs; ; {
		if _, err := os.Lstat(cur); err == nil {
			real, err := filepath.EvalSymlinks(cur)
			if err != nil {
				return "", err
			}
			return filepath.Join(real, rest), nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil // nothing of it exists, not even its volume
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// NameThenDotDot reports a path with a name followed by ".." in it
// ("keys/../x"): one that Resolve reads as written, where cleaning it
// would take a link away with its name.
func NameThenDotDot(p string) bool {
	prev := ""
	for name := range strings.SplitSeq(filepath.ToSlash(p), "/") {
		if name == ".." && prev != "" && prev != "." && prev != ".." {
			return true
		}
		if name != "" && name != "." {
			prev = name
		}
	}
	return false
}

// resolveDotDot resolves p name by name: at each "..", what comes before
// it is resolved, links and all, and its parent taken.
func resolveDotDot(p string) (string, error) {
	cur := string(filepath.Separator)
	for name := range strings.SplitSeq(filepath.ToSlash(p), "/") {
		switch name {
		case "", ".":
		case "..":
			real, err := Resolve(cur)
			if err != nil {
				return "", err
			}
			cur = filepath.Dir(real)
		default:
			cur = filepath.Join(cur, name)
		}
	}
	return Resolve(cur)
}

// Spellings returns p (absolute and clean) and, when it differs, its
// resolved path: the names under which one file must be guarded. A path
// that cannot be resolved is guarded under the spelling given.
func Spellings(p string) []string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return []string{p}
	}
	if real, err := Resolve(abs); err == nil && real != abs {
		return []string{abs, real}
	}
	return []string{abs}
}

// errThroughProc: a link on the way leads into /proc or /dev/fd, whose
// self, cwd, root and fd links this process would resolve as its own,
// not as the server's.
var errThroughProc = errors.New("a link on the way leads into /proc or /dev/fd, which resolve differently in the server")

// throughProc reports an absolute path with a symbolic link on the way
// that leads into /proc or /dev/fd (a project's link to /proc/self, then
// cwd/x): resolved here, it would be this process's cwd, not the server's.
func throughProc(abs string) bool {
	for end := 1; end < len(abs); {
		next := strings.IndexByte(abs[end+1:], '/')
		prefix := abs
		if next >= 0 {
			prefix = abs[:end+1+next]
		}
		fi, err := os.Lstat(prefix)
		if err != nil {
			return false // what does not exist leads nowhere yet
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if real, err := filepath.EvalSymlinks(prefix); err == nil && (real == "/proc" || strings.HasPrefix(real, "/proc/") ||
				strings.HasPrefix(real, "/dev/fd") || strings.HasPrefix(real, "/dev/std")) {
				return true
			}
		}
		if next < 0 {
			return false
		}
		end += 1 + next
	}
	return false
}
