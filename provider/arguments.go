package provider

import (
	"encoding/json"
	"errors"
	"strings"
)

// jsonSpace is the whitespace JSON allows around a value (RFC 8259).
// Unicode's is wider (a vertical tab, U+0085, a no-break space): text that
// only Unicode calls blank is not JSON.
const jsonSpace = " \t\r\n"

// NoArguments reports an arguments text that is nothing but JSON's
// whitespace: a call without arguments, the same as {}.
func NoArguments(text string) bool { return strings.Trim(text, jsonSpace) == "" }

// ObjectArguments reads a call's arguments text the one way every part of
// mcp-policy reads it (the rules, the MCP client, the proxy, policy-eval):
// JSON's whitespace around it is ignored, nothing but whitespace is {}, and
// anything else must be one valid JSON object, returned trimmed. What the
// policy would refuse as malformed, the client must not send as something
// else.
func ObjectArguments(text string) (json.RawMessage, error) {
	t := strings.Trim(text, jsonSpace)
	if t == "" {
		return json.RawMessage("{}"), nil
	}
	if !json.Valid([]byte(t)) {
		return nil, errors.New("are not valid JSON")
	}
	if t[0] != '{' {
		return nil, errors.New("must be a JSON object")
	}
	return json.RawMessage(t), nil
}
