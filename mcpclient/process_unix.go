//go:build unix

package mcpclient

import (
	"os"
	"syscall"
)

func terminate(p *os.Process) { _ = p.Signal(syscall.SIGTERM) }
