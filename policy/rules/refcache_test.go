package rules

import (
	"fmt"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/stretchr/testify/assert"
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
