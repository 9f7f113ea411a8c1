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
)

// Resolve returns p made absolute and clean, with every symbolic link in
// it resolved as far as the file system has it: the deepest ancestor that
// exists (p itself, when it does) is resolved by filepath.EvalSymlinks,
// and the names below it, which do not exist yet, are kept as they are.
// A link whose target does not exist, a loop, or an ancestor that cannot
// be read is an error: where the file would be written cannot be told.
func Resolve(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if real, ok, err := kernelResolve(abs); ok {
		return real, err
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
