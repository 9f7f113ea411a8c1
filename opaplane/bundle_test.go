package opaplane_test

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/bundletest"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/opaplane"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

func decision(t *testing.T, p *policy.Policy, path string) rules.Decision {
	t.Helper()
	d, err := p.Decide(context.Background(), write(path))
	require.NoError(t, err)
	return d
}

// Before the first bundle the policy refuses every call, saying why; each
// new signed revision then changes decisions without a restart, and the
// decisions name the revision they were made under.
func TestSignedRevisionsChangeDecisionsLive(t *testing.T) {
	h, s := bundletest.NewHub(t), bundletest.NewSigner(t)
	plane := startPlane(t, h.Config(s, ""), nil)
	f := &files{}
	var mu sync.Mutex
	var recs []policy.Record
	p, err := policy.New(policy.Options{Provider: f, Source: plane, OnDecision: func(r policy.Record) {
		mu.Lock()
		recs = append(recs, r)
		mu.Unlock()
	}})
	require.NoError(t, err)
	defer p.Close()

	res := p.ExecuteToolCalls(context.Background(), []provider.Call{write("/srv/a/x")})
	assert.True(t, res[0].IsError)
	assert.Contains(t, res[0].Content, "has not loaded yet")
	_, err = p.Decide(context.Background(), write("/srv/a/x"))
	assert.ErrorIs(t, err, policy.ErrNotLoaded)
	assert.Empty(t, f.ran, "nothing runs before the rules are in")

	h.Serve(bundletest.Bundle{Revision: "r1", Rules: allowUnder("/srv/a")}.Build(t, &s))
	testkit.Eventually(t, 10*time.Second, "revision r1 in force", func() bool {
		d, err := p.Decide(context.Background(), write("/srv/a/x"))
		return err == nil && d.Decision == rules.Allow
	})
	assert.Equal(t, rules.Ask, decision(t, p, "/srv/b/x").Decision)
	res = p.ExecuteToolCalls(context.Background(), []provider.Call{write("/srv/a/x")})
	assert.False(t, res[0].IsError, res[0].Content)

	h.Serve(bundletest.Bundle{Revision: "r2", Rules: allowUnder("/srv/b"), Modules: map[string]string{
		"mcp/custom.rego": "package mcp.custom\n\ndeny contains \"no temp files\" if endswith(input.arguments.path, \".tmp\")\n",
	}}.Build(t, &s))
	testkit.Eventually(t, 10*time.Second, "revision r2 in force", func() bool {
		return decision(t, p, "/srv/b/x").Decision == rules.Allow
	})
	assert.Equal(t, rules.Ask, decision(t, p, "/srv/a/x").Decision, "r1's rule is gone")
	assert.Equal(t, rules.Deny, decision(t, p, "/srv/b/x.tmp").Decision, "r2's module decides too")
	res = p.ExecuteToolCalls(context.Background(), []provider.Call{write("/srv/b/y")})
	assert.False(t, res[0].IsError, res[0].Content)

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, recs, 3)
	assert.Nil(t, recs[0].Revisions, "the refusal before any bundle names none")
	assert.Equal(t, map[string]string{"team": "r1"}, recs[1].Revisions)
	assert.Equal(t, map[string]string{"team": "r2"}, recs[2].Revisions)
}

// A revision that is unsigned, signed by another key, corrupt, does not
// compile, or holds rules that do not validate is refused: the revision
// before keeps deciding, and the refusal is reported.
func TestBadRevisionsAreRefusedAndTheOldOneKeepsDeciding(t *testing.T) {
	h, s := bundletest.NewHub(t), bundletest.NewSigner(t)
	stderr := &testkit.SyncBuffer{}
	var told activations
	plane := startPlaneWith(t, opaplane.Options{Config: h.Config(s, bundletest.LogsAndStatus), Stderr: stderr, OnActivation: told.add})
	p := headless(t, plane, &files{})
	h.Serve(bundletest.Bundle{Revision: "good", Rules: allowUnder("/srv/a")}.Build(t, &s))
	testkit.Eventually(t, 10*time.Second, "the good revision in force", func() bool {
		d, err := p.Decide(context.Background(), write("/srv/a/x"))
		return err == nil && d.Decision == rules.Allow
	})
	other := bundletest.NewSigner(t)
	allowB := allowUnder("/srv/b")
	for _, bad := range []struct {
		name   string
		body   []byte
		stderr string // what the operator is told
	}{
		{"unsigned", bundletest.Bundle{Revision: "unsigned", Rules: allowB}.Build(t, nil), "bundle missing .signatures.json file"},
		{"another key", bundletest.Bundle{Revision: "forged", Rules: allowB}.Build(t, &other), "verification error"},
		{"corrupt", []byte("\x1f\x8b\x08\x00 this is not a bundle"), "Bundle load failed"},
		{"uncompilable", bundletest.Bundle{Revision: "uncompilable", Rules: allowB, Modules: map[string]string{
			"mcp/custom.rego": "package mcp.custom\n\ndeny contains x if x := undefined_function(1)\n",
		}}.Build(t, &s), "undefined function undefined_function"},
		{"invalid rules", bundletest.Bundle{Revision: "invalid", Rules: `[{"tool":"fs_write","decision":"maybe"}]`}.Build(t, &s),
			"bundle team revision invalid refused"},
		{"engine package", bundletest.Bundle{Revision: "engine", Rules: allowB, Modules: map[string]string{
			"mcp/engine.rego": "package mcp.engine\n\nx := 1\n",
		}}.Build(t, &s), "bundle team revision engine refused"},
	} {
		t.Run(bad.name, func(t *testing.T) {
			h.Mu.Lock()
			before := len(h.Requests)
			h.Mu.Unlock()
			said := len(stderr.String())
			h.Serve(bad.body)
			testkit.Eventually(t, 10*time.Second, "the bad revision fetched and refused: "+bad.stderr, func() bool {
				h.Mu.Lock()
				fetched := len(h.Requests) > before+1
				h.Mu.Unlock()
				return fetched && bytes.Contains([]byte(stderr.String()[said:]), []byte(bad.stderr))
			})
			assert.Equal(t, rules.Allow, decision(t, p, "/srv/a/x").Decision, "the good revision keeps deciding")
			assert.Equal(t, rules.Ask, decision(t, p, "/srv/b/x").Decision, "the bad revision's rule is not in force")
			res := p.ExecuteToolCalls(context.Background(), []provider.Call{write("/srv/a/y")})
			assert.False(t, res[0].IsError, res[0].Content)
		})
	}
	// The status plugin tells the control plane: the policy's own status
	// says which revision was refused and which stays.
	testkit.Eventually(t, 10*time.Second, "the refusal in the status report", func() bool {
		st := h.LastStatus()
		pl, _ := st["plugins"].(map[string]any)
		mine, _ := pl["mcp-policy"].(map[string]any)
		msg, _ := mine["message"].(string)
		return mine["state"] == "ERROR" && bytes.Contains([]byte(msg), []byte("the rules of team revision good stay in force"))
	})

	h.Serve(bundletest.Bundle{Revision: "fixed", Rules: allowB}.Build(t, &s))
	testkit.Eventually(t, 10*time.Second, "a good revision after the bad ones is taken", func() bool {
		return decision(t, p, "/srv/b/x").Decision == rules.Allow
	})

	// Telemetry's count: each activation, taken or refused by the policy,
	// and each bundle OPA failed to take, is told.
	got := told.list()
	require.NotEmpty(t, got)
	oks := slices.DeleteFunc(slices.Clone(got), func(s string) bool { return !strings.HasSuffix(s, " ok") })
	assert.Equal(t, []string{"team=good ok", "team=fixed ok"}, oks, "the activations taken")
	assert.Equal(t, "team=fixed ok", got[len(got)-1], "the last activation")
	for _, want := range []string{"team=invalid refused", "team=engine refused", "team= refused"} {
		assert.Contains(t, got, want, "told: %v", got)
	}
}

// activations records what OnActivation is told, as "name=revision ok"
// or "… refused".
type activations struct {
	mu  sync.Mutex
	got []string
}

func (a *activations) add(revisions map[string]string, err error) {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(revisions)) {
		parts = append(parts, k+"="+revisions[k])
	}
	outcome := " ok"
	if err != nil {
		outcome = " refused"
	}
	a.mu.Lock()
	a.got = append(a.got, strings.Join(parts, ",")+outcome)
	a.mu.Unlock()
}

func (a *activations) list() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.got)
}
