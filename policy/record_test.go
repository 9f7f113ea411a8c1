package policy_test

import (
	"context"
	"regexp"
	"sync"
	"testing"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

type recorder struct {
	mu   sync.Mutex
	recs []policy.Record
}

func (r *recorder) onDecision(rec policy.Record) {
	r.mu.Lock()
	r.recs = append(r.recs, rec)
	r.mu.Unlock()
}

func TestOnDecisionRecordsEveryCallOnce(t *testing.T) {
	fake := newFake()
	var log recorder
	a := answering(policy.Answer{Action: policy.AlwaysAllow})
	p := newPolicy(t, policy.Options{
		Provider: fake, OnAsk: a.ask, OnDecision: log.onDecision, Name: "pol",
		Rules: withDefaults(rules.Rule{Tool: "fs_delete", Decision: rules.Deny, Message: "no deletes"}),
	})
	res := p.ExecuteToolCalls(context.Background(), []provider.Call{
		testkit.Call("read", "fs_read", `{"path":"a.txt"}`),
		testkit.Call("del", "fs_delete", `{"path":"a.txt"}`),
		write("ask", "scratch/n.md"),
		write("again", "scratch/m.md"), // answered by the grant the first answer left
		testkit.Call("bad", "fs_write", `{"path":`),
	})
	require.Len(t, res, 5)
	require.Len(t, log.recs, 5, "one record a call, bad ones too")
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for i, r := range log.recs {
		assert.Regexp(t, uuid, r.ID)
		assert.False(t, seen[r.ID], "ids are unique")
		seen[r.ID] = true
		assert.False(t, r.Time.IsZero())
		assert.Equal(t, "pol", r.Policy)
		assert.Equal(t, res[i].ToolCallID, r.Call.ID, "in the batch's order")
		assert.Equal(t, !res[i].IsError, r.Allowed)
	}

	read, del, ask, again, bad := log.recs[0], log.recs[1], log.recs[2], log.recs[3], log.recs[4]
	assert.Equal(t, rules.Allow, read.Decision.Decision)
	assert.Equal(t, map[string]any{"path": "a.txt"}, read.Arguments)
	assert.Nil(t, read.Question)

	assert.Equal(t, rules.Deny, del.Decision.Decision)
	assert.Equal(t, "no deletes", del.Decision.Rule.Message)
	assert.False(t, del.Allowed)
	assert.Contains(t, del.Refusal, "no deletes")

	assert.Equal(t, rules.Ask, ask.Decision.Decision)
	require.NotNil(t, ask.Question)
	assert.Equal(t, policy.KindPermission, ask.Question.Kind)
	require.NotNil(t, ask.Answer)
	assert.Equal(t, policy.AlwaysAllow, ask.Answer.Action)
	assert.Equal(t, []rules.Rule{{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/scratch"}}, ask.Remembered)
	assert.True(t, ask.Allowed)

	assert.Equal(t, rules.ReasonGrant, again.Decision.Reason)
	assert.Nil(t, again.Question, "decided by the grant: nobody asked")
	assert.True(t, again.Allowed)

	assert.Nil(t, bad.Decision)
	assert.NotEmpty(t, bad.Error)
	assert.False(t, bad.Allowed)
}

func TestOnDecisionHeadlessAndPanicking(t *testing.T) {
	p := newPolicy(t, policy.Options{Provider: newFake(), Rules: withDefaults(),
		OnDecision: func(policy.Record) { panic("log full") }})
	res := p.ExecuteToolCalls(context.Background(), []provider.Call{write("1", "x"), testkit.Call("2", "fs_read", `{"path":"x"}`)})
	assert.True(t, res[0].IsError, "a panicking log changes no call's fate")
	assert.False(t, res[1].IsError)

	var log recorder
	p = newPolicy(t, policy.Options{Provider: newFake(), Rules: withDefaults(), OnDecision: log.onDecision})
	p.ExecuteToolCalls(context.Background(), []provider.Call{write("1", "x")})
	require.Len(t, log.recs, 1)
	assert.Equal(t, rules.Ask, log.recs[0].Decision.Decision)
	assert.Nil(t, log.recs[0].Question, "nobody to ask")
	assert.Contains(t, log.recs[0].Refusal, "Permission required")
}
