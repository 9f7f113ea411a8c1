package policy_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/testkit"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// The tools a rule or a grant denies outright are left out of what the
// model is offered; a deny with any other condition (a directory, a
// host, arguments, an exception, annotations the tool does not have)
// hides nothing, and a call to a hidden tool is still denied.
func TestToolsDeniedOutrightAreNotOffered(t *testing.T) {
	offered := func(o policy.Options) []string {
		t.Helper()
		o.Provider = newFake()
		p := newPolicy(t, o)
		tools, err := p.ToolsForLLM(t.Context())
		require.NoError(t, err)
		var names []string
		for _, tl := range tools {
			names = append(names, tl.Function.Name)
		}
		return names
	}
	all := []string{"fs_read", "fs_list", "fs_write", "fs_edit", "fs_delete"}

	for name, c := range map[string]struct {
		rules  []policy.Rule
		grants []policy.Rule
		hidden []string
	}{
		"a deny naming the tool":            {rules: []policy.Rule{{Tool: "fs_delete", Decision: policy.Deny}}, hidden: []string{"fs_delete"}},
		"a glob":                            {rules: []policy.Rule{{Tool: "fs_*it", Decision: policy.Deny}}, hidden: []string{"fs_edit"}},
		"annotations the tools have":        {rules: []policy.Rule{{Tool: "*", Decision: policy.Deny, Annotations: map[string]bool{"destructiveHint": true}}}, hidden: []string{"fs_delete"}},
		"an always-deny grant":              {grants: []policy.Rule{{Tool: "fs_write", Decision: policy.Deny}}, hidden: []string{"fs_write"}},
		"a deny under a directory":          {rules: []policy.Rule{{Tool: "fs_delete", Decision: policy.Deny, Under: "/srv"}}},
		"a deny on a host":                  {rules: []policy.Rule{{Tool: "fs_delete", Decision: policy.Deny, Host: "example.com"}}},
		"a deny on an argument":             {rules: []policy.Rule{{Tool: "fs_delete", Decision: policy.Deny, Arguments: map[string]string{"path": "*.md"}}}},
		"a deny with an exception":          {rules: []policy.Rule{{Tool: "fs_delete", Decision: policy.Deny, Except: &policy.Rule{Under: "/srv/tmp"}}}},
		"an ask":                            {rules: []policy.Rule{{Tool: "fs_delete", Decision: policy.Ask}}},
		"annotations the tools do not have": {rules: []policy.Rule{{Tool: "*", Decision: policy.Deny, Annotations: map[string]bool{"openWorldHint": true}}}},
	} {
		t.Run(name, func(t *testing.T) {
			want := slices.DeleteFunc(slices.Clone(all), func(n string) bool { return slices.Contains(c.hidden, n) })
			assert.Equal(t, want, offered(policy.Options{Rules: c.rules, Grants: c.grants}))
			assert.Equal(t, all, offered(policy.Options{Rules: c.rules, Grants: c.grants, ListDeniedTools: true}), "ListDeniedTools offers them all")
		})
	}

	p := newPolicy(t, policy.Options{Provider: newFake(), Rules: []policy.Rule{{Tool: "fs_delete", Decision: policy.Deny}}})
	rs := p.ExecuteToolCalls(t.Context(), []provider.Call{testkit.Call("1", "fs_delete", `{"path":"/srv/a"}`)})
	require.Len(t, rs, 1)
	assert.True(t, rs[0].IsError, "a hidden tool's call is still denied: %+v", rs[0])
}
