package grants_test

import (
	"path/filepath"
	"testing"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/grants/grantstest"
)

// The grants file owes what every backend owes; another process's change
// is seen at the next decision.
func TestFileBackend(t *testing.T) {
	grantstest.Run(t, func(t *testing.T) grantstest.Opener {
		path := filepath.Join(t.TempDir(), "grants.json")
		return func(t *testing.T) *grants.Store {
			s, err := grants.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	}, 0)
}

// A store in memory is its own source: every "process" is the one store.
func TestMemoryStore(t *testing.T) {
	grantstest.Run(t, func(t *testing.T) grantstest.Opener {
		s, err := grants.NewStore(nil)
		if err != nil {
			t.Fatal(err)
		}
		return func(*testing.T) *grants.Store { return s }
	}, 0)
}
