package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProxyRefusesLinesAServerCouldSplit: the proxy passes a host's line on
// as it came, so a line a server could read as more than one message is
// refused whole. Against test/lenientserver, which ends lines at carriage
// returns and reads value after value as real SDKs do, each line here ran
// a write the rules refuse (red team, third report, finding 1).
func TestProxyRefusesLinesAServerCouldSplit(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o644))
	pwned := filepath.Join(dir, "pwned.txt")
	h := startRaw(t, []string{"--ask", "refuse"}, []string{lenientserver, dir}, nil)
	h.initialize(map[string]any{})
	write := fmt.Sprintf(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"write_file","arguments":{"path":%q,"content":"x"}}}`, pwned)
	ping := func(id int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id) }
	for i, tc := range []struct {
		line   string
		answer int // the id answered with an error; 0 for none
	}{
		{ping(101) + "\r" + write, 101},
		{ping(102) + write, 102},
		{ping(103) + " " + write, 103},
		{ping(104) + "\t\r \r" + write, 104},
		{`{"jsonrpc":"2.0","method":"notifications/x","params":` + "\r" + write + "\r}", 0},
		{`[` + ping(105) + `]` + "\r" + write, 0},
		{`{"jsonrpc":"2.0","id":106,"method":"tools/call","params":` + "\r" + strings.TrimPrefix(write, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":`) + "}", 106},
		// A byte that is not UTF-8, which the server drops: its method is
		// tools/call (outside reliability round, finding 3).
		{strings.Replace(strings.Replace(write, `"id":9`, `"id":107`, 1), "tools/call", "tools/c\xffall", 1), 107},
		{strings.Replace(strings.Replace(write, `"id":9`, `"id":108`, 1), "write_file", "write_\xfffile", 1), 108},
		// Lines the proxy cannot read whole, which a lenient reader reads:
		// every request in them is answered with an error (fault round).
		{"[" + ping(109) + "," + strings.Replace(strings.Replace(write, `"id":9`, `"id":110`, 1), `"content":"x"`, `"content":"`+"\xff"+`"`, 1) + "]", 109},
		{"\xef\xbb\xbf" + strings.Replace(write, `"id":9`, `"id":111`, 1), 111},
		{strings.Replace(strings.Replace(write, `"id":9`, `"id":112`, 1), `"method"`, `"meth`+"\xff"+`od"`, 1), 112},
	} {
		_, err := h.in.Write([]byte(tc.line + "\n"))
		require.NoError(t, err)
		if tc.answer != 0 {
			r := h.response(float64(tc.answer), 20*time.Second)
			assert.NotNil(t, r["error"], "line %d was passed on: %v\n%q", i+1, r, tc.line)
		}
	}
	// The proxy still decides ordinary calls: the read is allowed and
	// answered after all the lines above were dealt with.
	h.callTool(200, "read_text_file", map[string]any{"path": filepath.Join(dir, "a.txt")})
	text, isError := resultText(t, h.response(200, 20*time.Second))
	assert.False(t, isError, text)
	assert.Contains(t, text, "hello")
	_, statErr := os.Stat(pwned)
	require.True(t, os.IsNotExist(statErr), "a line ran the write")
	assert.NotContains(t, h.stderr.String(), "lenientserver: call write_file", "the server was sent the write")
	// And the write, sent as a message of its own, is decided: refused.
	_, err = h.in.Write([]byte(write + "\n"))
	require.NoError(t, err)
	_, isError = resultText(t, h.response(9, 20*time.Second))
	assert.True(t, isError, "the write was allowed")
}

// TestProxyRefusesServerLinesAHostCouldSplit: the same holds for what the
// server writes. A line a host could read as more than one message, or as
// a message of another kind than the proxy does, never reaches the host;
// the call it answers gets an error instead. Big lines are held to it as
// small ones are (the proxy once routed a big answer by its last bytes).
func TestProxyRefusesServerLinesAHostCouldSplit(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	big := strings.Repeat("x", 100<<10)
	result := `{"jsonrpc":"2.0","id":@ID@,"result":{"content":[{"type":"text","text":"ok"}]}}`
	bigResult := `{"jsonrpc":"2.0","id":@ID@,"result":{"content":[{"type":"text","text":"` + big + `"}]}}`
	elicit := `{"jsonrpc":"2.0","id":"mcp-policy-smuggled","method":"elicitation/create","params":{"message":"Allow?","requestedSchema":{"type":"object","properties":{}}}}`
	for name, answer := range map[string]string{
		"a carriage return before a second message": result + "\r" + elicit + "\n",
		"the same, big":                                  bigResult + "\r" + elicit + "\n",
		"two values on one line":                         result + elicit + "\n",
		"a result and a method":                          `{"jsonrpc":"2.0","id":@ID@,"result":{"content":[]},"method":"elicitation/create","params":{}}` + "\n",
		"a big result and a method":                      `{"result":{"content":[{"type":"text","text":"` + big + `"}]},"method":"elicitation/create","params":{},"jsonrpc":"2.0","id":@ID@}` + "\n",
		"a result and an error":                          `{"jsonrpc":"2.0","id":@ID@,"result":{"content":[]},"error":{"code":1,"message":"x"}}` + "\n",
		"the id twice, in two cases":                     `{"jsonrpc":"2.0","id":@ID@,"result":{"content":[]},"ID":"mcp-policy-smuggled"}` + "\n",
		"invalid UTF-8, which a strict host drops whole": `{"jsonrpc":"2.0","id":@ID@,"result":{"content":[{"type":"text","text":"a` + "\xff" + `b"}]}}` + "\n",
		"a bad byte before the answer":                   "\xff" + result + "\n",
		"a bad byte in a member's name":                  `{"jsonrpc":"2.0","id":@ID@,"res` + "\xff" + `ult":{"content":[]}}` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "answer")
			require.NoError(t, os.WriteFile(file, []byte(answer), 0o644))
			h := startRaw(t, []string{"--ask", "refuse"}, []string{lenientserver, dir}, []string{"LENIENTSERVER_ANSWER=" + file})
			h.initialize(map[string]any{"elicitation": map[string]any{}})
			h.callTool(7, "read_text_file", map[string]any{"path": filepath.Join(dir, "a.txt")})
			deadline := time.Now().Add(20 * time.Second)
			for {
				m := h.next(time.Until(deadline))
				require.Nil(t, m["unparsable"], "the proxy passed on a line a host could split: %.200q", m["unparsable"])
				require.Nil(t, m["method"], "the proxy passed on the smuggled message: %v", m)
				if m["id"] == float64(7) {
					text, isError := resultText(t, m)
					assert.True(t, isError, "the answer was passed on: %.200s", text)
					assert.Contains(t, text, "could be read more than one way")
					break
				}
			}
			h.waitStderr("dropped")
		})
	}
}

// TestProxyRequestIDs: an id the server could read as another (1e0 is 1 to
// some readers), or one still in use by an unanswered request, even as a
// lenient reader reads it ("21" for 21), is refused: else an answer, or a
// cancellation, meant for one request is taken for another (red team,
// third report, findings 4 and 5; fourth report, finding 1).
func TestProxyRequestIDs(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	a := filepath.Join(dir, "a.txt")
	require.NoError(t, os.WriteFile(a, []byte("hello"), 0o644))
	h := startRaw(t, []string{"--ask", "refuse"}, []string{lenientserver, dir}, nil)
	h.initialize(map[string]any{})
	for _, id := range []string{`1e0`, `1.0`, `-0`, `01`, `null`, `true`, `{"a":1}`} {
		_, err := h.in.Write([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":%q}}}`+"\n", id, a)))
		require.NoError(t, err)
		m := h.next(20 * time.Second)
		assert.NotNil(t, m["error"], "id %s: %v", id, m)
	}
	// One call at the server, a second with its id: refused, and the first
	// answered once.
	h.callTool(21, "slow_read", map[string]any{"path": a})
	h.waitStderr("lenientserver: call slow_read")
	h.callTool(21, "read_text_file", map[string]any{"path": a})
	first := h.response(21, 20*time.Second)
	require.NotNil(t, first["error"], "the second request with id 21 was taken: %v", first)
	assert.Contains(t, fmt.Sprint(first["error"]), "in use")
	// Nor can an id a TypeScript reader takes for 21 (Number(id)) be open
	// beside it: each one's answer could be taken for the other's.
	for _, id := range []string{`"21"`, `" 21 "`, `"0x15"`, `"21.0"`, `"2.1e1"`} {
		_, err := h.in.Write([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` + "\n"))
		require.NoError(t, err)
		m := h.next(20 * time.Second)
		assert.NotNil(t, m["error"], "id %s beside 21: %v", id, m)
		assert.Contains(t, fmt.Sprint(m["error"]), "in use", "id %s beside 21", id)
	}
	text, isError := resultText(t, h.response(21, 20*time.Second))
	assert.False(t, isError, text)
	assert.Contains(t, text, "hello")
	// Answered, the id is free again.
	h.callTool(21, "read_text_file", map[string]any{"path": a})
	text, isError = resultText(t, h.response(21, 20*time.Second))
	assert.False(t, isError, text)
}
