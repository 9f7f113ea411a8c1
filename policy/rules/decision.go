package rules

import (
	"errors"
	"fmt"
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

func decodeDecision(doc map[string]any) (Decision, error) {
	d := Decision{Paths: []string{}, Hosts: []string{}}
	var ok bool
	if d.Decision, ok = doc["decision"].(string); !ok {
		return d, errors.New("rego: the decision has no decision")
	}
	switch d.Decision {
	case Allow, Deny, Ask:
	default:
		return d, fmt.Errorf("rego: unknown decision %q", d.Decision)
	}
	d.Reason, _ = doc["reason"].(string)
	d.Floor, _ = doc["floor"].(bool)
	if r, ok := doc["rule"].(map[string]any); ok {
		rule := ruleFromDoc(r)
		d.Rule = &rule
	}
	if s, ok := doc["suggestion"].(map[string]any); ok {
		sug := ruleFromDoc(s)
		d.Suggestion = &sug
	}
	for _, p := range asList(doc["paths"]) {
		if s, ok := p.(string); ok {
			d.Paths = append(d.Paths, s)
		}
	}
	for _, h := range asList(doc["hosts"]) {
		if s, ok := h.(string); ok {
			d.Hosts = append(d.Hosts, s)
		}
	}
	return d, nil
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func ruleFromDoc(m map[string]any) Rule {
	str := func(k string) string { s, _ := m[k].(string); return s }
	r := Rule{Tool: str("tool"), Decision: str("decision"), Under: str("under"), Host: str("host"), Message: str("message")}
	if a, ok := m["annotations"].(map[string]any); ok && len(a) > 0 {
		r.Annotations = map[string]bool{}
		for k, v := range a {
			if b, ok := v.(bool); ok {
				r.Annotations[k] = b
			}
		}
	}
	return r
}
