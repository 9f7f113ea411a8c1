package policy_test

import (
	"context"
	"testing"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// The synopsis rule set: default rules, writes allowed under scratch,
// deletes denied.
func synopsisRules() []rules.Rule {
	return withDefaults(
		rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: "scratch"},
		rules.Rule{Tool: "fs_delete", Decision: rules.Deny, Message: "no deletes here"},
	)
}

func TestMixedBatchForwardsAllowedUntouchedInOneBatch(t *testing.T) {
	fake := newFake()
	asked := answering(policy.Answer{Action: policy.DenyOnce})
	p := newPolicy(t, policy.Options{Provider: fake, Rules: synopsisRules(), OnAsk: asked.ask, Name: "test-policy"})

	// Odd spacing, key order and number text: forwarded byte for byte.
	readArgs := "{ \"path\" :\"notes/a.md\",\n  \"limit\": 1.50e0, \"z\":null }"
	writeArgs := `{"content":"héllo \u00e9","path":"scratch/notes.md"}`
	calls := []provider.Call{
		testkit.Call("c1", "fs_read", readArgs),
		testkit.Call("c2", "fs_delete", `{"path":"scratch/old.md"}`),
		testkit.Call("c3", "fs_write", writeArgs),
		write("c4", "live/site.html"),                                                           // no rule: asked, declined
		{ID: "c5", Function: provider.CallFunction{Name: "fs_list", Arguments: `{"path":"."}`}}, // no Type
	}
	res := p.ExecuteToolCalls(context.Background(), calls)

	require.Len(t, res, len(calls))
	assert.Equal(t, []string{"c1", "c2", "c3", "c4", "c5"}, ids(res), "results in caller order")
	for _, r := range res {
		assert.Equal(t, "tool", r.Role)
	}

	batches := fake.Batches()
	require.Len(t, batches, 1, "every allowed call in ONE provider batch")
	assert.Equal(t, []provider.Call{calls[0], calls[2], calls[4]}, batches[0], "forwarded untouched, in order")
	assert.Equal(t, readArgs, batches[0][0].Function.Arguments)
	assert.Equal(t, writeArgs, batches[0][1].Function.Arguments)

	assert.False(t, res[0].IsError)
	assert.Equal(t, "ran fs_read "+readArgs, res[0].Content)
	assert.False(t, res[2].IsError)
	assert.Equal(t, "ran fs_write "+writeArgs, res[2].Content)
	assert.False(t, res[4].IsError)

	// The denial names the policy and the rule, and its message.
	assert.True(t, res[1].IsError)
	assert.Contains(t, res[1].Content, "test-policy")
	assert.Contains(t, res[1].Content, "'fs_delete'")
	assert.Contains(t, res[1].Content, `"tool":"fs_delete"`)
	assert.Contains(t, res[1].Content, "no deletes here")

	assert.True(t, res[3].IsError)
	assert.Contains(t, res[3].Content, "declined")

	for _, c := range fake.Calls() {
		assert.NotEqual(t, "fs_delete", c.Function.Name, "a denied call must never reach the provider")
		assert.NotEqual(t, "c4", c.ID, "a declined call must never reach the provider")
	}
	assert.Equal(t, int32(1), asked.n.Load(), "only the unmatched write was asked about")
}

func TestAllDeniedBatchNeverCallsProvider(t *testing.T) {
	fake := newFake()
	p := newPolicy(t, policy.Options{Provider: fake, Rules: synopsisRules()})
	res := p.ExecuteToolCalls(context.Background(), []provider.Call{
		testkit.Call("1", "fs_delete", `{"path":"a"}`),
		write("2", "elsewhere/b"), // headless: refused
	})
	require.Len(t, res, 2)
	assert.True(t, res[0].IsError)
	assert.True(t, res[1].IsError)
	assert.Empty(t, fake.Batches(), "no allowed call: the provider is not called at all")
}

func TestEmptyBatch(t *testing.T) {
	fake := newFake()
	p := newPolicy(t, policy.Options{Provider: fake, Rules: synopsisRules()})
	assert.Empty(t, p.ExecuteToolCalls(context.Background(), nil))
	assert.Empty(t, fake.Batches())
}

func TestProviderFailuresBecomeErrorResults(t *testing.T) {
	cases := map[string]func(ctx context.Context, calls []provider.Call) []provider.Result{
		"panic": func(context.Context, []provider.Call) []provider.Result { panic("the server fell over") },
		"too few": func(_ context.Context, calls []provider.Call) []provider.Result {
			return []provider.Result{provider.TextResult(calls[0].ID, "one")}
		},
		"too many": func(_ context.Context, calls []provider.Call) []provider.Result {
			out := make([]provider.Result, len(calls)+1)
			for i := range out {
				out[i] = provider.TextResult("x", "ok")
			}
			return out
		},
		"nil": func(context.Context, []provider.Call) []provider.Result { return nil },
	}
	for name, exec := range cases {
		t.Run(name, func(t *testing.T) {
			fake := newFake()
			fake.exec = exec
			p := newPolicy(t, policy.Options{Provider: fake, Rules: synopsisRules()})
			var res []provider.Result
			require.NotPanics(t, func() {
				res = p.ExecuteToolCalls(context.Background(), []provider.Call{
					testkit.Call("a", "fs_read", `{"path":"x"}`),
					testkit.Call("b", "fs_delete", `{"path":"x"}`),
					write("c", "scratch/y"),
				})
			})
			require.Len(t, res, 3)
			assert.Equal(t, []string{"a", "b", "c"}, ids(res))
			for _, r := range res {
				assert.True(t, r.IsError, "%+v", r)
				assert.Equal(t, "tool", r.Role)
			}
			assert.Contains(t, res[0].Content, "fs_read")
			assert.Contains(t, res[2].Content, "fs_write")
			assert.Contains(t, res[1].Content, "Denied", "the denied call keeps its own denial")
			require.Len(t, fake.Batches(), 1)
			assert.Len(t, fake.Batches()[0], 2)
		})
	}
}

func TestProviderResultsAreAttributedToTheirCalls(t *testing.T) {
	// A provider that answers with wrong ids and roles still has each
	// result attributed to the call in its position.
	fake := newFake()
	fake.exec = func(_ context.Context, calls []provider.Call) []provider.Result {
		out := make([]provider.Result, len(calls))
		for i, c := range calls {
			out[i] = provider.Result{Role: "assistant", ToolCallID: "bogus", Content: c.Function.Name}
		}
		return out
	}
	p := newPolicy(t, policy.Options{Provider: fake, Rules: synopsisRules()})
	res := p.ExecuteToolCalls(context.Background(), []provider.Call{
		testkit.Call("r1", "fs_read", `{"path":"x"}`), testkit.Call("r2", "fs_list", `{"path":"y"}`),
	})
	assert.Equal(t, []string{"r1", "r2"}, ids(res))
	assert.Equal(t, "fs_read", res[0].Content)
	assert.Equal(t, "tool", res[1].Role)
}

func TestBadCallsAreRefusedAlone(t *testing.T) {
	bad := map[string]provider.Call{
		"array arguments":     testkit.Call("bad", "fs_read", `["path","x"]`),
		"string arguments":    testkit.Call("bad", "fs_read", `"x"`),
		"number arguments":    testkit.Call("bad", "fs_read", `42`),
		"null arguments":      testkit.Call("bad", "fs_read", `null`),
		"truncated JSON":      testkit.Call("bad", "fs_read", `{"path":"x"`),
		"trailing data":       testkit.Call("bad", "fs_read", `{"path":"x"} {}`),
		"invalid UTF-8":       testkit.Call("bad", "fs_read", "{\"path\":\"a\xffb\"}"),
		"invalid UTF-8 name":  testkit.Call("bad", "fs_read\xff", `{"path":"x"}`),
		"duplicate keys":      testkit.Call("bad", "fs_read", `{"path":"notes/a","path":"/etc/shadow"}`),
		"nested duplicate":    testkit.Call("bad", "fs_read", `{"path":"a","opts":{"k":1,"k":2}}`),
		"empty name":          testkit.Call("bad", "", `{"path":"x"}`),
		"allowed-looking bad": testkit.Call("bad", "fs_write", `{"path":"scratch/a","path":"scratch/b"}`),
	}
	for name, c := range bad {
		t.Run(name, func(t *testing.T) {
			fake := newFake()
			p := newPolicy(t, policy.Options{Provider: fake, Rules: synopsisRules(),
				OnAsk: func(context.Context, policy.Question) policy.Answer {
					t.Errorf("a bad call must not be asked about")
					return policy.Answer{Action: policy.AllowOnce}
				}})
			before := testkit.Call("ok1", "fs_read", `{"path":"a"}`)
			after := write("ok2", "scratch/b")
			var res []provider.Result
			require.NotPanics(t, func() {
				res = p.ExecuteToolCalls(context.Background(), []provider.Call{before, c, after})
			})
			require.Len(t, res, 3)
			assert.Equal(t, []string{"ok1", "bad", "ok2"}, ids(res))
			assert.False(t, res[0].IsError, res[0].Content)
			assert.True(t, res[1].IsError)
			assert.NotEmpty(t, res[1].Content)
			assert.False(t, res[2].IsError, res[2].Content)
			require.Len(t, fake.Batches(), 1)
			assert.Equal(t, []provider.Call{before, after}, fake.Batches()[0], "the others still run, in one batch")
		})
	}
}

func TestEmptyArgumentsCountAsEmptyObject(t *testing.T) {
	fake := newFake()
	p := newPolicy(t, policy.Options{Provider: fake, Rules: []rules.Rule{{Tool: "fs_list", Decision: rules.Allow}}})
	res := p.ExecuteToolCalls(context.Background(), []provider.Call{testkit.Call("1", "fs_list", "")})
	assert.False(t, res[0].IsError, res[0].Content)
	assert.Equal(t, "", fake.Calls()[0].Function.Arguments, "still forwarded as written")
}

func TestHeadless(t *testing.T) {
	fake := newFake()
	p := newPolicy(t, policy.Options{Provider: fake, Rules: policy.DefaultRules()})
	assert.False(t, p.Interactive())

	res := p.ExecuteToolCalls(context.Background(), []provider.Call{
		testkit.Call("1", "fs_write", `{"path":"x"}`),
		testkit.Call("2", "fs_read", `{"path":"x"}`),
		testkit.Call("3", "fs_write", `{"path":".git/config"}`), // a floor ask: refused too
	})
	require.Len(t, res, 3)
	assert.True(t, res[0].IsError)
	assert.Equal(t, "1", res[0].ToolCallID)
	assert.Regexp(t, `^Permission required: 'fs_write' needs approval, but `, res[0].Content)
	assert.Contains(t, res[0].Content, "no one is available")
	assert.False(t, res[1].IsError, "reads still go through")
	assert.True(t, res[2].IsError)
	assert.Regexp(t, `^Permission required: 'fs_write' needs approval, but `, res[2].Content)
	assert.Equal(t, []provider.Call{testkit.Call("2", "fs_read", `{"path":"x"}`)}, fake.Calls())

	interactive := newPolicy(t, policy.Options{Provider: fake, OnAsk: answering(policy.Answer{Action: policy.AllowOnce}).ask})
	assert.True(t, interactive.Interactive())
}

func TestHeadlessStillHonoursGrants(t *testing.T) {
	fake := newFake()
	p := newPolicy(t, policy.Options{Provider: fake, Rules: policy.DefaultRules(),
		Grants: []rules.Rule{{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/out"}}})
	res := p.ExecuteToolCalls(context.Background(), []provider.Call{write("1", "out/a"), write("2", "in/a")})
	assert.False(t, res[0].IsError, res[0].Content)
	assert.True(t, res[1].IsError)
}

func TestToolsForLLMPassesCatalogueThrough(t *testing.T) {
	fake := newFake()
	p := newPolicy(t, policy.Options{Provider: fake})
	tools, err := p.ToolsForLLM(context.Background())
	require.NoError(t, err)
	assert.Equal(t, fake.tools, tools)

	failing := newPolicy(t, policy.Options{Provider: failingLister{}})
	_, err = failing.ToolsForLLM(context.Background())
	assert.Error(t, err, "a catalogue that cannot be listed is an error, not a shorter list")
}

type failingLister struct{}

func (failingLister) ToolsForLLM(context.Context) ([]provider.Tool, error) {
	return nil, assert.AnError
}

func (failingLister) ExecuteToolCalls(_ context.Context, calls []provider.Call) []provider.Result {
	out := make([]provider.Result, len(calls))
	for i, c := range calls {
		out[i] = provider.TextResult(c.ID, "ran")
	}
	return out
}

func TestUnknownCatalogueMeansNoAnnotationRules(t *testing.T) {
	// A provider that cannot list: the read-only default rule cannot match,
	// so a read is asked (headless: refused), never allowed on a guess.
	p := newPolicy(t, policy.Options{Provider: failingLister{}, Rules: policy.DefaultRules()})
	res := p.ExecuteToolCalls(context.Background(), []provider.Call{testkit.Call("1", "fs_read", `{"path":"x"}`)})
	assert.True(t, res[0].IsError)
	assert.Contains(t, res[0].Content, "Permission required")
}

func TestNewRejectsBadOptions(t *testing.T) {
	fake := newFake()
	for name, o := range map[string]policy.Options{
		"no provider":  {},
		"bad rule":     {Provider: fake, Rules: []rules.Rule{{Tool: "", Decision: rules.Allow}}},
		"bad decision": {Provider: fake, Rules: []rules.Rule{{Tool: "x", Decision: "maybe"}}},
		"ask grant":    {Provider: fake, Grants: []rules.Rule{{Tool: "x", Decision: rules.Ask}}},
		"bad grant":    {Provider: fake, Grants: []rules.Rule{{Tool: "x", Decision: rules.Allow, Under: "~/x"}}},
		"bad root":     {Provider: fake, Roots: map[string]string{"fs": "relative"}},
		"bad rego":     {Provider: fake, Modules: []rules.Module{{Name: "x.rego", Source: "package mcp.custom\ndeny contains"}}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := policy.New(o)
			assert.Error(t, err)
		})
	}
}

// The policy stands in front of Options.Provider: only what it allows
// reaches it, and a policy with no provider is refused.
func TestThePolicyStandsInFrontOfItsProvider(t *testing.T) {
	fake := newFake()
	p, err := policy.New(policy.Options{Provider: fake, Rules: append(policy.DefaultRules(), policy.Rule{Tool: "fs_delete", Decision: policy.Deny})})
	require.NoError(t, err)
	res := p.ExecuteToolCalls(context.Background(), []provider.Call{testkit.Call("1", "fs_delete", `{"path":"/srv/x"}`), testkit.Call("2", "fs_read", `{"path":"/srv/x"}`)})
	assert.True(t, res[0].IsError, "the rule denies: %s", res[0].Content)
	assert.False(t, res[1].IsError, "the default rules allow a read: %s", res[1].Content)
	assert.Len(t, fake.Calls(), 1, "only the allowed call reached the provider")

	_, err = policy.New(policy.Options{})
	assert.ErrorContains(t, err, "Provider is required")
}
