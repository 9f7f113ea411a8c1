package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/pgtest"
	"github.com/mcp-policy/mcp-policy/internal/rules"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// grantsCLI runs `mcp-policy grants ARGS...` and returns its exit code,
// stdout and stderr.
func grantsCLI(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"grants"}, args...), nil, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// The grants command does the same on a file and on PostgreSQL: add,
// list with filters and as JSON, show with the record, revoke by filter
// and by ID (refusing to revoke everything unasked), prune the expired.
func TestGrantsCommand(t *testing.T) {
	for _, backend := range []string{"file", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			store := filepath.Join(t.TempDir(), "grants.json")
			if backend == "postgres" {
				store = pgtest.NewDatabase(t)
			}
			ok := func(args ...string) string {
				t.Helper()
				code, out, errOut := grantsCLI(append(args[:1:1], append([]string{"--grants", store}, args[1:]...)...)...)
				require.Equal(t, exitOK, code, "grants %s: %s", strings.Join(args, " "), errOut)
				return out
			}
			ok("add", "--tool", "write_file", "--decision", "allow", "--under", "/srv/app", "--label", "ci-7")
			ok("add", "--tool", "web_fetch", "--decision", "allow", "--host", "api.example.com", "--label", "team=web", "--grant-ttl", "24h")
			ok("add", "--tool", "rm*", "--decision", "deny", "--message", "never")

			// A grant answered through a proxy, with its question.
			s := openStore(t, store)
			s.SetLabels(map[string]string{"id": "laptop-1"})
			require.NoError(t, s.Remember(&grants.Question{Tool: "edit_file", Paths: []string{"/srv/app/x.go"}, Reason: "no-match"},
				rules.Rule{Tool: "edit_file", Decision: rules.Allow, Under: "/srv/app"}))
			require.NoError(t, s.Close())

			list := ok("list")
			for _, want := range []string{"allow write_file under /srv/app", "allow web_fetch host api.example.com", "deny rm*", "id=ci-7", "team=web", "never"} {
				assert.Contains(t, list, want, "list")
			}
			var picked []map[string]any
			require.NoError(t, json.Unmarshal([]byte(ok("list", "--under", "/srv", "--json")), &picked))
			assert.Len(t, picked, 2, "grants under /srv: %v", picked)
			require.NoError(t, json.Unmarshal([]byte(ok("list", "--host", "example.com", "--json")), &picked))
			require.Len(t, picked, 1)
			assert.Equal(t, "web_fetch", picked[0]["tool"])
			assert.NotEmpty(t, picked[0]["expires"], "--grant-ttl gave it an expiry")
			require.NoError(t, json.Unmarshal([]byte(ok("list", "--label", "laptop-1", "--json")), &picked))
			require.Len(t, picked, 1)
			assert.Equal(t, "edit_file", picked[0]["tool"])
			assert.Equal(t, "[]\n", ok("list", "--older-than", "1h", "--json"), "nothing is an hour old")

			editID := grants.IDOf(rules.Rule{Tool: "edit_file", Decision: rules.Allow, Under: "/srv/app"})
			show := ok("show", editID)
			for _, want := range []string{"id:       " + editID, "question: edit_file paths /srv/app/x.go (no-match)", "labels:   id=laptop-1"} {
				assert.Contains(t, show, want, "show")
			}
			code, _, errOut := grantsCLI("show", "--grants", store, "000000000000")
			assert.Equal(t, exitFailure, code)
			assert.Contains(t, errOut, "no grant 000000000000")

			code, _, errOut = grantsCLI("revoke", "--grants", store)
			assert.Equal(t, exitUsage, code, "a bare revoke")
			assert.Contains(t, errOut, "--all")
			assert.Contains(t, ok("revoke", "--tool", "*_file"), "2 grant(s) revoked")
			assert.Contains(t, ok("revoke", grants.IDOf(rules.Rule{Tool: "rm*", Decision: rules.Deny, Message: "never"})), "1 grant(s) revoked")
			require.NoError(t, json.Unmarshal([]byte(ok("list", "--json")), &picked))
			require.Len(t, picked, 1, "left after revoking")
			assert.Equal(t, "web_fetch", picked[0]["tool"])

			// An expired grant is pruned; one still in force is not.
			s = openStore(t, store)
			require.NoError(t, s.AddGrants(context.Background(), grants.Grant{Rule: rules.Rule{Tool: "old", Decision: rules.Deny},
				GrantedAt: time.Now().Add(-48 * time.Hour), Expires: time.Now().Add(-24 * time.Hour)}))
			require.NoError(t, s.Close())
			assert.Contains(t, ok("list"), "(expired)")
			assert.Contains(t, ok("prune"), "1 grant(s) pruned")
			require.NoError(t, json.Unmarshal([]byte(ok("list", "--json")), &picked))
			require.Len(t, picked, 1, "left after pruning")
			assert.Equal(t, "web_fetch", picked[0]["tool"])
		})
	}
}

// Bad input is refused with a message saying what is wrong, and nothing
// is changed.
func TestGrantsCommandRefusesBadInput(t *testing.T) {
	store := filepath.Join(t.TempDir(), "grants.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"list"}, "--grants is required"},
		{[]string{"frobnicate", "--grants", store}, `unknown subcommand "frobnicate"`},
		{[]string{"add", "--grants", store, "--tool", "x", "--decision", "ask"}, `--decision "ask": want allow or deny`},
		{[]string{"add", "--grants", store, "--tool", "x", "--decision", "allow", "--under", "rel/dir"}, "relative"},
		{[]string{"list", "--grants", store, "--under", "rel"}, "want an absolute directory"},
		{[]string{"list", "--grants", store, "abc"}, "use show"},
		{[]string{"show", "--grants", store}, "name the grants to show by ID"},
		{[]string{"list", "--grants", store, "--label", "=x"}, "want KEY=VALUE or NAME"},
		{[]string{"list", "--grants", "postgres://nobody@127.0.0.1:1/none?connect_timeout=2"}, "postgres"},
	} {
		code, _, errOut := grantsCLI(c.args...)
		assert.NotEqual(t, exitOK, code, "%v", c.args)
		assert.Contains(t, errOut, c.want, "%v", c.args)
	}
	code, out, _ := grantsCLI("list", "--grants", store, "--json")
	require.Equal(t, exitOK, code)
	assert.Equal(t, "[]\n", out, "a refused add added nothing")
}

func openStore(t *testing.T, store string) *grants.Store {
	t.Helper()
	s, err := openGrants(store)
	require.NoError(t, err)
	return s
}
