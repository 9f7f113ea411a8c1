//go:build windows

package main

import (
	"os"
	"syscall"
)

var stopSignals = []os.Signal{os.Interrupt}

// reloadSignals: Windows has no SIGHUP; the files are watched all the same.
var reloadSignals []os.Signal

func isPipe(syscall.Signal) bool { return false }
