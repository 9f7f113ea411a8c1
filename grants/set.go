package grants

import (
	"encoding/json"
	"sync"

	"github.com/mcp-policy/mcp-policy/internal/matching"
	"github.com/mcp-policy/mcp-policy/internal/regoeval"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/verdict"
	"github.com/mcp-policy/mcp-policy/provider"
)

// Set is a list of grants indexed for matching as static rules are (by
// tool, directory and host): an asked call answered by a grant costs the
// same with ten grants or a hundred thousand, and a grant is added in
// amortised constant time, not by copying the list. A grant it holds
// already is not added again. It is safe for concurrent use.
type Set struct {
	mu   sync.RWMutex
	list []rules.Rule
	keys map[string]bool
	set  *regoeval.RuleSet
}

// NewSet holds gs, which must be valid grants (rules.Rule.Validate), each
// once.
func NewSet(gs []rules.Rule) *Set {
	g := &Set{keys: make(map[string]bool, len(gs)), set: regoeval.NewRuleSet()}
	g.add(gs)
	return g
}

// Add adds the grants of gs the set does not hold yet (gs must be valid)
// and returns how many it added.
func (g *Set) Add(gs ...rules.Rule) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.add(gs)
}

func (g *Set) add(gs []rules.Rule) int {
	added := 0
	for _, r := range gs {
		k := identity(r)
		if g.keys[k] {
			continue
		}
		g.keys[k] = true
		r = r.Clone()
		g.list = append(g.list, r)
		g.set.Add(r.Matcher(), r.Decision)
		added++
	}
	return added
}

// Has reports whether the set holds r (as validated).
func (g *Set) Has(r rules.Rule) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.keys[identity(r)]
}

// Len is the number of grants.
func (g *Set) Len() int {
	if g == nil {
		return 0
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.list)
}

// List returns a deep copy of the grants, in the order they were added.
func (g *Set) List() []rules.Rule {
	if g == nil {
		return nil
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	return rules.CloneAll(g.list)
}

// DeniesOutright says a grant in the set denies every call of the tool
// (an "always deny" given to a call that named nothing), as
// rules.Rule.DeniesOutright reads one.
func (g *Set) DeniesOutright(tool string, ann *provider.Annotations) bool {
	if g == nil {
		return false
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	for i := range g.list {
		if g.list[i].DeniesOutright(tool, ann) {
			return true
		}
	}
	return false
}

// identity is what makes two grants the same grant.
func identity(r rules.Rule) string {
	b, _ := json.Marshal(r) // a Rule always marshals; map keys are sorted
	return string(b)
}

// match tallies the grants that match the call or might: deny grants
// always, allow grants when allowCounts. It returns the grants, in the
// order tallied, so the winner can be named.
func (g *Set) match(c *regoeval.Call, allowCounts bool, t *verdict.Tally, matched []rules.Rule) []rules.Rule {
	if g == nil {
		return matched
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	g.set.Match(c, func(pos int, decision verdict.Decision, st matching.Match) {
		if decision != rules.Deny && (decision != rules.Allow || !allowCounts) {
			return
		}
		t.Add(decision, st == matching.Unknown)
		matched = append(matched, g.list[pos])
	})
	return matched
}

// AllowMayAnswer says whether an allow grant may answer d, an asked
// decision: verdict.AllowGrantMayAnswer, read from a Decision (the
// policy's Question.AllowGrantable is its answer): only one asked because
// no rule matched, or because a path could not be evaluated where at most
// an allow rule might match it, and not by the floor in either world. An
// explicit ask rule and the floor mean "ask me every time".
func AllowMayAnswer(d rules.Decision) bool {
	o := verdict.Decided
	switch d.Reason {
	case rules.ReasonNoMatch:
		o = verdict.NoMatch
	case rules.ReasonUnevaluable:
		o = verdict.Unevaluable
	}
	return verdict.AllowGrantMayAnswer(o, d.Might, d.Floor)
}

// Apply decides a statically asked call by the grants, if they can: a
// deny grant answers any ask; an allow grant only one AllowMayAnswer says
// it may (an explicit ask rule and the floor mean "ask me every time").
// The sets are read in order, the first set's grants before the next's (a
// policy's own, then its store's), each through its index. Grants are
// decided in the same two worlds as rules: an answer stands only if both
// agree. It returns d unchanged when the grants have nothing to say, and
// never looks at them when d is not an ask.
func Apply(d rules.Decision, in *rules.Input, sets ...*Set) rules.Decision {
	if d.Decision != rules.Ask {
		return d
	}
	// A tool whose definition changed since a human approved it has its
	// allow grants suspended: they were given for what the human saw.
	allowCounts := AllowMayAnswer(d) && in.DefinitionChange == ""
	var t verdict.Tally
	var matched []rules.Rule
	for _, g := range sets {
		matched = g.match(in.MatchCall(), allowCounts, &t, matched)
	}
	// Only an answer both worlds agree on stands; otherwise the grants
	// have nothing to say and the call is asked as it was.
	outcome, w := t.Result()
	if outcome != verdict.Decided {
		return d
	}
	g := matched[w].Clone()
	d.Decision, d.Reason, d.Grant = g.Decision, rules.ReasonGrant, &g
	return d
}
