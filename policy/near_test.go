package policy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
)

// A question names the allow grants for its tool that did not answer it,
// so the human sees why the agent asks again about what they allowed;
// grants for other tools, and deny grants, are not named.
func TestQuestionNamesTheGrantsThatDidNotAnswer(t *testing.T) {
	sibling := rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/docs"}
	store := mustStore(t, []rules.Rule{
		sibling,
		{Tool: "fs_edit", Decision: rules.Allow, Under: "/srv/notes"},
		{Tool: "fs_write", Decision: rules.Deny, Under: "/srv/prod"},
	})
	a := answering(policy.Answer{Action: policy.DenyOnce})
	p := newPolicy(t, policy.Options{Provider: newFake(), GrantsStore: store, OnAsk: a.ask})
	assert.True(t, run1(p, write("1", "notes/plan.md")).IsError)
	require.Len(t, a.Questions(), 1)
	assert.Equal(t, []rules.Rule{sibling}, a.Questions()[0].Near)

	// Where no grant could answer (the danger floor), none is named.
	assert.True(t, run1(p, write("2", "docs/.env")).IsError)
	require.Len(t, a.Questions(), 2)
	assert.Empty(t, a.Questions()[1].Near, "a floor question")
}
