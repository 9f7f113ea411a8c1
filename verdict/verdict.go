// Package verdict turns the things that matched one call — rules, a
// module's entries, grants — into one answer, the way SPEC §4 says: deny >
// ask > allow, the first in order among the winners, decided in two worlds
// (unknowns matching, and not) so that an answer stands only where both
// worlds agree. The Rego engine (through the mcp.engine.decide builtin) and
// the Go grant matcher both decide with it.
package verdict

// The decisions, as rules spell them.
const (
	Allow = "allow"
	Ask   = "ask"
	Deny  = "deny"
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
func rank(decision string) int {
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
func (t *Tally) Add(decision string, maybe bool) {
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
func (t *Tally) Might() string {
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
