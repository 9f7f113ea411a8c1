package realpath

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

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
//
// Where openat2 is there, the walk first asks the kernel to refuse any
// link on the way (RESOLVE_NO_SYMLINKS): for the path nearly every call
// names, which has none, the open succeeds and the path is itself, in two
// system calls and without /proc's readlink, the dearest of the three.
func kernelResolve(abs string) (string, bool, error) {
	rest := ""
	for cur := abs; ; {
		if noLinksOnTheWay(cur) {
			return joined(cur, rest), true, nil
		}
		fd, err := unix.Open(cur, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err == nil {
			real, ok := fdPath(fd)
			unix.Close(fd)
			if !ok || !filepath.IsAbs(real) || strings.HasSuffix(real, " (deleted)") {
				return "", false, nil
			}
			return joined(real, rest), true, nil
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

// joined is the names below dir that do not exist yet put back under it:
// dir itself when there are none (Join would clean it again).
func joined(dir, rest string) string {
	if rest == "" {
		return dir
	}
	return filepath.Join(dir, rest)
}

// noOpenat2 is set once openat2 is found missing or refused (an old
// kernel, a sandbox's filter): the walk then goes without it.
var noOpenat2 atomic.Bool

// noLinksOnTheWay reports a clean absolute path that exists and has no
// symbolic link in it, by one openat2 that refuses to follow any. false
// says nothing: a link, a name that does not exist, or no openat2.
func noLinksOnTheWay(p string) bool {
	if noOpenat2.Load() {
		return false
	}
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	fd, err := unix.Openat2(unix.AT_FDCWD, p, &how)
	switch {
	case err == nil:
		unix.Close(fd)
		return true
	case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) || errors.Is(err, unix.EINVAL):
		noOpenat2.Store(true)
	}
	return false
}

// fdPath is the path /proc/self/fd says an open file descriptor is at,
// read into a buffer on the stack: the system call is the cost, not
// what os.Readlink allocates around it.
func fdPath(fd int) (string, bool) {
	var name [32]byte
	link := strconv.AppendInt(append(name[:0], "/proc/self/fd/"...), int64(fd), 10)
	var buf [unix.PathMax]byte
	n, err := unix.Readlink(string(link), buf[:])
	if err != nil || n <= 0 || n >= len(buf) {
		return "", false // an error, or a path that may not fit: the walk decides
	}
	return string(buf[:n]), true
}
