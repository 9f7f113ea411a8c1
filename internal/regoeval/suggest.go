package regoeval

import (
	"github.com/mcp-policy/mcp-policy/builtins"
	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

// Suggest is the narrowest honest scope for an "always" answer to a call
// (docs/rules.md, "Rules"), naming every dimension the call names, as an allow must (see
// Matcher): the deepest directory containing every path (a path the call
// acts on as a directory, or the root itself, is its own scope; any other
// path's scope is its parent) when the call names paths, and the one host
// every URL names when it names URLs; both for a call naming both. Any path
// or URL that cannot be evaluated, or URLs of more than one host, leave
// neither, and so does a call naming neither: the answer is then the bare
// tool.
func Suggest(c *Call) (under, host string) {
	for _, h := range c.Hosts {
		if h == "" || h != c.Hosts[0] {
			return "", ""
		}
	}
	for _, p := range c.Paths {
		if p == "" || builtins.Contains("/", p) != builtins.Yes {
			return "", ""
		}
	}
	if len(c.Hosts) > 0 {
		host = c.Hosts[0]
	}
	if len(c.Paths) > 0 {
		under = lexical.Scope(c.Paths, c.Dirs, c.Root)
	}
	return under, host
}
