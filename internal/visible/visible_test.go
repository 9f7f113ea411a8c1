package visible_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-policy/mcp-policy/internal/visible"
)

// TestWholeNeverCuts: a name shown whole is all of it, escaped where it
// is not plain, however long.
func TestWholeNeverCuts(t *testing.T) {
	long := strings.Repeat("n", 200) + "_tail"
	assert.Equal(t, long, visible.Whole(long))
	assert.Equal(t, `"run\u202etxt.exe"`, visible.Whole("run\u202etxt.exe"))
	assert.Equal(t, `"x\u001b]0;pwned\u0007"`, visible.Whole("x\x1b]0;pwned\x07"))
	assert.Equal(t, `""`, visible.Whole(""))
	assert.Equal(t, visible.Whole("a\u202eb"), visible.Whole(visible.Whole("a\u202eb")), "escaped once is escaped")
}

// TestLinesKeepLinesAndEscapeTheRest: text of several lines keeps its
// line breaks and nothing else that is not seen: a terminal escape, a
// carriage return that would overwrite a line, a bidi control.
func TestLinesKeepLinesAndEscapeTheRest(t *testing.T) {
	assert.Equal(t, "one\ntwo \\u001b[1A\\u001b[2Kfake\\r\\u202e", visible.Lines("one\ntwo \x1b[1A\x1b[2Kfake\r\u202e"))
	assert.Equal(t, "  indented  runs", visible.Lines("  indented  runs"), "spaces are seen in a <pre> and a terminal")
}

// FuzzLines: whatever comes in, nothing unseen but a line break comes
// out, and escaping twice is escaping once.
func FuzzLines(f *testing.F) {
	for _, s := range []string{"", "a\nb", "\x1b]0;x\x07", "\u202e\u2066", "\xff\xfe", "\U000e0041"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := visible.Lines(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 from %q", s)
		}
		for _, r := range out {
			if r != '\n' && visible.Unseen(r) {
				t.Fatalf("%q: %U left raw in %q", s, r, out)
			}
		}
		if again := visible.Lines(out); again != out {
			t.Fatalf("%q: escaped twice %q, once %q", s, again, out)
		}
		if w := visible.Whole(s); strings.ContainsFunc(w, visible.Unseen) {
			t.Fatalf("Whole(%q) = %q", s, w)
		}
	})
}

// A long path is cut in its middle: the file it names stays in sight,
// with how long the whole is.
func TestShownPathKeepsTheFileName(t *testing.T) {
	long := "/srv/app/" + strings.Repeat("deep/", 60) + ".env"
	got := visible.ShownPath(long, 80)
	assert.True(t, strings.HasSuffix(got, `/deep/deep/.env" (313 characters)`), got)
	assert.True(t, strings.HasPrefix(got, `"/srv/app/`), got)
	assert.Equal(t, "/srv/app/.env", visible.ShownPath("/srv/app/.env", 80))
	assert.Equal(t, `"/srv/\u202e.env"`, visible.ShownPath("/srv/\u202e.env", 80), "escaped as Shown escapes")
}
