package opaplane_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/bundletest"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// Every decision reaches the collector through OPA's decision-log plugin:
// gzipped, batched, in OPA's event shape with the bundle revision and the
// agent's labels, the arguments masked, and what the rules and the human
// decided.
func TestEveryDecisionReachesTheCollectorMasked(t *testing.T) {
	h, s := bundletest.NewHub(t), bundletest.NewSigner(t)
	plane := startPlane(t, h.Config(s, bundletest.LogsAndStatus), nil)
	h.Serve(bundletest.Bundle{Revision: "r1", Rules: `[
		{"tool":"fs_write","decision":"allow","under":"/srv/a"},
		{"tool":"fs_write","decision":"deny","under":"/srv/secret","message":"not there"}]`}.Build(t, &s))
	require.NoError(t, plane.Ready(ctxFor(t, 10*time.Second)))
	var mu sync.Mutex
	ids := map[string]policy.Record{}
	p, err := policy.New(policy.Options{Provider: &files{}, Source: plane, Name: "mcp-policy",
		OnDecision: func(r policy.Record) {
			mu.Lock()
			ids[r.ID] = r
			mu.Unlock()
			plane.Log(r)
		},
		OnAsk: func(context.Context, policy.Question) policy.Answer { return policy.Answer{Action: policy.AlwaysAllow} },
	})
	require.NoError(t, err)
	defer p.Close()
	res := p.ExecuteToolCalls(context.Background(), []provider.Call{write("/srv/a/x"), write("/srv/secret/k"), write("/srv/b/y")})
	assert.False(t, res[0].IsError)
	assert.True(t, res[1].IsError)
	assert.False(t, res[2].IsError, "answered always-allow")

	testkit.Eventually(t, 10*time.Second, "three events at the collector", func() bool { return len(h.Events()) >= 3 })
	events := h.Events()
	require.Len(t, events, 3)
	h.Mu.Lock()
	most := 0
	for _, b := range h.Batches {
		most = max(most, len(b))
	}
	h.Mu.Unlock()
	assert.GreaterOrEqual(t, most, 2, "decisions made together go up together, batched (an upload tick may split three)")
	byPath := map[string]map[string]any{}
	for _, e := range events {
		raw, _ := json.Marshal(e)
		assert.NotContains(t, string(raw), "the secret text", "the written content is masked")
		mu.Lock()
		rec, ok := ids[e["decision_id"].(string)]
		mu.Unlock()
		require.True(t, ok, "each event is one of the policy's decisions: %s", raw)
		assert.Equal(t, "mcp/engine/decision", e["path"])
		assert.Equal(t, rec.Time.UTC().Format(time.RFC3339Nano), e["timestamp"])
		assert.Equal(t, map[string]any{"team": map[string]any{"revision": "r1"}}, e["bundles"])
		labels := e["labels"].(map[string]any)
		assert.Equal(t, "platform", labels["team"])
		assert.NotEmpty(t, labels["id"])
		in := e["input"].(map[string]any)
		assert.Equal(t, "fs_write", in["tool"])
		args := in["arguments"].(map[string]any)
		assert.NotContains(t, args, "content")
		custom := e["custom"].(map[string]any)
		assert.Equal(t, []any{"/input/arguments/content"}, custom["erased"])
		byPath[args["path"].(string)] = e
	}
	allowed := byPath["/srv/a/x"]
	assert.Equal(t, "allow", allowed["result"].(map[string]any)["decision"])
	assert.Equal(t, true, allowed["custom"].(map[string]any)["allowed"])
	denied := byPath["/srv/secret/k"]
	assert.Equal(t, "deny", denied["result"].(map[string]any)["decision"])
	assert.Equal(t, "not there", denied["result"].(map[string]any)["rule"].(map[string]any)["message"], "the rule that decided")
	assert.Contains(t, denied["custom"].(map[string]any)["refusal"], "not there")
	asked := byPath["/srv/b/y"]
	custom := asked["custom"].(map[string]any)
	assert.Equal(t, "no-match", custom["question"].(map[string]any)["reason"])
	assert.Equal(t, "always-allow", custom["answer"].(map[string]any)["action"])
	assert.NotEmpty(t, custom["remembered"], "the grant the answer left")
	assert.Equal(t, true, custom["allowed"])
}

// With the collector down, decisions are made and answered all the same;
// OPA's plugin keeps the events and uploads them when it is back, and
// drops (and counts) what its buffer cannot hold.
func TestCollectorDownHoldsNoDecisionUp(t *testing.T) {
	h, s := bundletest.NewHub(t), bundletest.NewSigner(t)
	h.Mu.Lock()
	h.LogsDown = true
	h.Mu.Unlock()
	plane := startPlane(t, h.Config(s, `
decision_logs:
  service: hub
  reporting:
    min_delay_seconds: 1
    max_delay_seconds: 1
    buffer_type: event
    buffer_size_limit_events: 5
`), nil)
	h.Serve(bundletest.Bundle{Revision: "r1", Rules: allowUnder("/srv/a")}.Build(t, &s))
	require.NoError(t, plane.Ready(ctxFor(t, 10*time.Second)))
	p := headless(t, plane, &files{})
	for i := 0; i < 8; i++ {
		res := p.ExecuteToolCalls(context.Background(), []provider.Call{write("/srv/a/x")})
		require.False(t, res[0].IsError, res[0].Content)
	}
	testkit.Eventually(t, 10*time.Second, "the overflow counted", func() bool { return plane.DroppedDecisions() >= 3 })
	h.Mu.Lock()
	h.LogsDown = false
	h.Mu.Unlock()
	testkit.Eventually(t, 10*time.Second, "what the buffer held, uploaded once the collector is back", func() bool {
		return len(h.Events()) >= 5
	})
	assert.Len(t, h.Events(), 5, "the buffer held its limit; the rest were dropped")
	assert.EqualValues(t, 3, plane.DroppedDecisions())
}

// A bundle service answering 404 or 500, or not answering in time, is
// retried with OPA's backoff — sooner than the polling interval at first,
// then further apart — and reported; the rules in force keep deciding.
func TestBundleServiceFailuresBackOff(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail int
		hang time.Duration
		code string // the status plugin's http_code for the bundle
	}{
		{name: "404", fail: 404, code: "404"},
		{name: "500", fail: 500, code: "500"},
		{name: "timeout", hang: 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each watches its own hub for 6 s
			h, s := bundletest.NewHub(t), bundletest.NewSigner(t)
			stderr := &testkit.SyncBuffer{}
			plane := startPlane(t, h.Config(s, "status:\n  service: hub\n"), stderr)
			p := headless(t, plane, &files{})
			h.Serve(bundletest.Bundle{Revision: "r1", Rules: allowUnder("/srv/a")}.Build(t, &s))
			require.NoError(t, plane.Ready(ctxFor(t, 10*time.Second)))
			h.Mu.Lock()
			h.Fail, h.Hang = tc.fail, tc.hang
			start := len(h.Requests)
			h.Mu.Unlock()
			time.Sleep(6 * time.Second)
			h.Mu.Lock()
			times := append([]time.Time(nil), h.Requests[start:]...)
			h.Mu.Unlock()
			assert.Equal(t, rules.Allow, decision(t, p, "/srv/a/x").Decision, "r1 keeps deciding")
			require.GreaterOrEqual(t, len(times), 4, "retried")
			var gaps []time.Duration
			for i := 2; i < len(times); i++ { // the first request is the regular poll's
				gaps = append(gaps, times[i].Sub(times[i-1]))
			}
			if tc.hang == 0 {
				assert.Less(t, gaps[0], 700*time.Millisecond, "the first retry comes sooner than the 1 s poll: %v", gaps)
				assert.Greater(t, gaps[len(gaps)-1], 2*gaps[0], "then further apart: %v", gaps)
				assert.LessOrEqual(t, len(times), 12, "not hammered: %v", gaps)
			}
			testkit.Eventually(t, 10*time.Second, "the failure in the status report", func() bool {
				st := h.LastStatus()
				bs, _ := st["bundles"].(map[string]any)
				team, _ := bs["team"].(map[string]any)
				if team == nil || team["active_revision"] != "r1" {
					return false
				}
				if tc.code != "" {
					return fmt.Sprint(team["http_code"]) == tc.code
				}
				msg, _ := team["message"].(string)
				return team["code"] == "bundle_error" && strings.Contains(msg, "timeout awaiting response headers")
			}, func() string { raw, _ := json.Marshal(h.LastStatus()); return string(raw) + "\n" + stderr.String() })
		})
	}
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
