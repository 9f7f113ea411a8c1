package realpath

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResolve runs with openat2's short way and without it (an old
// kernel, a sandbox that refuses it): the answers are one.
func TestResolve(t *testing.T) {
	for _, without := range []bool{false, true} {
		t.Run(map[bool]string{false: "openat2", true: "without openat2"}[without], func(t *testing.T) {
			defer noOpenat2.Store(noOpenat2.Load())
			noOpenat2.Store(without)
			testResolve(t)
		})
	}
}

func testResolve(t *testing.T) {
	top, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	real := filepath.Join(top, "real")
	require.NoError(t, os.Mkdir(real, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(real, "grants.json"), []byte("[]"), 0o600))
	require.NoError(t, os.Symlink(real, filepath.Join(top, "cfg")))
	require.NoError(t, os.Symlink(filepath.Join(real, "grants.json"), filepath.Join(top, "g.json")))
	require.NoError(t, os.Symlink(filepath.Join(top, "nowhere"), filepath.Join(top, "dangling")))

	for _, c := range []struct{ name, in, want string }{
		{"an existing file through a linked directory", "cfg/grants.json", "real/grants.json"},
		{"a file not made yet, in a linked directory", "cfg/new.json.lock", "real/new.json.lock"},
		{"names below it not made yet", "cfg/a/b/c", "real/a/b/c"},
		{"a link to a file", "g.json", "real/grants.json"},
		{"no link", "real/grants.json", "real/grants.json"},
		{"nothing of it made", "none/x", "none/x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Resolve(filepath.Join(top, c.in))
			require.NoError(t, err)
			assert.Equal(t, filepath.Join(top, c.want), got)
		})
	}
	t.Run("a link to nothing is an error", func(t *testing.T) {
		_, err := Resolve(filepath.Join(top, "dangling"))
		require.Error(t, err)
	})
	t.Run("a link followed by .. is read as the kernel reads it", func(t *testing.T) {
		require.NoError(t, os.MkdirAll(filepath.Join(top, "app"), 0o700))
		require.NoError(t, os.MkdirAll(filepath.Join(top, "secret", "inner"), 0o700))
		require.NoError(t, os.Symlink(filepath.Join(top, "secret", "inner"), filepath.Join(top, "app", "keys")))
		for in, want := range map[string]string{
			"/app/keys/../x":        "secret/x", // the parent of where keys leads
			"/app/keys/../../app/y": "app/y",    // up twice from secret/inner: top
			"/app/./keys/./../x":    "secret/x", // "." changes nothing
			"/app/sub/../x":         "app/x",    // a name not made yet is no link
		} {
			got, err := Resolve(top + in) // as written: no cleaning on the way
			require.NoError(t, err, in)
			assert.Equal(t, filepath.Join(top, want), got, in)
		}
	})
	t.Run("spellings", func(t *testing.T) {
		assert.Equal(t, []string{filepath.Join(top, "cfg/grants.json"), filepath.Join(top, "real/grants.json")},
			Spellings(filepath.Join(top, "cfg/grants.json")))
		assert.Equal(t, []string{filepath.Join(top, "real/grants.json")}, Spellings(filepath.Join(top, "real/grants.json")))
		assert.Equal(t, []string{filepath.Join(top, "dangling")}, Spellings(filepath.Join(top, "dangling")))
	})
}
