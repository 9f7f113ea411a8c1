package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestParseEnvelope(t *testing.T) {
	for _, tc := range []struct {
		msg                          string
		id, method, params, res, err string
		kind                         string
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"a":"}{\"]["}}}`,
			`7`, "tools/call", `{"name":"x","arguments":{"a":"}{\"]["}}`, "", "", "request"},
		{` { "result" : {"content":[{"type":"text","text":"a \\\" b \\\\"}]} , "jsonrpc":"2.0", "id" : "s-1" } `,
			`"s-1"`, "", "", `{"content":[{"type":"text","text":"a \\\" b \\\\"}]}`, "", "response"},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1.5e2,"ok":true,"n":null}}`,
			"", "notifications/progress", `{"progress":1.5e2,"ok":true,"n":null}`, "", "", "notification"},
		{`{"jsonrpc":"2.0","id":-1.5,"error":{"code":-32601,"message":"no"}}`, `-1.5`, "", "", "", `{"code":-32601,"message":"no"}`, "response"},
		{`{"jsonrpc":"2.0","id":1,"me\u0074hod":"ping"}`, `1`, "ping", "", "", "", "request"},
		{`{"jsonrpc":"2.0","id":1,"method":"a\"b"}`, `1`, `a"b`, "", "", "", "request"},
		{`{}`, "", "", "", "", "", ""},
	} {
		e, err := parseEnvelope([]byte(tc.msg))
		if err != nil {
			t.Errorf("%s: %v", tc.msg, err)
			continue
		}
		got := []string{string(e.id), e.method, string(e.params), string(e.result), string(e.err)}
		want := []string{tc.id, tc.method, tc.params, tc.res, tc.err}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.msg, got, want)
		}
		kind := ""
		switch {
		case e.isRequest():
			kind = "request"
		case e.isResponse():
			kind = "response"
		case e.isNotification():
			kind = "notification"
		}
		if kind != tc.kind {
			t.Errorf("%s: kind %q, want %q", tc.msg, kind, tc.kind)
		}
	}
	for _, bad := range []string{``, `[]`, `"x"`, `{"id":1,}`, `{"id":1 "method":"x"}`, `{"id":"unterminated}`, `{"id":{"a":[1,2}`, `{"id":}`, `{"a":1`} {
		if _, err := parseEnvelope([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestIDKey(t *testing.T) {
	if idKey([]byte(`1`)) == idKey([]byte(`"1"`)) {
		t.Error("a number and a string spelt alike share a key")
	}
	if idKey([]byte(`"a\u0062"`)) != idKey([]byte(`"ab"`)) {
		t.Error("one string id, two keys")
	}
}

func TestReadBatch(t *testing.T) {
	msg := []byte(` [ {"id":1,"method":"a"} , {"method":"b","params":[1,[2]]} ] `)
	elems, end, err := readBatch(msg, 1)
	if err != nil || len(elems) != 2 || string(elems[1]) != `{"method":"b","params":[1,[2]]}` || end != len(msg)-1 {
		t.Fatalf("%q %d %v", elems, end, err)
	}
	if elems, _, err := readBatch([]byte(`[]`), 0); err != nil || len(elems) != 0 {
		t.Fatalf("%q %v", elems, err)
	}
	for _, bad := range []string{`{}`, `[{},`, `[{} {}]`, `[1]`, `[[{"id":1,"method":"tools/call"}]]`, `[{},"x"]`} {
		if _, _, err := readBatch([]byte(bad), 0); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// A line is one message, read one way, or it is refused: the proxy passes
// lines on as they came, and readers split them differently (red team,
// third report, finding 1).
func TestReadMessage(t *testing.T) {
	call := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/x"}}}`
	ping := `{"jsonrpc":"2.0","id":7,"method":"ping"}`
	for _, ok := range []string{
		ping + "\n", ping + "\r\n", ping, " \t" + ping + " \t\n",
		`{"jsonrpc":"2.0","id":1,"result":{"text":"a\\r\\nb ` + "\u2028" + `"}}` + "\n", // escapes and a raw U+2028 in a string
		"[" + ping + "," + call + "]\n",
	} {
		_, _, err := readMessage([]byte(ok))
		assert.NoError(t, err, "%q", ok)
	}
	for _, bad := range []string{
		ping + "\r" + call + "\n", // a second message after a carriage return
		`{"jsonrpc":"2.0","method":"notifications/x","params":` + "\r" + call + "\r}\n", // a carriage return between tokens
		ping + call + "\n", // two values
		ping + " " + call + "\n",
		ping + " // a comment\n",
		ping + ",\n",
		ping + "\r\r\n",
		"\r" + ping + "\n",
		"\ufeff" + ping + "\n", // a byte-order mark
		"\v" + ping + "\n",
		ping + "\x00\n",
		"[" + ping + "]" + call + "\n",
		"[[" + call + "]]\n",
		`"x"` + "\n", "7\n", "null\n",
		`{"jsonrpc":"2.0","id":1,"method":"ping","METHOD":"tools/call"}`,
		// Invalid UTF-8 anywhere, which readers repair or drop each their
		// own way: a method one drops a byte of is tools/call.
		"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/c\xffall\",\"params\":{}}\n",
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}\n",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"text\":\"a\xc0\xafb\"}}\n", // an overlong "/"
		"[" + ping + ",{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/c\xedall\"}]\n",
		// A method's escapes that decode to no character, or a control one.
		`{"jsonrpc":"2.0","id":9,"method":"tools/c\ud800all","params":{}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call\u0000","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/\udfffcancelled"}`,
	} {
		_, _, err := readMessage([]byte(bad))
		assert.Error(t, err, "%q", bad)
	}
	// What could be read of the first object is kept, for an answer by id.
	env, _, err := readMessage([]byte(ping + "\r" + call + "\n"))
	assert.Error(t, err)
	assert.Equal(t, "7", string(env.id))
	assert.Equal(t, "ping", env.method)
}

// A message is of one kind, or of none.
func TestMessageKinds(t *testing.T) {
	for msg, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`:                           "request",
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`:             "notification",
		`{"jsonrpc":"2.0","id":1,"result":{}}`:                               "response",
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`:          "response",
		`{"jsonrpc":"2.0","id":1,"result":{},"method":"elicitation/create"}`: "",
		`{"jsonrpc":"2.0","id":1,"method":"ping","error":{}}`:                "",
		`{"jsonrpc":"2.0","method":"notifications/x","result":{}}`:           "",
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{}}`:                    "",
		`{"jsonrpc":"2.0","id":1,"method":"","result":{}}`:                   "",
	} {
		e, err := parseEnvelope([]byte(msg))
		if !assert.NoError(t, err, msg) {
			continue
		}
		kinds := []string{}
		if e.isRequest() {
			kinds = append(kinds, "request")
		}
		if e.isNotification() {
			kinds = append(kinds, "notification")
		}
		if e.isResponse() {
			kinds = append(kinds, "response")
		}
		assert.Equal(t, want, strings.Join(kinds, ","), msg)
	}
}

func TestValidID(t *testing.T) {
	for _, ok := range []string{`1`, `0`, `-3`, `123456789012345`, `"x"`, `""`, `"a\u0062"`} {
		assert.True(t, validID([]byte(ok)), ok)
	}
	for _, bad := range []string{`1.0`, `1e0`, `-0`, `01`, `1234567890123456`, `null`, `true`, `{}`, `[1]`, `"x`, ``, `-`, `+1`} {
		assert.False(t, validID([]byte(bad)), bad)
	}
}

// FuzzReadMessage holds what readMessage accepts to what other readers
// make of the same line: a line reader that also ends lines at a carriage
// return (Python's, Java's, .NET's) sees one line, and a stream decoder
// (encoding/json's, as the Go SDK reads) one value.
func FuzzReadMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"ping"}` + "\n",
		`{"jsonrpc":"2.0","id":7,"method":"ping"}` + "\r\n",
		`{"id":7,"method":"ping"}` + "\r" + `{"id":9,"method":"tools/call"}` + "\n",
		`[{"id":1,"method":"a"},{"id":2,"method":"b"}]`,
		`{"a":` + "\r" + `{"b":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.Count(line, []byte("{"))+bytes.Count(line, []byte("[")) > 50 {
			return
		}
		if _, _, err := readMessage(line); err != nil {
			return
		}
		body := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if bytes.ContainsAny(body, "\r\n") {
			t.Fatalf("%q: accepted, and a line reader splits it", line)
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		var v, w json.RawMessage
		if dec.Decode(&v) != nil {
			return // not JSON: the other side refuses it whole
		}
		if err := dec.Decode(&w); err != io.EOF {
			t.Fatalf("%q: accepted, and a stream decoder reads a second value %q (%v)", line, w, err)
		}
	})
}

// FuzzEnvelope holds the scanner to encoding/json on every valid object:
// the same members, the same raw values.
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`,
		`{"result":{"a":"\\\"}"},"id":"x"}`, `{"a":[{"b":"]"}],"c":"\\\\"}`, `{"\u0041":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want map[string]json.RawMessage
		// (Invalid UTF-8 in a key: encoding/json rewrites it, the scanner
		// keeps it, and no key the proxy looks for has it.)
		if !utf8.Valid(data) || json.Unmarshal(data, &want) != nil || want == nil || bytes.Count(data, []byte("{")) > 50 {
			return
		}
		got := map[string]json.RawMessage{}
		if err := eachMember(data, func(k, v []byte) error {
			got[string(k)] = json.RawMessage(v)
			return nil
		}); err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		// encoding/json keeps the last of duplicate keys, and so does got.
		for k, v := range want {
			if !bytes.Equal(bytes.TrimSpace(got[k]), bytes.TrimSpace(v)) {
				t.Fatalf("%q: key %q: got %q, want %q", data, k, got[k], v)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%q: got %d members, want %d", data, len(got), len(want))
		}
	})
}

// bigResult is a 1 MB text file as a tools/call result, the way the
// filesystem server sends it: escapes and quotes throughout.
func bigResult() []byte {
	var text strings.Builder
	for i := 0; text.Len() < 1<<20; i++ {
		fmt.Fprintf(&text, "line %6d: the quick brown fox jumps over the lazy dog, \"quoted\"\t and tabbed.\n", i)
	}
	res, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text.String()}},
		"structuredContent": map[string]any{"content": text.String()}})
	return []byte(`{"result":` + string(res) + `,"jsonrpc":"2.0","id":7}`)
}

func BenchmarkEnvelope1MB(b *testing.B) {
	msg := bigResult()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		e, err := parseEnvelope(msg)
		if err != nil || string(e.id) != "7" {
			b.Fatal(err)
		}
	}
}

func BenchmarkEnvelopeSmall(b *testing.B) {
	msg := []byte(`{"result":{"content":[{"type":"text","text":"eighteen bytes. :)"}],"structuredContent":{"content":"eighteen bytes. :)"}},"jsonrpc":"2.0","id":7}`)
	for b.Loop() {
		if _, err := parseEnvelope(msg); err != nil {
			b.Fatal(err)
		}
	}
}

// A message a server could read otherwise than the proxy is refused: a
// name twice, exactly, escaped or in another case (as encoding/json folds
// it), or a member of the protocol in another case.
func TestUnambiguous(t *testing.T) {
	for _, ok := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`,
		`{}`,
		`{"id":1,"ids":2,"Idx":3}`,
	} {
		assert.NoError(t, unambiguous([]byte(ok), envelopeMembers), ok)
	}
	for _, bad := range []string{
		`{"method":"a","method":"b"}`,
		`{"method":"a","METHOD":"b"}`,
		`{"Method":"tools/call"}`,
		`{"m\u0065thod":"a","method":"b"}`,
		`{"paramſ":{}}`,
		`{"ID":1}`,
		`{"x":1,"X":2}`,
	} {
		assert.Error(t, unambiguous([]byte(bad), envelopeMembers), bad)
	}
	for _, bad := range []string{
		`{"name":"a","NAME":"b"}`,
		`{"Arguments":{}}`,
		`{"name":"a","arguments":{},"argumentſ":{}}`,
		`{"_META":{}}`,
	} {
		assert.Error(t, unambiguous([]byte(bad), callMembers), bad)
	}
}
