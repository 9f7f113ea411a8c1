package realpath

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// errDangling is a link whose target does not exist: writing through it
// makes the target, wherever it is.
var errDangling = errors.New("a symbolic link whose target does not exist")

// kernelResolve is Resolve by the kernel's own walk: the deepest existing
// ancestor opened with O_PATH (every link on the way followed, as an
// open by the server would follow it) and its path read back from
// /proc/self/fd. Three system calls for a path that exists, whatever its
// depth, where a walk of its names takes one per name. ok is false where
// /proc cannot tell (then Resolve walks the names itself).
func kernelResolve(abs string) (string, bool, error) {
	rest := ""
	for cur := abs; ; {
		fd, err := unix.Open(cur, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err == nil {
			real, rerr := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
			unix.Close(fd)
			if rerr != nil || !filepath.IsAbs(real) || strings.HasSuffix(real, " (deleted)") {
				return "", false, nil
			}
			return filepath.Join(real, rest), true, nil
		}
		if !errors.Is(err, unix.ENOENT) {
			return "", true, &os.PathError{Op: "open", Path: cur, Err: err} // a loop, a directory it may not read, a file in the way
		}
		if _, lerr := os.Lstat(cur); lerr == nil {
			return "", true, &os.PathError{Op: "open", Path: cur, Err: errDangling}
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, true, nil // nothing of it exists, not even its volume
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}
