package engine

import "github.com/mcp-policy/mcp-policy/builtins"

// Suggest is the narrowest honest scope for an "always" answer to a call
// (SPEC §4): the deepest directory containing every path (a path the call
// acts on as a directory, or the root itself, is its own scope; any other
// path's scope is its parent), else — for a call
// naming URLs but no path — the one host they all name. Any path or URL that
// cannot be evaluated leaves neither, and so does a call naming neither: the
// answer is then the bare tool. Never both.
func Suggest(c *Call) (under, host string) {
	for _, h := range c.Hosts {
		if h == "" {
			return "", ""
		}
	}
	if len(c.Paths) > 0 {
		for _, p := range c.Paths {
			if p == "" || builtins.Contains("/", p) != builtins.Inside {
				return "", ""
			}
		}
		return builtins.Scope(c.Paths, c.Dirs, c.Root), ""
	}
	for _, h := range c.Hosts {
		if h != c.Hosts[0] {
			return "", ""
		}
	}
	if len(c.Hosts) > 0 {
		return "", c.Hosts[0]
	}
	return "", ""
}
