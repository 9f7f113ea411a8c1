//go:build windows

package grants

import (
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// lockFile takes an exclusive lock on the file at path (created if need
// be), waiting for another process that holds it (for as long as it
// holds it: LockFileEx has no bound; wait is not honoured here).
func lockFile(path string, _ time.Duration, _ <-chan struct{}) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	h := windows.Handle(f.Fd())
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = windows.UnlockFileEx(h, 0, 1, 0, ol)
		f.Close()
	}, nil
}

// fileID: Windows' FileInfo carries no identity; size and modification
// time tell the versions apart.
type fileID struct{}

func idOf(fs.FileInfo) fileID { return fileID{} }
