package rules_test

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/policy/rules"
)

// The command lines two outside red teams got allowed with the rules a
// user writes for a shell tool (testdata/redteam_commands.json): each is
// now asked or denied, by the reader's reading or by the floor. The few
// still allowed are listed, and must stay allowed until a change says
// otherwise (so that the list is true).
func TestRedTeamCommandLinesAreNotAllowed(t *testing.T) {
	data, err := os.ReadFile("testdata/redteam_commands.json")
	require.NoError(t, err)
	var cases struct {
		Lines        []string `json:"lines"`
		KnownAllowed []string `json:"known_allowed"`
	}
	require.NoError(t, json.Unmarshal(data, &cases))
	require.NotEmpty(t, cases.Lines)
	e := engine(t, rules.Config{Roots: map[string]string{"*": "/srv/app"}, Rules: []rules.Rule{
		{Tool: "run_command", Decision: "allow", Under: "/srv/app"},
		{Tool: "*", Decision: "deny", Under: "/srv/app/secrets"},
		{Tool: "*", Decision: "deny", Host: "169.254.0.0/16"},
	}})
	decideLine := func(line string) rules.Decision {
		args, err := json.Marshal(map[string]string{"command": line, "cwd": "/srv/app"})
		require.NoError(t, err)
		return decide(t, e, call("run_command", string(args)), nil)
	}
	for _, line := range cases.Lines {
		d := decideLine(line)
		assert.NotEqual(t, rules.Allow, d.Decision, "%q is allowed (%s)", line, fmt.Sprint(d.Paths, d.Hosts))
	}
	for _, line := range cases.KnownAllowed {
		assert.Equal(t, rules.Allow, decideLine(line).Decision, "%q is no longer allowed: take it off known_allowed", line)
	}
}
