package rules

import (
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/internal/regoeval"
	"github.com/mcp-policy/mcp-policy/internal/verdict"
)

// Decision is the answer for one call.
type Decision struct {
	Decision   verdict.Decision `json:"decision"`
	Reason     Reason           `json:"reason"`
	Rule       *Rule            `json:"rule"`
	Grant      *Rule            `json:"grant"`
	Paths      []string         `json:"paths"`
	Hosts      []string         `json:"hosts"`
	Suggestion *Rule            `json:"suggestion"`
	// Floor says the danger floor took part (in either world): no allow
	// grant may then answer the ask.
	Floor bool `json:"-"`
	// Might is the decision in the world where every path and URL that
	// cannot be evaluated matches what might match it: "deny" or "ask"
	// means a deny or ask rule (or module entry) might apply, and no allow
	// grant may then answer.
	Might verdict.Decision `json:"-"`
}

// decisionOf is the engine's outcome for a call as a Decision: on the fast
// path as the builtin reached it, on the plain path as read from the
// decision document (a differential test holds the two to one answer).
func (e *Engine) decisionOf(in *Input, o *regoeval.Outcome) (Decision, error) {
	if int(o.Reason) >= len(reasons) || reasons[o.Reason] == "" {
		return Decision{}, fmt.Errorf("rego: the decision has no reason (%v)", o.Reason)
	}
	reason := reasons[o.Reason]
	d := Decision{Decision: o.Decision, Reason: reason, Floor: o.Floor, Might: o.Might,
		Paths: stringsOf(o.Paths), Hosts: stringsOf(o.Hosts),
		Suggestion: &Rule{Tool: lexical.EscapeTool(in.Tool), Under: o.Under, Host: o.Host, Command: CommandGlobs(o.Command)}}
	switch {
	case o.NoSuggestion:
		d.Suggestion = nil // commands no one rule can name: only "once" answers fit
	case reason == ReasonFloor && len(d.Paths) == 1 && d.Suggestion.Under != "":
		// The floor asked about one file (.env, a hook, a key): an
		// "always" answer names that file, not its directory, where an
		// always-deny would block every write around it.
		d.Suggestion.Under = d.Paths[0]
	}
	switch r := o.Rule; {
	case r == nil:
	case r.Kind != regoeval.DataRule:
		d.Rule = &Rule{Tool: lexical.EscapeTool(in.Tool), Decision: r.Decision, Message: r.Message}
	case r.Position < 0 || r.Position >= len(e.rules):
		return Decision{}, fmt.Errorf("rego: the decision names data rule %d of %d", r.Position+1, len(e.rules))
	default:
		rule := e.rules[r.Position].Clone() // the data rules are e.rules, in order
		if len(rule.Annotations) == 0 {
			rule.Annotations = nil // no hints, however the rule spelt it
		}
		d.Rule = &rule
	}
	return d, nil
}

// reasons are the engine's reasons as a Decision gives them.
var reasons = [...]Reason{
	regoeval.ReasonRule:        ReasonRule,
	regoeval.ReasonFloor:       ReasonFloor,
	regoeval.ReasonNoMatch:     ReasonNoMatch,
	regoeval.ReasonUnevaluable: ReasonUnevaluable,
}

// stringsOf reads the strings among terms.
func stringsOf(terms []*ast.Term) []string {
	out := make([]string, 0, len(terms))
	for _, t := range terms {
		if s, ok := t.Value.(ast.String); ok {
			out = append(out, string(s))
		}
	}
	return out
}
