package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With --config naming bundles the rules come from them: --rules or
// --policy beside it is refused before any server starts, and so is a
// config OPA cannot parse.
func TestProxyConfigRefusals(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "opa.yaml")
	require.NoError(t, os.WriteFile(conf, []byte(`
services:
  hub:
    url: http://127.0.0.1:9
bundles:
  team:
    service: hub
    resource: bundles/team.tar.gz
`), 0o600))
	rules := filepath.Join(dir, "rules.json")
	require.NoError(t, os.WriteFile(rules, []byte("[]"), 0o600))
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("bundles:\n  team:\n    service: nowhere\n"), 0o600))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"proxy", "--config", conf, "--rules", rules, "--", "srv"}, "names bundles: the rules come from them; leave out --rules and --policy"},
		{[]string{"proxy", "--config", conf, "--policy", dir, "--", "srv"}, "leave out --rules and --policy"},
		{[]string{"proxy", "--config", bad, "--", "srv"}, "--config " + bad + ": "},
		{[]string{"proxy", "--config", filepath.Join(dir, "none.yaml"), "--", "srv"}, "no such file or directory"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, strings.NewReader(""), &stdout, &stderr)
		assert.Equal(t, exitUsage, code, "%q: %s", c.args, stderr.String())
		assert.Contains(t, stderr.String(), c.want, "%q", c.args)
	}
}
