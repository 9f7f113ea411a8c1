package engine

import (
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// The key terms are OPA's interned ones: interning ran before they were
// looked up, whatever order the package's variables are written in.
func TestKeysAreInterned(t *testing.T) {
	for k, term := range map[string]*ast.Term{"tool": keyTool, "paths": keyPaths, "under": keyUnder, "null": keyNull} {
		if term != ast.InternedTerm(k) {
			t.Errorf("the key %q is a term of its own, not the interned one", k)
		}
	}
}
