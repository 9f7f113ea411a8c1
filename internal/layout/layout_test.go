package layout

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/mcp-policy/mcp-policy/"

// pkg is what go list says of a package: its path in the module and the
// module's packages it imports (tests' imports apart).
type pkg struct {
	ImportPath string
	Imports    []string
}

func packages(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "../../...")
	out, err := cmd.Output()
	require.NoError(t, err)
	dec := json.NewDecoder(strings.NewReader(string(out)))
	all := map[string][]string{}
	for dec.More() {
		var p pkg
		require.NoError(t, dec.Decode(&p))
		path := strings.TrimPrefix(p.ImportPath, module)
		var own []string
		for _, imp := range p.Imports {
			if rest, ok := strings.CutPrefix(imp, module); ok {
				own = append(own, rest)
			}
		}
		all[path] = own
	}
	require.NotEmpty(t, all)
	return all
}

// layers are the repository's layers, bottom first: a package imports
// only packages of layers below its own. docs/layout.md draws them.
var layers = [][]string{
	{"provider", "internal/verdict", "rego", "internal/lexical", "internal/strictjson", "internal/realpath", "internal/stderrtail",
		"internal/visible", "internal/pgschema", "internal/notify", "internal/pgtest", "internal/bundletest", "internal/otlptest", "internal/testbuild", "internal/layout"},
	{"internal/matching", "reasons", "leases", "mcpclient", "internal/testkit", "internal/toolflags"},
	{"builtins"},
	{"internal/argread"},
	{"internal/regoeval"},
	{"internal/rules"},
	{"grants"},
	{"policy", "grants/grantstest"},
	{"grants/pgstore", "decisionlog", "telemetry"},
	{"internal/approvals"},
	{"internal/cliconfig", "opaplane", "internal/toolslist", "internal/grantsview"},
	{"internal/rulefiles"},
	{"internal/managed"},
	{"internal/proxy"},
	{"cmd/mcp-policy", "cmd/policy-eval", "test/e2e", "test/fsserver", "test/lenientserver", "test/tour", "test/workload"},
}

// tree is the part of the repository a package belongs to: its top
// directory, or its first two for internal/, cmd/ and test/.
func tree(p string) string {
	parts := strings.Split(p, "/")
	if len(parts) > 1 && (parts[0] == "internal" || parts[0] == "cmd" || parts[0] == "test") {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

// Every import runs down the layers, and no import makes two trees of the
// repository need each other (grants importing a package of policy/'s
// tree while policy imports grants, say): a reader can take each top
// directory as one room, entered from above.
func TestImportsRunDown(t *testing.T) {
	layerOf := map[string]int{}
	for i, l := range layers {
		for _, p := range l {
			layerOf[p] = i
		}
	}
	all := packages(t)
	trees := map[string]map[string]bool{} // tree -> the trees it imports
	for p, imports := range all {
		for _, imp := range imports {
			if tree(p) != tree(imp) {
				if trees[tree(p)] == nil {
					trees[tree(p)] = map[string]bool{}
				}
				trees[tree(p)][tree(imp)] = true
			}
		}
	}
	reaches := func(from, to string) bool {
		seen, next := map[string]bool{from: true}, []string{from}
		for len(next) > 0 {
			cur := next[0]
			next = next[1:]
			for t := range trees[cur] {
				if t == to {
					return true
				}
				if !seen[t] {
					seen[t] = true
					next = append(next, t)
				}
			}
		}
		return false
	}
	for p, imports := range all {
		own, ok := layerOf[p]
		if !assert.True(t, ok, "%s is in no layer: add it to layers here and to docs/layout.md", p) {
			continue
		}
		for _, imp := range imports {
			assert.Less(t, layerOf[imp], own, "%s (layer %d) imports %s (layer %d): an import runs up", p, own, imp, layerOf[imp])
			assert.False(t, tree(p) != tree(imp) && reaches(tree(imp), tree(p)),
				"%s imports %s, whose tree needs %s's: the two trees need each other", p, imp, tree(p))
		}
	}
}

// docs/layout.md names every package of the module.
func TestLayoutNamesEveryPackage(t *testing.T) {
	page, err := os.ReadFile("../../docs/layout.md")
	require.NoError(t, err)
	var missing []string
	for p := range packages(t) {
		if !strings.Contains(string(page), "`"+p+"/`") && !strings.Contains(string(page), "`"+p+"`") {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	assert.Empty(t, missing, "docs/layout.md does not name %s", strings.Join(missing, ", "))
	for i := range layers {
		assert.Contains(t, string(page), fmt.Sprintf("%d. ", i), "docs/layout.md draws layer %d", i)
	}
}
