package builtins

import (
	"path"
	"slices"
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

// Call is a call as matching sees it. Root and Paths are clean and
// absolute (Root "" for none), Hosts normalised; "" stands for a path or
// host that cannot be evaluated. Matching relies on it: see CallOf.
// Annotations nil means the tool's catalogue entry is unknown.
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

// keyKind is what a rule is filed under: the directory it is under
// (absolute, or relative to the root), else its host (exact, or the domain
// of a wildcard), else nothing; plus the catch-alls that a call with no
// known path, no root or no known host must still look at. Kinds are bits,
// so that a tool's rules record which kinds they use and a lookup skips the
// keys of any other kind.
type keyKind uint8

const (
	kindPlain    keyKind = 1 << iota // neither under nor host
	kindUnder                        // absolute under
	kindRelative                     // under relative to the root
	kindHost                         // exact host
	kindDomain                       // "*.domain": the domain
	kindAnyPath                      // any under: for a call with no known path
	kindAnyRoot                      // any relative under: for a call with no root
	kindAnyHost                      // any host: for a call with no known host
)

// indexKey is a key within one tool's rules. A struct, not a joined
// string, so that a lookup allocates nothing.
type indexKey struct {
	kind  keyKind
	value string
}

func indexKeys(m *Matcher) []indexKey {
	switch {
	case m.Under != "" && path.IsAbs(m.Under):
		return []indexKey{{kindUnder, m.Under}, {kindAnyPath, ""}}
	case m.Under != "":
		return []indexKey{{kindRelative, m.Under}, {kindAnyPath, ""}, {kindAnyRoot, ""}}
	case strings.HasPrefix(m.Host, "*."):
		return []indexKey{{kindDomain, m.Host[2:]}, {kindAnyHost, ""}}
	case m.Host != "":
		return []indexKey{{kindHost, m.Host}, {kindAnyHost, ""}}
	}
	return []indexKey{{kindPlain, ""}}
}

// callKeys appends to keys the keys to look a call up under: a rule not
// filed under one of them cannot match, because its directory does not
// contain the call's first known path, or its host does not match the first
// known host. The call's paths are clean and absolute, or "" (see CallOf).
func callKeys(c *Call, keys []indexKey) []indexKey {
	keys = append(keys, indexKey{kind: kindPlain})
	if len(c.Paths) > 0 {
		first := firstKnown(c.Paths)
		if first == "" {
			keys = append(keys, indexKey{kind: kindAnyPath})
		} else {
			for a := first; ; a = parent(a) {
				keys = append(keys, indexKey{kindUnder, a})
				if a == "/" || a == "." {
					break
				}
			}
			if root := c.Root; root != "" && Contains(root, first) == Inside {
				// The ancestors inside the root are the first path's
				// prefixes at least as long as the root, named from it.
				for a := first; len(a) >= len(root); a = parent(a) {
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
		}
		if c.Root == "" {
			keys = append(keys, indexKey{kind: kindAnyRoot})
		}
	}
	if len(c.Hosts) > 0 {
		if first := firstKnown(c.Hosts); first == "" {
			keys = append(keys, indexKey{kind: kindAnyHost})
		} else {
			keys = append(keys, indexKey{kindHost, first})
			for _, s := range HostSuffixes(first) {
				keys = append(keys, indexKey{kindDomain, s})
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

func buildIndex(ms []Matcher) index {
	ix := index{byTool: map[string]*toolRules{}}
	for i := range ms {
		m := &ms[i]
		t := ix.byTool[m.Tool]
		if t == nil {
			t = &toolRules{groups: map[indexKey][]int{}}
			ix.byTool[m.Tool] = t
			if IsGlob(m.Tool) {
				ix.globs = append(ix.globs, m.Tool)
			}
		}
		for _, k := range indexKeys(m) {
			t.groups[k] = append(t.groups[k], i)
			t.kinds |= k.kind
			t.lengths |= lengthBit(k.value)
		}
	}
	sort.Strings(ix.globs)
	return ix
}

// candidates appends to out the positions of the rules that may match the
// call, ascending, without duplicates.
func (ix *index) candidates(c *Call, out []int) []int {
	var buf [32]indexKey
	keys := callKeys(c, buf[:0])
	lookUp := func(t *toolRules) {
		for _, k := range keys {
			if t.mayHold(k) {
				out = append(out, t.groups[k]...)
			}
		}
	}
	if t := ix.byTool[c.Tool]; t != nil {
		lookUp(t)
	}
	for _, g := range ix.globs {
		if MatchTool(g, c.Tool) {
			lookUp(ix.byTool[g])
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
