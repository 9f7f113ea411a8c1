package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

// The relay reads only the envelope of a message — its id, method, and the
// spans of params, result and error — by skipping over values rather than
// decoding them: a 1 MB result is passed over with bytes.IndexByte, not
// parsed. What the scan does hold a line to is its shape (readMessage):
// one JSON value, one unambiguous envelope, one kind of message. Within
// that shape a line is forwarded as it came: JSON that is not valid is
// refused by the reader on the other side as a whole.

var errNotObject = errors.New("not a JSON object")

// envelope is the top level of one JSON-RPC message. The slices point
// into the message.
type envelope struct {
	id        []byte // raw; nil when absent
	method    string
	hasMethod bool
	params    []byte
	result    []byte
	err       []byte
}

// A message is of exactly one kind. One with a method and a result, or a
// result and an error, is of none: readers differ on which it is.
func (e *envelope) isRequest() bool {
	return e.method != "" && e.id != nil && e.result == nil && e.err == nil
}
func (e *envelope) isNotification() bool {
	return e.method != "" && e.id == nil && e.result == nil && e.err == nil
}
func (e *envelope) isResponse() bool {
	return !e.hasMethod && e.id != nil && (e.result != nil) != (e.err != nil)
}

// parseEnvelope reads the envelope of msg, an object alone.
func parseEnvelope(msg []byte) (envelope, error) {
	e, end, err := readEnvelope(msg, skipSpace(msg, 0))
	if err == nil && skipSpace(msg, end) != len(msg) {
		err = errors.New("text after the object")
	}
	return e, err
}

// readEnvelope reads the envelope of the object at msg[i:] and returns the
// index just after it. Its members must be unambiguous (see unambiguous).
func readEnvelope(msg []byte, i int) (envelope, int, error) {
	var e envelope
	names := memberNames{known: envelopeMembers}
	var ambiguous error // the first; the rest is read, for an answer by id
	end, err := eachMemberEnd(msg, i, func(key, val []byte) error {
		if err := names.addKey(key); err != nil && ambiguous == nil {
			ambiguous = err
		}
		switch string(key) {
		case "id":
			e.id = val
		case "method":
			s, err := stringValue(val)
			if err != nil {
				return err
			}
			e.method, e.hasMethod = s, true
			if strings.ContainsFunc(s, unreadableInName) && ambiguous == nil {
				ambiguous = fmt.Errorf("method %q has a character no method name has, which readers repair or drop each their own way", s)
			}
		case "params":
			e.params = val
		case "result":
			e.result = val
		case "error":
			e.err = val
		}
		return nil
	})
	if err == nil {
		err = ambiguous
	}
	return e, end, err
}

// readMessage reads one line as the proxy takes lines in both directions:
// exactly one JSON value — an object, or an array of objects (a batch) —
// with nothing around it but spaces and tabs, and the line's "\n" or
// "\r\n" after it. An object's envelope must be unambiguous. A line of any
// other shape is refused, never passed on, because the proxy passes a line
// on as it came and the reader on the other side may split it otherwise:
// a carriage return ends a line for Python's, Java's and .NET's line
// readers, and a stream decoder (the Go SDK's) reads a second value after
// the first. Either would let the proxy decide one message while a server
// ran two. On an error env holds what could be read of the first object,
// for an answer by its id.
func readMessage(line []byte) (env envelope, batch [][]byte, err error) {
	body := line
	if n := len(body); n > 0 && body[n-1] == '\n' {
		body = body[:n-1]
		if n := len(body); n > 0 && body[n-1] == '\r' {
			body = body[:n-1]
		}
	}
	i := skipBlank(body, 0)
	end := 0
	switch {
	case i < len(body) && body[i] == '{':
		env, end, err = readEnvelope(body, i)
	case i < len(body) && body[i] == '[':
		batch, end, err = readBatch(body, i)
	default:
		return env, nil, errors.New("not a JSON object or array")
	}
	switch {
	case err != nil:
	case bytes.IndexByte(body, '\r') >= 0:
		err = errors.New("a carriage return inside the line, which some readers take for the end of a line")
	case bytes.IndexByte(body, '\n') >= 0:
		err = errors.New("a line feed inside the line")
	case skipBlank(body, end) != len(body):
		err = errors.New("text after the message, which some readers take for another message")
	case !utf8.Valid(body):
		// Readers repair invalid UTF-8 each their own way: Go's and
		// Python's replace a byte, a lenient decoder drops it, so that
		// "tools/c\xffall" is tools/call to one and no method to another.
		err = errors.New("invalid UTF-8, which readers repair or drop each their own way")
	}
	return env, batch, err
}

// unreadableInName tells a character no protocol name has and readers
// read differently: the replacement character (a lone surrogate's escape
// decodes to it, and some readers drop it) and control characters.
func unreadableInName(r rune) bool {
	return r == utf8.RuneError || r < 0x20 || r == 0x7f
}

// skipBlank skips spaces and tabs: the only blanks a line may have around
// its message.
func skipBlank(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

// memberNames tells when an object's member names are ambiguous: a name
// twice, exactly or in another case, or one of known spelt in another case.
type memberNames struct {
	known memberSet
	// seen are the names so far, folded and as spelt: in few, an object's
	// first names, looked through (a message's envelope and a call's
	// params have a handful, and every message is read: no map for them),
	// and in many the rest.
	few  [8]seenName
	nFew int
	many map[string]string
}

type seenName struct{ folded, spelt string }

// addKey adds a key as eachMember gives it. A name of known is taken as
// known spells and folds it, with no copy and no folding; only another
// name can be one of known spelt in another case.
func (m *memberNames) addKey(key []byte) error {
	for i, name := range m.known.names {
		if string(key) == name {
			return m.add(name, m.known.folded[i])
		}
	}
	k := string(key)
	folded := lexical.Fold(k)
	if err := m.add(k, folded); err != nil {
		return err
	}
	for i, name := range m.known.names {
		if m.known.folded[i] == folded {
			return fmt.Errorf("member %q must be spelt %q", k, name)
		}
	}
	return nil
}

// add records k, folded to folded, unless a name seen already folds alike.
func (m *memberNames) add(k, folded string) error {
	first, dup := m.lookup(folded)
	if dup {
		if first == k {
			return fmt.Errorf("member %q appears twice", k)
		}
		return fmt.Errorf("members %q and %q differ only in case", first, k)
	}
	switch {
	case m.nFew < len(m.few):
		m.few[m.nFew] = seenName{folded, k}
		m.nFew++
	case m.many == nil:
		m.many = map[string]string{folded: k}
	default:
		m.many[folded] = k
	}
	return nil
}

// lookup returns the spelling of the name seen that folds to folded.
func (m *memberNames) lookup(folded string) (string, bool) {
	for _, n := range m.few[:m.nFew] {
		if n.folded == folded {
			return n.spelt, true
		}
	}
	spelt, ok := m.many[folded]
	return spelt, ok
}

// memberSet is the members an object of the protocol's may have, each
// with its folded spelling, folded once: every message is read against
// them.
type memberSet struct{ names, folded []string }

func members(names ...string) memberSet {
	s := memberSet{names: names, folded: make([]string, len(names))}
	for i, n := range names {
		s.folded[i] = lexical.Fold(n)
	}
	return s
}

// The members of a JSON-RPC envelope, and of a tools/call's params.
var (
	envelopeMembers = members("jsonrpc", "id", "method", "params", "result", "error")
	callMembers     = members("name", "arguments", "_meta", "requestState", "inputResponses", "task")
)

// unambiguous refuses an object a server could read otherwise than the
// proxy does: a member name twice, exactly or in another case, or one of
// known spelt in another case. The proxy forwards what the host wrote, and
// parsers differ: encoding/json (and so mcp-go) matches a name regardless
// of case (Unicode simple folding, "ſ" is "s") and takes the last match,
// JavaScript and Python take the last exact one. Were "name" and "NAME"
// both allowed, the proxy could decide one tool while the server runs
// another.
func unambiguous(obj []byte, known memberSet) error { return unambiguousEach(obj, known, nil) }

// unambiguousEach is unambiguous, calling each (when not nil) with each
// member it has taken: a reader's one pass over obj.
func unambiguousEach(obj []byte, known memberSet, each func(key, val []byte)) error {
	names := memberNames{known: known}
	return eachMember(obj, func(key, val []byte) error {
		if err := names.addKey(key); err != nil {
			return err
		}
		if each != nil {
			each(key, val)
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
	_, err := eachMemberEnd(obj, skipSpace(obj, 0), fn)
	if err == errStop {
		return nil
	}
	return err
}

// eachMemberEnd is eachMember for the object at obj[i:], returning the
// index just after it (fn's errStop is returned as it is).
func eachMemberEnd(obj []byte, i int, fn func(key, val []byte) error) (int, error) {
	if i >= len(obj) || obj[i] != '{' {
		return 0, errNotObject
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return 0, errors.New("object key expected")
		}
		end, err := skipString(obj, i)
		if err != nil {
			return 0, err
		}
		key := obj[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var s string
			if err := json.Unmarshal(obj[i:end], &s); err != nil {
				return 0, err
			}
			key = []byte(s)
		}
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return 0, errors.New("':' expected")
		}
		i = skipSpace(obj, i+1)
		vend, err := skipValue(obj, i)
		if err != nil {
			return 0, err
		}
		if err := fn(key, obj[i:vend]); err != nil {
			return 0, err
		}
		i = skipSpace(obj, vend)
		if i >= len(obj) {
			return 0, errors.New("unterminated object")
		}
		switch obj[i] {
		case ',':
			i = skipSpace(obj, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, errors.New("',' or '}' expected")
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

// readBatch returns the elements of the JSON array at msg[i:] (a JSON-RPC
// batch), each an object, and the index just after it.
func readBatch(msg []byte, i int) ([][]byte, int, error) {
	if i >= len(msg) || msg[i] != '[' {
		return nil, 0, errors.New("not a JSON array")
	}
	var out [][]byte
	i = skipSpace(msg, i+1)
	if i < len(msg) && msg[i] == ']' {
		return out, i + 1, nil
	}
	for {
		if i >= len(msg) || msg[i] != '{' {
			return nil, 0, errors.New("a batch holds only objects")
		}
		end, err := skipValue(msg, i)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, msg[i:end])
		i = skipSpace(msg, end)
		if i >= len(msg) {
			return nil, 0, errors.New("unterminated array")
		}
		switch msg[i] {
		case ',':
			i = skipSpace(msg, i+1)
		case ']':
			return out, i + 1, nil
		default:
			return nil, 0, errors.New("',' or ']' expected")
		}
	}
}

// validID reports whether raw is an id the proxy takes in a request: a
// string, or an integer spelt the one way JSON spells it. 1.0, 1e0, -0 and
// 1 are one number to some readers and four to others, and a server that
// answers 1e0 as 1 would have its answer taken for another request's.
func validID(raw []byte) bool {
	if len(raw) > 0 && raw[0] == '"' {
		_, err := stringValue(raw)
		return err == nil
	}
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && (len(digits) > 1 || len(raw) > 1)) {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
