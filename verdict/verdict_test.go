package verdict

import "testing"

type e struct {
	decision Decision
	maybe    bool
}

func tally(es ...e) (Outcome, int) {
	var t Tally
	for _, x := range es {
		t.Add(x.decision, x.maybe)
	}
	return t.Result()
}

func TestTally(t *testing.T) {
	sure := func(d Decision) e { return e{d, false} }
	maybe := func(d Decision) e { return e{d, true} }
	cases := []struct {
		name    string
		entries []e
		want    Outcome
		winner  int
	}{
		{"nothing matched", nil, NoMatch, -1},
		{"deny beats ask and allow", []e{sure(Allow), sure(Ask), sure(Deny)}, Decided, 2},
		{"ask beats allow", []e{sure(Allow), sure(Ask)}, Decided, 1},
		{"the first winner in order", []e{sure(Allow), sure(Deny), sure(Deny)}, Decided, 1},
		{"allow alone", []e{sure(Allow)}, Decided, 0},
		{"a maybe deny beside a sure allow: the worlds disagree", []e{sure(Allow), maybe(Deny)}, Unevaluable, -1},
		{"a maybe allow alone never allows", []e{maybe(Allow)}, Unevaluable, -1},
		{"a maybe ask alone is unevaluable, not no-match", []e{maybe(Ask)}, Unevaluable, -1},
		{"a sure ask beside a maybe ask is the sure ask", []e{maybe(Ask), sure(Ask)}, Decided, 1},
		{"a maybe allow beside a sure deny: deny in both worlds", []e{maybe(Allow), sure(Deny)}, Decided, 1},
		{"a maybe deny beside a sure deny: the sure one is reported", []e{maybe(Deny), sure(Deny)}, Decided, 1},
		{"a maybe allow beside a sure ask: ask in both", []e{maybe(Allow), sure(Ask)}, Decided, 1},
		{"an unknown decision takes no part", []e{sure("maybe"), sure(Allow)}, Decided, 1},
	}
	for _, c := range cases {
		got, winner := tally(c.entries...)
		if got != c.want || winner != c.winner {
			t.Errorf("%s: got (%d, %d), want (%d, %d)", c.name, got, winner, c.want, c.winner)
		}
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
	if allocs != 0 {
		t.Errorf("%v allocations", allocs)
	}
}
