// Package verdict is how mcp-policy turns everything that matched one call
// into its answer. It is short enough to read top to bottom, and it is the
// only place the combination is written:
//
//  1. What takes part, in this order: the danger floor's deny and ask
//     entries (rego/floor.rego), a security team's deny, ask and allow
//     entries (package mcp.custom), then the data rules in the order they
//     are written. The engine's builtin mcp.engine.decide (the one call in
//     rego/engine.rego; internal/regoeval, func decide) gathers them and adds
//     each to a Tally. A deny or ask rule matches a call when any of its
//     paths is inside and any host matches, compared folded (case, Unicode
//     and the file systems' ignorable characters); an allow rule only when
//     every path is inside and every host matches, compared exactly, and
//     only a call whose every dimension it names: one with a directory
//     and no host covers no call naming a URL, one with a host and no
//     directory none naming a path.
//  2. Each entry matches surely, or only maybe: a path or URL that cannot
//     be evaluated might be what it needs.
//  3. Tally decides twice, in a world where only sure matches count and in
//     one where every maybe counts too. In each world deny beats ask beats
//     allow, the first entry in order wins a tie, and a world where nothing
//     matched asks.
//  4. Result: the worlds agree on an entry, and it decides (Decided); they
//     disagree, or agree only because of a maybe, and the call is asked
//     as "unevaluable-path" (Unevaluable); nothing matched in either, and
//     the call is asked as "no-match" (NoMatch).
//  5. Grants (remembered answers) are read only for a call the above asks,
//     tallied the same way in the same two worlds (a policy's own grants,
//     then its store's): a deny grant answers any ask; an allow grant only
//     one AllowGrantMayAnswer allows. A grant never turns a deny into an
//     allow, and an allowed call never looks at grants.
//  6. What is still an ask goes to the human, one question at a time.
package verdict

// Decision is a rule's, a grant's or a call's answer: allow, ask or deny.
type Decision string

// The decisions, as rules spell them.
const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

// Outcome is how a tally ended.
type Outcome int

const (
	// NoMatch: nothing matched in either world.
	NoMatch Outcome = iota
	// Decided: both worlds agree on an entry's decision.
	Decided
	// Unevaluable: the worlds disagree, or only an entry that might match
	// (an unknown) did; the answer is to ask.
	Unevaluable
)

// rank orders decisions by precedence; 0 is no decision.
func rank(decision Decision) int {
	switch decision {
	case Allow:
		return 1
	case Ask:
		return 2
	case Deny:
		return 3
	}
	return 0
}

// Tally collects entries in order and decides. The zero value is empty.
// It allocates nothing, so a caller scanning many candidates (grants) pays
// only for the ones that match.
type Tally struct {
	n int
	// best[0] is the winner in the world where only sure matches count,
	// best[1] in the world where a maybe counts too; as index+1, 0 for none.
	best     [2]int
	bestRank [2]int
}

// Add counts the next entry. maybe says it matches only if an unknown is
// what it might be. A decision other than allow, ask or deny is ignored.
func (t *Tally) Add(decision Decision, maybe bool) {
	t.n++
	r := rank(decision)
	if r == 0 {
		return
	}
	for w := range 2 {
		if w == 0 && maybe {
			continue
		}
		// Strictly greater: the first entry in order wins a tie.
		if r > t.bestRank[w] {
			t.best[w], t.bestRank[w] = t.n, r
		}
	}
}

// Might is the decision of the world in which every unknown matches: what
// the call would be if every path and URL that cannot be evaluated were
// what the rules that might match it need; "" when nothing matched there.
// An allow grant must not answer an ask whose Might is deny or ask: a
// deny, or an "ask me every time", might apply.
func (t *Tally) Might() Decision {
	switch t.bestRank[1] {
	case 1:
		return Allow
	case 2:
		return Ask
	case 3:
		return Deny
	}
	return ""
}

// Result is the outcome and, when Decided, the position (in the order
// added) of the winning entry; -1 otherwise.
func (t *Tally) Result() (Outcome, int) {
	// A world in which nothing matched asks.
	answer := func(w int) int {
		if t.bestRank[w] == 0 {
			return rank(Ask)
		}
		return t.bestRank[w]
	}
	switch {
	case answer(0) != answer(1):
		return Unevaluable, -1
	case t.best[0] != 0:
		return Decided, t.best[0] - 1
	case t.best[1] != 0:
		// Both worlds ask, but only because an unknown might match.
		return Unevaluable, -1
	}
	return NoMatch, -1
}

// AllowGrantMayAnswer says whether an allow grant may answer a call asked
// with outcome o: only one asked because nothing matched (NoMatch), or
// because a path or URL could not be evaluated (Unevaluable) where at most
// an allow might match it (might is the world of maybes' decision, see
// Tally.Might: a deny or ask that might apply must not be answered by an
// allow). Never a call the floor took part in (floor, in either world) or
// an explicit ask (Decided): those mean "ask me every time". A deny grant
// may answer any ask.
func AllowGrantMayAnswer(o Outcome, might Decision, floor bool) bool {
	if floor {
		return false
	}
	switch o {
	case NoMatch:
		return true
	case Unevaluable:
		return might == "" || might == Allow
	}
	return false
}
