package rules_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/policy/rules"
)

func TestDecodeJSON(t *testing.T) {
	v, err := rules.DecodeJSON([]byte(` {"b": [1.50, -2e3, true, null], "a\u00e9": {"x": "q\"\u0041"}} `))
	require.NoError(t, err)
	assert.Equal(t, `{"aé": {"x": "q\"A"}, "b": [1.50, -2e3, true, null]}`, v.String(), "numbers keep their text")

	many := make([]string, 40)
	for i := range many {
		many[i] = fmt.Sprintf(`"k%d":%d`, i, i)
	}
	_, err = rules.DecodeJSON([]byte("{" + strings.Join(many, ",") + "}"))
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
	} {
		_, err := rules.DecodeJSON([]byte(bad))
		assert.Error(t, err, name)
	}
}

// FuzzDecodeJSON: DecodeJSON reads exactly what encoding/json reads, and
// refuses exactly the duplicate keys and invalid UTF-8 it would let by.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"path":"/srv/a","n":[1,2.5e3,{"x":null}]}`, `{"a":1,"\u0061":2}`, `"\ud800"`,
		`[true,false,"\/\b\f\n\r\t"]`, `  -0.0e-0 `, "{\"a\":\"\xff\"}", `{"a":{"b":{}}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, err := rules.DecodeJSON([]byte(text))
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		var want any
		stdErr := dec.Decode(&want)
		if stdErr == nil && strings.Trim(text[dec.InputOffset():], " \t\r\n") != "" {
			stdErr = fmt.Errorf("data after the value")
		}
		dup := stdErr == nil && hasDuplicateKey(text)
		switch {
		case stdErr != nil || !utf8.ValidString(text) || dup:
			if err == nil {
				t.Fatalf("DecodeJSON(%q) = %v; encoding/json: %v, UTF-8 %v, duplicate key %v", text, got, stdErr, utf8.ValidString(text), dup)
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
