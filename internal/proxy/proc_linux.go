//go:build linux

package proxy

import "syscall"

// sysProcAttr puts the server in a process group of its own, so that stop
// reaches whatever it starts (npx starts node), and has the kernel send it
// SIGTERM should the proxy die without stopping it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
