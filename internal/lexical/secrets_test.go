package lexical_test

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

// Each entry of the secrets list, with files that must match it (by that
// entry, not merely by some entry) and near misses that hold no secret: a
// public certificate, a template, a project's notes about keys.
func TestSecretFiles(t *testing.T) {
	f, err := os.Open("testdata/floor/secrets.txt")
	require.NoError(t, err)
	defer f.Close()
	tested := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "|")
		require.GreaterOrEqual(t, len(parts), 3, line)
		id, match := parts[0], parts[1] == "match"
		for _, p := range parts[2:] {
			e := lexical.SecretFile(lexical.FoldPath(p))
			if !match {
				assert.Nil(t, e, "%s holds no secret, but matched %+v", p, e)
				continue
			}
			if assert.NotNil(t, e, "%s must be on the secrets list", p) {
				assert.Equal(t, id, e.ID, "%s matched another entry", p)
				tested[id] = true
			}
		}
	}
	require.NoError(t, sc.Err())
	for _, e := range lexical.SecretEntries() {
		assert.True(t, tested[e.ID], "secrets entry %s (%s) has no test path", e.ID, e.Names)
		for _, n := range e.Names {
			assert.Equal(t, strings.ToLower(n), n, "%s: %q is not lower case", e.ID, n)
		}
	}
}

// The secrets list and the write floor's share the lookup; the lookup of
// a path on neither allocates nothing either.
func TestSecretFileAllocatesNothing(t *testing.T) {
	p := lexical.FoldPath("/home/u/src/project/internal/server/handler.go")
	assert.Zero(t, testing.AllocsPerRun(100, func() { lexical.SecretFile(p) }))
}
