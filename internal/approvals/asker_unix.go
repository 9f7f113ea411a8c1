//go:build unix

package approvals

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// gone says the proxy that asked is known to be gone: it ran on this
// machine, and its process no longer exists. A proxy elsewhere, or one
// this cannot tell about, is not known gone: its question goes stale
// instead, when it stops showing it is alive (StaleAfter).
func (a Asker) gone() bool {
	host, err := os.Hostname()
	if err != nil || a.Machine != host || a.PID <= 0 {
		return false
	}
	if errors.Is(syscall.Kill(a.PID, 0), syscall.ESRCH) {
		return true
	}
	// A process that has exited but not been reaped (a zombie) still
	// answers kill; Linux's /proc says it is one.
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(a.PID) + "/stat")
	if i := bytes.LastIndexByte(stat, ')'); err == nil && i >= 0 && i+2 < len(stat) {
		return stat[i+2] == 'Z'
	}
	return false
}
