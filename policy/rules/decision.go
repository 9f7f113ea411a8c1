package rules

import (
	"errors"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
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
// returns (converting it to Go maps first would cost a copy per call). Each
// object is walked once, not looked up field by field: a lookup hashes its
// key anew, and this runs on every call.
func decodeDecision(doc ast.Object) (Decision, error) {
	d := Decision{Paths: []string{}, Hosts: []string{}}
	doc.Foreach(func(k, v *ast.Term) {
		switch str(k.Value) {
		case "decision":
			d.Decision = str(v.Value)
		case "reason":
			d.Reason = str(v.Value)
		case "floor":
			b, _ := v.Value.(ast.Boolean)
			d.Floor = bool(b)
		case "rule":
			d.Rule = ruleOf(v.Value)
		case "suggestion":
			d.Suggestion = ruleOf(v.Value)
		case "paths":
			d.Paths = stringsOf(v.Value)
		case "hosts":
			d.Hosts = stringsOf(v.Value)
		}
	})
	switch d.Decision {
	case Allow, Deny, Ask:
		return d, nil
	case "":
		return d, errors.New("rego: the decision has no decision")
	default:
		return d, fmt.Errorf("rego: unknown decision %q", d.Decision)
	}
}

func str(v ast.Value) string { s, _ := v.(ast.String); return string(s) }

// ruleOf reads a rule object; anything else is no rule.
func ruleOf(v ast.Value) *Rule {
	o, ok := v.(ast.Object)
	if !ok {
		return nil
	}
	var r Rule
	o.Foreach(func(k, v *ast.Term) {
		switch str(k.Value) {
		case "tool":
			r.Tool = str(v.Value)
		case "decision":
			r.Decision = str(v.Value)
		case "under":
			r.Under = str(v.Value)
		case "host":
			r.Host = str(v.Value)
		case "message":
			r.Message = str(v.Value)
		case "annotations":
			a, ok := v.Value.(ast.Object)
			if !ok || a.Len() == 0 {
				return
			}
			r.Annotations = map[string]bool{}
			a.Foreach(func(k, v *ast.Term) {
				if b, ok := v.Value.(ast.Boolean); ok {
					r.Annotations[str(k.Value)] = bool(b)
				}
			})
		}
	})
	return &r
}

// stringsOf reads an array's strings.
func stringsOf(v ast.Value) []string {
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
