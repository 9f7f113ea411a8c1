// Package strictjson reads JSON text as a security layer must: what
// encoding/json reads, less what it silently accepts (invalid UTF-8,
// duplicate keys, lone surrogates), straight into OPA's AST.
package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Check rejects what encoding/json would silently accept and a security
// library must not: invalid UTF-8 (json replaces it with U+FFFD, so two
// different byte strings would look the same to a rule) and duplicate object
// keys (json keeps the last, while the server behind us may keep the first).
func Check(data []byte) error {
	_, err := Decode(data)
	return err
}

// Decode decodes one JSON value as Check checks it, in the same
// pass, straight into the AST the Rego input is made of: a call's
// arguments are read once, not decoded to Go values and converted again.
// Numbers keep their text. encoding/json judges the grammar and unquotes
// escaped strings; this only walks what it has accepted.
func Decode(data []byte) (ast.Value, error) {
	if err := CheckText(data); err != nil {
		return nil, err
	}
	w := jsonWalker{data: data}
	return w.value()
}

// DecodeObject is Decode for text that must hold an object: its
// members in the order written (no object is built only to be taken apart).
// ok is false for any other JSON value.
func DecodeObject(data []byte) (items [][2]*ast.Term, ok bool, err error) {
	if err := CheckText(data); err != nil {
		return nil, false, err
	}
	w := jsonWalker{data: data}
	if w.skipSpace(); w.data[w.i] != '{' {
		return nil, false, nil
	}
	items, err = w.object()
	return items, err == nil, err
}

// CheckFolded is Check that also refuses an object with two member names
// equal but for case ("description" and "DESCRIPTION"): a reader built on
// Go's encoding/json matches a struct field in any case, the last name
// winning, where a JavaScript reader takes each name as written, so text
// meant for both must not have such twins.
func CheckFolded(data []byte) error {
	if err := CheckText(data); err != nil {
		return err
	}
	w := jsonWalker{data: data, folded: true}
	_, err := w.value()
	return err
}

// CheckText is what a walker needs of its text: valid UTF-8 and JSON.
func CheckText(data []byte) error {
	if !utf8.Valid(data) {
		return errors.New("invalid UTF-8")
	}
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v) // for the message: Valid only says no
		if err == nil {
			err = errors.New("rejected by encoding/json")
		}
		return fmt.Errorf("invalid JSON: %v", err)
	}
	return nil
}

// jsonWalker reads JSON that json.Valid has accepted, so it meets only
// well-formed text and need not report grammar errors.
type jsonWalker struct {
	data []byte
	i    int
	// folded: refuse member names equal but for case (CheckFolded).
	folded bool
}

func (w *jsonWalker) skipSpace() {
	for w.i < len(w.data) {
		switch w.data[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

func (w *jsonWalker) value() (ast.Value, error) {
	w.skipSpace()
	switch c := w.data[w.i]; c {
	case '{':
		items, err := w.object()
		if err != nil {
			return nil, err
		}
		return ast.NewObject(items...), nil
	case '[':
		w.i++
		var terms []*ast.Term
		for {
			w.skipSpace()
			if w.data[w.i] == ']' {
				w.i++
				return ast.NewArray(terms...), nil
			}
			if w.data[w.i] == ',' {
				w.i++
			}
			v, err := w.value()
			if err != nil {
				return nil, err
			}
			terms = append(terms, ast.NewTerm(v))
		}
	case '"':
		s, err := w.str()
		return ast.String(s), err
	case 't':
		w.i += len("true")
		return ast.Boolean(true), nil
	case 'f':
		w.i += len("false")
		return ast.Boolean(false), nil
	case 'n':
		w.i += len("null")
		return ast.Null{}, nil
	default: // a number: its text, as json.Number keeps it
		start := w.i
		for w.i < len(w.data) && isNumberByte(w.data[w.i]) {
			w.i++
		}
		return ast.Number(w.data[start:w.i]), nil
	}
}

// object reads an object's members in order, refusing a key that appears
// twice (compared unquoted, so "\u0061" and "a" are one key).
func (w *jsonWalker) object() ([][2]*ast.Term, error) {
	w.i++ // '{'
	var items [][2]*ast.Term
	var keys memberKeys
	var twins map[string]string // folded name to name, when w.folded
	for {
		w.skipSpace()
		switch w.data[w.i] {
		case '}':
			w.i++
			return items, nil
		case ',':
			w.i++
			w.skipSpace()
		}
		key, err := w.str()
		if err != nil {
			return nil, err
		}
		if keys.repeated(key) {
			return nil, fmt.Errorf("duplicate key %q", key)
		}
		if w.folded {
			if twins == nil {
				twins = map[string]string{}
			}
			f := foldCase(key)
			if other, ok := twins[f]; ok {
				return nil, fmt.Errorf("members %q and %q differ only in case", other, key)
			}
			twins[f] = key
		}
		w.skipSpace()
		w.i++ // ':'
		v, err := w.value()
		if err != nil {
			return nil, err
		}
		items = append(items, ast.Item(ast.StringTerm(key), ast.NewTerm(v)))
	}
}

// memberKeys are an object's keys so far. It tells a repeated one by
// scanning while there are few, and by a set once there are more (a scan
// would make a large object quadratic).
type memberKeys struct {
	few [16]string
	n   int
	set map[string]bool
}

// repeated adds key and reports whether it was there already.
func (m *memberKeys) repeated(key string) bool {
	if m.set == nil {
		if slices.Contains(m.few[:m.n], key) {
			return true
		}
		if m.n < len(m.few) {
			m.few[m.n] = key
			m.n++
			return false
		}
		m.set = make(map[string]bool, 2*len(m.few))
		for _, k := range m.few {
			m.set[k] = true
		}
	}
	if m.set[key] {
		return true
	}
	m.set[key] = true
	return false
}

// str reads a string at w.i. One without escapes is its bytes; one with
// them is unquoted by encoding/json, so escapes mean what they mean there.
func (w *jsonWalker) str() (string, error) {
	start := w.i
	escaped := false
	for w.i++; w.data[w.i] != '"'; w.i++ {
		if w.data[w.i] == '\\' {
			escaped = true
			w.i++
		}
	}
	w.i++
	if !escaped {
		return string(w.data[start+1 : w.i-1]), nil
	}
	if LoneSurrogate(w.data[start+1 : w.i-1]) {
		return "", errors.New("a lone UTF-16 surrogate escape")
	}
	var s string
	if err := json.Unmarshal(w.data[start:w.i], &s); err != nil {
		return "", fmt.Errorf("invalid JSON: %v", err)
	}
	return s, nil
}

// LoneSurrogate says the body of a JSON string (its text between the
// quotes) has a \u escape of half a UTF-16 surrogate pair that has no
// other half: encoding/json makes it U+FFFD, while a reader in JavaScript
// keeps the lone surrogate, so the two would read different text. A \u
// cut short is no escape (json.Valid refuses such text).
func LoneSurrogate(body []byte) bool {
	high := false // the last thing read was a high surrogate's escape
	for i := 0; i < len(body); i++ {
		var r rune = -1 // not an escaped code unit
		if body[i] == '\\' && i+1 < len(body) {
			i++
			if body[i] == 'u' && i+5 <= len(body) {
				r = 0
				for _, c := range body[i+1 : i+5] {
					r = r<<4 | rune(hexValue(c))
				}
				i += 4
			}
		}
		switch {
		case r >= 0xd800 && r < 0xdc00:
			if high {
				return true
			}
			high = true
		case r >= 0xdc00 && r < 0xe000:
			if !high {
				return true
			}
			high = false
		case high:
			return true
		}
	}
	return high
}

func hexValue(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// foldCase is s with each rune its case-folding orbit's least member: two
// names strings.EqualFold takes for one fold to the same string.
func foldCase(s string) string {
	var b strings.Builder
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}
