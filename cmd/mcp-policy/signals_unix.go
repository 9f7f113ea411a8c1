//go:build unix

package main

import (
	"os"
	"syscall"
)

var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGPIPE}

func isPipe(s syscall.Signal) bool { return s == syscall.SIGPIPE }
