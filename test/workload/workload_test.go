// Package workload replays harmless calls to real MCP servers through the
// policy: 336 calls to 20 servers (their tools/list catalogues as they
// list them: names, schemas, annotations), each with the decisions a user
// expects under two configurations. It is the measure of false asks: a
// harmless call the user's rules cover must not be asked, and one asked
// every time (the floor takes part) cannot be silenced by "always allow".
//
// testdata/calls.json: each call, what it is for, and the decisions its
// user accepts with the default rules alone ("defaults") and with their
// own rules (testdata/rules/SERVER.json) and the server's shipped argument
// specs ("configured"). known_ask marks the configured calls still asked
// that a user would allow: a docker bind mount ("/home/u/p:/app:rw") and
// a call naming no path under an "under" rule.
package workload

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/toolslist"
	"github.com/mcp-policy/mcp-policy/provider"
)

// root is the user's project, where every server runs.
const root = "/home/user/project"

type call struct {
	I                int             `json:"i"`
	Server           string          `json:"server"`
	Tool             string          `json:"tool"`
	Note             string          `json:"note"`
	Arguments        json.RawMessage `json:"arguments"`
	AcceptDefaults   []string        `json:"accept_defaults"`
	AcceptConfigured []string        `json:"accept_configured"`
	KnownAsk         bool            `json:"known_ask"`
}

func TestHarmlessCallsOfRealServers(t *testing.T) {
	data, err := os.ReadFile("testdata/calls.json")
	require.NoError(t, err)
	var calls []call
	require.NoError(t, json.Unmarshal(data, &calls))
	require.Len(t, calls, 336)
	ctx := context.Background()
	asExpected := map[string]int{}
	for _, server := range servers(calls) {
		tools := catalogue(t, server)
		own, err := rules.ParseRules(must(os.ReadFile(filepath.Join("testdata", "rules", server+".json"))), server)
		require.NoError(t, err)
		var specs []rules.ArgumentSpec
		if slices.Contains(rules.KnownServers(), server) {
			specs, err = rules.ServerArguments(server)
			require.NoError(t, err)
		}
		engines := map[string]*rules.Engine{}
		for cfg, c := range map[string]rules.Config{
			"defaults":   {Rules: rules.DefaultRules(), Roots: map[string]string{"*": root}},
			"configured": {Rules: append(rules.DefaultRules(), own...), Roots: map[string]string{"*": root}, Arguments: specs},
		} {
			engines[cfg], err = rules.NewEngine(ctx, c)
			require.NoError(t, err)
		}
		for _, c := range calls {
			if c.Server != server {
				continue
			}
			for cfg, accept := range map[string][]string{"defaults": c.AcceptDefaults, "configured": c.AcceptConfigured} {
				pc := provider.Call{ID: "1", Function: provider.CallFunction{Name: c.Tool, Arguments: string(c.Arguments)}}
				d, _, err := engines[cfg].Decide(ctx, pc, tools[c.Tool])
				require.NoError(t, err, "%s %s", server, c.Tool)
				ok := slices.Contains(accept, string(d.Decision))
				if cfg == "configured" && c.KnownAsk {
					assert.Equal(t, "ask", string(d.Decision), "#%d %s %s: a known ask is no longer asked; drop known_ask", c.I, server, c.Tool)
					continue
				}
				if assert.True(t, ok, "#%d %s %s (%s) %s: %s/%s, expected one of %v; paths %v, hosts %v",
					c.I, server, c.Tool, c.Note, cfg, d.Decision, d.Reason, accept, d.Paths, d.Hosts) {
					asExpected[cfg]++
				}
			}
		}
	}
	t.Logf("as the user expects: %d of %d with the defaults, %d of %d configured (and %d known asks)",
		asExpected["defaults"], len(calls), asExpected["configured"], len(calls), knownAsks(calls))
}

func servers(calls []call) []string {
	var out []string
	for _, c := range calls {
		if !slices.Contains(out, c.Server) {
			out = append(out, c.Server)
		}
	}
	slices.Sort(out)
	return out
}

func knownAsks(calls []call) int {
	n := 0
	for _, c := range calls {
		if c.KnownAsk {
			n++
		}
	}
	return n
}

// catalogue is a server's tools/list result as the policy reads it.
func catalogue(t *testing.T, server string) map[string]*provider.Tool {
	t.Helper()
	page, err := toolslist.Decode(must(os.ReadFile(filepath.Join("testdata", "servers", server+".json"))))
	require.NoError(t, err, server)
	out := map[string]*provider.Tool{}
	for i := range page.Tools {
		out[page.Tools[i].Function.Name] = &page.Tools[i]
	}
	return out
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
