//go:build windows

package mcpclient

import "os"

// terminate kills the process: Windows has no SIGTERM.
func terminate(p *os.Process) { _ = p.Kill() }
