//go:build unix

package approvals

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openFlags open a queue file without following a link planted in its
// place, and without blocking on a FIFO planted there (a read of it would
// hang the proxy past its deadline).
const openFlags = os.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// checkOwner refuses a queue directory someone else owns or can write:
// whoever can write it can answer the questions, and whoever can read it
// sees every call asked about.
func checkOwner(dir string, info fs.FileInfo) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Getuid(); int(st.Uid) != uid {
		return fmt.Errorf("approvals: the queue directory %s belongs to user id %d, not to you (%d): another user could answer your questions. Remove it (it holds only pending questions) and let the proxy make it again", dir, st.Uid, uid)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("approvals: the queue directory %s has mode %04o: others could read or answer your questions. Make it yours alone: chmod 700 %s", dir, perm, dir)
	}
	return nil
}
