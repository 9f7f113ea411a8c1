package regoeval

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refCache answers as OPA's own virtual cache does: a value once put, an
// undefined once recorded, nothing for a reference never put, each frame
// on its own; the same past the point where a frame is indexed by hash.
func TestRefCache(t *testing.T) {
	for _, n := range []int{1, indexFrom - 1, indexFrom, 3 * indexFrom} {
		c := newRefCache()
		ref := func(i int) ast.Ref { return ast.MustParseRef(fmt.Sprintf("data.mcp.custom.r%d", i)) }
		for i := range n {
			if i%3 == 0 {
				c.Put(ref(i), nil)
			} else {
				c.Put(ref(i), ast.IntNumberTerm(i))
			}
		}
		for i := range n {
			v, undefined := c.Get(ref(i)) // a fresh, equal reference
			if i%3 == 0 {
				assert.True(t, undefined && v == nil, "n=%d: r%d is recorded undefined", n, i)
			} else {
				assert.Equal(t, ast.IntNumberTerm(i), v, "n=%d: r%d", n, i)
				assert.False(t, undefined)
			}
		}
		v, undefined := c.Get(ref(n))
		assert.True(t, v == nil && !undefined, "n=%d: never put", n)
		assert.Len(t, c.Keys(), n-(n+2)/3, "n=%d: the keys with a value", n)

		again := ast.MustParseRef("data.again")
		c.Put(again, ast.StringTerm("first"))
		c.Put(again, ast.StringTerm("second"))
		v, _ = c.Get(again)
		assert.Equal(t, ast.StringTerm("second"), v, "n=%d: a second put replaces the first", n)

		c.Push()
		v, undefined = c.Get(again)
		assert.True(t, v == nil && !undefined, "n=%d: a new frame starts empty", n)
		c.Put(ref(0), ast.StringTerm("inner"))
		c.Pop()
		v, undefined = c.Get(ref(0))
		assert.True(t, v == nil && undefined, "n=%d: the outer frame is as it was", n)
	}
}

// OPA reuses the buffer a reference is built in: the cache must keep the
// reference as it was put, not as the buffer reads later.
func TestRefCacheKeepsItsOwnCopy(t *testing.T) {
	for _, n := range []int{0, indexFrom} { // scanned, and indexed by hash
		c := newRefCache()
		for i := range n {
			c.Put(ast.MustParseRef(fmt.Sprintf("data.filler.r%d", i)), ast.BooleanTerm(true))
		}
		buf := ast.MustParseRef(`data.p.a`)
		c.Put(buf, ast.StringTerm("va"))
		buf[2] = ast.StringTerm("b") // OPA steps its key on
		v, _ := c.Get(ast.MustParseRef(`data.p.a`))
		assert.Equal(t, ast.StringTerm("va"), v, "n=%d", n)
		v, undefined := c.Get(ast.MustParseRef(`data.p.b`))
		assert.True(t, v == nil && !undefined, "n=%d: data.p.b was never put", n)
	}
}

// refCache and OPA's own cache answer every sequence of operations alike,
// references put from a buffer that is then reused as OPA reuses its own.
func TestRefCacheAgreesWithOPAs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	names := make([]*ast.Term, 3*indexFrom) // enough to pass the hash index
	for i := range names {
		names[i] = ast.StringTerm(fmt.Sprintf("r%d", i))
	}
	for round := 0; round < 200; round++ {
		ours, opas := newRefCache(), topdown.NewVirtualCache()
		depth := 0
		buf := ast.MustParseRef("data.p.x")
		for op := 0; op < 200; op++ {
			buf[2] = names[rng.IntN(len(names))]
			switch r := rng.IntN(10); {
			case r < 4:
				var v *ast.Term
				if rng.IntN(3) > 0 {
					v = ast.IntNumberTerm(rng.IntN(5))
				}
				ours.Put(buf, v)
				opas.Put(buf, v)
			case r < 8:
				a, ua := ours.Get(buf)
				b, ub := opas.Get(buf)
				require.Equal(t, ub, ua, "round %d op %d: undefined for %v", round, op, buf)
				require.True(t, a.Equal(b) || a == nil && b == nil, "round %d op %d: %v is %v, OPA says %v", round, op, buf, a, b)
			case r == 8:
				ours.Push()
				opas.Push()
				depth++
			case depth > 0:
				ours.Pop()
				opas.Pop()
				depth--
			}
		}
		require.ElementsMatch(t, refStrings(opas.Keys()), refStrings(ours.Keys()), "round %d: keys", round)
	}
}

func refStrings(refs []ast.Ref) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.String()
	}
	return out
}
