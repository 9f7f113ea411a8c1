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

	"github.com/mcp-policy/mcp-policy/internal/regoeval"
	"github.com/mcp-policy/mcp-policy/rego"
)

// test runs OPA's own test command — same flags, output and exit codes —
// with the builtins registered. The embedded engine, default rules and
// floor are added to the user's paths so that modules can be tested through
// data.mcp.engine.decision; a user module in package mcp.floor replaces the
// embedded floor, and paths that already hold the engine (this repository's
// rego/) are tested as they are. With no paths, the embedded modules and
// their tests are run. OPA's test command writes its report to the
// process's own stdout and stderr, whatever stdout and stderr are here: they
// receive cobra's messages and this function's errors only.
func test(args []string, stdout, stderr io.Writer) int {
	regoeval.Register()
	dir, err := os.MkdirTemp("", "policy-eval-test-")
	if err != nil {
		fmt.Fprintf(stderr, "policy-eval test: %v\n", err)
		return exitUsage
	}
	defer os.RemoveAll(dir)

	packages, anyPath, err := userPackages(args)
	if err != nil {
		fmt.Fprintf(stderr, "policy-eval test: %v\n", err)
		return exitUsage
	}
	var embedded []mcprego.Module
	switch {
	case !anyPath:
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

// userPackages parses the .rego files under the arguments that are paths
// (not flags, nor flag values) and returns the packages they declare, and
// whether any path was given at all.
func userPackages(args []string) (map[string]bool, bool, error) {
	pkgs := map[string]bool{}
	paths := positional(args)
	for _, a := range paths {
		if _, err := os.Stat(a); err != nil {
			continue // opa test reports it
		}
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
	return pkgs, len(paths) > 0, nil
}

// positional returns the arguments of opa test that are paths: what is
// neither a flag nor a flag's value, read with the test command's own flag
// definitions the way its flag parser reads them ("--run x" takes x,
// "-v" takes nothing, "-r=x" and "-rx" carry their value, "--" ends flags).
func positional(args []string) []string {
	cmd, _, err := opacmd.RootCommand.Find([]string{"test"})
	// takesValue says whether a flag consumes a value; an unknown flag is
	// taken for a switch (opa test rejects it anyway).
	takesValue := func(name string, short bool) bool {
		if err != nil || cmd == nil {
			return false
		}
		flags, inherited := cmd.Flags(), cmd.InheritedFlags()
		f, g := flags.Lookup(name), inherited.Lookup(name)
		if short {
			f, g = flags.ShorthandLookup(name), inherited.ShorthandLookup(name)
		}
		if f == nil {
			f = g
		}
		return f != nil && f.NoOptDefVal == ""
	}
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i+1:]...)
		case a == "-" || !strings.HasPrefix(a, "-"):
			out = append(out, a)
		case strings.HasPrefix(a, "--"):
			if !strings.Contains(a, "=") && takesValue(a[2:], false) {
				i++
			}
		default:
			// A run of shorthands: the first that takes a value takes the
			// rest of the argument, or the next one.
			sh := a[1:]
			for j := 0; j < len(sh); j++ {
				if takesValue(sh[j:j+1], true) {
					if j == len(sh)-1 {
						i++
					}
					break
				}
			}
		}
	}
	return out
}

// capabilities prints OPA's capabilities for this version with the
// builtins added, for opa check --capabilities and Regal.
func capabilities(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "policy-eval capabilities: takes no arguments")
		return exitUsage
	}
	regoeval.Register()
	caps := ast.CapabilitiesForThisVersion()
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(caps); err != nil {
		fmt.Fprintf(stderr, "policy-eval capabilities: %v\n", err)
		return 1
	}
	return 0
}
