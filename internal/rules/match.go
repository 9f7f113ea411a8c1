package rules

import (
	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/mcp-policy/mcp-policy/internal/argread"
	"github.com/mcp-policy/mcp-policy/internal/matching"
	"github.com/mcp-policy/mcp-policy/internal/regoeval"
)

// Match tests one rule against the call in Go, as a grant is matched. It is
// the same code the engine's builtin matches data rules with, so a grant
// and a rule agree on what "inside" and "matches" mean. Unknown: the rule
// applies if a path or URL that cannot be evaluated is what it might be.
func (in *Input) Match(r Rule) matching.Match {
	m := r.Matcher()
	return m.Status(in.MatchCall())
}

// MatchCall is the call as a rule's matcher (Rule.Matcher) reads it: the
// grants' index matches it, built once per input.
func (in *Input) MatchCall() *regoeval.Call {
	if in.matchCall == nil {
		in.matchCall = regoeval.NewCall(in.Tool, in.Root, in.Annotations, in.resolvedPaths(), in.resolvedHosts())
		in.matchCall.Arguments = in.arguments // top-level, the reason left out, as the input document has them
		in.matchCall.Commands = commandLines(in.commands)
		in.matchCall.HostArgs = regoeval.HostArgsOf(in.arguments, len(in.Hosts), func(i int) (string, ast.Value) {
			if v := in.Hosts[i]; v.raw != nil {
				return v.Arg, v.raw.Value
			}
			return "", nil
		})
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
		out[i].Arg = argread.FoldName(c.Arg)
		out[i].By = c.By
	}
	return out
}
