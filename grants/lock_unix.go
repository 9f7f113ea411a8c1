//go:build unix

package grants

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// lockWait bounds the wait for another process's lock on the grants: a
// process stopped holding it (or a hand-run flock) must not hang every
// call that saves a grant; the error names the lock file.
const lockWait = 10 * time.Second

// lockFile takes an exclusive advisory lock on the file at path (created
// if need be), waiting for another process that holds it, at most
// lockWait. The lock goes with the descriptor, so a process that dies
// holding it releases it.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(lockWait)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == syscall.EWOULDBLOCK && time.Now().Before(deadline) || err == syscall.EINTR {
			time.Sleep(wait)
			continue
		}
		break
	}
	if err == syscall.EWOULDBLOCK {
		err = fmt.Errorf("grants: %s is locked by another process for more than %s (one stopped while saving, or a lock held by hand)", path, lockWait)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// fileID is a file's device and inode: a save renames a new file into
// place, so the identity tells the versions apart even when the size and
// the modification time (whose resolution may be coarse) are the same.
type fileID struct{ dev, ino uint64 }

func idOf(info fs.FileInfo) fileID {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}
	}
	return fileID{}
}
