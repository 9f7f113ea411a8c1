package argread

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/syntax"
)

// FuzzLiteralWord holds literalWord, which takes a word's text as written
// where quote removal is all the shell does (asWritten), to mvdan.cc/sh's
// expand: for every literal word of a line, the same text.
func FuzzLiteralWord(f *testing.F) {
	data, err := os.ReadFile("testdata/commands.json")
	require.NoError(f, err)
	var cases []struct {
		Line string `json:"line"`
	}
	require.NoError(f, json.Unmarshal(data, &cases))
	for _, c := range cases {
		f.Add(c.Line)
	}
	for _, s := range []string{`a"b"'c'`, `"a\"b"`, `a\ b`, `$'a\nb'`, `$"x"`, `''`, `""`, `"a$b"`, `'a\b'`} {
		f.Add("echo " + s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 4096 {
			return
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
		if err != nil {
			return
		}
		syntax.Walk(file, func(n syntax.Node) bool {
			w, ok := n.(*syntax.Word)
			if !ok {
				return true
			}
			text, ok := literalWord(w)
			if !ok {
				return true
			}
			expanded, ok := expandedLiteral(w)
			if !ok {
				t.Fatalf("%q: literalWord reads %q, expand refuses it", line, text)
			}
			if text != expanded {
				t.Fatalf("%q: literalWord reads %q, expand %q", line, text, expanded)
			}
			return true
		})
	})
}
