package main

import (
	"bytes"
	"encoding/json"
	"fmt"
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

func TestSplitBatch(t *testing.T) {
	elems, err := splitBatch([]byte(` [ {"id":1,"method":"a"} , {"method":"b","params":[1,[2]]} ]`))
	if err != nil || len(elems) != 2 || string(elems[1]) != `{"method":"b","params":[1,[2]]}` {
		t.Fatalf("%q %v", elems, err)
	}
	if elems, err := splitBatch([]byte(`[]`)); err != nil || len(elems) != 0 {
		t.Fatalf("%q %v", elems, err)
	}
	for _, bad := range []string{`{}`, `[1,`, `[1 2]`} {
		if _, err := splitBatch([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
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

func TestTailResponseID(t *testing.T) {
	for _, tc := range []struct {
		msg, id string
		ok      bool
	}{
		{`{"result":{"content":[]},"jsonrpc":"2.0","id":7}` + "\n", "7", true},
		{` {"result":{}, "jsonrpc":"2.0" , "id" : -12 } ` + "\r\n", "-12", true},
		{`{"result":{},"jsonrpc":"2.0","id":"abc-1"}`, `"abc-1"`, true},
		{`{"result":{},"jsonrpc":"2.0","id":"a\"b"}`, "", false},
		{`{"jsonrpc":"2.0","result":{},"id":7}`, "", false},
		{`{"result":{"x":1,"id":7}}`, "", false},
		{`{"result":{},"id":7,"jsonrpc":"2.0"}`, "", false},
		{`{"result":{},"xid":7}`, "", false},
		{`{"result":{},"id":1.5}`, "", false},
		{`{"result":{"id":7}}`, "", false},
	} {
		id, ok := tailResponseID([]byte(tc.msg))
		if ok != tc.ok || string(id) != tc.id {
			t.Errorf("%s: %q %v, want %q %v", tc.msg, id, ok, tc.id, tc.ok)
		}
		if ok {
			if e, err := parseEnvelope([]byte(tc.msg)); err != nil || string(e.id) != string(id) || !e.isResponse() {
				t.Errorf("%s: the scan says %q %v", tc.msg, e.id, err)
			}
		}
	}
	msg := bigResult()
	if id, ok := tailResponseID(msg); !ok || string(id) != "7" {
		t.Fatalf("1 MB: %q %v", id, ok)
	}
}

// FuzzTailResponseID: whenever the tail says a valid message is a
// response with an id, the scan agrees.
func FuzzTailResponseID(f *testing.F) {
	f.Add([]byte(`{"result":{"a":"b"},"jsonrpc":"2.0","id":7}`))
	f.Add([]byte(`{"result":{"a":",\"id\":7}"},"id":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		id, ok := tailResponseID(data)
		if !ok || !json.Valid(data) {
			return
		}
		e, err := parseEnvelope(data)
		if err != nil || !bytes.Equal(e.id, id) || e.result == nil || e.method != "" {
			t.Fatalf("%q: tail %q, scan %+v %v", data, id, e, err)
		}
	})
}

func BenchmarkTailResponseID1MB(b *testing.B) {
	msg := bigResult()
	for b.Loop() {
		if _, ok := tailResponseID(msg); !ok {
			b.Fatal("no id")
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
