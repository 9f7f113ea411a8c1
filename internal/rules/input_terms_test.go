package rules

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/provider"
)

// The engine keeps one annotations term per combination of hints; each
// must be the term of its own hints, however often and in whatever order
// the combinations come.
func TestAnnotationsTermPerCombination(t *testing.T) {
	e, err := NewEngine(context.Background(), Config{})
	require.NoError(t, err)
	states := []*bool{nil, ptr(false), ptr(true)}
	var all []*provider.Annotations
	for _, r := range states {
		for _, d := range states {
			for _, i := range states {
				for _, o := range states {
					all = append(all, &provider.Annotations{ReadOnlyHint: r, DestructiveHint: d, IdempotentHint: i, OpenWorldHint: o})
				}
			}
		}
	}
	for round := range 2 {
		for i := range all {
			a := all[(i*7+round)%len(all)] // another order each round
			got := e.annotationsTerm(a.Hints())
			require.True(t, annotationsTerm(a.Hints()).Equal(got), "%+v: got %v", *a, got)
		}
	}
	require.True(t, ast.InternedNullTerm.Equal(e.annotationsTerm(nil)), "an unknown catalogue is null")
	// A hint outside the four is in its term, and takes no cached one.
	other := map[string]bool{"readOnlyHint": true, "futureHint": true}
	require.True(t, annotationsTerm(other).Equal(e.annotationsTerm(other)))
	require.True(t, annotationsTerm(map[string]bool{"readOnlyHint": true}).Equal(e.annotationsTerm(map[string]bool{"readOnlyHint": true})))
}
