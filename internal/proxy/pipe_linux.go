//go:build linux

package proxy

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeSize is what growPipe asks for: Linux's default limit for an
// unprivileged process (/proc/sys/fs/pipe-max-size).
const pipeSize = 1 << 20

// growPipe enlarges the pipe f is an end of, if it is one and the kernel
// agrees; otherwise nothing changes.
func growPipe(f *os.File) {
	if sc, err := f.SyscallConn(); err == nil {
		_ = sc.Control(func(fd uintptr) { _, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize) })
	}
}

// blocking returns f with its reads blocking the thread rather than
// parking on the poller: one read(2) per message where the poller takes a
// read that fails, an epoll wait and a read again. For the one goroutine
// that reads the server's stdout.
func blocking(f *os.File) *os.File {
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		return f
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return f
	}
	f.Close()
	return os.NewFile(uintptr(fd), "mcp server stdout")
}
