package proxy

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/testkit"
)

// A line longer than the reader's max is read through and dropped, never
// held whole: the buffer stays within max and a read however long the
// line, its start is kept, and the lines around it are read as ever.
func TestLineReaderDropsALineOverItsMax(t *testing.T) {
	const max = 1 << 20
	huge := `{"jsonrpc":"2.0","id":7,"result":{"text":"` + strings.Repeat("x", 5*max) + `"}}`
	for _, ending := range []string{"\n", ""} { // a last line need not end
		in := "{\"a\":1}\n" + huge + ending
		if ending != "" {
			in += "{\"b\":2}\n"
		}
		lr := newLineReader(strings.NewReader(in))
		lr.max = max
		line, err := lr.next()
		require.NoError(t, err)
		assert.Equal(t, "{\"a\":1}\n", string(line))

		_, err = lr.next()
		var tooLong *lineTooLong
		require.ErrorAs(t, err, &tooLong)
		assert.EqualValues(t, len(huge), tooLong.size, "the whole line is counted")
		assert.LessOrEqual(t, len(lr.buf), max+readSize, "the buffer held no more than max and a read")
		assert.Contains(t, err.Error(), "limit of 1048576 bytes")
		envs := everyID(tooLong.head)
		require.Len(t, envs, 1)
		assert.Equal(t, "7", string(envs[0].id))
		assert.False(t, envs[0].hasMethod)

		line, err = lr.next()
		if ending != "" {
			require.NoError(t, err)
			assert.Equal(t, "{\"b\":2}\n", string(line), "the stream goes on after the dropped line")
			_, err = lr.next()
		}
		assert.ErrorIs(t, err, io.EOF)
	}
}

// What a message no strict reader takes, or the start of one too long to
// read, tells: every id a reader could find (the first of a duplicate, the
// last, one spelt in another case), and whether it has a method, when
// they come before the member that cannot be read.
func TestEveryID(t *testing.T) {
	for _, c := range []struct {
		msg    string
		ids    []string
		method bool
	}{
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","arguments":{"a":"aaaa`, []string{`3`}, true},
		{`{"jsonrpc":"2.0","id":"a","result":{"content":[{"text":"aaa`, []string{`"a"`}, false},
		{`{"result":{"content":[{"text":"aaa`, nil, false},
		{`{"id":1,"id":2,"result":{}}`, []string{`1`, `2`}, false},
		{`{"id":1,"ID":"x","result":{}}`, []string{`1`, `"x"`}, false},
		{`[{"id":1`, nil, false},
		{`not json`, nil, false},
	} {
		var ids []string
		method := false
		for _, e := range everyID([]byte(c.msg)) {
			ids = append(ids, string(e.id))
			method = e.hasMethod
		}
		assert.Equal(t, c.ids, ids, c.msg)
		if len(ids) > 0 {
			assert.Equal(t, c.method, method, c.msg)
		}
	}
}

// A server's answer longer than the limit fails the call it answers with
// an error naming the limit, says so on stderr, and the next call goes
// through as ever.
func TestRelayDropsAServerLineOverTheLimit(t *testing.T) {
	var stderr testkit.SyncBuffer
	rt := newRelayTestWith(t, testRules, true, relayLimits{serverMaxLine: 1 << 20, stderr: &stderr})
	rt.initialize(`{}`)
	rt.fromHost(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	require.EqualValues(t, 5, next(t, rt.server, "the allowed call")["id"])
	rt.fromServer(`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"` + strings.Repeat("y", 2<<20) + `"}]}}`)
	m := next(t, rt.host, "the failed call")
	assert.EqualValues(t, 5, m["id"])
	assert.True(t, isErrorResult(m), "%v", m)
	assert.Contains(t, fmt.Sprint(m), "limit of 1048576 bytes")
	assert.Contains(t, stderr.String(), "the MCP server wrote a message of")

	rt.fromHost(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	require.EqualValues(t, 6, next(t, rt.server, "the next call")["id"])
	rt.fromServer(`{"jsonrpc":"2.0","id":6,"result":{"content":[]}}`)
	m = next(t, rt.host, "the next answer")
	assert.EqualValues(t, 6, m["id"])
	assert.False(t, isErrorResult(m))
}

// A host's request longer than the limit never reaches the server: it is
// answered with an error naming the limit.
func TestRelayRefusesAHostLineOverTheLimit(t *testing.T) {
	var stderr testkit.SyncBuffer
	rt := newRelayTestWith(t, testRules, true, relayLimits{hostMaxLine: 1 << 20, stderr: &stderr})
	rt.initialize(`{}`)
	big := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"x":"` + strings.Repeat("z", 2<<20) + `"}}}`
	go rt.fromHost(big) // an io.Pipe: the write lasts until it is read
	m := next(t, rt.host, "the refusal")
	assert.EqualValues(t, 9, m["id"])
	assert.Contains(t, fmt.Sprint(m["error"]), "limit of 1048576 bytes")
	nothing(t, rt.server, "a request over the limit")
	assert.True(t, bytes.Contains([]byte(stderr.String()), []byte("the host sent a message of")))
}

// A server answer with its id twice is dropped, and the call it answers,
// by either reading, fails rather than wait for ever.
func TestRelayFailsTheCallOfAnAnswerWithTwoIDs(t *testing.T) {
	rt := newRelayTest(t, testRules, true)
	rt.initialize(`{}`)
	rt.fromHost(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	require.EqualValues(t, 5, next(t, rt.server, "the allowed call")["id"])
	rt.fromServer(`{"jsonrpc":"2.0","id":5,"id":"other","result":{"content":[]}}`)
	m := next(t, rt.host, "the failed call")
	assert.EqualValues(t, 5, m["id"])
	assert.True(t, isErrorResult(m), "%v", m)
}

// The official TypeScript servers write the id last: an answer over the
// limit names its call at its end, and that call fails, as it does when
// the id comes first. With nothing to tell the call by, the one call at
// the server is the one it answers.
func TestRelayFailsTheCallOfALongAnswerWhoseIDIsLast(t *testing.T) {
	for name, answer := range map[string]string{
		"the id last":      `{"result":{"content":[{"type":"text","text":"` + strings.Repeat("y", 2<<20) + `"}]},"jsonrpc":"2.0","id":5}`,
		"no id to be read": `{"result":{"content":[{"type":"text","text":"` + strings.Repeat("y", 2<<20) + `"}]},"jsonrpc":"2.0","id":5,"x":1}`,
	} {
		t.Run(name, func(t *testing.T) {
			rt := newRelayTestWith(t, testRules, true, relayLimits{serverMaxLine: 1 << 20})
			rt.initialize(`{}`)
			rt.fromHost(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
			require.EqualValues(t, 5, next(t, rt.server, "the allowed call")["id"])
			rt.fromServer(answer)
			m := next(t, rt.host, "the failed call")
			assert.EqualValues(t, 5, m["id"])
			assert.True(t, isErrorResult(m), "%v", m)
			assert.Contains(t, fmt.Sprint(m), "limit of 1048576 bytes")
		})
	}
}

// The limit holds for a line that arrives whole in one read too.
func TestALineJustOverTheLimitInOneReadIsDropped(t *testing.T) {
	line := `{"id":1,"x":"` + strings.Repeat("z", 1<<20) + `"}` + "\n"
	lr := newLineReader(strings.NewReader(line + "{\"id\":2}\n"))
	lr.buf = make([]byte, 4<<20) // the whole line in the first read
	lr.max = 1 << 20
	_, err := lr.next()
	var tooLong *lineTooLong
	require.ErrorAs(t, err, &tooLong)
	next, err := lr.next()
	require.NoError(t, err)
	assert.Equal(t, "{\"id\":2}\n", string(next))
}

// A host request over the limit whose id comes after its params is
// answered too, with the limit named.
func TestRelayRefusesALongHostRequestWhoseIDIsLast(t *testing.T) {
	rt := newRelayTestWith(t, testRules, true, relayLimits{hostMaxLine: 1 << 20})
	rt.initialize(`{}`)
	big := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"x":"` + strings.Repeat("z", 2<<20) + `"}},"id":9}`
	go rt.fromHost(big)
	m := next(t, rt.host, "the refusal")
	assert.EqualValues(t, 9, m["id"])
	assert.Contains(t, fmt.Sprint(m["error"]), "limit of 1048576 bytes")
	nothing(t, rt.server, "a request over the limit")
}

// A server's request longer than the limit never reaches the host, and
// the server is answered with the error, whether its id comes first or
// last, rather than wait for ever.
func TestRelayAnswersALongServerRequest(t *testing.T) {
	for name, request := range map[string]string{
		"the id first": `{"jsonrpc":"2.0","id":40,"method":"sampling/createMessage","params":{"x":"` + strings.Repeat("s", 2<<20) + `"}}`,
		"the id last":  `{"jsonrpc":"2.0","method":"sampling/createMessage","params":{"x":"` + strings.Repeat("s", 2<<20) + `"},"id":40}`,
	} {
		t.Run(name, func(t *testing.T) {
			rt := newRelayTestWith(t, testRules, true, relayLimits{serverMaxLine: 1 << 20})
			rt.initialize(`{}`)
			go rt.fromServer(request)
			m := next(t, rt.server, "the refusal")
			assert.EqualValues(t, 40, m["id"])
			assert.Contains(t, fmt.Sprint(m["error"]), "limit of 1048576 bytes")
			nothing(t, rt.host, "a request over the limit")
		})
	}
}

// A host's answer to a server's request, longer than the limit, is not
// passed on: the server's request fails with the limit named, rather
// than wait for ever.
func TestRelayFailsTheServerRequestOfALongHostAnswer(t *testing.T) {
	for name, answer := range map[string]string{
		"the id first": `{"jsonrpc":"2.0","id":40,"result":{"x":"` + strings.Repeat("a", 2<<20) + `"}}`,
		"the id last":  `{"jsonrpc":"2.0","result":{"x":"` + strings.Repeat("a", 2<<20) + `"},"id":40}`,
	} {
		t.Run(name, func(t *testing.T) {
			rt := newRelayTestWith(t, testRules, true, relayLimits{hostMaxLine: 1 << 20})
			rt.initialize(`{"sampling":{}}`)
			rt.fromServer(`{"jsonrpc":"2.0","id":40,"method":"sampling/createMessage","params":{}}`)
			require.EqualValues(t, 40, next(t, rt.host, "the server's request")["id"])
			go rt.fromHost(answer)
			m := next(t, rt.server, "the failed request")
			assert.EqualValues(t, 40, m["id"])
			assert.Contains(t, fmt.Sprint(m["error"]), "limit of 1048576 bytes")
			nothing(t, rt.host, "no error to the host for its own answer")
		})
	}
}
