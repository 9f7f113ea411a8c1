// Package grantstest holds the behaviour every grants backend owes its
// users, as tests a backend's package runs against the real thing: two
// stores sharing one backend source stand for two processes (or two
// machines) sharing grants.
package grantstest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/rules"
)

// Opener opens a new store on the shared source of the test's grants: each
// call is another process's store on the same grants.
type Opener func(t *testing.T) *grants.Store

// Eventually is how long a change made through one store may take to be
// seen through another: 0 for a backend that reads on every decision.
type Eventually time.Duration

// Run runs the tests; newSource gives each test its own empty source and
// returns the opener of stores on it.
func Run(t *testing.T, newSource func(t *testing.T) Opener, within Eventually) {
	tests := map[string]func(*testing.T, Opener, time.Duration){
		"AddSeenByTheOther":           addSeenByTheOther,
		"RevokeStopsAnsweringInBoth":  revokeStopsAnsweringInBoth,
		"RecordSurvivesTheRoundTrip":  recordSurvivesTheRoundTrip,
		"AnswerLifetimeWithinTheTTL":  answerLifetimeWithinTheTTL,
		"ExpiredGrantAnswersNothing":  expiredGrantAnswersNothing,
		"ConcurrentAddsLoseNothing":   concurrentAddsLoseNothing,
		"AddIsIdempotentAndAllOrNone": addIsIdempotentAndAllOrNone,
	}
	for name, f := range tests {
		t.Run(name, func(t *testing.T) {
			open := newSource(t)
			f(t, open, time.Duration(within))
		})
	}
}

func allow(tool, under string) rules.Rule {
	return rules.Rule{Tool: tool, Decision: rules.Allow, Under: under}
}

func deny(tool string) rules.Rule { return rules.Rule{Tool: tool, Decision: rules.Deny} }

// wait polls cond until it holds or within (at least a second) passes.
func wait(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(max(within, time.Second))
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", max(within, time.Second), what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func holds(s *grants.Store, r rules.Rule) bool { return s.Grants().Has(r) }

func addSeenByTheOther(t *testing.T, open Opener, within time.Duration) {
	a, b := open(t), open(t)
	g := allow("fs_write", "/srv/a")
	if err := a.Add(g); err != nil {
		t.Fatal(err)
	}
	if !holds(a, g) {
		t.Fatal("the store that added the grant does not hold it once Add returned")
	}
	wait(t, within, "the other store never saw the grant", func() bool { return holds(b, g) })
	if c := open(t); !holds(c, g) {
		t.Fatal("a store opened later does not hold the grant")
	}
}

func revokeStopsAnsweringInBoth(t *testing.T, open Opener, within time.Duration) {
	a, b := open(t), open(t)
	keep, gone := deny("rm"), allow("fs_write", "/srv/b")
	if err := a.Add(keep, gone); err != nil {
		t.Fatal(err)
	}
	wait(t, within, "b never saw the grants", func() bool { return holds(b, gone) && holds(b, keep) })
	removed, err := b.Revoke(context.Background(), grants.IDOf(gone))
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0].Rule.Tool != "fs_write" {
		t.Fatalf("Revoke removed %v, want the fs_write grant", removed)
	}
	if holds(b, gone) {
		t.Fatal("the revoking store still answers with the revoked grant")
	}
	wait(t, within, "a still answers with the revoked grant", func() bool { return !holds(a, gone) })
	if !holds(a, keep) || !holds(b, keep) {
		t.Fatal("revoking one grant lost another")
	}
	if removed, err := a.Revoke(context.Background(), "000000000000"); err != nil || len(removed) != 0 {
		t.Fatalf("revoking an unknown id: %v, %v; want nothing and no error", removed, err)
	}
}

func recordSurvivesTheRoundTrip(t *testing.T, open Opener, within time.Duration) {
	a, b := open(t), open(t)
	a.SetLabels(map[string]string{"host": "laptop-1"})
	a.SetTTL(24 * time.Hour)
	q := &grants.Question{Tool: "fs_write", Paths: []string{"/srv/c/x"}, Reason: "outside_roots"}
	before := time.Now().Add(-time.Second)
	if err := a.Remember(q, allow("fs_write", "/srv/c")); err != nil {
		t.Fatal(err)
	}
	var got []grants.Grant
	wait(t, within, "b never saw the grant", func() bool { got = b.Records(); return len(got) == 1 })
	g := got[0]
	if g.ID != grants.IDOf(allow("fs_write", "/srv/c")) || g.Labels["host"] != "laptop-1" ||
		g.Question == nil || g.Question.Reason != "outside_roots" || g.Question.Paths[0] != "/srv/c/x" {
		t.Fatalf("record read back: %+v", g)
	}
	if g.GrantedAt.Before(before) || g.GrantedAt.After(time.Now().Add(time.Second)) {
		t.Fatalf("granted_at %v, want about now", g.GrantedAt)
	}
	if d := g.Expires.Sub(g.GrantedAt); d != 24*time.Hour {
		t.Fatalf("expires %v after it was granted, want 24h", d)
	}
}

func expiredGrantAnswersNothing(t *testing.T, open Opener, within time.Duration) {
	a, b := open(t), open(t)
	g := allow("fs_write", "/srv/d")
	err := a.AddGrants(context.Background(), grants.Grant{Rule: g, GrantedAt: time.Now(), Expires: time.Now().Add(300 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	wait(t, within, "b never saw the grant", func() bool { return holds(b, g) })
	wait(t, 2*time.Second, "the grant still answers after it expired", func() bool { return !holds(a, g) && !holds(b, g) })
	if len(a.Records()) != 1 {
		t.Fatal("an expired grant is kept on record until pruned")
	}
	// Answered "always" again, it answers again.
	if err := a.Add(g); err != nil {
		t.Fatal(err)
	}
	wait(t, within, "the grant added again after it expired does not answer", func() bool { return holds(a, g) && holds(b, g) })
}

func concurrentAddsLoseNothing(t *testing.T, open Opener, within time.Duration) {
	const stores, each = 4, 25
	var wg sync.WaitGroup
	errs := make(chan error, stores*each)
	for i := range stores {
		s := open(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range each {
				if err := s.Add(deny(fmt.Sprintf("tool_%d_%d", i, j))); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	c := open(t)
	wait(t, within, "grants lost", func() bool { return len(c.List()) == stores*each })
}

func addIsIdempotentAndAllOrNone(t *testing.T, open Opener, within time.Duration) {
	a := open(t)
	g := deny("rm")
	for range 3 {
		if err := a.Add(g); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(a.Records()); n != 1 {
		t.Fatalf("the same grant added 3 times: %d records", n)
	}
	bad := rules.Rule{Tool: "x", Decision: rules.Ask}
	if err := a.Add(deny("other"), bad); err == nil {
		t.Fatal("an ask was added as a grant")
	}
	if holds(a, deny("other")) {
		t.Fatal("half of a refused Add was kept")
	}
}

// answerLifetimeWithinTheTTL: a grant remembered for a while (an "allow
// for a day" answer) carries that expiry to the other store; the store's
// TTL, when shorter, bounds it; a negative lifetime is refused.
func answerLifetimeWithinTheTTL(t *testing.T, open Opener, within time.Duration) {
	a, b := open(t), open(t)
	if err := a.RememberFor(nil, 24*time.Hour, allow("fs_write", "/srv/day")); err != nil {
		t.Fatal(err)
	}
	a.SetTTL(time.Hour)
	if err := a.RememberFor(nil, 24*time.Hour, allow("fs_write", "/srv/hour")); err != nil {
		t.Fatal(err)
	}
	if err := a.RememberFor(nil, -time.Hour, allow("fs_write", "/srv/never")); err == nil {
		t.Fatal("a negative lifetime was accepted")
	}
	var got []grants.Grant
	wait(t, within, "b never saw the grants", func() bool { got = b.Records(); return len(got) == 2 })
	want := map[string]time.Duration{"/srv/day": 24 * time.Hour, "/srv/hour": time.Hour}
	for _, g := range got {
		if d := g.Expires.Sub(g.GrantedAt); d != want[g.Rule.Under] {
			t.Errorf("%s expires %v after it was granted, want %v", g.Rule.Under, d, want[g.Rule.Under])
		}
	}
}
