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
// returns (converting it to Go maps first would cost a copy per call).
// Fields are looked up by interned key, not walked: walking an object sorts
// its keys first, and this runs on every call.
func decodeDecision(doc ast.Object) (Decision, error) {
	d := Decision{Decision: str(valueOf(doc, keyDecision))}
	switch d.Decision {
	case Allow, Deny, Ask:
	case "":
		return d, errors.New("rego: the decision has no decision")
	default:
		return d, fmt.Errorf("rego: unknown decision %q", d.Decision)
	}
	d.Reason = str(valueOf(doc, keyReason))
	floor, _ := valueOf(doc, keyFloor).(ast.Boolean)
	d.Floor = bool(floor)
	d.Rule = ruleOf(valueOf(doc, keyRule))
	d.Suggestion = ruleOf(valueOf(doc, keySuggestion))
	d.Paths = stringsOf(valueOf(doc, keyPaths))
	d.Hosts = stringsOf(valueOf(doc, keyHosts))
	return d, nil
}

func valueOf(o ast.Object, key *ast.Term) ast.Value {
	if t := o.Get(key); t != nil {
		return t.Value
	}
	return nil
}

func str(v ast.Value) string { s, _ := v.(ast.String); return string(s) }

// ruleOf reads a rule object; anything else is no rule.
func ruleOf(v ast.Value) *Rule {
	o, ok := v.(ast.Object)
	if !ok {
		return nil
	}
	r := Rule{Tool: str(valueOf(o, keyTool)), Decision: str(valueOf(o, keyDecision)), Under: str(valueOf(o, keyUnder)),
		Host: str(valueOf(o, keyHost)), Message: str(valueOf(o, keyMessage))}
	if a, ok := valueOf(o, keyAnnotations).(ast.Object); ok && a.Len() > 0 {
		r.Annotations = map[string]bool{}
		a.Foreach(func(k, v *ast.Term) {
			if b, ok := v.Value.(ast.Boolean); ok {
				r.Annotations[str(k.Value)] = bool(b)
			}
		})
	}
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
