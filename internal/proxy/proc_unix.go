//go:build unix

package proxy

import "syscall"

// killGroup signals the process group whose leader is pid.
func killGroup(pid int, sig syscall.Signal) error { return syscall.Kill(-pid, sig) }
