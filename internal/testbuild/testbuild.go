// Package testbuild builds the module's test programs for the TestMain of a
// test binary, so each package that runs a real MCP server over stdio builds
// it the same way.
package testbuild

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// ModuleRoot is the directory holding the go.mod the go command reads from
// the current directory: a test's current directory is its package's, and
// builds of the module's other packages run from the root.
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == "/dev/null" {
		return "", fmt.Errorf("go env GOMOD: not inside a module")
	}
	return filepath.Dir(gomod), nil
}

// FSServer builds test/fsserver, the small filesystem MCP server the tests
// run over stdio, into dir and returns the program's path.
func FSServer(dir string) (string, error) { return Program(dir, "fsserver") }

// Program builds test/NAME, one of the module's test programs, into dir
// and returns the program's path.
func Program(dir, name string) (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	program := filepath.Join(dir, name)
	build := exec.Command("go", "build", "-o", program, "./test/"+name)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %w\n%s", name, err, out)
	}
	return program, nil
}
