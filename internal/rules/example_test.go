package rules_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/provider"
)

// Rules are read strictly and come back normalised; the first bad one is
// an error naming the file, the rule and the field, and nothing is read.
func ExampleParseRules() {
	rs, err := rules.ParseRules([]byte(`[
		{"tool": "fs_write", "decision": "allow", "under": "/srv//scratch/"},
		{"tool": "web_fetch", "decision": "allow", "host": "*.Raku.ORG.:443"}
	]`), "rules.json")
	out, _ := json.Marshal(rs)
	fmt.Println(string(out), err)

	for _, bad := range []string{
		`[{"tool": "fs_write", "decision": "alow"}]`,
		`[{"tool": "fs_write", "decision": "allow", "undr": "/srv"}]`,
		`[{"tool": "fs_write", "decision": "allow", "under": ""}]`,
		`[{"tool": "fs_write", "decision": "allow", "decision": "deny"}]`,
	} {
		_, err := rules.ParseRules([]byte(bad), "rules.json")
		fmt.Println(err)
	}
	// Output:
	// [{"tool":"fs_write","decision":"allow","under":"/srv/scratch"},{"tool":"web_fetch","decision":"allow","host":"*.raku.org"}] <nil>
	// rules.json: rule 1: field "decision": "alow" is not "allow", "deny" or "ask"
	// rules.json: rule 1: field "undr": unknown field (allowed: tool, decision, under, host, annotations, arguments, command, data, except, message)
	// rules.json: rule 1: field "under": must not be empty
	// rules.json: duplicate key "decision"
}

// An Engine decides a call by the rules, never asking anyone: here an
// allow under /srv that stops at the first path outside it.
func ExampleEngine_Decide() {
	e, err := rules.NewEngine(context.Background(), rules.Config{
		Rules: []rules.Rule{{Tool: "fs_write", Decision: rules.Allow, Under: "/srv"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, args := range []string{`{"path": "/srv/notes.md"}`, `{"paths": ["/srv/a", "/tmp/b"]}`, `{"path": "/srv/%2e%2e/etc"}`} {
		d, _, err := e.Decide(context.Background(), provider.Call{ID: "1", Function: provider.CallFunction{Name: "fs_write", Arguments: args}}, nil)
		fmt.Println(d.Decision, d.Reason, d.Paths, err)
	}
	// Output:
	// allow rule [/srv/notes.md] <nil>
	// ask no-match [/srv/a /tmp/b] <nil>
	// ask unevaluable-path [/srv/%2e%2e/etc] <nil>
}
