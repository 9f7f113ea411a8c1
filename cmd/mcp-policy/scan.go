package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcp-policy/mcp-policy/builtins"
)

// The relay reads only the envelope of a message — its id, method, and the
// spans of params, result and error — by skipping over values rather than
// decoding them: a 1 MB result is passed over with bytes.IndexByte, not
// parsed. Nothing here validates JSON; a message is forwarded as it came.

var errNotObject = errors.New("not a JSON object")

// envelope is the top level of one JSON-RPC message. The slices point
// into the message.
type envelope struct {
	id     []byte // raw; nil when absent
	method string
	params []byte
	result []byte
	err    []byte
}

func (e *envelope) isRequest() bool      { return e.method != "" && e.id != nil }
func (e *envelope) isNotification() bool { return e.method != "" && e.id == nil }
func (e *envelope) isResponse() bool {
	return e.method == "" && e.id != nil && (e.result != nil || e.err != nil)
}

// parseEnvelope reads the envelope of msg.
func parseEnvelope(msg []byte) (envelope, error) {
	var e envelope
	err := eachMember(msg, func(key, val []byte) error {
		switch string(key) {
		case "id":
			e.id = val
		case "method":
			s, err := stringValue(val)
			if err != nil {
				return err
			}
			e.method = s
		case "params":
			e.params = val
		case "result":
			e.result = val
		case "error":
			e.err = val
		}
		return nil
	})
	return e, err
}

// The members of a JSON-RPC envelope, and of a tools/call's params.
var (
	envelopeMembers = []string{"jsonrpc", "id", "method", "params", "result", "error"}
	callMembers     = []string{"name", "arguments", "_meta", "requestState", "inputResponses", "task"}
)

// unambiguous refuses an object a server could read otherwise than the
// proxy does: a member name twice, exactly or in another case, or one of
// known spelt in another case. The proxy forwards what the host wrote, and
// parsers differ: encoding/json (and so mcp-go) matches a name regardless
// of case (Unicode simple folding, "ſ" is "s") and takes the last match,
// JavaScript and Python take the last exact one. Were "name" and "NAME"
// both allowed, the proxy could decide one tool while the server runs
// another.
func unambiguous(obj []byte, known []string) error {
	seen := map[string]string{}
	return eachMember(obj, func(key, _ []byte) error {
		k := string(key)
		folded := builtins.Fold(k)
		if first, dup := seen[folded]; dup {
			if first == k {
				return fmt.Errorf("member %q appears twice", k)
			}
			return fmt.Errorf("members %q and %q differ only in case", first, k)
		}
		seen[folded] = k
		for _, name := range known {
			if k != name && builtins.Fold(name) == folded {
				return fmt.Errorf("member %q must be spelt %q", k, name)
			}
		}
		return nil
	})
}

// member returns the raw value of key in the JSON object obj, nil when
// obj has none.
func member(obj []byte, key string) []byte {
	var out []byte
	_ = eachMember(obj, func(k, v []byte) error {
		if string(k) == key {
			out = v
			return errStop
		}
		return nil
	})
	return out
}

var errStop = errors.New("stop")

// eachMember calls fn with each key (unescaped) and raw value of the JSON
// object obj, in order, until fn returns an error.
func eachMember(obj []byte, fn func(key, val []byte) error) error {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return errNotObject
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return nil
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return errors.New("object key expected")
		}
		end, err := skipString(obj, i)
		if err != nil {
			return err
		}
		key := obj[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var s string
			if err := json.Unmarshal(obj[i:end], &s); err != nil {
				return err
			}
			key = []byte(s)
		}
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return errors.New("':' expected")
		}
		i = skipSpace(obj, i+1)
		vend, err := skipValue(obj, i)
		if err != nil {
			return err
		}
		if err := fn(key, obj[i:vend]); err != nil {
			if err == errStop {
				return nil
			}
			return err
		}
		i = skipSpace(obj, vend)
		if i >= len(obj) {
			return errors.New("unterminated object")
		}
		switch obj[i] {
		case ',':
			i = skipSpace(obj, i+1)
		case '}':
			return nil
		default:
			return errors.New("',' or '}' expected")
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just after the string starting at b[i].
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errors.New("unterminated string")
		}
		q := j + k
		// The quote ends the string unless an odd run of backslashes
		// escapes it.
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

// skipValue returns the index just after the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errors.New("value expected")
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errors.New("unterminated value")
	default:
		j := i
		for j < len(b) {
			switch b[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				if j == i {
					return 0, errors.New("value expected")
				}
				return j, nil
			}
			j++
		}
		if j == i {
			return 0, errors.New("value expected")
		}
		return j, nil
	}
}

// stringValue decodes a raw JSON string.
func stringValue(raw []byte) (string, error) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// idKey is the map key of a raw JSON-RPC id: a string and a number that
// spell alike are different ids.
func idKey(raw []byte) string {
	if len(raw) > 0 && raw[0] == '"' {
		if s, err := stringValue(raw); err == nil {
			return "s" + s
		}
	}
	return "n" + string(raw)
}

// splitBatch returns the elements of a JSON array (a JSON-RPC batch).
func splitBatch(msg []byte) ([][]byte, error) {
	i := skipSpace(msg, 0)
	if i >= len(msg) || msg[i] != '[' {
		return nil, errors.New("not a JSON array")
	}
	var out [][]byte
	i = skipSpace(msg, i+1)
	if i < len(msg) && msg[i] == ']' {
		return out, nil
	}
	for {
		end, err := skipValue(msg, i)
		if err != nil {
			return nil, err
		}
		out = append(out, msg[i:end])
		i = skipSpace(msg, end)
		if i >= len(msg) {
			return nil, errors.New("unterminated array")
		}
		switch msg[i] {
		case ',':
			i = skipSpace(msg, i+1)
		case ']':
			return out, nil
		default:
			return nil, errors.New("',' or ']' expected")
		}
	}
}

// bigMessage is the size from which a response is routed by the tail of
// its text (tailResponseID) rather than by a scan of it.
const bigMessage = 64 << 10

// tailResponseID reads the id of a response shaped as the TypeScript SDK
// writes them, {"result":…,"jsonrpc":"2.0","id":ID}, from the ends of the
// text alone: the first member is "result" and the last is "id", a number
// or a string without escapes. In JSON that is valid those two ends can
// mean nothing else; any other shape reports false, and is scanned.
func tailResponseID(msg []byte) ([]byte, bool) {
	i := skipSpace(msg, 0)
	if !bytes.HasPrefix(msg[i:], []byte(`{"result"`)) {
		return nil, false
	}
	j := len(msg)
	for j > 0 && (msg[j-1] == ' ' || msg[j-1] == '\t' || msg[j-1] == '\n' || msg[j-1] == '\r') {
		j--
	}
	if j == 0 || msg[j-1] != '}' {
		return nil, false
	}
	j = skipSpaceBack(msg, j-1)
	end := j
	switch {
	case j > 0 && msg[j-1] >= '0' && msg[j-1] <= '9':
		for j > 0 && msg[j-1] >= '0' && msg[j-1] <= '9' {
			j--
		}
		if j > 0 && msg[j-1] == '-' {
			j--
		}
	case j > 0 && msg[j-1] == '"':
		k := bytes.LastIndexByte(msg[:j-1], '"')
		if k < 0 || bytes.IndexByte(msg[k:j], '\\') >= 0 {
			return nil, false
		}
		j = k
	default:
		return nil, false
	}
	id := msg[j:end]
	j = skipSpaceBack(msg, j)
	if j == 0 || msg[j-1] != ':' {
		return nil, false
	}
	j = skipSpaceBack(msg, j-1)
	if j < 5 || string(msg[j-4:j]) != `"id"` {
		return nil, false
	}
	j = skipSpaceBack(msg, j-4)
	if j == 0 || msg[j-1] != ',' {
		return nil, false
	}
	return id, true
}

// skipSpaceBack returns the index just after the last non-space byte
// before j.
func skipSpaceBack(b []byte, j int) int {
	for j > 0 && (b[j-1] == ' ' || b[j-1] == '\t' || b[j-1] == '\n' || b[j-1] == '\r') {
		j--
	}
	return j
}
