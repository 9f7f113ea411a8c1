// Package rego embeds the Rego sources of mcp-policy: the engine that turns
// a call into one decision document, the default rules, the danger floor,
// and the reference servers' argument specs. The .rego files are the source of
// truth; Go only loads them.
//
// The package is named mcprego, not rego, so that it never shadows OPA's
// github.com/open-policy-agent/opa/v1/rego: the two are often imported
// side by side, and neither needs an alias.
package mcprego

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.rego
var files embed.FS

// Module is one Rego source file.
type Module struct {
	Name   string // file name, for error messages
	Source string
}

// The packages of the embedded modules, as Rego refs.
const (
	EnginePackage   = "mcp.engine"
	DefaultsPackage = "mcp.defaults"
	// ArgumentsPackage holds the reference servers' argument specs.
	ArgumentsPackage = "mcp.arguments"
	FloorPackage     = "mcp.floor"
	// CustomPackage is where security teams' modules add deny, ask and
	// allow entries.
	CustomPackage = "mcp.custom"
)

// EngineFile is the file name of the engine module.
const EngineFile = "engine.rego"

// FloorFile is the file name of the danger floor, which a security team's
// module declaring FloorPackage replaces.
const FloorFile = "floor.rego"

// Modules returns the embedded modules (tests excluded), sorted by name.
func Modules() []Module { return load(false) }

// TestModules returns the embedded _test.rego modules.
func TestModules() []Module { return load(true) }

func load(tests bool) []Module {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic(err) // embedded at build time: cannot fail
	}
	var out []Module
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), "_test.rego") != tests {
			continue
		}
		b, err := fs.ReadFile(files, e.Name())
		if err != nil {
			panic(err)
		}
		out = append(out, Module{Name: e.Name(), Source: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
