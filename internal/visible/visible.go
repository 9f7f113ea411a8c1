// Package visible renders words that come from a model, a server or a
// file someone else could have written, for a human to read: every
// character that is not plainly seen where it stands (control characters,
// terminal escapes, bidi controls, zero-width and other invisible
// characters) is written as a JSON-style escape, so what is read is what
// is there. One escaping serves the proxy's questions, the approvals page
// and the approve command's terminal output.
package visible

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Shown renders words (a name, a value, a key, a reason, a path) for one
// line: as they are when they are at most max characters and plain, else
// quoted as a JSON string with every character that is not plainly seen
// escaped, cut at max*3/4 characters with their length after.
func Shown(s string, max int) string {
	if utf8.RuneCountInString(s) <= max && Plain(s) {
		return s
	}
	return Quote(s, max*3/4)
}

// Whole renders words for one line as Shown does, but never cut: where
// what is shown must be all there is (a tool's name on an approver's
// page, a grant about to be revoked).
func Whole(s string) string {
	if Plain(s) {
		return s
	}
	return `"` + strings.Join(Pieces(s), "") + `"`
}

// Quote is s as a JSON string, every character that is not plainly seen
// escaped (Rune), cut at n characters as shown, with the length of s
// after it when it was cut.
func Quote(s string, n int) string {
	pieces := Pieces(s)
	width := 0
	for i, piece := range pieces {
		if width+utf8.RuneCountInString(piece) > n {
			return fmt.Sprintf("\"%s…\" (%d characters)", strings.Join(pieces[:i], ""), len(pieces))
		}
		width += utf8.RuneCountInString(piece)
	}
	return `"` + strings.Join(pieces, "") + `"`
}

// ShownPath renders a path as Shown does, but cut in the middle when it is
// long: its end — the file it names — is what a human must see, and a
// path made long on purpose must not push the file name out of sight.
func ShownPath(s string, max int) string {
	if utf8.RuneCountInString(s) <= max && Plain(s) {
		return s
	}
	pieces := Pieces(s)
	if len(pieces) <= max {
		return `"` + strings.Join(pieces, "") + `"`
	}
	head, tail := max/4, max-max/4
	return fmt.Sprintf("\"%s…%s\" (%d characters)", strings.Join(pieces[:head], ""), strings.Join(pieces[len(pieces)-tail:], ""), len(pieces))
}

// Pieces is each character of s as a question shows it in a JSON string.
func Pieces(s string) []string {
	var pieces []string
	prev := rune(0)
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		pieces = append(pieces, Rune(r, prev, true))
		prev = r
	}
	return pieces
}

// Rune is r as a question shows it, prev the character before it:
// itself, or escaped as in a JSON string when it is not plainly seen
// (Unseen), or a space after a space (a run of spaces, wrapped, makes
// what follows look like a line of its own). inString escapes the quote
// and the backslash too.
func Rune(r, prev rune, inString bool) string {
	switch {
	case inString && r == '"':
		return `\"`
	case inString && r == '\\':
		return `\\`
	case r == '\n':
		return `\n`
	case r == '\r':
		return `\r`
	case r == '\t':
		return `\t`
	case r == ' ' && prev == ' ':
		return `\u0020`
	case r == ' ' || !Unseen(r):
		return string(r)
	case r > 0xFFFF:
		r1, r2 := utf16.EncodeRune(r)
		return fmt.Sprintf(`\u%04x\u%04x`, r1, r2)
	default:
		return fmt.Sprintf(`\u%04x`, r)
	}
}

// Plain says s can be shown as it is: no character in it is unseen, and it
// has no run of spaces and none at either end (a run of spaces, wrapped,
// makes what follows look like a line of its own).
func Plain(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' || strings.Contains(s, "  ") || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if Unseen(r) {
			return false
		}
	}
	return true
}

// Unseen says r is not plainly seen where it stands: control characters
// (line breaks and ESC among them), format characters (the bidi controls
// U+202A–U+202E and U+2066–U+2069, zero-width characters, tags),
// separators and spaces other than the ASCII space, and the characters
// Unicode says to show as nothing (variation selectors, Hangul fillers, …).
func Unseen(r rune) bool {
	if r == ' ' {
		return false
	}
	return !unicode.IsPrint(r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		unicode.Is(unicode.Variation_Selector, r) || r == utf8.RuneError
}

// JSON escapes, in JSON text as json.Marshal writes it, each character
// that is not plainly seen, and each space after a space: there are none
// outside its strings, so the text means what it meant.
func JSON(s string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		b.WriteString(Rune(r, prev, false))
		prev = r
	}
	return b.String()
}

// Lines is text of several lines (a question's message, indented JSON) as
// a page or a terminal shows it: its line breaks kept, every other
// character that is not plainly seen escaped, nothing cut. Text already
// so escaped comes out the same, so a reader may apply it to what a
// writer escaped before.
func Lines(s string) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if r == '\n' || !Unseen(r) {
			b.WriteRune(r)
		} else {
			b.WriteString(Rune(r, 0, false))
		}
	}
	return b.String()
}
