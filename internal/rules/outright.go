package rules

import (
	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/provider"
)

// DeniesOutright says a data rule denies every call of the tool, whatever
// the call names: a deny whose only conditions are the tool's name and,
// where it has them, annotations the tool's catalogue entry has (ann nil:
// none known, so a rule that names annotations does not count). A model
// need not be shown such a tool: every call of it is refused. A team's
// Rego module may deny more, by what a call names; that is not read here.
func (e *Engine) DeniesOutright(tool string, ann *provider.Annotations) bool {
	for i := range e.rules {
		if e.rules[i].DeniesOutright(tool, ann) {
			return true
		}
	}
	return false
}

// DeniesOutright says r denies every call of the tool, whatever the call
// names: a deny whose only conditions are the tool's name and, where it
// has them, annotations the tool's catalogue entry has (ann nil: none
// known). The engine's data rules and the grants are read by it.
func (r *Rule) DeniesOutright(tool string, ann *provider.Annotations) bool {
	if r.Decision != Deny || r.Under != "" || r.Host != "" || len(r.Arguments) > 0 || len(r.Command) > 0 || r.Except != nil {
		return false
	}
	if !lexical.MatchTool(r.Tool, tool) {
		return false
	}
	hints := ann.Hints()
	for k, want := range r.Annotations {
		if got, ok := hints[k]; !ok || got != want {
			return false
		}
	}
	return true
}
