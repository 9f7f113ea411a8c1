package regoeval

import (
	"math/rand"
	"testing"

	"github.com/mcp-policy/mcp-policy/internal/matching"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/internal/verdict"
)

// TestIndexAgainstEveryRule holds the index to brute force: over random
// rule sets and calls (folded and unfolded tool globs, escapes, Unicode
// names whose folding changes their length, relative unders with and
// without roots, long keys, host kinds, unknown paths and hosts mixed with
// known ones), no rule that matches or might is missing from candidates.
// A missed deny is a deny that does not hold.
func TestIndexAgainstEveryRule(t *testing.T) {
	iterations := 100_000
	if testing.Short() {
		iterations = 10_000
	}
	r := rand.New(rand.NewSource(1))
	tools := []string{"fs_write", "FS_Write", "fs_*", "*", "f?_write", "fs\\*", "fs*", "ß", "ss", "K", "\u212a", "*_write", "*write"}
	calltools := []string{"fs_write", "FS_WRITE", "fs*", "ss", "ß", "k", "K", "\u212a", "x_write"}
	unders := []string{"", "/", "/srv", "/srv/secret", "/SRV/Secret", "secret", "Secret", ".", "a/b", "/srv/sec\u200cret", "/srv/caf\u00e9", "/srv/cafe\u0301", "/srv/ß", "/srv/ss", "/srv/\u212ait", "/srv/kit", "/Srv", "\u023a/x", "x/\u212a", "/\u023a/secret", "/\u1e9e", "/ss/kk", "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a"}
	hosts := []string{"", "evil.example", "*.example", "10.0.0.0/8", "127.0.0.0/8", "::1/128", "*.evil.example", "example"}
	paths := []string{"", "/srv/secret/x", "/SRV/SECRET/x", "/srv/a", "/srv", "/", "/srv/sec\u200cret/k", "/srv/cafe\u0301/x", "/srv/caf\u00e9/x", "/srv/ss/x", "/srv/ß/x", "/srv/kit/x", "/srv/\u212ait/x", "/other/secret/x", "/srv/a/b/c", "/SRV/a/B", "/\u023a/x/y", "/\u2c65/X/y", "/\u023a/secret/k", "/\u1e9e/k", "/ss/kk/z", "/\u1e9e/\u212a\u212a/z", "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/b/c", "/srv/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/q", "/srv/kkkkkkkkkkkkkkkkkkkkkk/q", "/\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a/q", "/kkkkkkkkkkkkkkkkkkkkkk/q", "/srv/\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a/q"}
	chosts := []string{"", "evil.example", "a.evil.example", "10.1.2.3", "localhost", "[::1]", "example", "x.example"}
	roots := []string{"", "/srv", "/SRV", "/", "/srv/a", "/\u023a", "/\u2c65", "/\u1e9e", "/ss", "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}
	decs := []verdict.Decision{verdict.Allow, verdict.Deny, verdict.Ask}
	fails := 0
	for iter := 0; iter < iterations && fails < 20; iter++ {
		n := 1 + r.Intn(6)
		ms := make([]Matcher, n)
		for i := range ms {
			u := unders[r.Intn(len(unders))]
			if u != "" {
				nu, err := lexical.NormalizeUnder(u)
				require.NoError(t, err, "under %q", u) // else ms[i] would stay the zero Matcher
				u = nu
			}
			h := hosts[r.Intn(len(hosts))]
			if h != "" {
				nh, err := lexical.NormalizeHostPattern(h)
				require.NoError(t, err, "host pattern %q", h)
				h = nh
			}
			ms[i] = MatcherFor(decs[r.Intn(3)], tools[r.Intn(len(tools))], u, h, nil)
		}
		ix := newIndex() // built one rule at a time, as grants are
		for i := range ms {
			ix.add(i, &ms[i])
		}
		np := r.Intn(4)
		ps := make([]string, np)
		for i := range ps {
			ps[i] = paths[r.Intn(len(paths))]
		}
		nh := r.Intn(3)
		hs := make([]string, nh)
		for i := range hs {
			hs[i] = chosts[r.Intn(len(chosts))]
		}
		c := NewCall(calltools[r.Intn(len(calltools))], roots[r.Intn(len(roots))], map[string]bool{}, ps, hs)
		cand := map[int]bool{}
		for _, p := range ix.candidates(c, nil) {
			cand[p] = true
		}
		for i := range ms {
			st := ms[i].Status(c)
			if !assert.True(t, st == matching.No || cand[i], "rule %+v status %v missed for call tool=%q root=%q paths=%q hosts=%q", ms[i], st, c.Tool, c.Root, c.Paths, c.Hosts) {
				fails++
			}
		}
	}
}
