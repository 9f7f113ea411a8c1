//go:build !unix && !windows

package grants

import (
	"errors"
	"io/fs"
	"time"
)

// lockFile: this platform has no file locks that this package knows, and
// saving without one could lose another process's grants.
func lockFile(string, time.Duration, <-chan struct{}) (func(), error) {
	return nil, errors.New("file locking is not supported on this platform")
}

type fileID struct{}

func idOf(fs.FileInfo) fileID { return fileID{} }
