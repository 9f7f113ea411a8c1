package rules

import (
	"errors"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/mcp-policy/mcp-policy/builtins"
)

// Decision is the answer for one call.
type Decision struct {
	Decision   string   `json:"decision"`
	Reason     string   `json:"reason"`
	Rule       *Rule    `json:"rule"`
	Grant      *Rule    `json:"grant"`
	Paths      []string `json:"paths"`
	Hosts      []string `json:"hosts"`
	Suggestion *Rule    `json:"suggestion"`
	// Floor says the danger floor took part (in either world): no allow
	// grant may then answer the ask.
	Floor bool `json:"-"`
}

// decodeDecision reads the engine's decision document, as the AST the query
// returns (converting it to Go maps first would cost a copy per call).
func decodeDecision(doc ast.Object) (Decision, error) {
	d := Decision{Paths: []string{}, Hosts: []string{}}
	str := func(v ast.Value) string { s, _ := v.(ast.String); return string(s) }
	field := func(o ast.Object, k string) ast.Value {
		if t := o.Get(builtins.Key(k)); t != nil {
			return t.Value
		}
		return nil
	}
	d.Decision = str(field(doc, "decision"))
	switch d.Decision {
	case Allow, Deny, Ask:
	case "":
		return d, errors.New("rego: the decision has no decision")
	default:
		return d, fmt.Errorf("rego: unknown decision %q", d.Decision)
	}
	d.Reason = str(field(doc, "reason"))
	if b, ok := field(doc, "floor").(ast.Boolean); ok {
		d.Floor = bool(b)
	}
	ruleOf := func(v ast.Value) *Rule {
		o, ok := v.(ast.Object)
		if !ok {
			return nil
		}
		r := Rule{Tool: str(field(o, "tool")), Decision: str(field(o, "decision")), Under: str(field(o, "under")),
			Host: str(field(o, "host")), Message: str(field(o, "message"))}
		if a, ok := field(o, "annotations").(ast.Object); ok && a.Len() > 0 {
			r.Annotations = map[string]bool{}
			a.Foreach(func(k, v *ast.Term) {
				if b, ok := v.Value.(ast.Boolean); ok {
					r.Annotations[str(k.Value)] = bool(b)
				}
			})
		}
		return &r
	}
	d.Rule = ruleOf(field(doc, "rule"))
	d.Suggestion = ruleOf(field(doc, "suggestion"))
	strings := func(v ast.Value) []string {
		out := []string{}
		if arr, ok := v.(*ast.Array); ok {
			for i := range arr.Len() {
				if s, ok := arr.Elem(i).Value.(ast.String); ok {
					out = append(out, string(s))
				}
			}
		}
		return out
	}
	d.Paths, d.Hosts = strings(field(doc, "paths")), strings(field(doc, "hosts"))
	return d, nil
}
