//go:build windows

package main

import (
	"os"
	"syscall"
)

var stopSignals = []os.Signal{os.Interrupt}

func isPipe(syscall.Signal) bool { return false }
