//go:build unix

package grants_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/rules"
)

// A lock on the grants held by another process that never lets it go (one
// stopped while saving, a flock run by hand) makes saving a grant fail,
// naming the lock, rather than hang the call that saves it.
func TestALockHeldForeverFailsTheSave(t *testing.T) {
	file := filepath.Join(t.TempDir(), "grants.json")
	store, err := grants.Open(file)
	require.NoError(t, err)
	defer store.Close()
	held, err := os.OpenFile(file+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	defer held.Close()
	require.NoError(t, syscall.Flock(int(held.Fd()), syscall.LOCK_EX))

	err = store.Add(rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: "/srv"})
	assert.ErrorContains(t, err, "is locked by another process")

	require.NoError(t, syscall.Flock(int(held.Fd()), syscall.LOCK_UN))
	require.NoError(t, store.Add(rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: "/srv"}), "saved once the lock is let go")
}
