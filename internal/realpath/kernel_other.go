//go:build !linux

package realpath

// kernelResolve has no kernel's own walk to read here: Resolve walks the
// names itself.
func kernelResolve(string) (string, bool, error) { return "", false, nil }
