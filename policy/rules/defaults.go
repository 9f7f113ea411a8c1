package rules

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/open-policy-agent/opa/v1/rego"

	mcprego "github.com/mcp-policy/mcp-policy/rego"
)

var defaults = sync.OnceValues(func() ([]Rule, error) {
	var src string
	for _, m := range mcprego.Modules() {
		if m.Name == "default.rego" {
			src = m.Source
		}
	}
	rs, err := rego.New(
		rego.Query("data.mcp.defaults.rules"),
		rego.Module("default.rego", src),
	).Eval(context.Background())
	if err != nil {
		return nil, fmt.Errorf("default.rego: %v", err)
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil, fmt.Errorf("default.rego: data.mcp.defaults.rules is undefined")
	}
	raw, err := json.Marshal(rs[0].Expressions[0].Value)
	if err != nil {
		return nil, err
	}
	return ParseRules(raw, "default.rego", true)
})

// DefaultRules returns the rules of the embedded default.rego: reads by
// tools marked read-only, on local paths, and the user_ask tools. Rego is
// the one source of truth; this evaluates it (once).
func DefaultRules() []Rule {
	rs, err := defaults()
	if err != nil {
		panic(err) // the embedded module is part of the build; its tests catch this
	}
	return CloneAll(rs)
}
