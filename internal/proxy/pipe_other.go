//go:build !linux

package proxy

import "os"

// growPipe is a no-op where pipes cannot be enlarged.
func growPipe(*os.File) {}

// blocking returns f as it is.
func blocking(f *os.File) *os.File { return f }

// polled returns f as it is.
func polled(f *os.File) *os.File { return f }
