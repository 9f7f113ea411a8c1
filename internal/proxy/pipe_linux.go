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
// that reads the server's stdout; the host's pipe is read through the
// poller (polled), so that the two readers never hold a thread in read(2)
// each.
func blocking(f *os.File) *os.File {
	g := reopened(f, false)
	if g != f {
		f.Close()
	}
	return g
}

// polled returns f read through the runtime's poller when it is a pipe (a
// new descriptor of it, non-blocking), f itself otherwise. os.Stdin is
// read with read(2) blocking a thread, and with the server's reader
// blocked in read(2) as well an idle proxy holds a thread in a system call
// for each; the runtime takes their processors back while they wait, and
// a thread woken by the host's request must find one again before it can
// decide. Read through the poller, the request wakes the thread waiting in
// epoll instead: measured with BenchmarkProxyRoundTrip, 30–45 µs less per
// small call. (The server's stdout read through the poller as well was
// slower again, hence blocking.) Only a pipe: non-blocking is a property of
// what the descriptor opens, shared with whoever else holds it, and a
// terminal left non-blocking breaks the shell that gave it.
func polled(f *os.File) *os.File {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return f
	}
	return reopened(f, true)
}

// reopened is a new descriptor of what f opens, non-blocking or not (os
// decides by that whether the poller reads it); f when one cannot be made.
func reopened(f *os.File, nonblocking bool) *os.File {
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		return f
	}
	if err := unix.SetNonblock(fd, nonblocking); err != nil {
		unix.Close(fd)
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}
