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

// Index keys. A rule is filed under the directory it is under ("u:"
// absolute, "r:" relative to the root), else its host ("h:" exact, "w:" the
// domain of a wildcard), else "-"; and under the catch-alls that a call with
// no known path ("*u"), no root ("*r") or no known host ("*h") must still
// look at.
func indexKeys(m *Matcher) []string {
	switch {
	case m.Under != "" && path.IsAbs(m.Under):
		return []string{"u:" + m.Under, "*u"}
	case m.Under != "":
		return []string{"r:" + m.Under, "*u", "*r"}
	case strings.HasPrefix(m.Host, "*."):
		return []string{"w:" + m.Host[2:], "*h"}
	case m.Host != "":
		return []string{"h:" + m.Host, "*h"}
	}
	return []string{"-"}
}

// callKeys are the keys to look a call up under: a rule not filed under one
// of them cannot match, because its directory does not contain the call's
// first known path, or its host does not match the first known host.
func callKeys(c *Call) []string {
	keys := []string{"-"}
	if len(c.Paths) > 0 {
		first := firstKnown(c.Paths)
		if first == "" {
			keys = append(keys, "*u")
		} else {
			for _, a := range Ancestors(first) {
				keys = append(keys, "u:"+a)
			}
			if c.Root != "" && Contains(c.Root, first) == Inside {
				root := path.Clean(c.Root)
				for _, a := range Ancestors(first) {
					if Contains(root, a) != Inside {
						break
					}
					rel := strings.TrimPrefix(strings.TrimPrefix(a, root), "/")
					if rel == "" {
						rel = "."
					}
					keys = append(keys, "r:"+rel)
				}
			}
		}
		if c.Root == "" {
			keys = append(keys, "*r")
		}
	}
	if len(c.Hosts) > 0 {
		if first := firstKnown(c.Hosts); first == "" {
			keys = append(keys, "*h")
		} else {
			keys = append(keys, "h:"+first)
			for _, s := range HostSuffixes(first) {
				keys = append(keys, "w:"+s)
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

// Index files rules by tool and key, so that a decision looks at the few
// rules that can apply to a call, whatever the size of the rule set.
type Index struct {
	// Groups maps "<tool glob>\x00<key>" to rule positions, in order.
	Groups map[string][]int
	// Globs are the distinct tool patterns with wildcards: each is tested
	// against the call's tool, so a decision costs one match per distinct
	// glob, not per rule.
	Globs []string
}

func groupKey(tool, key string) string { return tool + "\x00" + key }

// BuildIndex indexes rules by position.
func BuildIndex(ms []Matcher) Index {
	ix := Index{Groups: map[string][]int{}}
	globs := map[string]bool{}
	for i := range ms {
		m := &ms[i]
		if IsGlob(m.Tool) && !globs[m.Tool] {
			globs[m.Tool] = true
			ix.Globs = append(ix.Globs, m.Tool)
		}
		for _, k := range indexKeys(m) {
			g := groupKey(m.Tool, k)
			ix.Groups[g] = append(ix.Groups[g], i)
		}
	}
	sort.Strings(ix.Globs)
	return ix
}

// Candidates returns the positions of the rules that may match the call,
// ascending, without duplicates.
func (ix *Index) Candidates(c *Call) []int {
	return candidates(c, ix.Globs, func(g string) []int { return ix.Groups[g] })
}

// candidates is shared by the Go index and its Rego data form.
func candidates(c *Call, globs []string, group func(string) []int) []int {
	tools := []string{c.Tool}
	for _, g := range globs {
		if MatchTool(g, c.Tool) {
			tools = append(tools, g)
		}
	}
	keys := callKeys(c)
	var out []int
	for _, t := range tools {
		for _, k := range keys {
			out = append(out, group(groupKey(t, k))...)
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
