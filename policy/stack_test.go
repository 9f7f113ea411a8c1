package policy_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/leases"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
	"github.com/mcp-policy/mcp-policy/reasons"
)

func TestPolicyUnderRegistry(t *testing.T) {
	server := &fakeProvider{tools: fsTools("")}
	other := &fakeProvider{tools: []provider.Tool{{Type: "function", Function: provider.ToolFunction{Name: "fetch", Parameters: json.RawMessage(`{}`)},
		Annotations: &provider.Annotations{ReadOnlyHint: boolp(true), OpenWorldHint: boolp(true)}}}}
	// The inner policy speaks the server's names: "write", "delete", and
	// its roots key "write".
	inner := newPolicy(t, policy.Options{Provider: server, Name: "inner",
		Rules: withDefaults(
			rules.Rule{Tool: "delete", Decision: rules.Deny},
			rules.Rule{Tool: "write", Decision: rules.Allow, Under: "scratch"},
			rules.Rule{Tool: "fs_write", Decision: rules.Deny}, // prefixed: never matches down here
		),
		Roots: map[string]string{"write": "/data", "*": "/data"}})
	reg := provider.NewRegistry()
	require.NoError(t, reg.Add(inner, "fs"))
	require.NoError(t, reg.Add(other, "web"))

	tools, err := reg.ToolsForLLM(context.Background())
	require.NoError(t, err)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Function.Name)
	}
	// fs_delete, which the inner policy denies outright, is not offered.
	assert.Equal(t, []string{"fs_read", "fs_list", "fs_write", "fs_edit", "web_fetch"}, names)

	res := reg.ExecuteToolCalls(context.Background(), []provider.Call{
		testkit.Call("1", "fs_read", `{"path":"notes"}`),
		testkit.Call("2", "fs_delete", `{"path":"notes"}`),
		testkit.Call("3", "fs_write", `{"path":"scratch/a"}`),
		testkit.Call("4", "fs_write", `{"path":"live/a"}`),
		testkit.Call("5", "nope_x", `{}`),
		testkit.Call("6", "web_fetch", `{"url":"https://example.com"}`),
	})
	require.Len(t, res, 6)
	assert.Equal(t, []string{"1", "2", "3", "4", "5", "6"}, ids(res))
	assert.False(t, res[0].IsError, res[0].Content)
	assert.True(t, res[1].IsError)
	assert.Contains(t, res[1].Content, "Denied by inner: 'delete'", "the inner policy sees the stripped name")
	assert.False(t, res[2].IsError, res[2].Content)
	assert.True(t, res[3].IsError)
	assert.Regexp(t, `^Permission required: 'write' needs approval, but `, res[3].Content)
	assert.True(t, res[4].IsError)
	assert.Contains(t, res[4].Content, "unknown tool 'nope_x'")
	assert.False(t, res[5].IsError)

	require.Len(t, server.Batches(), 1, "one batch for the inner policy's provider")
	assert.Equal(t, []provider.Call{testkit.Call("1", "read", `{"path":"notes"}`), testkit.Call("3", "write", `{"path":"scratch/a"}`)}, server.Batches()[0])
	assert.Equal(t, []provider.Call{testkit.Call("6", "fetch", `{"url":"https://example.com"}`)}, other.Calls())
}

func TestStackedPolicies(t *testing.T) {
	server := &fakeProvider{tools: fsTools("")}
	inner := newPolicy(t, policy.Options{Provider: server, Name: "inner",
		Rules: withDefaults(rules.Rule{Tool: "delete", Decision: rules.Deny}, rules.Rule{Tool: "write", Decision: rules.Allow, Under: "/data"}),
		Roots: map[string]string{"write": "/data", "read": "/data"}})
	reg := provider.NewRegistry()
	require.NoError(t, reg.Add(inner, "fs"))

	outerAsk := answering(policy.Answer{Action: policy.AllowOnce})
	outer := newPolicy(t, policy.Options{Provider: reg, Name: "outer", OnAsk: outerAsk.ask,
		Rules: withDefaults(
			rules.Rule{Tool: "fs_write", Decision: rules.Ask},
			rules.Rule{Tool: "fs_delete", Decision: rules.Allow},
			rules.Rule{Tool: "write", Decision: rules.Deny}, // unprefixed: never matches up here
		),
		Roots: map[string]string{"fs": "/data"}})

	res := outer.ExecuteToolCalls(context.Background(), []provider.Call{
		testkit.Call("w", "fs_write", `{"path":"notes/a.md"}`),
		testkit.Call("d", "fs_delete", `{"path":"notes/a.md"}`),
		testkit.Call("r", "fs_read", `{"path":"notes/a.md"}`),
	})
	require.Len(t, res, 3)
	assert.False(t, res[0].IsError, res[0].Content)
	assert.True(t, res[1].IsError, "the outer allowed it, the inner denies it")
	assert.Contains(t, res[1].Content, "Denied by inner: 'delete'")
	assert.False(t, res[2].IsError, res[2].Content)

	qs := outerAsk.Questions()
	require.Len(t, qs, 1, "the outer policy asks about fs_write, in its names")
	assert.Equal(t, "fs_write", qs[0].Tool)
	assert.Equal(t, rules.ReasonRule, qs[0].Reason)
	assert.Equal(t, []string{"/data/notes/a.md"}, qs[0].Paths, "the outer root key is the prefixed name")
	assert.Equal(t, &rules.Rule{Tool: "fs_write", Under: "/data/notes"}, qs[0].Suggestion)

	assert.Equal(t, []provider.Call{testkit.Call("w", "write", `{"path":"notes/a.md"}`), testkit.Call("r", "read", `{"path":"notes/a.md"}`)},
		server.Calls(), "the server sees its own names, the arguments untouched")

	// Each layer resolves relative paths by its own root keys.
	d, err := outer.Decide(context.Background(), testkit.Call("x", "fs_write", `{"path":"a"}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"/data/a"}, d.Paths)
	d, err = inner.Decide(context.Background(), testkit.Call("x", "write", `{"path":"a"}`))
	require.NoError(t, err)
	assert.Equal(t, rules.Allow, d.Decision)
	assert.Equal(t, []string{"/data/a"}, d.Paths)

	// A roots key in the model's names means nothing under the registry:
	// the relative path cannot be evaluated, and the call is asked.
	wrong := newPolicy(t, policy.Options{Provider: server, Rules: []rules.Rule{{Tool: "write", Decision: rules.Allow, Under: "/data"}},
		Roots: map[string]string{"fs": "/data"}})
	d, err = wrong.Decide(context.Background(), testkit.Call("x", "write", `{"path":"a"}`))
	require.NoError(t, err)
	assert.Equal(t, rules.Ask, d.Decision)
	assert.Equal(t, []string{"a"}, d.Paths, "unresolved")
}

func TestReasonsUnderPolicy(t *testing.T) {
	server := newFake()
	a := answering(policy.Answer{Action: policy.AllowOnce})
	p := newPolicy(t, policy.Options{Provider: reasons.New(server), OnAsk: a.ask, Rules: withDefaults(),
		Modules: []rules.Module{{Name: "reason.rego", Source: `package mcp.custom

deny contains "a rule read the reason" if input.arguments.reason

deny contains "a reason-shaped key leaked" if {
	some k, _ in input.arguments
	lower(k) == "reason"
}

deny contains "forbidden path" if input.arguments.path == "forbidden"
`}}})

	tools, err := p.ToolsForLLM(context.Background())
	require.NoError(t, err)
	var params struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	require.NoError(t, json.Unmarshal(tools[2].Function.Parameters, &params))
	assert.Equal(t, "fs_write", tools[2].Function.Name)
	assert.Contains(t, params.Properties, "reason", "the schema has the optional reason")
	assert.Contains(t, params.Properties, "path")
	assert.NotContains(t, params.Required, "reason")

	res := p.ExecuteToolCalls(context.Background(), []provider.Call{
		testkit.Call("w", "fs_write", `{"path":"docs/a.md","reason":"to fix the typo the user pointed out"}`),
		testkit.Call("r", "fs_read", `{"reason":"to see it first","path":"docs/a.md"}`),
		testkit.Call("f", "fs_read", `{"path":"forbidden","reason":"x"}`),
	})
	require.Len(t, res, 3)
	assert.False(t, res[0].IsError, res[0].Content)
	assert.False(t, res[1].IsError, "a rule never sees the reason: %s", res[1].Content)
	assert.True(t, res[2].IsError, "the module is loaded and does fire on what it may see")
	assert.Contains(t, res[2].Content, "forbidden path")

	qs := a.Questions()
	require.Len(t, qs, 1)
	assert.Equal(t, "to fix the typo the user pointed out", qs[0].Arguments["reason"], "the human sees the reason")
	assert.Equal(t, `{"path":"docs/a.md","reason":"to fix the typo the user pointed out"}`, qs[0].Call.Function.Arguments)

	assert.Equal(t, []provider.Call{testkit.Call("w", "fs_write", `{"path":"docs/a.md"}`), testkit.Call("r", "fs_read", `{"path":"docs/a.md"}`)},
		server.Calls(), "the provider never sees the reason")

	d, err := p.Decide(context.Background(), testkit.Call("w", "fs_write", `{"path":"docs/a.md","reason":"x"}`))
	require.NoError(t, err)
	assert.Equal(t, rules.Ask, d.Decision)
	assert.Equal(t, rules.ReasonNoMatch, d.Reason)

	// The reason is no path either, even if it looks like one.
	d, err = p.Decide(context.Background(), testkit.Call("w", "fs_read", `{"path":"a","reason":"/etc/shadow"}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"/srv/a"}, d.Paths)
}

func TestLeasesUnderPolicy(t *testing.T) {
	server := newFake()
	ls, err := leases.New(server, leases.Limit{Tool: "fs_write", Count: 1})
	require.NoError(t, err)
	a := &asker{answer: func(q policy.Question) policy.Answer {
		if q.Arguments["path"] == "refuse.md" {
			return policy.Answer{Action: policy.DenyOnce}
		}
		return policy.Answer{Action: policy.AllowOnce}
	}}
	p := newPolicy(t, policy.Options{Provider: ls, OnAsk: a.ask,
		Rules: withDefaults(rules.Rule{Tool: "fs_write", Decision: rules.Deny, Under: "live"})})

	r := run1(p, write("denied", "live/x"))
	assert.True(t, r.IsError)
	assert.Contains(t, r.Content, "Denied")
	r = run1(p, write("refused", "refuse.md"))
	assert.True(t, r.IsError)
	assert.Contains(t, r.Content, "declined")
	assert.Empty(t, server.Calls())

	r = run1(p, write("ok", "ok.md"))
	assert.False(t, r.IsError, "neither the denied nor the refused call consumed the lease: %s", r.Content)
	r = run1(p, write("again", "ok2.md"))
	assert.True(t, r.IsError)
	assert.Contains(t, r.Content, "lease exhausted", "the allowed call did consume it")
	assert.Equal(t, []provider.Call{write("ok", "ok.md")}, server.Calls())
}

func TestFullComposition(t *testing.T) {
	// Policy(Reasons(Leases(Registry))): the documented order.
	server := &fakeProvider{tools: fsTools("")}
	reg := provider.NewRegistry()
	require.NoError(t, reg.Add(server, "fs"))
	ls, err := leases.New(reg, leases.Limit{Tool: "fs_write", Count: 1})
	require.NoError(t, err)
	a := answering(policy.Answer{Action: policy.AlwaysAllow})
	p := newPolicy(t, policy.Options{Provider: reasons.New(ls), OnAsk: a.ask, Rules: withDefaults()})

	res := p.ExecuteToolCalls(context.Background(), []provider.Call{
		testkit.Call("1", "fs_write", `{"path":"a/x","reason":"because"}`),
		testkit.Call("2", "fs_write", `{"path":"a/y","reason":"again"}`),
		testkit.Call("3", "fs_read", `{"path":"a/x","reason":"check"}`),
	})
	assert.False(t, res[0].IsError, res[0].Content)
	assert.True(t, res[1].IsError)
	assert.Contains(t, res[1].Content, "lease exhausted")
	assert.False(t, res[2].IsError, res[2].Content)
	assert.Equal(t, int32(1), a.n.Load(), "the second write was decided by the grant")
	assert.Equal(t, []provider.Call{testkit.Call("1", "write", `{"path":"a/x"}`), testkit.Call("3", "read", `{"path":"a/x"}`)}, server.Calls())
}
