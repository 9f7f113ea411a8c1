package strictjson_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/strictjson"
)

func TestDecodeJSON(t *testing.T) {
	v, err := strictjson.Decode([]byte(` {"b": [1.50, -2e3, true, null], "a\u00e9": {"x": "q\"\u0041"}} `))
	require.NoError(t, err)
	assert.Equal(t, `{"aé": {"x": "q\"A"}, "b": [1.50, -2e3, true, null]}`, v.String(), "numbers keep their text")

	many := make([]string, 40)
	for i := range many {
		many[i] = fmt.Sprintf(`"k%d":%d`, i, i)
	}
	_, err = strictjson.Decode([]byte("{" + strings.Join(many, ",") + "}"))
	assert.NoError(t, err, "forty distinct keys")

	for name, bad := range map[string]string{
		"duplicate":                 `{"path":"a","path":"b"}`,
		"duplicate once unquoted":   `{"path":"a","p\u0061th":"b"}`,
		"duplicate nested":          `[{"a":1,"a":2}]`,
		"duplicate past a few keys": "{" + strings.Join(many, ",") + `,"k3":0}`,
		"invalid UTF-8":             "{\"a\":\"\xff\"}",
		"trailing value":            `{} {}`,
		"unterminated":              `{"a":`,
		"empty":                     ``,
		"single quotes":             `{'a':1}`,
		"trailing comma":            `[1,]`,
		"leading zero":              `[01]`,
		"lone high surrogate":       `{"path":"/srv/\ud800"}`,
		"lone low surrogate":        `["\udc00x"]`,
		"high then other escape":    `["\ud800\n"]`,
		"two highs":                 `["\ud800\ud800"]`,
		"surrogate key":             `{"p\udfffath":1}`,
	} {
		_, err := strictjson.Decode([]byte(bad))
		assert.Error(t, err, name)
	}
}

// FuzzDecodeJSON: DecodeJSON reads exactly what encoding/json reads, and
// refuses exactly the duplicate keys and invalid UTF-8 it would let by.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"path":"/srv/a","n":[1,2.5e3,{"x":null}]}`, `{"a":1,"\u0061":2}`, `"\ud800"`,
		`[true,false,"\/\b\f\n\r\t"]`, `  -0.0e-0 `, "{\"a\":\"\xff\"}", `{"a":{"b":{}}}`, `["\ud83d\ude00"]`, `["\udc00\ud800"]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, err := strictjson.Decode([]byte(text))
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		var want any
		stdErr := dec.Decode(&want)
		if stdErr == nil && strings.Trim(text[dec.InputOffset():], " \t\r\n") != "" {
			stdErr = fmt.Errorf("data after the value")
		}
		dup := stdErr == nil && hasDuplicateKey(text)
		lone := stdErr == nil && loneSurrogate(text)
		switch {
		case stdErr != nil || !utf8.ValidString(text) || dup || lone:
			if err == nil {
				t.Fatalf("DecodeJSON(%q) = %v; encoding/json: %v, UTF-8 %v, duplicate key %v, lone surrogate %v", text, got, stdErr, utf8.ValidString(text), dup, lone)
			}
		case err != nil:
			t.Fatalf("DecodeJSON(%q): %v, but encoding/json reads %v", text, err, want)
		default:
			asGo, err := ast.JSON(got)
			require.NoError(t, err)
			a, _ := json.Marshal(asGo)
			b, _ := json.Marshal(want)
			if !bytes.Equal(a, b) {
				t.Fatalf("DecodeJSON(%q) = %s, encoding/json reads %s", text, a, b)
			}
		}
	})
}

// loneSurrogate reads text's strings as UTF-16 code units, as a
// JavaScript server does: an escaped half of a surrogate pair without its
// other half is what encoding/json would silently make U+FFFD.
func loneSurrogate(text string) bool {
	in := false
	var units []uint16
	check := func() bool {
		for i := 0; i < len(units); i++ {
			u := rune(units[i])
			switch {
			case utf16.IsSurrogate(u) && u < 0xdc00 && i+1 < len(units) && utf16.DecodeRune(u, rune(units[i+1])) != unicode.ReplacementChar:
				i++
			case utf16.IsSurrogate(u):
				return true
			}
		}
		return false
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case !in && c == '"':
			in, units = true, units[:0]
		case in && c == '"':
			in = false
			if check() {
				return true
			}
		case in && c == '\\':
			i++
			if text[i] == 'u' {
				v, _ := strconv.ParseUint(text[i+1:i+5], 16, 16)
				units = append(units, uint16(v))
				i += 4
			} else {
				units = append(units, 'x')
			}
		case in:
			units = append(units, 'x')
		}
	}
	return false
}

// hasDuplicateKey walks text with encoding/json's tokenizer: an independent
// reading of which objects repeat a key.
func hasDuplicateKey(text string) bool {
	dec := json.NewDecoder(strings.NewReader(text))
	var walk func() bool
	walk = func() bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, _ := dec.Token()
				if seen[k.(string)] {
					return true
				}
				seen[k.(string)] = true
				if walk() {
					return true
				}
			}
			dec.Token()
		case json.Delim('['):
			for dec.More() {
				if walk() {
					return true
				}
			}
			dec.Token()
		}
		return false
	}
	return walk()
}
