package grants_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/rules"
)

func allow(tool, under string) rules.Rule {
	return rules.Rule{Tool: tool, Decision: rules.Allow, Under: under}
}

func deny(tool, under string) rules.Rule {
	return rules.Rule{Tool: tool, Decision: rules.Deny, Under: under}
}

// dirEntries lists a directory's names, to catch stray temporary files.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestNewStoreValidatesAndNormalises(t *testing.T) {
	s, err := grants.NewStore([]rules.Rule{
		allow("fs_write", "/srv/./scratch/"),
		{Tool: "fs_delete", Decision: rules.Deny},
	})
	require.NoError(t, err)
	assert.Equal(t, []rules.Rule{allow("fs_write", "/srv/scratch"), {Tool: "fs_delete", Decision: rules.Deny}}, s.List())
	assert.NotZero(t, s.Version(), "0 is left for a cache's never-read")

	for name, bad := range map[string]rules.Rule{
		"ask":         {Tool: "x", Decision: rules.Ask},
		"no decision": {Tool: "x"},
		"no tool":     {Decision: rules.Allow},
		"bad host":    {Tool: "x", Decision: rules.Allow, Host: "http://"},
		"data marks":  {Tool: "x", Decision: rules.Allow, Data: []string{"key"}}, // the rules file's, not an answer's
	} {
		t.Run(name, func(t *testing.T) {
			_, err := grants.NewStore([]rules.Rule{allow("ok", ""), bad})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "grant 2", "the error names the grant")
		})
	}
	_, err = grants.NewStore([]rules.Rule{{Tool: "x", Decision: rules.Ask}})
	var ve *rules.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "decision", ve.Field)
	assert.Contains(t, err.Error(), `"ask"`)

	empty, err := grants.NewStore(nil)
	require.NoError(t, err)
	assert.Equal(t, []rules.Rule{}, empty.List())
}

func TestAddIsAllOrNothingAndMovesTheVersion(t *testing.T) {
	s, err := grants.NewStore(nil)
	require.NoError(t, err)
	v0 := s.Version()

	require.NoError(t, s.Add(allow("a", ""), allow("b", "")))
	v1 := s.Version()
	assert.Greater(t, v1, v0)

	err = s.Add(allow("c", ""), rules.Rule{Tool: "d", Decision: rules.Ask})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "grant 2")
	assert.Equal(t, []rules.Rule{allow("a", ""), allow("b", "")}, s.List(), "a bad rule adds none of its answer")
	assert.Equal(t, v1, s.Version(), "a refused Add is no change")

	require.NoError(t, s.Add())
	assert.Equal(t, v1, s.Version(), "adding nothing is no change")

	require.NoError(t, s.Add(allow("c", "")))
	assert.Greater(t, s.Version(), v1)
	assert.Len(t, s.List(), 3)
}

func TestListIsADeepCopy(t *testing.T) {
	in := []rules.Rule{{Tool: "x", Decision: rules.Allow, Annotations: map[string]bool{"readOnlyHint": true}}}
	s, err := grants.NewStore(in)
	require.NoError(t, err)
	in[0].Annotations["readOnlyHint"] = false // the caller's slice is not the store's

	l := s.List()
	l[0].Tool = "changed"
	l[0].Annotations["readOnlyHint"] = false
	l2, v := s.Snapshot()
	assert.Equal(t, "x", l2[0].Tool)
	assert.True(t, l2[0].Annotations["readOnlyHint"])
	assert.Equal(t, s.Version(), v)
}

func TestSaveLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "grants.json")
	want := []rules.Rule{
		allow("fs_write", "/srv/scratch"),
		{Tool: "web_fetch", Decision: rules.Allow, Host: "*.raku.org"},
		{Tool: "*", Decision: rules.Deny, Annotations: map[string]bool{"destructiveHint": true}, Message: "no"},
	}
	s, err := grants.NewStore(want)
	require.NoError(t, err)
	require.NoError(t, s.Save(path))

	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o600), info.Mode().Perm(), "grants are nobody else's business")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(data), "\n  {\n    \"tool\": \"fs_write\"", "indented, for a human to read")
	assert.Equal(t, []string{"grants.json", "grants.json.lock"}, dirEntries(t, dir), "no temporary file left behind, only the lock")

	got, err := grants.LoadFile(path)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	other, err := grants.NewStore([]rules.Rule{allow("old", "")})
	require.NoError(t, err)
	v := other.Version()
	require.NoError(t, other.Load(path))
	assert.Equal(t, want, other.List(), "Load replaces the contents")
	assert.Greater(t, other.Version(), v)
}

func TestSaveEmptyStoreWritesAnEmptyArray(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.json")
	s, err := grants.NewStore(nil)
	require.NoError(t, err)
	require.NoError(t, s.Save(path))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "[]\n", string(data))
	got, err := grants.LoadFile(path)
	require.NoError(t, err)
	assert.Equal(t, []rules.Rule{}, got)
}

func TestSaveNeverOverwritesAFileThatIsNotGrants(t *testing.T) {
	for name, content := range map[string]string{"garbage": "old", "null": "null", "object": `{}`} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "g.json")
			require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
			s, err := grants.NewStore([]rules.Rule{allow("x", "")})
			require.NoError(t, err)
			err = s.Save(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), path)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, content, string(data), "the file someone else broke is theirs to mend")
		})
	}
}

func TestSaveMergesWithTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.json")
	require.NoError(t, os.WriteFile(path, []byte(`[{"tool":"theirs","decision":"deny"},{"tool":"both","decision":"allow"}]`), 0o600))
	s, err := grants.NewStore([]rules.Rule{allow("both", ""), allow("mine", "")})
	require.NoError(t, err)
	require.NoError(t, s.Save(path))
	got, err := grants.LoadFile(path)
	require.NoError(t, err)
	assert.Equal(t, []rules.Rule{{Tool: "theirs", Decision: rules.Deny}, allow("both", ""), allow("mine", "")}, got,
		"the file's grants first, then the store's it lacked, none twice")
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o600), info.Mode().Perm())
}

func TestLoadMissingFile(t *testing.T) {
	s, err := grants.NewStore([]rules.Rule{allow("keep", "")})
	require.NoError(t, err)
	err = s.Load(filepath.Join(t.TempDir(), "none.json"))
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrNotExist, "a host tells first run from a broken file this way")
	assert.Equal(t, []rules.Rule{allow("keep", "")}, s.List())
}

func TestLoadCorruptFileNamesItAndChangesNothing(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"truncated.json": `[{"tool":"x","decision":"allow"`,
		"object.json":    `{"tool":"x","decision":"allow"}`,
		"unknown.json":   `[{"tool":"x","decision":"allow","undr":"/srv"}]`,
		"ask.json":       `[{"tool":"x","decision":"allow"},{"tool":"y","decision":"ask"}]`,
		"dupkey.json":    `[{"tool":"x","decision":"allow","decision":"deny"}]`,
		"null.json":      `null`,
		"relative.json":  `[{"tool":"x","decision":"allow","under":"scratch"}]`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
			s, err := grants.NewStore([]rules.Rule{allow("keep", "")})
			require.NoError(t, err)
			v := s.Version()

			err = s.Load(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), path, "the error names the file")
			assert.Equal(t, []rules.Rule{allow("keep", "")}, s.List())
			assert.Equal(t, v, s.Version())

			_, err = grants.LoadFile(path)
			require.Error(t, err)
			assert.NotErrorIs(t, err, fs.ErrNotExist, "a broken file is not a first run")
		})
	}
	_, err := grants.LoadFile(filepath.Join(dir, "ask.json"))
	require.ErrorContains(t, err, "rule 2", "the error names the rule")
}

func TestInterruptedSaveLeavesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "grants.json")
	s, err := grants.NewStore([]rules.Rule{allow("old", "")})
	require.NoError(t, err)
	require.NoError(t, s.Save(path))
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	require.NoError(t, s.Add(allow("new", "")))
	var tried string
	restore := grants.SetRename(func(oldpath, newpath string) error {
		tried = oldpath
		data, err := os.ReadFile(oldpath)
		require.NoError(t, err)
		assert.Contains(t, string(data), `"new"`, "the temp file held the complete new list")
		return errors.New("power cut")
	})
	err = s.Save(path)
	restore()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "power cut")
	assert.Equal(t, dir, filepath.Dir(tried), "the temp file lives beside the target, so rename is atomic")

	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the old file is intact")
	assert.Equal(t, []string{"grants.json", "grants.json.lock"}, dirEntries(t, dir), "no temporary file left behind, only the lock")
}

func TestSaveOntoADirectoryFailsCleanly(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "grants.json")
	require.NoError(t, os.Mkdir(target, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(target, "inside"), []byte("x"), 0o600))

	s, err := grants.NewStore([]rules.Rule{allow("x", "")})
	require.NoError(t, err)
	require.Error(t, s.Save(target))
	assert.Equal(t, []string{"grants.json", "grants.json.lock"}, dirEntries(t, dir), "no temporary file left behind, only the lock")
	assert.Equal(t, []string{"inside"}, dirEntries(t, target))
}

func TestSaveIntoMissingDirectoryMakesIt(t *testing.T) {
	s, err := grants.NewStore([]rules.Rule{allow("x", "")})
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "no", "such")
	require.NoError(t, s.Save(filepath.Join(dir, "g.json")))
	got, err := grants.LoadFile(filepath.Join(dir, "g.json"))
	require.NoError(t, err)
	assert.Equal(t, []rules.Rule{allow("x", "")}, got)
	info, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o700), info.Mode().Perm(), "a directory of grants is the user's alone")
}

func TestConcurrentUse(t *testing.T) {
	s, err := grants.NewStore(nil)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "g.json")
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			switch i % 4 {
			case 0, 1:
				assert.NoError(t, s.Add(allow(fmt.Sprintf("t%d", i), ""), allow(fmt.Sprintf("u%d", i), "")))
			case 2:
				l := s.List()
				assert.Zero(t, len(l)%2, "an Add is seen whole or not at all")
				_ = s.Version()
			default:
				assert.NoError(t, s.Save(path))
			}
		})
	}
	wg.Wait()
	assert.Len(t, s.List(), 40)
	require.NoError(t, s.Save(path))
	got, err := grants.LoadFile(path)
	require.NoError(t, err)
	assert.Equal(t, s.List(), got, "the last Save holds the last list")
}
