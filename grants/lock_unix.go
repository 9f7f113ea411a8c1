//go:build unix

package grants

import (
	"io/fs"
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on the file at path (created
// if need be), waiting for another process that holds it. The lock goes
// with the descriptor, so a process that dies holding it releases it.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
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
