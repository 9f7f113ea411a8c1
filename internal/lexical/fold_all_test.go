package lexical_test

import (
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

// Folding is a fixed point, and every spelling of a letter folds alike,
// for every code point there is: a rune whose case-fold is not stable
// would let a deny written in one case miss a path written in the other
// (x/text's caser turns Cherokee upper case to lower and lower to upper).
func TestFoldEveryRune(t *testing.T) {
	bad := 0
	for r := rune(0); r <= unicode.MaxRune && bad < 20; r++ {
		if !utf8.ValidRune(r) || r == '/' {
			continue
		}
		f := lexical.Fold(string(r))
		if again := lexical.Fold(f); again != f {
			t.Errorf("U+%04X %q folds to %q, which folds to %q", r, string(r), f, again)
			bad++
		}
		for o := unicode.SimpleFold(r); o != r; o = unicode.SimpleFold(o) {
			if g := lexical.Fold(string(o)); g != f {
				t.Errorf("U+%04X %q folds to %q but its case partner U+%04X %q to %q", r, string(r), f, o, string(o), g)
				bad++
			}
		}
	}
}
