//go:build unix

package approvals

import (
	"errors"
	"os"
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
	return errors.Is(syscall.Kill(a.PID, 0), syscall.ESRCH)
}
