package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/verdict"
	"github.com/mcp-policy/mcp-policy/provider"
)

// A request the policy decides is read as one call: a tools/call as the
// tool it names with its arguments, the other methods as the tool named
// by the method with the params for arguments, less what is the request's
// own (_meta, an input-required retry's requestState and inputResponses).
func TestReadCallRequest(t *testing.T) {
	for _, c := range []struct {
		method, params string
		name, args     string
		meta, state    string
	}{
		{"tools/call", `{"name":"fs_read","arguments":{"path":"a"},"_meta":{"progressToken":1}}`, "fs_read", `{"path":"a"}`, `{"progressToken":1}`, ""},
		{"tools/call", `{"name":"fs_read"}`, "fs_read", `{}`, "", ""},
		{"tools/call", `{"name":"fs_read","arguments":null}`, "fs_read", `{}`, "", ""},
		{"resources/read", `{"uri":"file:///srv/a.md","_meta":{"progressToken":"t"}}`, "resources/read", `{"uri":"file:///srv/a.md"}`, `{"progressToken":"t"}`, ""},
		{"resources/read", `{}`, "resources/read", `{}`, "", ""},
		{"resources/read", ` { "u\u0072i" : "x" } `, "resources/read", `{"uri":"x"}`, "", ""},
		{"prompts/get", `{"name":"review","arguments":{"file":"/etc/passwd"},"requestState":"s","inputResponses":{"k":{}}}`,
			"prompts/get", `{"name":"review","arguments":{"file":"/etc/passwd"}}`, "", "s"},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"E"},"context":{"arguments":{"b":"c"}}}`,
			"completion/complete", `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"E"},"context":{"arguments":{"b":"c"}}}`, "", ""},
		{"resources/read", `{"uri":"x","a<b":1}`, "resources/read", `{"uri":"x","a\u003cb":1}`, "", ""},
		{"tools/call", `{"name":"smile\ud83d\ude00","arguments":{"p":"\\ud800"}}`, "smile\U0001F600", `{"p":"\\ud800"}`, "", ""},
	} {
		r, err := readCallRequest(c.method, []byte(c.params))
		require.NoError(t, err, "%s %s", c.method, c.params)
		assert.Equal(t, c.name, r.name, "%s %s", c.method, c.params)
		assert.JSONEq(t, c.args, r.arguments, "%s %s", c.method, c.params)
		assert.Equal(t, c.meta, string(r.meta), "%s %s", c.method, c.params)
		assert.Equal(t, c.state, r.requestState, "%s %s", c.method, c.params)
	}
}

// The params are held to the one reading tools/call params are: an object,
// no member twice or in two cases, no protocol member spelt in another
// case; and no server's tool can be called by a request's name.
func TestReadCallRequestRefuses(t *testing.T) {
	for _, c := range [][2]string{
		{"resources/read", `{"uri":"file:///srv/pub","uri":"file:///srv/secret"}`},
		{"resources/read", `{"uri":"file:///srv/pub","URI":"file:///srv/secret"}`},
		{"resources/read", `{"URI":"file:///srv/secret"}`},
		{"resources/read", `{"uri":"a","u\u0072i":"b"}`},
		{"resources/read", `"file:///srv/a"`},
		{"resources/read", `null`},
		{"resources/read", ``},
		{"resources/read", `{"uri":"a","requestState":1}`},
		{"resources/read", `{"uri":tru}`},
		{"prompts/get", `{"name":"a","Name":"b"}`},
		{"prompts/get", `{"name":"a","Arguments":{}}`},
		{"completion/complete", `{"ref":{},"Argument":{}}`},
		{"tools/call", `{"name":"resources/read","arguments":{"uri":"file:///etc/passwd"}}`},
		{"tools/call", `{"name":"prompts/get"}`},
		{"tools/call", `{"arguments":{}}`},
		{"tools/call", `{"name":"a","NAME":"b"}`},
		{"tools/call", `{"name":"fs_read\ud800"}`},
		{"tools/call", `{"name":"\udc00fs_read"}`},
		{"tools/call", `{"name":"fs\ud83d\u0041read"}`},
		{"tools/call", `{"name":"fs\uD83Dread"}`},
	} {
		_, err := readCallRequest(c[0], []byte(c[1]))
		assert.Error(t, err, "%s %s", c[0], c[1])
	}
}

// The catalogue the policy decides by has the requests' entries, marked
// read-only, and none of the server's under their names.
func TestWithRequestTools(t *testing.T) {
	destructive, readOnly := true, false
	server := []provider.Tool{
		{Function: provider.ToolFunction{Name: "fs_write"}, Annotations: &provider.Annotations{}},
		{Function: provider.ToolFunction{Name: "resources/read"}, Annotations: &provider.Annotations{DestructiveHint: &destructive, ReadOnlyHint: &readOnly}},
	}
	got := withRequestTools(server)
	byName := map[string]provider.Tool{}
	for _, tl := range got {
		_, dup := byName[tl.Function.Name]
		require.False(t, dup, "%s listed twice", tl.Function.Name)
		byName[tl.Function.Name] = tl
	}
	require.Len(t, byName, 4)
	for _, name := range []string{"resources/read", "prompts/get", "completion/complete"} {
		assert.Equal(t, map[string]bool{"readOnlyHint": true}, byName[name].Annotations.Hints(), name)
	}
	assert.Contains(t, byName, "fs_write")
	assert.Len(t, withRequestTools(nil), 3, "a server with no tools")
}

// How the default rules decide the requests, read as the proxy reads them:
// a resource read on a local path is a read-only tool's read, anything
// else it reads is asked; prompts and completions are allowed, unless a
// deny reaches them.
func TestDefaultRulesOnRequests(t *testing.T) {
	deny := rules.Rule{Tool: "*", Decision: rules.Deny, Under: "/srv/secret"}
	e, err := rules.NewEngine(context.Background(), rules.Config{Rules: append(rules.DefaultRules(), deny), Roots: map[string]string{"*": "/srv/proj"}})
	require.NoError(t, err)
	catalogue := map[string]*provider.Tool{}
	for _, tl := range withRequestTools(nil) {
		catalogue[tl.Function.Name] = &tl
	}
	for _, c := range []struct {
		method, params string
		want           verdict.Decision
	}{
		{"resources/read", `{"uri":"file:///srv/proj/notes.md","_meta":{"progressToken":1}}`, rules.Allow},
		{"resources/read", `{"uri":"file:///etc/hosts"}`, rules.Allow},
		{"resources/read", `{"uri":"file:///srv/secret/key"}`, rules.Deny},
		{"resources/read", `{"uri":"file:///srv/proj/%2e%2e/secret/key"}`, rules.Deny},
		{"resources/read", `{"uri":"demo://resource/static/document/a.md"}`, rules.Ask},
		{"resources/read", `{"uri":"https://evil.example/"}`, rules.Ask},
		{"resources/read", `{"uri":"notes.md"}`, rules.Ask},
		{"prompts/get", `{"name":"simple-prompt"}`, rules.Allow},
		{"prompts/get", `{"name":"review","arguments":{"file":"/srv/secret/key"}}`, rules.Deny},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"E"}}`, rules.Allow},
		{"completion/complete", `{"ref":{"type":"ref/resource","uri":"file:///srv/secret/{name}"},"argument":{"name":"name","value":"k"}}`, rules.Deny},
	} {
		req, err := readCallRequest(c.method, []byte(c.params))
		require.NoError(t, err)
		call := provider.Call{ID: "1", Type: "function", Function: provider.CallFunction{Name: req.name, Arguments: req.arguments}}
		d, _, err := e.Decide(context.Background(), call, catalogue[req.name])
		require.NoError(t, err)
		assert.Equal(t, c.want, d.Decision, "%s %s: %+v", c.method, c.params, d)
	}
}

// A refusal is an is_error result for a tools/call, and a JSON-RPC error
// naming the same words for the other methods.
func TestAnswerRefused(t *testing.T) {
	r := provider.ErrorResult("1", "Denied by mcp-policy: 'resources/read' is not allowed by rule {...}.")
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal((&hostCall{method: methodResourcesRead}).answerRefused([]byte(`7`), r), &msg))
	require.NotNil(t, msg.Error)
	assert.Equal(t, errRefused, msg.Error.Code)
	assert.Equal(t, r.Content, msg.Error.Message)
	assert.Nil(t, msg.Result)
	msg.Error = nil
	require.NoError(t, json.Unmarshal((&hostCall{method: methodToolsCall}).answerRefused([]byte(`7`), r), &msg))
	assert.Nil(t, msg.Error)
	assert.Contains(t, string(msg.Result), `"isError":true`)
	gone := &hostCall{method: methodPromptsGet, failCode: errServerGone}
	require.NoError(t, json.Unmarshal(gone.answerRefused([]byte(`7`), r), &msg))
	assert.Equal(t, errServerGone, msg.Error.Code)
}

// readByEncodingJSON is a tools/call's params read as the proxy read them
// before its one-pass reading: unambiguous, then encoding/json, then the
// long way for anything it does not take.
func readByEncodingJSON(params []byte) (callRequest, error) {
	var r callRequest
	if err := unambiguous(params, callMembers); err != nil {
		if errors.Is(err, errNotObject) {
			return r, errors.New("must be an object")
		}
		return r, err
	}
	if unpairedSurrogate(member(params, "name")) {
		return r, errors.New("the tool's name has an unpaired surrogate escape (\\uD800 to \\uDFFF), which readers read differently")
	}
	var call struct {
		Name           string          `json:"name"`
		Arguments      json.RawMessage `json:"arguments"`
		Meta           json.RawMessage `json:"_meta"`
		RequestState   *string         `json:"requestState"`
		InputResponses json.RawMessage `json:"inputResponses"`
	}
	if json.Unmarshal(params, &call) == nil && call.Name != "" {
		r.meta, r.inputResponses = call.Meta, call.InputResponses
		if call.RequestState != nil {
			r.requestState = *call.RequestState
		}
		return r, r.callOf(call.Name, call.Arguments)
	}
	return readParams(methodToolsCall, params)
}

// A tools/call's params are read in one pass as encoding/json reads them:
// the same tool, arguments, _meta, requestState and inputResponses, and
// the same refusals, for odd spellings, escapes, invalid UTF-8, nulls and
// values of the wrong type. The proxy decides the call it reads and
// forwards the bytes the host wrote, so a reading of its own that differed
// from a server's would decide another call than the one run.
func FuzzReadToolsCallParams(f *testing.F) {
	for _, s := range []string{
		`{"name":"fs_read","arguments":{"path":"a"},"_meta":{"progressToken":1}}`,
		`{"name":"fs_read"}`, `{"name":"fs_read","arguments":null}`, `{"name":null}`, `{"name":7}`, `{"name":""}`,
		`{"name":"a\u0062","arguments":{"p":"\u00e9"}}`, `{"n\u0061me":"x"}`, "{\"name\":\"a\xff\"}", `{"name":"a\ud800"}`,
		`{"name":"x","requestState":null}`, `{"name":"x","requestState":"s"}`, `{"name":"x","requestState":1}`,
		"{\"name\":\"x\",\"requestState\":\"\xfe\"}", `{"name":"x","inputResponses":{"k":{}},"task":{}}`,
		`{"name":"x","arguments":[1,2]}`, `{"name":"x","arguments":tru}`, `{"name":"x" , "arguments" : { } }`,
		`{"name":"resources/read"}`, `{"name":"x","NAME":"y"}`, `{"name":"x","extra":{"a":"b\"c"}}`, `[]`, `"x"`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		want, werr := readByEncodingJSON(params)
		got, gerr := readCallRequest(methodToolsCall, params)
		require.Equal(t, werr, gerr, "%q", params)
		if werr != nil {
			return
		}
		require.Equal(t, want, got, "%q", params)
	})
}

// A surrogate escape is unpaired unless a high half is followed at once by
// a low half; an escaped backslash before "u" is no escape.
func TestUnpairedSurrogate(t *testing.T) {
	for raw, want := range map[string]bool{
		`"\ud800"`: true, `"\udc00"`: true, `"a\udfffb"`: true, `"\ud800\u0041"`: true, `"\ud800\ud800"`: true,
		`"\ud800\udc00\udc00"`: true, `"\\\ud800"`: true, `"\ud800x\udc00"`: true, `"\uDBFF"`: true,
		`"\ud83d\ude00"`: false, `"\uD83D\uDE00"`: false, `"\\ud800"`: false, `"\\\\ud800"`: false,
		`"abc"`: false, `"\u00e9\n"`: false, `"\ud7ff\ue000"`: false, `"\ud8"`: false, ``: false,
	} {
		assert.Equal(t, want, unpairedSurrogate([]byte(raw)), raw)
	}
}

// A call's params and id are taken from its line's one copy when they are
// slices of the line, and copied when they are not: never the reader's
// buffer, which the next line overwrites.
func TestSameBytesIn(t *testing.T) {
	msg := []byte(`{"id":7,"params":{"a":1}}` + "\n")
	clone := slices.Clone(msg)
	kept := sameBytesIn(clone, msg, msg[17:24])
	assert.Equal(t, `{"a":1}`, string(kept))
	assert.Same(t, &clone[17], &kept[0], "a slice of the copy")
	assert.Equal(t, len(kept), cap(kept), "appending to it cannot write over the copy's rest")

	other := []byte(`{"a":1}`)
	got := sameBytesIn(clone, msg, other)
	assert.Equal(t, `{"a":1}`, string(got))
	assert.NotSame(t, &other[0], &got[0], "a part of another buffer is copied")
	assert.NotSame(t, &clone[17], &got[0])
	assert.Nil(t, sameBytesIn(clone, msg, nil))

	for i := range msg {
		msg[i] = 'x' // the reader's buffer, read into again
	}
	assert.Equal(t, `{"a":1}`, string(kept))
}
