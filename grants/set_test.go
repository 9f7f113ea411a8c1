package grants_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/provider"
)

// decideThenApply decides a call by the engine's rules, then by the grants
// in sets, as the policy does.
func decideThenApply(t *testing.T, e *rules.Engine, tool, args string, sets ...*grants.Set) rules.Decision {
	t.Helper()
	d, in, err := e.Decide(context.Background(), provider.Call{ID: "1", Function: provider.CallFunction{Name: tool, Arguments: args}}, nil)
	require.NoError(t, err)
	return grants.Apply(d, in, sets...)
}

// A grant reads a call's arguments as a rule does: an allow grant on an
// argument answers only the calls that name it.
func TestApplyReadsArgumentsAsARuleDoes(t *testing.T) {
	e, err := rules.NewEngine(context.Background(), rules.Config{})
	require.NoError(t, err)
	gs := grants.NewSet([]rules.Rule{{Tool: "gh_issue", Decision: rules.Allow, Arguments: map[string]string{"owner": "acme"}}})
	for args, want := range map[string]string{`{"owner":"acme"}`: "allow", `{"owner":"evil"}`: "ask", `{}`: "ask"} {
		assert.Equal(t, want, string(decideThenApply(t, e, "gh_issue", args, gs).Decision), "grant: %s", args)
	}
}

// An allow grant answers an ask no rule made, never an explicit ask rule's
// or the floor's; a deny grant answers any ask; a grant never overrides a
// rule's allow or deny. The grant that answered is named.
func TestApplyAnswersOnlyTheAsksItMay(t *testing.T) {
	e, err := rules.NewEngine(context.Background(), rules.Config{
		Roots: map[string]string{"*": "/srv/app"},
		Rules: []rules.Rule{
			{Tool: "write_file", Decision: rules.Ask, Under: "/srv/app/release"},
			{Tool: "write_file", Decision: rules.Deny, Under: "/srv/app/locked"},
		}})
	require.NoError(t, err)
	allow := grants.NewSet([]rules.Rule{{Tool: "write_file", Decision: rules.Allow, Under: "/srv/app"}})
	deny := grants.NewSet([]rules.Rule{{Tool: "write_file", Decision: rules.Deny, Under: "/srv/app/release"}})
	write := func(path string) string { return fmt.Sprintf(`{"path":%q,"content":"x"}`, path) }

	d := decideThenApply(t, e, "write_file", write("/srv/app/notes.md"), allow)
	assert.Equal(t, rules.Allow, d.Decision)
	assert.Equal(t, rules.ReasonGrant, d.Reason)
	require.NotNil(t, d.Grant)
	assert.Equal(t, "/srv/app", d.Grant.Under)

	assert.Equal(t, rules.Ask, decideThenApply(t, e, "write_file", write("/srv/app/release/v1"), allow).Decision, "an explicit ask rule means every time")
	assert.Equal(t, rules.Ask, decideThenApply(t, e, "write_file", write("/srv/app/.git/hooks/pre-commit"), allow).Decision, "the floor means every time")
	assert.Equal(t, rules.Deny, decideThenApply(t, e, "write_file", write("/srv/app/release/v1"), allow, deny).Decision, "a deny grant answers any ask")
	assert.Equal(t, rules.Deny, decideThenApply(t, e, "write_file", write("/srv/app/locked/x"), allow).Decision, "a grant never overrides a deny rule")
}

// The sets hold a grant once, however often it is added, and say which
// grants deny a tool outright.
func TestSetHoldsAGrantOnce(t *testing.T) {
	g := rules.Rule{Tool: "shell", Decision: rules.Deny}
	s := grants.NewSet([]rules.Rule{g, g})
	assert.Equal(t, 1, s.Len())
	assert.Equal(t, 0, s.Add(g))
	assert.Equal(t, 1, s.Add(rules.Rule{Tool: "shell", Decision: rules.Deny, Under: "/tmp"}))
	assert.True(t, s.Has(g))
	assert.True(t, s.DeniesOutright("shell", nil))
	assert.False(t, s.DeniesOutright("read_file", nil))
	var none *grants.Set
	assert.False(t, none.DeniesOutright("shell", nil))
	assert.Zero(t, none.Len())
}

// BenchmarkApply is an ask's matching by the Go grant matcher over 10
// grants (the call read once, as a decision reads it before its grants).
func BenchmarkApply(b *testing.B) {
	ctx := context.Background()
	e, err := rules.NewEngine(ctx, rules.Config{Roots: map[string]string{"fs": "/srv"}})
	if err != nil {
		b.Fatal(err)
	}
	gs := []rules.Rule{{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/projects/p4"}}
	for i := 1; i < 10; i++ {
		gs = append(gs, rules.Rule{Tool: "fs_write", Decision: rules.Deny, Under: fmt.Sprintf("/srv/projects/p%d/locked", i)})
	}
	set := grants.NewSet(gs)
	static := rules.Decision{Decision: rules.Ask, Reason: rules.ReasonNoMatch}
	call := provider.Call{ID: "1", Function: provider.CallFunction{Name: "fs_write", Arguments: `{"path":"/srv/projects/p4/notes.md","content":"hello"}`}}
	_, in, err := e.Decide(ctx, call, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if d := grants.Apply(static, in, set); d.Decision != rules.Allow {
			b.Fatalf("%+v", d)
		}
	}
}
