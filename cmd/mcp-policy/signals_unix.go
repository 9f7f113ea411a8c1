//go:build unix

package main

import (
	"os"
	"syscall"
)

var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGPIPE}

// reloadSignals read the rule files again, as daemons do on SIGHUP.
var reloadSignals = []os.Signal{syscall.SIGHUP}

func isPipe(s syscall.Signal) bool { return s == syscall.SIGPIPE }
