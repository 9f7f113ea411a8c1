package rules

import (
	"github.com/mcp-policy/mcp-policy/internal/argread"
	"github.com/mcp-policy/mcp-policy/internal/matching"
	"github.com/mcp-policy/mcp-policy/internal/regoeval"
	"github.com/mcp-policy/mcp-policy/internal/verdict"
)

// Match tests one rule against the call in Go: the grant matcher. It is
// the same code the engine's builtin matches data rules with, so a grant
// and a rule agree on what "inside" and "matches" mean. Unknown: the rule
// applies if a path or URL that cannot be evaluated is what it might be.
func (in *Input) Match(r Rule) matching.Match {
	m := r.matcher()
	return m.Status(in.call())
}

func (in *Input) call() *regoeval.Call {
	if in.matchCall == nil {
		in.matchCall = regoeval.NewCall(in.Tool, in.Root, in.Annotations, in.resolvedPaths(), in.resolvedHosts())
		in.matchCall.Arguments = in.arguments // top-level, the reason left out, as the input document has them
		in.matchCall.Commands = commandLines(in.commands)
		for i, v := range in.Paths {
			if v.Dir {
				if in.matchCall.Dirs == nil {
					in.matchCall.Dirs = make([]bool, len(in.Paths))
				}
				in.matchCall.Dirs[i] = true
			}
		}
	}
	return in.matchCall
}

// commandLines are the call's commands as a rule's command glob reads them.
func commandLines(cs []argread.SimpleCommand) []regoeval.CommandLine {
	if len(cs) == 0 {
		return nil
	}
	out := make([]regoeval.CommandLine, len(cs))
	for i, c := range cs {
		out[i] = regoeval.NewCommandLine(c.Words, c.Unknown, c.Known)
	}
	return out
}

// AllowGrantMayAnswer says whether an allow grant may answer d, an asked
// decision: verdict.AllowGrantMayAnswer, read from a Decision (the
// policy's Question.AllowGrantable is its answer): only one asked because no rule
// matched, or because a path could not be evaluated where at most an allow
// rule might match it, and not by the floor in either world. An explicit
// ask rule and the floor mean "ask me every time".
func AllowGrantMayAnswer(d Decision) bool {
	o := verdict.Decided
	switch d.Reason {
	case ReasonNoMatch:
		o = verdict.NoMatch
	case ReasonUnevaluable:
		o = verdict.Unevaluable
	}
	return verdict.AllowGrantMayAnswer(o, d.Might, d.Floor)
}

// ApplyGrants decides a statically asked call by the grants, if they can:
// a deny grant answers any ask; an allow grant only one AllowGrantMayAnswer
// says it may (an explicit ask rule and the floor mean "ask me every
// time"). The sets are read in order, the first set's grants before the
// next's (a policy's own, then its store's), each through its index.
// Grants are decided in the same two worlds as rules: an answer stands
// only if both agree. It returns d unchanged when the grants have nothing
// to say, and never looks at them when d is not an ask.
func ApplyGrants(d Decision, in *Input, sets ...*GrantSet) Decision {
	if d.Decision != Ask {
		return d
	}
	allowCounts := AllowGrantMayAnswer(d)
	var t verdict.Tally
	var matched []Rule
	for _, g := range sets {
		matched = g.match(in.call(), allowCounts, &t, matched)
	}
	// Only an answer both worlds agree on stands; otherwise the grants
	// have nothing to say and the call is asked as it was.
	outcome, w := t.Result()
	if outcome != verdict.Decided {
		return d
	}
	g := matched[w].Clone()
	d.Decision, d.Reason, d.Grant = g.Decision, ReasonGrant, &g
	return d
}
