package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	opacmd "github.com/open-policy-agent/opa/cmd"
	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/mcp-policy/mcp-policy/builtins"
	mcprego "github.com/mcp-policy/mcp-policy/rego"
)

// test runs OPA's own test command — same flags, output and exit codes —
// with the builtins registered. The embedded engine, default rules and
// floor are added to the user's paths so that modules can be tested through
// data.mcp.engine.decision; a user module in package mcp.floor replaces the
// embedded floor, and paths that already hold the engine (this repository's
// rego/) are tested as they are. With no paths, the embedded modules and
// their tests are run.
func test(args []string, stdout, stderr io.Writer) int {
	builtins.Register()
	dir, err := os.MkdirTemp("", "policy-eval-test-")
	if err != nil {
		fmt.Fprintf(stderr, "policy-eval test: %v\n", err)
		return exitUsage
	}
	defer os.RemoveAll(dir)

	packages, any, err := userPackages(args)
	if err != nil {
		fmt.Fprintf(stderr, "policy-eval test: %v\n", err)
		return exitUsage
	}
	var embedded []mcprego.Module
	switch {
	case !any:
		embedded = append(mcprego.Modules(), mcprego.TestModules()...)
	case !packages[mcprego.EnginePackage]:
		for _, m := range mcprego.Modules() {
			if m.Name == mcprego.FloorFile && packages[mcprego.FloorPackage] {
				continue
			}
			embedded = append(embedded, m)
		}
	}
	if len(embedded) > 0 {
		for _, m := range embedded {
			if err := os.WriteFile(filepath.Join(dir, m.Name), []byte(m.Source), 0o600); err != nil {
				fmt.Fprintf(stderr, "policy-eval test: %v\n", err)
				return exitUsage
			}
		}
		args = append(append([]string{}, args...), dir)
	}
	root := opacmd.RootCommand
	root.SetArgs(append([]string{"test"}, args...))
	root.SetOut(stdout)
	root.SetErr(stderr)
	if err := root.Execute(); err != nil {
		var exit *opacmd.ExitError
		if errors.As(err, &exit) {
			return exit.Exit
		}
		return 1
	}
	return 0
}

// userPackages parses the .rego files under the arguments that name
// existing paths (flags and their values name none) and returns the
// packages they declare, and whether there was any path at all.
func userPackages(args []string) (map[string]bool, bool, error) {
	pkgs := map[string]bool{}
	found := false
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if _, err := os.Stat(a); err != nil {
			continue
		}
		found = true
		err := filepath.WalkDir(a, func(f string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(f, ".rego") {
				return err
			}
			src, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			m, err := ast.ParseModuleWithOpts(f, string(src), ast.ParserOptions{RegoVersion: ast.RegoV1})
			if err != nil {
				return nil // opa test reports it, with file and line
			}
			pkgs[strings.TrimPrefix(m.Package.Path.String(), "data.")] = true
			return nil
		})
		if err != nil {
			return nil, false, err
		}
	}
	return pkgs, found, nil
}

// capabilities prints OPA's capabilities for this version with the
// builtins added, for opa check --capabilities and Regal.
func capabilities(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "policy-eval capabilities: takes no arguments")
		return exitUsage
	}
	builtins.Register()
	caps := ast.CapabilitiesForThisVersion()
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(caps); err != nil {
		fmt.Fprintf(stderr, "policy-eval capabilities: %v\n", err)
		return 1
	}
	return 0
}
