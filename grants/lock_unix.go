//go:build unix

package grants

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// lockFile takes an exclusive advisory lock on the file at path (created
// if need be), waiting for another process that holds it, at most wait,
// and not once stop is closed (nil: never). The lock goes with the
// descriptor, so a process that dies holding it releases it.
func lockFile(path string, wait time.Duration, stop <-chan struct{}) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == syscall.EWOULDBLOCK && time.Now().Before(deadline) || err == syscall.EINTR {
			t := time.NewTimer(min(pause, max(time.Until(deadline), 0)))
			select {
			case <-t.C:
				continue
			case <-stop:
				t.Stop()
				f.Close()
				return nil, fmt.Errorf("grants: %s: stopped waiting for another process's lock", path)
			}
		}
		break
	}
	if err == syscall.EWOULDBLOCK {
		err = fmt.Errorf("grants: %s is locked by another process for more than %s (one stopped while saving, or a lock held by hand)", path, wait.Round(time.Millisecond))
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
