package regoeval

import (
	"slices"

	"github.com/open-policy-agent/opa/v1/ast"
)

// refCache is the virtual-document cache of one evaluation (OPA's
// topdown.VirtualCache): a rule's value is computed once per evaluation
// however often it is referred to. OPA's own keeps a trie of hash maps, one
// per element of each reference, and a decision caches few references with
// long paths (data.mcp_engine_partial.mcp.floor.ask), so building that trie
// was a fourteenth of a decision. This keeps each frame's entries in a list,
// and indexes them by hash only once a frame holds many.
type refCache struct {
	frames []refFrame
	first  [4]refFrame // frames' first backing array: one allocation per evaluation, not two
}

type refFrame struct {
	entries []cachedRef
	byHash  map[int][]int // entries' indices, once there are indexFrom of them
}

// cachedRef is a reference's value, or the record that it is undefined.
// As in OPA's cache, a reference once recorded undefined stays so.
type cachedRef struct {
	ref       ast.Ref
	value     *ast.Term
	undefined bool
}

// indexFrom is where a frame stops being scanned: past it a scan would make
// a large module's evaluation quadratic.
const indexFrom = 16

func newRefCache() *refCache {
	c := &refCache{}
	c.frames = c.first[:1]
	return c
}

func (c *refCache) Push() { c.frames = append(c.frames, refFrame{}) }

func (c *refCache) Pop() {
	c.frames[len(c.frames)-1] = refFrame{}
	c.frames = c.frames[:len(c.frames)-1]
}

// Get returns the cached value of ref: (value, false) when defined, (nil,
// true) when recorded as undefined, (nil, false) when not cached.
func (c *refCache) Get(ref ast.Ref) (*ast.Term, bool) {
	f := &c.frames[len(c.frames)-1]
	if i := f.find(ref); i >= 0 {
		if e := f.entries[i]; !e.undefined {
			return e.value, false
		}
		return nil, true
	}
	return nil, false
}

// Put records ref's value; nil records that it is undefined.
func (c *refCache) Put(ref ast.Ref, value *ast.Term) {
	f := &c.frames[len(c.frames)-1]
	if i := f.find(ref); i >= 0 {
		f.entries[i].set(value)
		return
	}
	// A copy: OPA hands over references that share a buffer it goes on
	// writing the next reference into (a variable key being stepped
	// through), so the one kept here would turn into another.
	e := cachedRef{ref: slices.Clone(ref)}
	e.set(value)
	f.entries = append(f.entries, e)
	switch n := len(f.entries); {
	case n == indexFrom:
		f.byHash = make(map[int][]int, 2*n)
		for i, e := range f.entries {
			h := e.ref.Hash()
			f.byHash[h] = append(f.byHash[h], i)
		}
	case n > indexFrom:
		h := ref.Hash()
		f.byHash[h] = append(f.byHash[h], n-1)
	}
}

// Keys returns the references the active frame holds a value for.
func (c *refCache) Keys() []ast.Ref {
	var keys []ast.Ref
	for _, e := range c.frames[len(c.frames)-1].entries {
		if e.value != nil { // as OPA lists them
			keys = append(keys, e.ref)
		}
	}
	return keys
}

func (e *cachedRef) set(value *ast.Term) {
	if value == nil {
		e.undefined = true
	} else {
		e.value = value
	}
}

func (f *refFrame) find(ref ast.Ref) int {
	if f.byHash == nil {
		for i := range f.entries {
			if f.entries[i].ref.Equal(ref) {
				return i
			}
		}
		return -1
	}
	for _, i := range f.byHash[ref.Hash()] {
		if f.entries[i].ref.Equal(ref) {
			return i
		}
	}
	return -1
}
