package realpath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// MaxWalk bounds the entries LinksUnder visits: a project's tree is read
// in milliseconds, a home's or a dependency cache's is not read at all.
const MaxWalk = 20000

// LinksUnder returns where each symbolic link under dir leads (resolved
// as Resolve resolves it), for a command that follows the links it finds
// as it walks a tree (grep -R, cp -rL, tar -h, zip -r): it reads or copies
// what they point to. It does not walk into what a link leads to (that
// target is returned, and a tree read of it is judged as one). complete
// is false when the walk stopped at MaxWalk entries or at a directory it
// could not read: what else the tree links to cannot be told. A dangling
// or looping link leads nowhere a command can read, and is left out.
func LinksUnder(dir string) (targets []string, complete bool) {
	complete = true
	seen := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && os.IsNotExist(err) {
				return fs.SkipAll // nothing there: nothing to follow
			}
			complete = false
			return fs.SkipAll
		}
		if seen++; seen > MaxWalk {
			complete = false
			return fs.SkipAll
		}
		if d.Type()&fs.ModeSymlink == 0 || p == dir {
			return nil
		}
		real, err := Resolve(p)
		switch {
		case err == nil:
			targets = append(targets, real)
		case errors.Is(err, errThroughProc):
			complete = false // where it leads is the server's own /proc
		}
		return nil
	})
	if err != nil {
		complete = false
	}
	return targets, complete
}
