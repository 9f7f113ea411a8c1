//go:build unix && !linux

package proxy

import "syscall"

// sysProcAttr puts the server in a process group of its own, so that stop
// reaches whatever it starts (npx starts node).
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
