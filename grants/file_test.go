package grants_test

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/rules"
)

func TestOpenMissingFileIsEmptyAndTheFirstAddCreatesIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.json")
	s, err := grants.Open(path)
	require.NoError(t, err)
	assert.Equal(t, path, s.File())
	assert.Equal(t, path+".lock", s.LockFile())
	assert.Equal(t, []rules.Rule{}, s.List())
	_, err = os.Stat(path)
	assert.ErrorIs(t, err, fs.ErrNotExist, "opening writes nothing")

	require.NoError(t, s.Add(allow("fs_write", "/srv/scratch")))
	got, err := grants.LoadFile(path)
	require.NoError(t, err)
	assert.Equal(t, []rules.Rule{allow("fs_write", "/srv/scratch")}, got, "saved before Add returned")
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o600), info.Mode().Perm())
}

func TestOpenRefusesAFileThatIsNotGrantsAndLeavesIt(t *testing.T) {
	for name, content := range map[string]string{
		"null":     "null",
		"object":   `{"tool":"x","decision":"allow"}`,
		"garbage":  "[{",
		"ask":      `[{"tool":"x","decision":"ask"}]`,
		"relative": `[{"tool":"x","decision":"allow","under":"scratch"}]`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "grants.json")
			require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
			_, err := grants.Open(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), path, "the error names the file")
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, content, string(data))
		})
	}
}

// A grants file made by touch, or holding only white space, is no grants
// yet; the first grant is written over it.
func TestAnEmptyFileIsNoGrants(t *testing.T) {
	for name, content := range map[string]string{"empty": "", "space": " \n\t\n"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "grants.json")
			require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
			got, err := grants.LoadFile(path)
			require.NoError(t, err)
			assert.Empty(t, got)
			s, err := grants.Open(path)
			require.NoError(t, err)
			assert.Empty(t, s.List())
			require.NoError(t, s.Add(allow("fs_write", "/srv")))
			got, err = grants.LoadFile(path)
			require.NoError(t, err)
			assert.Equal(t, []rules.Rule{allow("fs_write", "/srv")}, got)
		})
	}
}

func TestTwoStoresOnOneFileSeeEachOthersGrants(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.json")
	a, err := grants.Open(path)
	require.NoError(t, err)
	b, err := grants.Open(path)
	require.NoError(t, err)

	require.NoError(t, a.Add(allow("from_a", "/srv")))
	vb := b.Version()
	assert.Equal(t, []rules.Rule{allow("from_a", "/srv")}, b.List(), "b reads the file again when it changed")

	require.NoError(t, b.Add(allow("from_b", "/srv")))
	assert.Greater(t, b.Version(), vb)
	assert.Equal(t, []rules.Rule{allow("from_a", "/srv"), allow("from_b", "/srv")}, a.List())

	v := a.Version()
	assert.Equal(t, v, a.Version(), "an unchanged file is no change")
}

func TestAddOfAGrantHeldAlreadyIsNoChange(t *testing.T) {
	for name, open := range map[string]func(t *testing.T) *grants.Store{
		"memory": func(t *testing.T) *grants.Store { s, err := grants.NewStore(nil); require.NoError(t, err); return s },
		"file": func(t *testing.T) *grants.Store {
			s, err := grants.Open(filepath.Join(t.TempDir(), "g.json"))
			require.NoError(t, err)
			return s
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			require.NoError(t, s.Add(allow("fs_write", "/srv/scratch/"), allow("fs_write", "/srv/scratch")))
			v := s.Version()
			require.NoError(t, s.Add(allow("fs_write", "/srv/./scratch")))
			assert.Equal(t, v, s.Version())
			assert.Equal(t, []rules.Rule{allow("fs_write", "/srv/scratch")}, s.List(), "repeated always- answers do not pile up")
			if f := s.File(); f != "" {
				got, err := grants.LoadFile(f)
				require.NoError(t, err)
				assert.Len(t, got, 1)
			}
		})
	}
}

func TestAStoreRefusesARelativeUnder(t *testing.T) {
	s, err := grants.NewStore(nil)
	require.NoError(t, err)
	err = s.Add(allow("fs_write", "scratch"))
	var ve *rules.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "under", ve.Field)
	assert.Contains(t, err.Error(), "absolute")
	_, err = grants.NewStore([]rules.Rule{allow("fs_write", "./scratch")})
	assert.Error(t, err)
}

func TestAFileBrokenAfterOpenKeepsTheGrantsReadAndRefusesAdd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.json")
	s, err := grants.Open(path)
	require.NoError(t, err)
	require.NoError(t, s.Add(allow("kept", "/srv")))
	require.NoError(t, os.WriteFile(path, []byte(`[{"tool":"half`), 0o600))

	assert.Equal(t, []rules.Rule{allow("kept", "/srv")}, s.List(), "decisions go on with what was read")
	require.Error(t, s.Err())
	err = s.Add(allow("new", "/srv"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, `[{"tool":"half`, string(data), "never overwritten")

	require.NoError(t, os.WriteFile(path, []byte(`[{"tool":"mended","decision":"deny"}]`), 0o600))
	assert.NoError(t, s.Err())
	assert.Equal(t, []rules.Rule{{Tool: "mended", Decision: rules.Deny}}, s.List(), "the file is the truth")
	require.NoError(t, s.Add(allow("new", "/srv")))
}

// TestManyProcessesAddingToOneFileLoseNothing runs this test binary as
// several processes at once, each adding grants one at a time to the same
// file: without the lock and the re-read, the last save would win.
func TestManyProcessesAddingToOneFileLoseNothing(t *testing.T) {
	const procs, each = 6, 15
	path := filepath.Join(t.TempDir(), "grants.json")
	var wg sync.WaitGroup
	for p := range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAddGrants$")
			cmd.Env = append(os.Environ(), "GRANTS_HELPER_FILE="+path, "GRANTS_HELPER_ID="+strconv.Itoa(p),
				"GRANTS_HELPER_COUNT="+strconv.Itoa(each))
			out, err := cmd.CombinedOutput()
			assert.NoError(t, err, "%s", out)
		})
	}
	wg.Wait()
	got, err := grants.LoadFile(path)
	require.NoError(t, err)
	assert.Len(t, got, procs*each, "every process's every grant is in the file")
	seen := map[string]bool{}
	for _, g := range got {
		seen[g.Tool] = true
	}
	assert.Len(t, seen, procs*each)
}

func TestHelperAddGrants(t *testing.T) {
	path := os.Getenv("GRANTS_HELPER_FILE")
	if path == "" {
		t.Skip("run by TestManyProcessesAddingToOneFileLoseNothing")
	}
	n, _ := strconv.Atoi(os.Getenv("GRANTS_HELPER_COUNT"))
	s, err := grants.Open(path)
	require.NoError(t, err)
	for i := range n {
		require.NoError(t, s.Add(allow(fmt.Sprintf("p%s_%d", os.Getenv("GRANTS_HELPER_ID"), i), "/srv")))
	}
}

// The README's own example names a grants file in a directory a fresh
// machine does not have: the first always- answer must be kept, not fail.
func TestOpenInAMissingDirectoryAndTheFirstAddMakesIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".config", "mcp-policy", "grants.json")
	s, err := grants.Open(path)
	require.NoError(t, err)
	require.NoError(t, s.Add(deny("fs_delete", "")))
	got, err := grants.LoadFile(path)
	require.NoError(t, err)
	assert.Equal(t, []rules.Rule{deny("fs_delete", "")}, got)
}

// A grants file named through a link (a dotfiles repository, macOS's /tmp)
// is the file the link leads to: a store opened by either name sees every
// grant of the other's, and a save writes through the link rather than
// replacing it with a file of its own, which would split the fleet for good.
func TestStoresOpenedByALinkAndByItsTargetAreOne(t *testing.T) {
	top := t.TempDir()
	real := filepath.Join(top, "dotfiles", "mcp-policy")
	require.NoError(t, os.MkdirAll(real, 0o700))
	require.NoError(t, os.Symlink(real, filepath.Join(top, "config")))
	byLink, err := grants.Open(filepath.Join(top, "config", "grants.json"))
	require.NoError(t, err)
	byFile, err := grants.Open(filepath.Join(real, "grants.json"))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(real, "grants.json.lock"), byLink.LockFile(), "one lock for both")

	require.NoError(t, byFile.Add(deny("fs_delete", "")))
	require.NoError(t, byLink.Add(allow("fs_write", "/srv")))
	require.NoError(t, byFile.Add(deny("web_fetch", "")))
	want := []rules.Rule{deny("fs_delete", ""), allow("fs_write", "/srv"), deny("web_fetch", "")}
	assert.Equal(t, want, byLink.List())
	assert.Equal(t, want, byFile.List())
	info, err := os.Lstat(filepath.Join(top, "config"))
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&fs.ModeSymlink, "the link is still a link")

	// A link to the file itself, too.
	require.NoError(t, os.Symlink(filepath.Join(real, "grants.json"), filepath.Join(top, "g.json")))
	byFileLink, err := grants.Open(filepath.Join(top, "g.json"))
	require.NoError(t, err)
	require.NoError(t, byFileLink.Add(deny("rm", "")))
	info, err = os.Lstat(filepath.Join(top, "g.json"))
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&fs.ModeSymlink, "a save writes through the link")
	assert.Contains(t, byFile.List(), deny("rm", ""))
}

func TestOpenRefusesALinkToNothing(t *testing.T) {
	top := t.TempDir()
	require.NoError(t, os.Symlink(filepath.Join(top, "gone", "grants.json"), filepath.Join(top, "grants.json")))
	_, err := grants.Open(filepath.Join(top, "grants.json"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(top, "grants.json"))
}

// An "Allow for a day" grant whose day has passed answers nothing: LoadFile
// leaves it out, as a store does, while the file keeps its record.
func TestLoadFileLeavesExpiredGrantsOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.json")
	require.NoError(t, os.WriteFile(path, []byte(`[
 {"tool": "write_file", "decision": "allow", "under": "/srv/old", "expires": "2020-01-01T00:00:00Z"},
 {"tool": "write_file", "decision": "allow", "under": "/srv/year1", "expires": "0001-01-01T00:00:00Z"},
 {"tool": "write_file", "decision": "allow", "under": "/srv/year1-zone", "expires": "0001-01-01T01:00:00+01:00"},
 {"tool": "write_file", "decision": "allow", "under": "/srv/new", "expires": "2999-01-01T00:00:00Z"},
 {"tool": "write_file", "decision": "deny", "under": "/srv/never"}
]`), 0o644))
	got, err := grants.LoadFile(path)
	require.NoError(t, err)
	var unders []string
	for _, r := range got {
		unders = append(unders, r.Under)
	}
	assert.Equal(t, []string{"/srv/new", "/srv/never"}, unders, "the expired grants are left out: year 1 is past, not never")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	records, err := grants.ParseGrants(data, path)
	require.NoError(t, err)
	assert.Len(t, records, 5, "the records are all read")
}
