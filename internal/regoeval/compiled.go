package regoeval

// Compiled fast paths, kept for the next Compile of the same modules.
//
// Compiling and partially evaluating the modules is most of what making an
// Engine costs (a third of a second on two cores, ten times a decision's
// whole budget), and one process often compiles the same modules many
// times over: a proxy builds a policy for each host root it is given, a Go
// agent stacks policies over one rule directory, a fleet member rebuilds
// on each bundle revision that changes only the data rules. When the rules
// are handed to Eval (not read from data) the fast path depends only on the
// modules' text and data.mcp_data's roots and protected files, so it is
// shared: the generic residual is immutable once made, and the hinted ones
// are made once for all the Deciders of one compile (they are functions of
// the compile and a tool's hints alone), each safe for concurrent use. A
// Decider is a fresh wrapper, so nothing set on one reaches another.

import (
	"crypto/sha256"
	"encoding/binary"
	"sync"

	mcprego "github.com/mcp-policy/mcp-policy/rego"
)

// keptCompiles bounds the fast paths kept: each holds a few compilers
// (about 300 KB each), and a process that keeps compiling new modules (a
// bundle a minute) must not keep every old one.
const keptCompiles = 8

// compiledFast is what a fast-path Decider shares with the others compiled
// from the same spec.
type compiledFast struct {
	fast   *residualQuery
	hinted *hintedResiduals
}

// decider is a new fast-path Decider over c.
func (c *compiledFast) decider() *Decider {
	return &Decider{fast: c.fast, hinted: c.hinted}
}

type compiledKey [sha256.Size]byte

// compiledCache keeps the last keptCompiles fast paths, the most recently
// used last.
type compiledCache struct {
	mu   sync.Mutex
	kept []compiledEntry
}

type compiledEntry struct {
	key compiledKey
	c   *compiledFast
}

var compiles compiledCache

// keyOf names a fast path by everything it is compiled from: the modules
// (names and text, in order: a module's name is in its error messages),
// the roots and the protected files. Each field is length-prefixed, so no
// two specs share a key but by a SHA-256 collision.
func keyOf(modules []mcprego.Module, roots, protected []string) compiledKey {
	h := sha256.New()
	count := func(n int) {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], uint64(n))
		h.Write(b[:])
	}
	field := func(s string) {
		count(len(s))
		h.Write([]byte(s))
	}
	list := func(ss []string) {
		count(len(ss))
		for _, s := range ss {
			field(s)
		}
	}
	count(len(modules))
	for _, m := range modules {
		field(m.Name)
		field(m.Source)
	}
	list(roots)
	list(protected)
	var k compiledKey
	h.Sum(k[:0])
	return k
}

// get is the fast path kept under k, or nil.
func (c *compiledCache) get(k compiledKey) *compiledFast {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.kept {
		if e.key == k {
			c.kept = append(append(c.kept[:i:i], c.kept[i+1:]...), e)
			return e.c
		}
	}
	return nil
}

// put keeps cf under k, dropping the least recently used beyond
// keptCompiles. Two Compiles of one spec at once both compile; the later
// put replaces the earlier.
func (c *compiledCache) put(k compiledKey, cf *compiledFast) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.kept {
		if e.key == k {
			c.kept = append(c.kept[:i:i], c.kept[i+1:]...)
			break
		}
	}
	c.kept = append(c.kept, compiledEntry{k, cf})
	if len(c.kept) > keptCompiles {
		c.kept = append([]compiledEntry(nil), c.kept[len(c.kept)-keptCompiles:]...)
	}
}
