//go:build unix

package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/bundletest"
)

// waitFor polls cond until it holds, or fails the test after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The proxy with --config takes its rules from the team's signed bundles
// and sends each decision to the team's collector, in front of the
// official filesystem server: every call refused until the first bundle
// is active, each new revision in force without a restart, an unsigned
// one refused, and the local --log beside the collector.
func TestProxyRulesFromSignedBundles(t *testing.T) {
	t.Parallel()
	server, dir := officialFSServer(t)
	hub, signer := bundletest.NewHub(t), bundletest.NewSigner(t)
	conf := filepath.Join(t.TempDir(), "opa.yaml")
	require.NoError(t, os.WriteFile(conf, hub.Config(signer, bundletest.LogsAndStatus), 0o600))
	logFile := filepath.Join(t.TempDir(), "decisions.jsonl")
	ph := startProxied(t, []string{"--config", conf, "--ask", "refuse", "--log", logFile}, server, hostOptions{})
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	mkdir(t, dir, "a")
	mkdir(t, dir, "b")
	writeTo := func(path string) map[string]any {
		return map[string]any{"path": path, "content": "the team's secret text"}
	}

	wantCallError(t, ph.call("write_file", writeTo(filepath.Join(a, "x"))), "the policy has not loaded yet")
	wantAbsent(t, filepath.Join(a, "x"))

	hub.Serve(bundletest.Bundle{Revision: "r1", Rules: bundletest.AllowUnder("write_file", a)}.Build(t, &signer))
	waitFor(t, 15*time.Second, "revision r1 in force", func() bool {
		return !ph.call("write_file", writeTo(filepath.Join(a, "x"))).IsError
	})
	wantFile(t, filepath.Join(a, "x"), "the team's secret text")
	wantCallError(t, ph.call("write_file", writeTo(filepath.Join(b, "y"))), "Permission required")
	assert.Equal(t, 1, strings.Count(ph.stderr.String(), "rules in force from bundle"), "each activation said once:\n%s", ph.stderr.String())

	hub.Serve(bundletest.Bundle{Revision: "r2", Rules: bundletest.AllowUnder("write_file", b)}.Build(t, &signer))
	waitFor(t, 15*time.Second, "revision r2 in force", func() bool {
		return !ph.call("write_file", writeTo(filepath.Join(b, "y"))).IsError
	})
	wantCallError(t, ph.call("write_file", writeTo(filepath.Join(a, "z"))), "Permission required")

	unsigned := bundletest.Bundle{Revision: "r3", Rules: bundletest.AllowUnder("write_file", dir)}.Build(t, nil)
	before := hub.RequestCount()
	hub.Serve(unsigned)
	waitFor(t, 15*time.Second, "the unsigned revision fetched", func() bool { return hub.RequestCount() > before+1 })
	wantCallError(t, ph.call("write_file", writeTo(filepath.Join(dir, "w"))), "Permission required")
	wantCallOK(t, ph.call("write_file", writeTo(filepath.Join(b, "v"))))
	assert.Contains(t, ph.stderr.String(), "bundle missing .signatures.json file")

	// Every decision reached the collector, masked, naming its revision;
	// the local log has the same decisions.
	local := logLines(t, logFile)
	waitFor(t, 15*time.Second, "every decision at the collector", func() bool { return len(hub.Events()) >= len(local) })
	events := hub.Events()
	ids := map[string]string{}
	for _, e := range events {
		raw, _ := json.Marshal(e)
		assert.NotContains(t, string(raw), "secret text", "content masked")
		rev := ""
		if bs, ok := e["bundles"].(map[string]any); ok {
			rev = bs["team"].(map[string]any)["revision"].(string)
		}
		ids[e["decision_id"].(string)] = rev
	}
	require.Len(t, events, len(local))
	for _, l := range local {
		rev, ok := ids[l["decision_id"].(string)]
		assert.True(t, ok, "decision %v at the collector", l["decision_id"])
		if rev != "" {
			assert.Equal(t, map[string]any{"team": map[string]any{"revision": rev}}, l["bundles"], "the local log names the revision too")
		} else {
			assert.NotContains(t, l, "bundles")
		}
	}
	// In the order they were made: refusals before any bundle (naming
	// none), then r1's, then r2's; the unsigned r3 never decided.
	var order []string
	for _, l := range local {
		if rev := ids[l["decision_id"].(string)]; len(order) == 0 || order[len(order)-1] != rev {
			order = append(order, rev)
		}
	}
	assert.Equal(t, []string{"", "r1", "r2"}, order)
}

// Without bundles, the proxy watches its --rules file: an edit decides
// the next call, an edit that does not validate is refused naming the file
// and line, and SIGHUP reads the files again without stopping the proxy.
func TestProxyReloadsItsRulesFile(t *testing.T) {
	t.Parallel()
	server, dir := officialFSServer(t)
	rulesFile := filepath.Join(t.TempDir(), "rules.json")
	a, b := mkdir(t, dir, "a"), mkdir(t, dir, "b")
	allow := func(under string) []byte {
		return []byte("[\n  {\"tool\": \"write_file\", \"decision\": \"allow\", \"under\": \"" + under + "\"}\n]\n")
	}
	require.NoError(t, os.WriteFile(rulesFile, allow(a), 0o600))
	ph := startProxied(t, []string{"--rules", rulesFile, "--ask", "refuse"}, server, hostOptions{})
	writeTo := func(path string) map[string]any { return map[string]any{"path": path, "content": "x"} }
	wantCallOK(t, ph.call("write_file", writeTo(filepath.Join(a, "1"))))
	wantCallError(t, ph.call("write_file", writeTo(filepath.Join(b, "1"))), "Permission required")

	require.NoError(t, os.WriteFile(rulesFile, allow(b), 0o600))
	waitFor(t, 10*time.Second, "the edit in force", func() bool {
		return !ph.call("write_file", writeTo(filepath.Join(b, "2"))).IsError
	})
	wantCallError(t, ph.call("write_file", writeTo(filepath.Join(a, "2"))), "Permission required")

	require.NoError(t, os.WriteFile(rulesFile, []byte("[\n  {\"tool\": \"write_file\",\n   \"decision\": \"sometimes\"}\n]\n"), 0o600))
	waitFor(t, 10*time.Second, "the bad edit refused", func() bool {
		return strings.Contains(ph.stderr.String(), "the edited rules were refused")
	})
	assert.Contains(t, ph.stderr.String(), rulesFile+":2:", "the file and line at fault")
	wantCallOK(t, ph.call("write_file", writeTo(filepath.Join(b, "3"))))

	require.NoError(t, os.WriteFile(rulesFile, allow(a), 0o600))
	waitFor(t, 10*time.Second, "the fixed file in force", func() bool {
		return !ph.call("write_file", writeTo(filepath.Join(a, "3"))).IsError
	})
	reloads := strings.Count(ph.stderr.String(), "rules reloaded from")
	require.NoError(t, ph.cmd.Process.Signal(syscall.SIGHUP))
	waitFor(t, 10*time.Second, "SIGHUP reloads", func() bool {
		return strings.Count(ph.stderr.String(), "rules reloaded from") > reloads
	})
	wantCallOK(t, ph.call("write_file", writeTo(filepath.Join(a, "4"))))
}
