package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/bundletest"
)

// decide --config decides by the team's signed bundle, once it is active,
// and sends each decision to the collector before it exits.
func TestDecideRulesFromABundle(t *testing.T) {
	hub, signer := bundletest.NewHub(t), bundletest.NewSigner(t)
	hub.Serve(bundletest.Bundle{Revision: "r7", Rules: bundletest.AllowUnder("fs_write", "/srv/a")}.Build(t, &signer))
	conf := write(t, t.TempDir(), "opa.yaml", string(hub.Config(signer, bundletest.LogsAndStatus)))
	stdin := call("1", "fs_write", `{"path":"/srv/a/x","content":"secret"}`) + "\n" + call("2", "fs_write", `{"path":"/srv/b/x"}`) + "\n"
	code, out, errOut := cli(t, stdin, "decide", "--no-default-rules", "--config", conf)
	require.Equal(t, exitOK, code, "stderr: %s", errOut)
	ls := lines(t, out)
	require.Len(t, ls, 2)
	assert.Equal(t, "allow", ls[0]["decision"])
	assert.Equal(t, "ask", ls[1]["decision"])

	// Exiting uploaded what the plugin held: no wait here.
	events := hub.Events()
	require.Len(t, events, 2, "both decisions at the collector")
	for i, e := range events {
		raw, _ := json.Marshal(e)
		assert.NotContains(t, string(raw), "secret", "masked")
		assert.Equal(t, map[string]any{"team": map[string]any{"revision": "r7"}}, e["bundles"])
		assert.Equal(t, []string{"1", "2"}[i], e["input"].(map[string]any)["call_id"])
	}
}

// Without a bundle within --wait, decide decides nothing: it says so and
// exits with the usage status. --rules beside a config with bundles is
// refused: the rules come from one place.
func TestDecideConfigRefusals(t *testing.T) {
	hub, signer := bundletest.NewHub(t), bundletest.NewSigner(t)
	conf := write(t, t.TempDir(), "opa.yaml", string(hub.Config(signer, "")))
	start := time.Now()
	code, out, errOut := cli(t, call("1", "fs_write", `{"path":"/srv/a/x"}`)+"\n", "decide", "--config", conf, "--wait", "1500ms")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "no rule bundle activated")
	assert.Contains(t, errOut, "nothing is decided without the team's rules")
	assert.GreaterOrEqual(t, time.Since(start), 1500*time.Millisecond, "it waited --wait")

	rules := write(t, t.TempDir(), "rules.json", bundletest.AllowUnder("fs_write", "/srv"))
	code, _, errOut = cli(t, "", "decide", "--config", conf, "--rules", rules)
	assert.Equal(t, exitUsage, code)
	assert.True(t, strings.Contains(errOut, "names bundles: the rules come from them; leave out --rules and --policy"), errOut)

	code, _, errOut = cli(t, "", "decide", "--config", write(t, t.TempDir(), "bad.yaml", "bundles: [nope"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "--config")
}
