package builtins

import (
	"fmt"
	"runtime"
	"sync"
	"weak"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/mcp-policy/mcp-policy/verdict"
)

// ruleSet is a list of data rules as the engine reads them: each rule's
// matcher (host normalised) and decision, and the index over them. It is
// built once per list, the first time a decision reads it.
type ruleSet struct {
	terms     []*ast.Term
	matchers  []Matcher
	decisions []string
	index     index
	err       error // the first bad rule; every decision on this list fails with it
}

// ruleSets caches a ruleSet per rules array. The engine's store hands the
// same immutable *ast.Array to every decision, so the list is read and
// indexed once, however many calls are decided. Keys are weak pointers and
// an entry goes when its array does, so the many short-lived lists of Rego
// tests do not pile up.
var ruleSets sync.Map // weak.Pointer[ast.Array] -> *ruleSet

func ruleSetOf(rules ast.Value) (*ruleSet, error) {
	arr, ok := rules.(*ast.Array)
	if !ok {
		return nil, fmt.Errorf("rules: expected an array, got %v", ast.ValueName(rules))
	}
	key := weak.Make(arr)
	if rs, ok := ruleSets.Load(key); ok {
		return rs.(*ruleSet), nil
	}
	rs, loaded := ruleSets.LoadOrStore(key, readRuleSet(arr))
	if !loaded {
		runtime.AddCleanup(arr, func(k weak.Pointer[ast.Array]) { ruleSets.Delete(k) }, key)
	}
	return rs.(*ruleSet), nil
}

func readRuleSet(arr *ast.Array) *ruleSet {
	rs := &ruleSet{terms: make([]*ast.Term, arr.Len()), matchers: make([]Matcher, arr.Len()),
		decisions: make([]string, arr.Len())}
	for i := range rs.terms {
		t := arr.Elem(i)
		d := stringAt(t.Value, keyDecision)
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
		rs.terms[i], rs.matchers[i], rs.decisions[i] = t, m, d
	}
	rs.index = buildIndex(rs.matchers)
	return rs
}

// matching is the entries of the rules that match the call or might, in
// order.
func (rs *ruleSet) matching(call *Call) ([]entry, error) {
	if rs.err != nil {
		return nil, rs.err
	}
	var buf [16]int
	var out []entry
	for _, pos := range rs.index.candidates(call, buf[:0]) {
		st := rs.matchers[pos].Status(call)
		if st == NoMatch {
			continue
		}
		out = append(out, entry{rs.decisions[pos], "rule", pos, nil, st == MaybeMatches})
	}
	return out, nil
}
