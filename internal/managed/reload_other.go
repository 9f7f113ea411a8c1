//go:build !unix

package managed

import "os"

// reloadSignals: Windows has no SIGHUP; the files are watched all the same.
var reloadSignals []os.Signal
