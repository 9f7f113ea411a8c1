package rules_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
)

func TestParseRulesNamesTheRuleAndField(t *testing.T) {
	cases := []struct{ json, field string }{
		{`[{"tool":"a","decision":"allow"},{"tool":"b","decision":"allow","undr":"x"}]`, `rule 2: field "undr"`},
		{`[{"decision":"allow"}]`, `rule 1: field "tool"`},
		{`[{"tool":"","decision":"allow"}]`, `rule 1: field "tool"`},
		{`[{"tool":"a","decision":"maybe"}]`, `rule 1: field "decision"`},
		{`[{"tool":"a"}]`, `rule 1: field "decision"`},
		{`[{"tool":"a","decision":"allow","under":""}]`, `rule 1: field "under"`},
		{`[{"tool":"a","decision":"allow","under":"~/x"}]`, `rule 1: field "under"`},
		{`[{"tool":"a","decision":"allow","under":"../up"}]`, `rule 1: field "under"`},
		{`[{"tool":"a","decision":"allow","host":"https://x.org/"}]`, `rule 1: field "host"`},
		{`[{"tool":"a","decision":"allow","host":"a.*.org"}]`, `rule 1: field "host"`},
		{`[{"tool":"a","decision":"allow","annotations":{"readonly":true}}]`, `rule 1: field "annotations"`},
	}
	for _, c := range cases {
		_, err := rules.ParseRules([]byte(c.json), "rules.json")
		require.Error(t, err, c.json)
		assert.Contains(t, err.Error(), "rules.json: "+c.field, c.json)
	}
}

func TestParseRulesRejectsWhatJSONWouldForgive(t *testing.T) {
	for _, bad := range []string{
		`[{"tool":"a","decision":"allow","decision":"deny"}]`, // duplicate key
		"[{\"tool\":\"a\xff\",\"decision\":\"allow\"}]",       // invalid UTF-8
		`{"tool":"a","decision":"allow"}`,                     // not an array
		`[{"tool":"a","decision":"allow"}] trailing`,
		`[{"tool":"a","decision":"allow","annotations":{"readOnlyHint":"yes"}}]`,
	} {
		_, err := rules.ParseRules([]byte(bad), "f")
		assert.Error(t, err, bad)
	}
}

// A file or a rule of the wrong JSON shape is told so in words, without
// Go's types.
func TestParseRulesWrongShapesInWords(t *testing.T) {
	for in, want := range map[string]string{
		`{"tool":"a","decision":"allow"}`: "rules.json: must be a JSON array of rules, not an object",
		`"a"`:                             "rules.json: must be a JSON array of rules, not a string",
		`["a"]`:                           "rules.json: rule 1: a rule must be a JSON object, not a string",
		`[{"tool":1,"decision":"allow"}]`: `rules.json: rule 1: field "tool": must be a string, not a number`,
		`[{"tool":"a","decision":"allow","under":true}]`:                     `rules.json: rule 1: field "under": must be a string, not true or false`,
		`[{"tool":"a","decision":"allow","annotations":[]}]`:                 `rules.json: rule 1: field "annotations": must be an object, not an array`,
		`[{"tool":"a","decision":"allow","annotations":{"readOnlyHint":1}}]`: `rules.json: rule 1: field "annotations": must be true or false, not a number`,
	} {
		_, err := rules.ParseRules([]byte(in), "rules.json")
		require.Error(t, err, in)
		assert.Equal(t, want, err.Error(), in)
		assert.NotContains(t, err.Error(), "Go ", in)
	}
}

func TestValidateNormalises(t *testing.T) {
	r, err := rules.Validate(rules.Rule{Tool: "web_fetch", Decision: "allow", Host: "*.Raku.ORG.:443"}, "rule 1")
	require.NoError(t, err)
	assert.Equal(t, "*.raku.org", r.Host)
	r, err = rules.Validate(rules.Rule{Tool: "fs_write", Decision: "allow", Under: "/srv//scratch/"}, "rule 1")
	require.NoError(t, err)
	assert.Equal(t, "/srv/scratch", r.Under)
}

func TestDefaultRulesComeFromRego(t *testing.T) {
	rs := rules.DefaultRules()
	require.Len(t, rs, 5)
	assert.Equal(t, rules.Rule{Tool: "*", Decision: "allow", Annotations: map[string]bool{"readOnlyHint": true}, Under: "/"}, rs[0])
	assert.Equal(t, "user_ask", rs[1].Tool)
	assert.Equal(t, "*_user_ask", rs[2].Tool)
	assert.Equal(t, rules.Rule{Tool: "prompts/get", Decision: "allow"}, rs[3])
	assert.Equal(t, rules.Rule{Tool: "completion/complete", Decision: "allow"}, rs[4])
	rs[0].Tool = "changed"
	assert.Equal(t, "*", rules.DefaultRules()[0].Tool, "a copy each time")
}
