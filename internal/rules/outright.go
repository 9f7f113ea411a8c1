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
		if deniesOutright(&e.rules[i], tool, ann) {
			return true
		}
	}
	return false
}

// DeniesOutright says a grant in the set denies every call of the tool
// (an "always deny" given to a call that named nothing).
func (g *GrantSet) DeniesOutright(tool string, ann *provider.Annotations) bool {
	if g == nil {
		return false
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	for i := range g.list {
		if deniesOutright(&g.list[i], tool, ann) {
			return true
		}
	}
	return false
}

func deniesOutright(r *Rule, tool string, ann *provider.Annotations) bool {
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
