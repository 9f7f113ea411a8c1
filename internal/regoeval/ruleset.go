package regoeval

import (
	"context"
	"fmt"
	"path"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/internal/matching"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/mcp-policy/mcp-policy/internal/verdict"
)

// RuleSet is a list of rules indexed for matching: each rule's matcher
// (under and host normalised) and decision, and an index by tool, directory
// and host, so that matching a call looks at the few rules that can apply
// to it, whatever the size of the list. The engine's data rules are one
// (made once per rule list), and so are a policy's and a store's grants,
// which grow one Add at a time.
//
// A RuleSet is not safe for an Add concurrent with anything else; Match
// calls may run concurrently with each other.
type RuleSet struct {
	terms     []*ast.Term // the rules as data, when read from data
	matchers  []Matcher
	decisions []verdict.Decision
	index     index
	err       error // the first bad rule; every decision on this list fails with it
}

// NewRuleSet is an empty set.
func NewRuleSet() *RuleSet { return &RuleSet{index: newIndex()} }

// Add appends a rule with matcher m (as MatcherFor makes it) and decision
// allow, ask or deny, and indexes it: amortised O(1).
func (rs *RuleSet) Add(m Matcher, decision verdict.Decision) {
	i := len(rs.matchers)
	if m.Any && path.IsAbs(m.Under) {
		m.foldedUnder = lexical.FoldPath(m.Under)
	}
	rs.matchers = append(rs.matchers, m)
	rs.decisions = append(rs.decisions, decision)
	rs.index.add(i, &rs.matchers[i])
}

// Len is the number of rules.
func (rs *RuleSet) Len() int { return len(rs.matchers) }

// Match calls yield, in order, for each rule that matches the call or
// might (status matching.Yes or matching.Unknown), with its position and decision.
func (rs *RuleSet) Match(c *Call, yield func(pos int, decision verdict.Decision, st matching.Match)) {
	var buf [16]int
	for _, pos := range rs.index.candidates(c, buf[:0]) {
		if st := rs.matchers[pos].Status(c); st != matching.No {
			yield(pos, rs.decisions[pos], st)
		}
	}
}

// ruleSet is the engine's name for a RuleSet.
type ruleSet = RuleSet

// dataRuleSet is the RuleSet of a rules array in data: from the
// Decider's cache when the evaluation carries one, read anew otherwise (a
// Rego test's rules, evaluated once).
func dataRuleSet(ctx context.Context, rules ast.Value) (*ruleSet, error) {
	arr, ok := rules.(*ast.Array)
	if !ok {
		return nil, fmt.Errorf("rules: expected an array, got %v", ast.ValueName(rules))
	}
	if c, ok := ctx.Value(ruleCacheKey{}).(*ruleCache); ok {
		return c.get(arr), nil
	}
	return readRuleSet(arr), nil
}

func readRuleSet(arr *ast.Array) *ruleSet {
	rs := NewRuleSet()
	rs.terms = make([]*ast.Term, arr.Len())
	rs.matchers = make([]Matcher, 0, arr.Len())
	rs.decisions = make([]verdict.Decision, 0, arr.Len())
	for i := range rs.terms {
		t := arr.Elem(i)
		d := verdict.Decision(stringAt(t.Value, keyDecision))
		switch d {
		case verdict.Allow, verdict.Ask, verdict.Deny:
		default:
			rs.err = fmt.Errorf("rule %d: decision %q is none of allow, ask, deny", i+1, d)
			return rs
		}
		m, err := matcherOf(t.Value, d)
		if err != nil {
			rs.err = fmt.Errorf("rule %d: %v", i+1, err)
			return rs
		}
		rs.terms[i] = t
		rs.Add(m, d)
	}
	return rs
}

// matching appends to out the entries of the rules that match the call or
// might, in order.
func (rs *ruleSet) matching(call *Call, out []entry) ([]entry, error) {
	if rs.err != nil {
		return nil, rs.err
	}
	rs.Match(call, func(pos int, decision verdict.Decision, st matching.Match) {
		out = append(out, entry{RuleRef{Kind: DataRule, Position: pos, Decision: decision}, st == matching.Unknown})
	})
	return out, nil
}
