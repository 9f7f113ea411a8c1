package regoeval

import (
	"slices"
	"strings"

	"github.com/mcp-policy/mcp-policy/internal/matching"

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
		if p == "" || matching.Contains("/", p) != matching.Yes {
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

// SuggestCommand is the command globs of the suggestion for a call whose
// command lines hold commands: an "always" answer to a shell command must
// not allow the whole shell. Each command's prefix — the program and, when
// the second word is a subcommand (a plain word, not an option or a path),
// that word too; a module run with -m; the package a runner fetches — as
// itself and followed by " *", a word's boundary, once each, in order:
// ["git status", "git status *"]; "npx tsc *" does not allow npx
// tsc-watch, nor "python3 -m pytest *" python3 -m pip. A command a
// wrapper runs with its last words is the wrapper's (npx tsc's tsc). A
// call with a word the shell changes or a path that cannot be evaluated,
// or more than maxSuggestedCommands programs, has no suggestion at all
// (none): only "once" answers fit it.
func SuggestCommand(c *Call) (command []string, none bool) {
	if len(c.Commands) == 0 {
		return nil, false
	}
	if slices.Contains(c.Paths, "") {
		return nil, true // no answer allows a path that cannot be evaluated
	}
	for _, cl := range c.Commands {
		if cl.Unknown {
			return nil, true
		}
		if cl.By > 0 && cl.By <= len(c.Commands) && strings.HasSuffix(c.Commands[cl.By-1].Line, " "+cl.Line) {
			continue // npx tsc --noEmit's tsc: the wrapper's glob covers it
		}
		p := commandPrefix(cl.Line)
		if p == "" {
			return nil, true
		}
		for _, g := range []string{lexical.EscapeTool(p), lexical.EscapeTool(p) + " *"} {
			if !slices.Contains(command, g) {
				command = append(command, g)
			}
		}
	}
	if len(command) > 2*maxSuggestedCommands {
		return nil, true
	}
	return command, false
}

// maxSuggestedCommands bounds the programs an "always" answer names: a
// line with more is answered once.
const maxSuggestedCommands = 8

// commandPrefix is a command's program and its subcommand, if it has one.
func commandPrefix(line string) string {
	words := strings.Fields(line)
	if len(words) == 0 {
		return ""
	}
	if len(words) > 2 && isSubcommand(words[1]) && isSubcommand(words[2]) && runsScript[words[1]] {
		return strings.Join(words[:3], " ") // npm run test: the script is the subcommand
	}
	if len(words) > 2 && words[1] == "-m" && isSubcommand(words[2]) {
		return strings.Join(words[:3], " ") // python3 -m pytest: the module is what runs
	}
	if len(words) > 1 && isSubcommand(words[1]) {
		return words[0] + " " + words[1]
	}
	return words[0]
}

// runsScript are the subcommands that name what they run next: npm run
// test, uv run pytest, cargo run app.
var runsScript = map[string]bool{"run": true, "exec": true, "x": true, "run-script": true, "dlx": true}

// isSubcommand reports a plain word: letters, digits, "-", "_", ":" and
// ".", not starting with "-" or ".", of a subcommand's length.
func isSubcommand(w string) bool {
	if w == "" || len(w) > 32 || w[0] == '-' || w[0] == '.' {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == ':' || r == '.') {
			return false
		}
	}
	return true
}
