package provider_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/provider"
)

// Arguments are read one way everywhere: JSON's whitespace is nothing,
// Unicode's other blanks are not JSON, and only one object passes.
func TestObjectArguments(t *testing.T) {
	for text, want := range map[string]string{
		"":                  "{}",
		" \t\r\n":           "{}",
		` {"a": 1} ` + "\n": `{"a": 1}`,
		`{}`:                `{}`,
	} {
		t.Run(text, func(t *testing.T) {
			got, err := provider.ObjectArguments(text)
			require.NoError(t, err)
			assert.Equal(t, want, string(got))
			assert.Equal(t, want == "{}" && text != "{}", provider.NoArguments(text))
		})
	}
	for _, text := range []string{"\v", "\u00a0", "\u0085{}", "\f{}", "{} \v", `[]`, `"{}"`, `null`, `{`, `{}{}`, `{"a":1}x`} {
		t.Run(text, func(t *testing.T) {
			_, err := provider.ObjectArguments(text)
			assert.Error(t, err, "%q is not one JSON object", text)
			assert.False(t, provider.NoArguments(text) && text != "", "%q is not JSON whitespace", text)
		})
	}
}
