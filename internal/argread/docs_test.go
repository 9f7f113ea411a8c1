package argread

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Update rewrites what the tests hold the code to: testdata/readings.json
// and the name table of docs/arguments.md.
var Update = flag.Bool("update", false, "rewrite testdata/readings.json and docs/arguments.md's name table from today's reader")

const (
	namesPage  = "../../docs/arguments.md"
	namesBegin = "<!-- name table: made from argread's nameTable by `go test ./internal/argread -run NamesPage -update` -->\n"
	namesEnd   = "<!-- end of name table -->\n"
)

// TestNamesPage: the name table in docs/arguments.md is the code's, made
// from nameTable, pathWords, stopWords and stopNames.
func TestNamesPage(t *testing.T) {
	page, err := os.ReadFile(namesPage)
	require.NoError(t, err)
	text := string(page)
	begin, end := strings.Index(text, namesBegin), strings.Index(text, namesEnd)
	require.True(t, begin >= 0 && end > begin, "docs/arguments.md has no name table markers")
	want := text[:begin+len(namesBegin)] + namesTable() + text[end:]
	if *Update {
		require.NoError(t, os.WriteFile(namesPage, []byte(want), 0o644))
		return
	}
	require.Equal(t, want, text, "docs/arguments.md's name table is not the code's: go test ./internal/argread -run NamesPage -update")
}

func namesTable() string {
	var b strings.Builder
	b.WriteString("\n| class | names | and names that end in |\n|---|---|---|\n")
	for _, row := range nameTable {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", describe(row.class), codes(row.listed), codes(row.endings))
	}
	var words []string
	for _, w := range pathWords {
		words = append(words, w.word)
	}
	fmt.Fprintf(&b, "| path or directory, for strings only | names with %s anywhere in them | |\n", codes(words))
	fmt.Fprintf(&b, "\n**Stop words:** %s.\n\n**Stop names:** %s.\n\n", codes(sortedSet(stopWords)), codes(sortedSet(stopNames)))
	return b.String()
}

func describe(c Class) string {
	kind := map[Kind]string{Path: "path", Dir: "directory", URL: "URL", Host: "host", Content: "content", Label: "label", Command: "command words", Shell: "shell command line", Patch: "patch", Compose: "Compose file", Ignore: "left out (only an option is read)"}[c.Kind]
	switch {
	case c.Evidence == Weak && c.Dotted:
		return "weak " + kind + " (an address, or a dotted name)"
	case c.Evidence == Weak:
		return "weak " + kind
	}
	return kind
}

func codes(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "`" + n + "`"
	}
	return strings.Join(out, ", ")
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
