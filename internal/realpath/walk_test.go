package realpath

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A walk returns where each link under a tree leads, not what is under
// that: a dangling or looping link leads nowhere it can read. A tree too
// big to walk says so.
func TestLinksUnder(t *testing.T) {
	top, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	tree, keys := filepath.Join(top, "tree"), filepath.Join(top, "keys")
	require.NoError(t, os.MkdirAll(filepath.Join(tree, "a", "b"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(keys, "inner"), 0o755))
	require.NoError(t, os.Symlink(keys, filepath.Join(tree, "a", "b", "k")))
	require.NoError(t, os.Symlink("../../../keys/inner", filepath.Join(tree, "a", "b", "rel")))
	require.NoError(t, os.Symlink(filepath.Join(top, "nowhere"), filepath.Join(tree, "dangling")))
	require.NoError(t, os.Symlink(filepath.Join(tree, "loop"), filepath.Join(tree, "loop")))

	targets, complete := LinksUnder(tree)
	assert.True(t, complete)
	assert.ElementsMatch(t, []string{keys, filepath.Join(keys, "inner")}, targets)

	targets, complete = LinksUnder(filepath.Join(top, "missing"))
	assert.True(t, complete, "nothing there: nothing to follow")
	assert.Empty(t, targets)

	big := filepath.Join(top, "big")
	require.NoError(t, os.MkdirAll(big, 0o755))
	for i := range MaxWalk + 1 {
		require.NoError(t, os.WriteFile(filepath.Join(big, "f"+strconv.Itoa(i)), nil, 0o600))
	}
	_, complete = LinksUnder(big)
	assert.False(t, complete, "a walk past its bound cannot say what else the tree links to")
}

// A link into /proc resolves here as this process's own (/proc/self/cwd is
// the policy's working directory): a path through one cannot be told, and
// neither can a tree with one in it.
func TestLinksIntoProc(t *testing.T) {
	top, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Symlink("/proc/self", filepath.Join(top, "pself")))
	_, err = Resolve(filepath.Join(top, "pself", "cwd", "data.txt"))
	assert.ErrorIs(t, err, errThroughProc)
	_, complete := LinksUnder(top)
	assert.False(t, complete)
	real, err := Resolve(filepath.Join(top, "plain.txt"))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(top, "plain.txt"), real)
}
