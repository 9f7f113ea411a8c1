package rules

import (
	"encoding/json"
	"sync"

	"github.com/mcp-policy/mcp-policy/internal/matching"

	"github.com/mcp-policy/mcp-policy/internal/regoeval"
	"github.com/mcp-policy/mcp-policy/internal/verdict"
)

// GrantSet is a list of grants indexed for matching as static rules are
// (by tool, directory and host): an asked call answered by a grant costs
// the same with ten grants or a hundred thousand, and a grant is added in
// amortised constant time, not by copying the list. A grant it holds
// already is not added again. It is safe for concurrent use.
type GrantSet struct {
	mu   sync.RWMutex
	list []Rule
	keys map[string]bool
	set  *regoeval.RuleSet
}

// NewGrantSet holds gs, which must be valid grants (Validate), each once.
func NewGrantSet(gs []Rule) *GrantSet {
	g := &GrantSet{keys: make(map[string]bool, len(gs)), set: regoeval.NewRuleSet()}
	g.add(gs)
	return g
}

// Add adds the grants of gs the set does not hold yet (gs must be valid)
// and returns how many it added.
func (g *GrantSet) Add(gs ...Rule) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.add(gs)
}

func (g *GrantSet) add(gs []Rule) int {
	added := 0
	for _, r := range gs {
		k := r.identity()
		if g.keys[k] {
			continue
		}
		g.keys[k] = true
		r = r.Clone()
		g.list = append(g.list, r)
		g.set.Add(r.matcher(), r.Decision)
		added++
	}
	return added
}

// Has reports whether the set holds r (as validated).
func (g *GrantSet) Has(r Rule) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.keys[r.identity()]
}

// Len is the number of grants.
func (g *GrantSet) Len() int {
	if g == nil {
		return 0
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.list)
}

// List returns a deep copy of the grants, in the order they were added.
func (g *GrantSet) List() []Rule {
	if g == nil {
		return nil
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	return CloneAll(g.list)
}

// identity is what makes two grants the same grant.
func (r Rule) identity() string {
	b, _ := json.Marshal(r) // a Rule always marshals; map keys are sorted
	return string(b)
}

// match tallies the grants that match the call or might: deny grants
// always, allow grants when allowCounts. It returns the grants, in the
// order tallied, so the winner can be named.
func (g *GrantSet) match(c *regoeval.Call, allowCounts bool, t *verdict.Tally, matched []Rule) []Rule {
	if g == nil {
		return matched
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	g.set.Match(c, func(pos int, decision verdict.Decision, st matching.Match) {
		if decision != Deny && (decision != Allow || !allowCounts) {
			return
		}
		t.Add(decision, st == matching.Unknown)
		matched = append(matched, g.list[pos])
	})
	return matched
}
