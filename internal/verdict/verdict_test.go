package verdict

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

type e struct {
	decision Decision
	maybe    bool
}

func tallyOf(es ...e) *Tally {
	var t Tally
	for _, x := range es {
		t.Add(x.decision, x.maybe)
	}
	return &t
}

func sure(d Decision) e  { return e{d, false} }
func maybe(d Decision) e { return e{d, true} }

func TestTally(t *testing.T) {
	for _, c := range []struct {
		name    string
		entries []e
		want    Outcome
		winner  int
		might   Decision
	}{
		{"nothing matched", nil, NoMatch, -1, ""},
		{"deny beats ask and allow", []e{sure(Allow), sure(Ask), sure(Deny)}, Decided, 2, Deny},
		{"ask beats allow", []e{sure(Allow), sure(Ask)}, Decided, 1, Ask},
		{"the first winner in order", []e{sure(Allow), sure(Deny), sure(Deny)}, Decided, 1, Deny},
		{"allow alone", []e{sure(Allow)}, Decided, 0, Allow},
		{"a maybe deny beside a sure allow: the worlds disagree", []e{sure(Allow), maybe(Deny)}, Unevaluable, -1, Deny},
		{"a maybe allow alone never allows", []e{maybe(Allow)}, Unevaluable, -1, Allow},
		{"a maybe ask alone is unevaluable, not no-match", []e{maybe(Ask)}, Unevaluable, -1, Ask},
		{"a sure ask beside a maybe ask is the sure ask", []e{maybe(Ask), sure(Ask)}, Decided, 1, Ask},
		{"a maybe allow beside a sure deny: deny in both worlds", []e{maybe(Allow), sure(Deny)}, Decided, 1, Deny},
		{"a maybe deny beside a sure deny: the sure one is reported", []e{maybe(Deny), sure(Deny)}, Decided, 1, Deny},
		{"a maybe allow beside a sure ask: ask in both", []e{maybe(Allow), sure(Ask)}, Decided, 1, Ask},
		{"an unknown decision takes no part", []e{sure("maybe"), sure("ALLOW"), sure(Allow)}, Decided, 2, Allow},
	} {
		t.Run(c.name, func(t *testing.T) {
			tally := tallyOf(c.entries...)
			got, winner := tally.Result()
			assert.Equal(t, c.want, got, "outcome")
			assert.Equal(t, c.winner, winner, "winner")
			assert.Equal(t, c.might, tally.Might(), "the world of maybes")
		})
	}
}

// An allow grant answers only an ask for want of a match, or one where at
// most an allow might match an unknown; never the floor or an ask rule.
func TestAllowGrantMayAnswer(t *testing.T) {
	for _, c := range []struct {
		name  string
		o     Outcome
		might Decision
		floor bool
		want  bool
	}{
		{"no rule matched", NoMatch, "", false, true},
		{"an unknown only an allow might match", Unevaluable, Allow, false, true},
		{"an unknown nothing might match", Unevaluable, "", false, true},
		{"an unknown a deny might match", Unevaluable, Deny, false, false},
		{"an unknown an ask might match", Unevaluable, Ask, false, false},
		{"an explicit ask rule", Decided, Ask, false, false},
		{"the floor, no rule", NoMatch, "", true, false},
		{"the floor in the world of maybes", Unevaluable, Allow, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, AllowGrantMayAnswer(c.o, c.might, c.floor))
		})
	}
}

// A Tally must not allocate: the grant matcher runs one over every grant.
func TestTallyDoesNotAllocate(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		var t Tally
		for range 100 {
			t.Add(Allow, false)
			t.Add(Deny, true)
		}
		t.Result()
	})
	assert.Zero(t, allocs)
}
