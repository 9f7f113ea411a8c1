//go:build unix

package managed

import (
	"os"
	"syscall"
)

// reloadSignals read the rule files again, as daemons do on SIGHUP.
var reloadSignals = []os.Signal{syscall.SIGHUP}
