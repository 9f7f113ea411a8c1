package builtins

import (
	"path"
	"sort"
	"strings"
)

// Matcher is the part of a rule that decides whether it applies to a call:
// its tool glob, directory, host pattern and annotation hints. Under is
// clean, absolute or relative to the call's root; Host is normalised.
type Matcher struct {
	Tool        string
	Under       string
	Host        string
	Annotations map[string]bool
}

// Call is a call as matching sees it. Paths are resolved and clean, Hosts
// normalised; "" stands for one that cannot be evaluated. Annotations nil
// means the tool's catalogue entry is unknown.
type Call struct {
	Tool        string
	Root        string
	Annotations map[string]bool
	Paths       []string
	Hosts       []string
}

// Status is how one rule relates to one call.
type Status int

const (
	NoMatch Status = iota
	Matches
	// MaybeMatches: the rule matches if an unevaluable path or URL (or a
	// relative directory with no root) is what it might be.
	MaybeMatches
)

func (s Status) String() string {
	switch s {
	case Matches:
		return "match"
	case MaybeMatches:
		return "unknown"
	default:
		return "no"
	}
}

// Status tests the rule against the call. Every condition must hold; any
// that fails is NoMatch, else any unknown is MaybeMatches.
func (m *Matcher) Status(c *Call) Status {
	if !MatchTool(m.Tool, c.Tool) {
		return NoMatch
	}
	if len(m.Annotations) > 0 {
		// An unknown catalogue never matches a rule that tests hints.
		if c.Annotations == nil {
			return NoMatch
		}
		for k, want := range m.Annotations {
			if got, ok := c.Annotations[k]; !ok || got != want {
				return NoMatch
			}
		}
	}
	st := Matches
	if m.Under != "" {
		var in Containment
		if dir, ok := m.dir(c.Root); ok {
			in = WithinAll(dir, c.Paths)
		} else if len(c.Paths) == 0 {
			in = Outside
		}
		switch in {
		case Outside:
			return NoMatch
		case Unknown:
			st = MaybeMatches
		}
	}
	if m.Host != "" {
		switch MatchAllHosts(m.Host, c.Hosts) {
		case HostMismatch:
			return NoMatch
		case HostUnknown:
			st = MaybeMatches
		}
	}
	return st
}

// dir is the rule's directory for a call with the given root.
func (m *Matcher) dir(root string) (string, bool) {
	if path.IsAbs(m.Under) {
		return m.Under, true
	}
	return Resolve(root, m.Under)
}

// indexKey files rules. A rule is filed under the directory it is under
// (kind 'u' absolute, 'r' relative to the root), else its host ('h' exact,
// 'w' the domain of a wildcard), else '-'; and under the catch-alls that a
// call with no known path ('U'), no root ('R') or no known host ('H') must
// still look at. A struct, not a joined string, so that a lookup allocates
// nothing.
type indexKey struct {
	tool  string
	kind  byte
	value string
}

func indexKeys(m *Matcher) []indexKey {
	k := func(kind byte, value string) indexKey { return indexKey{m.Tool, kind, value} }
	switch {
	case m.Under != "" && path.IsAbs(m.Under):
		return []indexKey{k('u', m.Under), k('U', "")}
	case m.Under != "":
		return []indexKey{k('r', m.Under), k('U', ""), k('R', "")}
	case strings.HasPrefix(m.Host, "*."):
		return []indexKey{k('w', m.Host[2:]), k('H', "")}
	case m.Host != "":
		return []indexKey{k('h', m.Host), k('H', "")}
	}
	return []indexKey{k('-', "")}
}

// callKeys are the keys (without the tool) to look a call up under: a rule
// not filed under one of them cannot match, because its directory does not
// contain the call's first known path, or its host does not match the first
// known host.
func callKeys(c *Call) []indexKey {
	keys := make([]indexKey, 1, 16)
	keys[0] = indexKey{kind: '-'}
	if len(c.Paths) > 0 {
		first := firstKnown(c.Paths)
		if first == "" {
			keys = append(keys, indexKey{kind: 'U'})
		} else {
			ancestors := Ancestors(first)
			for _, a := range ancestors {
				keys = append(keys, indexKey{kind: 'u', value: a})
			}
			if c.Root != "" && Contains(c.Root, first) == Inside {
				root := path.Clean(c.Root)
				for _, a := range ancestors {
					if Contains(root, a) != Inside {
						break
					}
					rel := strings.TrimPrefix(strings.TrimPrefix(a, root), "/")
					if rel == "" {
						rel = "."
					}
					keys = append(keys, indexKey{kind: 'r', value: rel})
				}
			}
		}
		if c.Root == "" {
			keys = append(keys, indexKey{kind: 'R'})
		}
	}
	if len(c.Hosts) > 0 {
		if first := firstKnown(c.Hosts); first == "" {
			keys = append(keys, indexKey{kind: 'H'})
		} else {
			keys = append(keys, indexKey{kind: 'h', value: first})
			for _, s := range HostSuffixes(first) {
				keys = append(keys, indexKey{kind: 'w', value: s})
			}
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

// index files rules by tool and key, so that a decision looks at the few
// rules that can apply to a call, whatever the size of the rule set.
type index struct {
	groups map[indexKey][]int // rule positions, in order
	// globs are the distinct tool patterns with wildcards: each is tested
	// against the call's tool, so a decision costs one match per distinct
	// glob, not per rule.
	globs []string
}

func buildIndex(ms []Matcher) index {
	ix := index{groups: map[indexKey][]int{}}
	globs := map[string]bool{}
	for i := range ms {
		m := &ms[i]
		if IsGlob(m.Tool) && !globs[m.Tool] {
			globs[m.Tool] = true
			ix.globs = append(ix.globs, m.Tool)
		}
		for _, k := range indexKeys(m) {
			ix.groups[k] = append(ix.groups[k], i)
		}
	}
	sort.Strings(ix.globs)
	return ix
}

// candidates returns the positions of the rules that may match the call,
// ascending, without duplicates.
func (ix *index) candidates(c *Call) []int {
	keys := callKeys(c)
	var out []int
	lookUp := func(tool string) {
		for _, k := range keys {
			k.tool = tool
			out = append(out, ix.groups[k]...)
		}
	}
	lookUp(c.Tool)
	for _, g := range ix.globs {
		if MatchTool(g, c.Tool) {
			lookUp(g)
		}
	}
	sort.Ints(out)
	uniq := out[:0]
	for i, p := range out {
		if i == 0 || p != out[i-1] {
			uniq = append(uniq, p)
		}
	}
	return uniq
}
