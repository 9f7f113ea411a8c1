package rules

import (
	"github.com/mcp-policy/mcp-policy/builtins"
)

// Match tests one rule against the call in Go: the grant matcher. It is
// the same code the Rego engine's mcp.rules.match runs, so a grant and a
// rule agree on what "inside" and "matches" mean.
func (in *Input) Match(r Rule) builtins.Status {
	m := r.Matcher()
	return m.Status(in.call())
}

func (in *Input) call() *builtins.Call {
	if in.matchCall == nil {
		in.matchCall = &builtins.Call{Tool: in.Tool, Root: in.Root, Annotations: in.Annotations,
			Paths: in.ResolvedPaths(), Hosts: in.ResolvedHosts()}
	}
	return in.matchCall
}

// ApplyGrants decides a statically asked call by the grants, if they can:
// a deny grant answers any ask; an allow grant only a "no-match" or
// "unevaluable-path" ask the floor took no part in (an explicit ask rule and
// the floor mean "ask me every time"). Grants are decided in the same two
// worlds as rules: an answer stands only if both agree. It returns d
// unchanged when the grants have nothing to say.
func ApplyGrants(d Decision, grants []Rule, in *Input) Decision {
	if d.Decision != Ask || len(grants) == 0 {
		return d
	}
	allowCounts := (d.Reason == ReasonNoMatch || d.Reason == ReasonUnevaluable) && !d.Floor
	// best[0] is the sure world, best[1] the world where maybe counts.
	var best [2]*Rule
	var bestDec [2]string
	for i := range grants {
		g := &grants[i]
		if g.Decision != Deny && (g.Decision != Allow || !allowCounts) {
			continue
		}
		st := in.Match(*g)
		if st == builtins.NoMatch {
			continue
		}
		for w := 0; w < 2; w++ {
			if w == 0 && st != builtins.Matches {
				continue
			}
			// deny beats allow; the first grant in order wins a tie.
			if best[w] == nil || (bestDec[w] == Allow && g.Decision == Deny) {
				best[w], bestDec[w] = g, g.Decision
			}
		}
	}
	if best[0] == nil || bestDec[0] != bestDec[1] {
		return d
	}
	g := best[0].Clone()
	d.Decision, d.Reason, d.Grant = bestDec[0], ReasonGrant, &g
	return d
}
