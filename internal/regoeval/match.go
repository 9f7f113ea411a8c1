package regoeval

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/mcp-policy/mcp-policy/internal/matching"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/mcp-policy/mcp-policy/internal/argread"
	"github.com/mcp-policy/mcp-policy/internal/lexical"

	"github.com/mcp-policy/mcp-policy/internal/verdict"
)

// Matcher is the part of a rule that decides whether it applies to a call:
// its tool glob, directory, host pattern and annotation hints. Under is
// clean, absolute or relative to the call's root; Host is normalised.
//
// Any is how a deny or ask rule (or a deny grant) reads a call: it matches
// when any path is inside Under and any host matches Host, comparing tool
// names and paths folded (FoldPath), so that a harmless extra path or
// another spelling of a name cannot dodge it. Without Any (allow), every
// path must be inside and every host match, compared exactly, and the
// rule must name every dimension the call names: one with Under and no
// Host covers no call that names a URL or host, one with Host and no Under
// none that names a path (a decoy path beside a URL must not make a fetch
// a local read). A rule with neither covers the whole tool. Use MatcherFor
// to set Any from a decision.
type Matcher struct {
	Tool        string
	Under       string
	Host        string
	Annotations map[string]bool
	// Arguments are the top-level arguments the rule names, each with a
	// glob over its value (see ArgumentGlobs and argumentsStatus); nil
	// for none.
	Arguments []ArgumentGlob
	// Command are globs (any one will do) over a simple command's words
	// joined by one space ("git status", "npm run test*"); "" for none. See
	// commandStatus.
	Command []string
	Any     bool
	// Except is what a deny or ask rule leaves out: the calls it matches
	// as an allow would (every path inside, every host and argument and
	// command matching, every dimension the call names covered), the
	// tool aside. Nil for none. An exception that might match makes the
	// rule unknown, so that a path that cannot be evaluated is not let
	// out of a deny by it.
	Except *Matcher

	// foldedUnder is Under folded (FoldPath), when it is absolute and the
	// rule reads calls folded: made once, as the rule is added to a
	// RuleSet, instead of on every call the rule is a candidate for.
	foldedUnder string
}

// ArgumentGlob is one argument a rule names: Name folded as the argument
// reader compares names (argread.FoldName), Glob as the rule wrote it.
type ArgumentGlob struct {
	Name, Glob string
}

// foldArgumentName is how argument names are compared: as the reader of a
// call's arguments compares them, so that a rule and the reader agree on
// which spellings are one name.
var foldArgumentName = argread.FoldName

// ArgumentGlobs is a rule's arguments (name -> glob) as a Matcher holds
// them: names folded, in order of their folded name. The globs must be
// valid tool globs, and no two names may fold together.
func ArgumentGlobs(args map[string]string) ([]ArgumentGlob, error) {
	if len(args) == 0 {
		return nil, nil
	}
	out := make([]ArgumentGlob, 0, len(args))
	for name, glob := range args {
		folded := foldArgumentName(name)
		switch {
		case folded == "":
			return nil, fmt.Errorf("arguments: %q names no argument", name)
		case glob == "":
			return nil, fmt.Errorf("arguments: %q: the glob is empty", name)
		}
		if err := lexical.ValidateToolGlob(glob); err != nil {
			return nil, fmt.Errorf("arguments: %q: glob %q %v", name, glob, err)
		}
		out = append(out, ArgumentGlob{Name: folded, Glob: glob})
	}
	slices.SortFunc(out, func(a, b ArgumentGlob) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(out); i++ {
		if out[i].Name == out[i-1].Name {
			return nil, fmt.Errorf("arguments: two names are one argument (%q)", out[i].Name)
		}
	}
	return out, nil
}

// MatcherFor is the matcher of a rule with the given decision: Any for
// deny and ask, every path and host for allow.
func MatcherFor(decision verdict.Decision, tool, under, host string, annotations map[string]bool) Matcher {
	return Matcher{Tool: tool, Under: under, Host: host, Annotations: annotations, Any: decision != verdict.Allow}
}

// Call is a call as matching sees it. Root and Paths are clean and
// absolute (Root "" for none), Hosts normalised; "" stands for a path or
// host that cannot be evaluated. Folded holds each path folded (FoldPath),
// FoldedRoot and FoldedTool the same of the root and the tool's name.
// Matching relies on all of it: build a Call with CallOf or NewCall.
// Annotations nil means the tool's catalogue entry is unknown.
type Call struct {
	Tool        string
	Root        string
	Annotations map[string]bool
	Paths       []string
	Hosts       []string
	// HostArgs, where not nil, says for each host the top-level argument
	// (its name folded) whose whole value it was read from ("server":
	// "staging"), "" for any other: a rule's arguments that name that
	// argument speak of the host (HostArgsOf).
	HostArgs []string
	// Arguments are the call's top-level arguments (name as written,
	// value), the model's reason left out: what a rule's Arguments are
	// matched against. Nil for none.
	Arguments [][2]*ast.Term
	// Dirs says which paths the tool acts on as directories (for the
	// suggestion); nil for none.
	Dirs []bool
	// Commands are the simple commands of the call's shell command lines
	// (argread.SimpleCommand), each as its words joined by one space.
	Commands []CommandLine

	FoldedTool string
	FoldedRoot string
	Folded     []string
}

// NewCall is a Call with its folded fields filled in. root and paths must
// be clean and absolute, or "".
func NewCall(tool, root string, annotations map[string]bool, paths, hosts []string) *Call {
	c := &Call{Tool: tool, Root: root, Annotations: annotations, Paths: paths, Hosts: hosts}
	c.fold()
	return c
}

// fold fills in the folded fields from the others.
func (c *Call) fold() {
	c.FoldedTool, c.FoldedRoot = lexical.Fold(c.Tool), lexical.FoldPath(c.Root)
	c.Folded = make([]string, len(c.Paths))
	for i, p := range c.Paths {
		c.Folded[i] = lexical.FoldPath(p)
	}
}

// Status tests the rule against the call: Yes, No, or Unknown when the rule
// matches only if an unevaluable path or URL (or a relative directory with
// no root) is what it might be. Every condition must hold; any that fails
// is No, else any unknown is Unknown.
func (m *Matcher) Status(c *Call) matching.Match {
	// A deny or ask names a tool as written or folded: either matches (a
	// "?" is one character, and folding can make one two: "ß" is "ss").
	if !lexical.MatchTool(m.Tool, c.Tool) && (!m.Any || !lexical.MatchTool(lexical.Fold(m.Tool), c.FoldedTool)) {
		return matching.No
	}
	st := matching.Yes
	if len(m.Annotations) > 0 {
		// An unknown catalogue never matches a rule that tests hints.
		if c.Annotations == nil {
			return matching.No
		}
		for k, want := range m.Annotations {
			if got, ok := c.Annotations[k]; !ok || got != want {
				return matching.No
			}
		}
	}
	// An allow covers a call only in the dimensions it names (see Any):
	// a path or host the rule does not speak of, known or not, is not
	// covered by it.
	// A rule's command covers the paths the command line names: it says
	// which programs run, wherever they act. So does a glob of its
	// arguments over an argument that holds a command line: "args": "get
	// *" says which kubectl runs, not that its --server may be any host
	// ("namespace": "dev" still covers the cluster the call reaches).
	// A host read from a top-level argument the rule's arguments name
	// ("server": "staging") is one it speaks of.
	if !m.Any && (m.Host == "" && (m.Under != "" || len(m.Command) > 0 || m.globsCommandLines(c)) && m.hostsUnpinned(c) ||
		m.Under == "" && len(m.Command) == 0 && m.Host != "" && len(c.Paths) > 0) {
		return matching.No
	}
	if len(m.Command) > 0 {
		switch m.commandStatus(c) {
		case matching.No:
			return matching.No
		case matching.Unknown:
			st = matching.Unknown
		}
	}
	if len(m.Arguments) > 0 {
		switch m.argumentsStatus(c) {
		case matching.No:
			return matching.No
		case matching.Unknown:
			st = matching.Unknown
		}
	}
	if m.Under != "" {
		switch m.underStatus(c) {
		case matching.No:
			return matching.No
		case matching.Unknown:
			st = matching.Unknown
		}
	}
	if m.Host != "" {
		match := matching.MatchAllHosts
		if m.Any {
			match = matching.MatchAnyHosts
		}
		switch match(m.Host, c.Hosts) {
		case matching.No:
			return matching.No
		case matching.Unknown:
			st = matching.Unknown
		}
	}
	if m.Except != nil {
		switch m.Except.Status(c) {
		case matching.Yes:
			return matching.No
		case matching.Unknown:
			st = matching.Unknown
		}
	}
	return st
}

// hostsUnpinned reports a host of the call that the rule's arguments do
// not name: one not read from a top-level argument's whole value that the
// rule names, or read from one that holds a command line.
func (m *Matcher) hostsUnpinned(c *Call) bool {
	for i := range c.Hosts {
		if i >= len(c.HostArgs) || c.HostArgs[i] == "" {
			return true
		}
		arg := c.HostArgs[i]
		if !slices.ContainsFunc(m.Arguments, func(a ArgumentGlob) bool { return a.Name == arg }) || c.holdsCommandLine(arg) {
			return true
		}
	}
	return false
}

// HostArgsOf is Call.HostArgs for a call's top-level arguments and its n
// hosts, host(i) giving the i-th one's argument name (as written) and raw
// value: for each, the argument, folded, when its top-level argument of
// that name holds the raw value whole (a host read from "server":
// "staging"), "" otherwise (a host inside a longer value, or under a
// nested key of the same name); nil when no host is so.
func HostArgsOf(args [][2]*ast.Term, n int, host func(i int) (arg string, raw ast.Value)) []string {
	var out []string
	for i := range n {
		arg, raw := host(i)
		if raw == nil {
			continue
		}
		for _, item := range args {
			if name, ok := item[0].Value.(ast.String); ok && string(name) == arg && item[1].Value.Compare(raw) == 0 {
				if out == nil {
					out = make([]string, n)
				}
				out[i] = foldArgumentName(arg)
				break
			}
		}
	}
	return out
}

// globsCommandLines reports an arguments glob over an argument of the
// call that holds a command line (kubectl's "args", run_command's
// "command"): one that names a program's words.
func (m *Matcher) globsCommandLines(c *Call) bool {
	return slices.ContainsFunc(m.Arguments, func(a ArgumentGlob) bool { return c.holdsCommandLine(a.Name) })
}

// holdsCommandLine reports a call's argument (its name folded) that a
// command line of the call came from.
func (c *Call) holdsCommandLine(arg string) bool {
	return slices.ContainsFunc(c.Commands, func(cl CommandLine) bool { return cl.Arg == arg })
}

// underStatus is whether the call's paths are under the rule's directory:
// any of them, folded, for a deny or ask; all of them for an allow.
func (m *Matcher) underStatus(c *Call) matching.Match {
	switch dir, ok := m.dir(c.Root); {
	case !ok && len(c.Paths) == 0:
		return matching.No
	case !ok:
		return matching.Unknown // no root to say where the rule's directory is
	case m.Any && m.foldedUnder != "":
		return matching.WithinAny(m.foldedUnder, c.Folded)
	case m.Any:
		return matching.WithinAny(lexical.FoldPath(dir), c.Folded)
	default:
		return matching.WithinAll(dir, c.Paths)
	}
}

// CommandLine is one simple command as a rule's command glob reads it:
// its words joined by one space, and whether a word is one the shell
// changes (a variable, a substitution), so that what runs cannot be told.
type CommandLine struct {
	Line string
	// Arg is the argument the command line came from, its name folded
	// as rules' argument names are (foldArgumentName).
	Arg string
	// By is the index, plus one, among the call's commands of the one
	// whose words this was read from (a wrapper's), 0 for none.
	By      int
	Unknown bool
	// Known is the line up to its first unknown word (with the space
	// before it): what every expansion of the line starts with.
	Known string
}

// NewCommandLine is a command's line from its words, of which the first
// known are as the program sees them.
func NewCommandLine(words []string, unknown bool, known int) CommandLine {
	line := strings.Join(words, " ")
	if !unknown {
		return CommandLine{Line: line, Known: line}
	}
	k := strings.Join(words[:known], " ")
	if known > 0 {
		k += " "
	}
	return CommandLine{Line: line, Unknown: true, Known: k}
}

// mayExpandTo reports whether a glob could match some expansion of a
// line that starts with known: its literal start and known agree, one
// starting the other ("rm *" cannot match "grep -rn x --include=*.ts"
// whatever the glob in it expands to).
func mayExpandTo(glob, known string) bool {
	lit := glob
	if i := strings.IndexAny(glob, "*?[\\"); i >= 0 {
		lit = glob[:i]
	}
	return strings.HasPrefix(lit, known) || strings.HasPrefix(known, lit)
}

// coveredByWrapper reports a command read from a wrapper's words (npx tsc,
// sudo rm, env X=1 make) that are its words' end, where one of an allow's
// globs matches the wrapper's whole line, as written: the glob spells the
// command it runs.
func (m *Matcher) coveredByWrapper(c *Call, cl CommandLine) bool {
	if cl.By <= 0 || cl.By > len(c.Commands) {
		return false
	}
	outer := c.Commands[cl.By-1]
	if outer.Unknown || !strings.HasSuffix(outer.Line, " "+cl.Line) {
		return false
	}
	return slices.ContainsFunc(m.Command, func(g string) bool { return lexical.MatchTool(g, outer.Line) })
}

// changesDirectory reports a command that only changes the shell's
// directory: cd, pushd or popd.
func changesDirectory(line string) bool {
	program, _, _ := strings.Cut(line, " ")
	return program == "cd" || program == "pushd" || program == "popd"
}

// commandStatus is how the rule's Command relates to the call's commands.
// An allow matches only a call with commands, every one of which one of
// its globs matches exactly (a cd, pushd or popd needs none); one with an
// unknown word might match. (What
// an unknown word names as a path is unknown to the paths' rules, and a
// secret's variable printed is the floor's.) A deny
// or ask matches if a glob matches any command, as written or folded (as
// a tool's name is); else it might match if a command has an unknown word.
func (m *Matcher) commandStatus(c *Call) matching.Match {
	if len(c.Commands) == 0 {
		return matching.No
	}
	st := matching.No
	if !m.Any {
		st = matching.Yes
	}
	for _, cl := range c.Commands {
		if !m.Any && (changesDirectory(cl.Line) || m.coveredByWrapper(c, cl)) {
			// cd /srv/app && npm test: a cd runs nothing, and where it
			// leads are the paths of what follows, which the rule's
			// under covers, or not. npx tsc --noEmit: "npx tsc*" spells
			// the tsc command npx runs.
			continue
		}
		matches := false
		for _, g := range m.Command {
			if lexical.MatchTool(g, cl.Line) || m.Any && lexical.MatchTool(lexical.Fold(g), lexical.Fold(cl.Line)) {
				matches = true
				break
			}
		}
		// A command with an unknown word might match a glob it does not
		// match as written, unless the words before the first unknown
		// one already rule the glob out.
		mayMatch := false
		if !matches && cl.Unknown {
			mayMatch = slices.ContainsFunc(m.Command, func(g string) bool {
				return mayExpandTo(g, cl.Known) || m.Any && mayExpandTo(lexical.Fold(g), lexical.Fold(cl.Known))
			})
		}
		switch {
		case m.Any && matches:
			return matching.Yes
		case !m.Any && !matches && !mayMatch:
			return matching.No
		case mayMatch:
			st = matching.Unknown
		}
	}
	return st
}

// argumentsStatus is how the rule's Arguments relate to the call's
// top-level arguments. Each argument of the call whose name folds to a
// named one is read as scalarText reads it; an object, null, or an array
// that is not words is no scalar. An allow matches only if
// every named argument is there and every value under its name (each
// spelling of it) is a scalar its glob matches, exactly. A deny or ask
// matches if any value under any named argument is a scalar its glob
// matches as written or folded (as it names a tool); else it might match
// if one is no scalar (a server may read the value it holds), so the
// call is asked rather than allowed.
func (m *Matcher) argumentsStatus(c *Call) matching.Match {
	st := matching.No
	for _, a := range m.Arguments {
		found := false
		for _, item := range c.Arguments {
			name, _ := item[0].Value.(ast.String)
			if foldArgumentName(string(name)) != a.Name {
				continue
			}
			found = true
			text, scalar := scalarText(item[1].Value, !m.Any)
			switch {
			case !m.Any:
				if !scalar || !lexical.MatchTool(a.Glob, text) || severalWords(item[1].Value) && !strings.Contains(a.Glob, " ") {
					// An allow reads several words only against a glob of
					// words ("compute *"): "acme*" allows the one owner
					// "acme-x", not ["acme-x", "evil"].
					return matching.No
				}
			case !scalar:
				// A list of commands, each a scalar ([["SET", "k", "v"],
				// ["FLUSHALL"]]): a deny or ask matches one of them.
				switch anyElementMatches(a.Glob, item[1].Value) {
				case matching.Yes:
					return matching.Yes
				case matching.Unknown:
					st = matching.Unknown
				}
			case globMatchesText(a.Glob, text) || anyElementMatches(a.Glob, item[1].Value) == matching.Yes:
				// The words joined, or one of them: ["SCAN 0", "FLUSHALL"]
				// is two commands to a server that runs each.
				return matching.Yes
			}
		}
		if !found && !m.Any {
			return matching.No
		}
	}
	if !m.Any {
		return matching.Yes
	}
	return st
}

// globMatchesText reports a deny's or ask's glob matching a scalar's
// text: as written, folded, or with its white space as a shell splits it
// (" rm -rf x" and "rm\t-rf x" are the "rm -rf x" a deny on "rm *" means).
func globMatchesText(glob, text string) bool {
	if lexical.MatchTool(glob, text) || lexical.MatchTool(lexical.Fold(glob), lexical.Fold(text)) {
		return true
	}
	split := strings.Join(strings.Fields(text), " ")
	return split != text && lexical.MatchTool(glob, split)
}

// anyElementMatches is how a deny's or ask's glob relates to an array
// that is no scalar itself: Yes when an element that is one matches it,
// No when every element is one and none does, else Unknown.
func anyElementMatches(glob string, v ast.Value) matching.Match {
	arr, ok := v.(*ast.Array)
	if !ok || arr.Len() == 0 {
		return matching.Unknown
	}
	st := matching.No
	for i := range arr.Len() {
		text, scalar := scalarText(arr.Elem(i).Value, false)
		switch {
		case !scalar:
			st = matching.Unknown
		case globMatchesText(glob, text):
			return matching.Yes
		}
	}
	return st
}

// severalWords reports an array of more than one value.
func severalWords(v ast.Value) bool {
	a, ok := v.(*ast.Array)
	return ok && a.Len() > 1
}

// scalarText is a scalar argument's text as a rule's glob reads it: a
// string as written, a number as its JSON text, a boolean as true or
// false, and an array of strings (a program's words: ["run", "services",
// "list"]) as its strings joined by one space. For an allow (exact), an
// array with an empty word or one holding white space is no scalar: its
// joined text would not be the words the server passes on. Anything else
// is no scalar.
func scalarText(v ast.Value, exact bool) (string, bool) {
	switch v := v.(type) {
	case ast.String:
		return string(v), true
	case ast.Number:
		return string(v), true
	case ast.Boolean:
		if v {
			return "true", true
		}
		return "false", true
	case *ast.Array:
		if v.Len() == 0 {
			return "", false
		}
		words := make([]string, v.Len())
		for i := range words {
			w, ok := v.Elem(i).Value.(ast.String)
			if !ok || exact && (w == "" || strings.IndexFunc(string(w), unicode.IsSpace) >= 0) {
				return "", false
			}
			words[i] = string(w)
		}
		return strings.Join(words, " "), true
	}
	return "", false
}

// dir is the rule's directory for a call with the given root.
func (m *Matcher) dir(root string) (string, bool) {
	if path.IsAbs(m.Under) {
		return m.Under, true
	}
	return lexical.Resolve(root, m.Under)
}

// keyKind is what a rule is filed under: the directory it is under
// (absolute, or relative to the root), else its host (exact, the domain of
// a wildcard, or any IP range), else nothing; plus the catch-alls that a
// call with no known path, no root or no known host must still look at.
// Kinds are bits, so that a tool's rules record which kinds they use and a
// lookup skips the keys of any other kind.
type keyKind uint16

const (
	kindPlain    keyKind = 1 << iota // neither under nor host
	kindUnder                        // absolute under
	kindRelative                     // under relative to the root
	kindHost                         // exact host
	kindDomain                       // "*.domain": the domain
	kindRange                        // an IP range: any call naming a host
	kindAnyPath                      // any under: for a call with an unknown path
	kindAnyRoot                      // any relative under: for a call with no root
	kindAnyHost                      // any host: for a call with an unknown host
)

// indexKey is a key within one tool's rules. A struct, not a joined
// string, so that a lookup allocates nothing.
type indexKey struct {
	kind  keyKind
	value string
}

// indexKeys are the keys a rule is filed under. A rule that reads a call
// folded (Any) is filed under its folded directory.
func indexKeys(m *Matcher) []indexKey {
	under := m.Under
	if m.Any {
		under = m.foldedUnder
		if under == "" {
			under = lexical.FoldPath(m.Under)
		}
	}
	switch {
	case under != "" && path.IsAbs(under):
		return []indexKey{{kindUnder, under}, {kindAnyPath, ""}}
	case under != "":
		return []indexKey{{kindRelative, under}, {kindAnyPath, ""}, {kindAnyRoot, ""}}
	case lexical.IsHostRange(m.Host) || lexical.IsLoopback(m.Host) || m.Host == lexical.AnyHost:
		// A range, or one of the machine's own names (which match each
		// other): looked up by every call that names a host.
		return []indexKey{{kindRange, ""}, {kindAnyHost, ""}}
	case strings.HasPrefix(m.Host, "*."):
		return []indexKey{{kindDomain, m.Host[2:]}, {kindAnyHost, ""}}
	case m.Host != "":
		return []indexKey{{kindHost, m.Host}, {kindAnyHost, ""}}
	}
	return []indexKey{{kindPlain, ""}}
}

// callKeys appends to keys the keys to look a call up under for rules that
// need every path and host (allow): those of the first known path and
// host are enough, since a rule whose directory does not contain it, or
// whose host does not match it, cannot match.
func callKeys(c *Call, keys []indexKey) []indexKey {
	keys = append(keys, indexKey{kind: kindPlain})
	if len(c.Paths) > 0 {
		if first := firstKnown(c.Paths); first == "" {
			keys = append(keys, indexKey{kind: kindAnyPath})
		} else {
			keys = pathKeys(first, c.Root, keys)
		}
		if c.Root == "" {
			keys = append(keys, indexKey{kind: kindAnyRoot})
		}
	}
	if len(c.Hosts) > 0 {
		keys = append(keys, indexKey{kind: kindRange})
		if first := firstKnown(c.Hosts); first == "" {
			keys = append(keys, indexKey{kind: kindAnyHost})
		} else {
			keys = hostKeys(first, keys)
		}
	}
	return keys
}

func firstKnown(vs []string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func hostKeys(h string, keys []indexKey) []indexKey {
	keys = append(keys, indexKey{kindHost, h})
	for _, s := range lexical.HostSuffixes(h) {
		keys = append(keys, indexKey{kindDomain, s})
	}
	return keys
}

// lookUpAny appends the positions of t's rules that may match the call
// when any path or host may match them (deny and ask, folded): every
// distinct path's ancestors and every distinct host's keys, each looked up
// only when t holds a key of its kind and length, so a call of many long
// paths costs a walk up each of them, not a list of every ancestor; and an
// unknown path or host brings in every rule of its kind.
func (t *toolRules) lookUpAny(c *Call, out []int) []int {
	look := func(k indexKey) {
		if t.mayHold(k) {
			out = append(out, t.groups[k]...)
		}
	}
	look(indexKey{kind: kindPlain})
	if len(c.Folded) > 0 && t.kinds&(kindUnder|kindRelative|kindAnyPath|kindAnyRoot) != 0 {
		unknown := false
		for i, p := range c.Folded {
			if p == "" {
				unknown = true
				continue
			}
			if seenBefore(c.Folded, i) {
				continue
			}
			for a := p; ; a = lexical.Parent(a) {
				look(indexKey{kindUnder, a})
				if a == "/" || a == "." {
					break
				}
			}
			if root := c.FoldedRoot; root != "" && t.kinds&kindRelative != 0 && lexical.ContainsClean(root, p) {
				for a := p; len(a) >= len(root); a = lexical.Parent(a) {
					rel := strings.TrimPrefix(a[len(root):], "/")
					if rel == "" {
						rel = "."
					}
					look(indexKey{kindRelative, rel})
					if a == "/" {
						break
					}
				}
			}
		}
		if unknown {
			look(indexKey{kind: kindAnyPath})
		}
		if c.FoldedRoot == "" {
			look(indexKey{kind: kindAnyRoot})
		}
	}
	if len(c.Hosts) > 0 && t.kinds&(kindHost|kindDomain|kindRange|kindAnyHost) != 0 {
		look(indexKey{kind: kindRange})
		unknown := false
		for i, h := range c.Hosts {
			if h == "" {
				unknown = true
				continue
			}
			if seenBefore(c.Hosts, i) {
				continue
			}
			look(indexKey{kindHost, h})
			for _, s := range lexical.HostSuffixes(h) {
				look(indexKey{kindDomain, s})
			}
		}
		if unknown {
			look(indexKey{kind: kindAnyHost})
		}
	}
	return out
}

// seenBefore reports whether vs[i] is also at an earlier index: calls
// repeat paths, and each distinct one is looked up once. Past a few
// values it only compares with the one before, so it stays linear.
func seenBefore(vs []string, i int) bool {
	if i > 16 {
		return vs[i] == vs[i-1]
	}
	for _, v := range vs[:i] {
		if v == vs[i] {
			return true
		}
	}
	return false
}

// pathKeys appends the keys of one clean absolute path: its ancestors, and
// those inside the root named relative to it.
func pathKeys(p, root string, keys []indexKey) []indexKey {
	for a := p; ; a = lexical.Parent(a) {
		keys = append(keys, indexKey{kindUnder, a})
		if a == "/" || a == "." {
			break
		}
	}
	// Both are clean and absolute (see Call): the lexical test is all
	// Contains would do after checking that again.
	if root != "" && lexical.ContainsClean(root, p) {
		// The ancestors inside the root are the path's prefixes at least
		// as long as the root, named from it.
		for a := p; len(a) >= len(root); a = lexical.Parent(a) {
			rel := strings.TrimPrefix(a[len(root):], "/")
			if rel == "" {
				rel = "."
			}
			keys = append(keys, indexKey{kindRelative, rel})
			if a == "/" {
				break
			}
		}
	}
	return keys
}

// index files rules by tool and key, so that a decision looks at the few
// rules that can apply to a call, whatever the size of the rule set. Rules
// that read calls exactly (allow) and folded (deny, ask) are filed apart,
// each under the tool name and keys they compare.
type index struct {
	exact, folded toolIndex
}

// toolIndex files rules by tool name or pattern.
type toolIndex struct {
	byTool map[string]*toolRules
	// globs are the distinct tool patterns with wildcards: each is tested
	// against the call's tool, so a decision costs one match per distinct
	// glob, not per rule.
	globs []string
}

// toolRules are the rules of one tool name or pattern.
type toolRules struct {
	groups map[indexKey][]int // rule positions, in order
	kinds  keyKind            // the kinds in groups
	// lengths has bit n set when groups holds a key of n bytes (the last
	// bit for any longer one): a call's ancestors of other lengths are not
	// looked up, so a call deep in a tree probes one or two of them, not
	// every level.
	lengths uint64
}

func lengthBit(key string) uint64 { return 1 << min(len(key), 63) }

// mayHold reports whether groups may hold k.
func (t *toolRules) mayHold(k indexKey) bool {
	return t.kinds&k.kind != 0 && t.lengths&lengthBit(k.value) != 0
}

func newIndex() index {
	return index{exact: toolIndex{byTool: map[string]*toolRules{}}, folded: toolIndex{byTool: map[string]*toolRules{}}}
}

// add files rule i, whose matcher is m: amortised O(1), so a set of rules
// (a fleet's grants) grows one at a time without being indexed again.
func (ix *index) add(i int, m *Matcher) {
	ti, tool := &ix.exact, m.Tool
	if m.Any {
		ti, tool = &ix.folded, lexical.Fold(m.Tool)
	}
	if !lexical.IsGlob(tool) {
		tool = lexical.UnescapeTool(tool) // filed under the one name it matches
	}
	t := ti.byTool[tool]
	if t == nil {
		t = &toolRules{groups: map[indexKey][]int{}}
		ti.byTool[tool] = t
		if lexical.IsGlob(tool) {
			ti.globs = append(ti.globs, tool) // the order of globs is no matter: candidates are sorted
		}
	}
	for _, k := range indexKeys(m) {
		t.groups[k] = append(t.groups[k], i)
		t.kinds |= k.kind
		t.lengths |= lengthBit(k.value)
	}
}

// candidates appends to out the positions of the rules that may match the
// call, ascending, without duplicates.
func (ix *index) candidates(c *Call, out []int) []int {
	var buf [32]indexKey
	keys := callKeys(c, buf[:0])
	ix.exact.each(c.Tool, "", func(t *toolRules) {
		for _, k := range keys {
			if t.mayHold(k) {
				out = append(out, t.groups[k]...)
			}
		}
	})
	if len(ix.folded.byTool) > 0 {
		also := ""
		if c.Tool != c.FoldedTool {
			also = c.Tool // a rule's glob may match the name only as written (see Status)
		}
		ix.folded.each(c.FoldedTool, also, func(t *toolRules) { out = t.lookUpAny(c, out) })
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// each calls f with the rules of tool, and of also when it is not "": the
// rules filed under the name, and under every glob that matches it.
func (ti *toolIndex) each(tool, also string, f func(*toolRules)) {
	if t := ti.byTool[tool]; t != nil {
		f(t)
	}
	if t := ti.byTool[also]; also != "" && t != nil {
		f(t)
	}
	for _, g := range ti.globs {
		if lexical.MatchTool(g, tool) || also != "" && lexical.MatchTool(g, also) {
			f(ti.byTool[g])
		}
	}
}
