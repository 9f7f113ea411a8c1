package opaplane_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/open-policy-agent/opa/v1/plugins"
	"github.com/open-policy-agent/opa/v1/plugins/discovery"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/util"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/bundletest"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/opaplane"
	"github.com/mcp-policy/mcp-policy/provider"
)

// A caller that runs OPA's plugin manager itself hands it in: the rules
// come from its bundle plugin and decisions go to its decision-log
// plugin; the caller starts and stops it.
func TestACallersOwnPluginManager(t *testing.T) {
	h, s := bundletest.NewHub(t), bundletest.NewSigner(t)
	config := h.Config(s, bundletest.LogsAndStatus)
	var boot map[string]any
	require.NoError(t, util.Unmarshal(config, &boot))
	manager, err := plugins.New(config, "callers-own", inmem.New())
	require.NoError(t, err)
	d, err := discovery.New(manager, discovery.BootConfig(boot))
	require.NoError(t, err)
	manager.Register(discovery.Name, d)

	ctx := context.Background()
	plane, err := opaplane.New(ctx, opaplane.Options{Manager: manager})
	require.NoError(t, err)
	require.NoError(t, manager.Start(ctx))
	defer manager.Stop(ctx)
	p := headless(t, plane, &files{})
	h.Serve(bundletest.Bundle{Revision: "r1", Rules: allowUnder("/srv/a")}.Build(t, &s))
	require.NoError(t, plane.Ready(ctxFor(t, 10*time.Second)))
	assert.Equal(t, rules.Allow, decision(t, p, "/srv/a/x").Decision)
	res := p.ExecuteToolCalls(ctx, []provider.Call{write("/srv/a/x")})
	require.False(t, res[0].IsError, res[0].Content)

	stop, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	plane.Stop(stop) // hands over the queue; the manager runs on
	testkit.Eventually(t, 10*time.Second, "the decision at the collector through the caller's logs plugin", func() bool {
		return len(h.Events()) == 1
	})
	labels := h.Events()[0]["labels"].(map[string]any)
	assert.Equal(t, "callers-own", labels["id"])
	h.Serve(bundletest.Bundle{Revision: "r2", Rules: allowUnder("/srv/b")}.Build(t, &s))
	testkit.Eventually(t, 10*time.Second, "the caller's manager still running: r2 downloaded", func() bool {
		st := h.LastStatus()
		bs, _ := st["bundles"].(map[string]any)
		team, _ := bs["team"].(map[string]any)
		return team != nil && team["active_revision"] == "r2"
	})
}
