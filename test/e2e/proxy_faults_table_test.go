//go:build unix

package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server that misbehaves in its answer to a call, fault by fault: what
// the host sees of the call, what stderr says, and that the proxy goes on
// answering (a ping after each). The server writes the answer file for
// read_text_file, "@ID@" replaced by the call's id (lenientserver).
func TestWhatTheHostSeesOfAServersFault(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	ok := `{"jsonrpc":"2.0","id":@ID@,"result":{"content":[{"type":"text","text":"fine"}]}}` + "\n"
	for _, c := range []struct {
		name     string
		answer   string
		flags    []string
		hostSees string // in the call's result text; "" for the server's own answer
		isError  bool
		stderr   string
		maxLines int // at most this many stderr lines hold stderr, when set
	}{
		{name: "a line over --max-line, its id first", flags: []string{"--max-line", "1048576"},
			answer:   `{"jsonrpc":"2.0","id":@ID@,"result":{"content":[{"type":"text","text":"` + strings.Repeat("h", 2<<20) + `"}]}}` + "\n",
			hostSees: "longer than the limit of 1048576 bytes", isError: true, stderr: "the MCP server wrote a message of"},
		{name: "garbage, then the answer", answer: "this is not JSON\n" + ok,
			hostSees: "", stderr: "not one JSON-RPC message"},
		{name: "a flood of answers to nothing, then the answer", answer: strings.Repeat(`{"jsonrpc":"2.0","id":99999,"result":{}}`+"\n", 500) + ok,
			hostSees: "", stderr: "which is no request of the host's", maxLines: 21},
		{name: "the id twice", answer: `{"jsonrpc":"2.0","id":@ID@,"id":"other","result":{"content":[]}}` + "\n",
			hostSees: "could be read more than one way", isError: true, stderr: "dropped"},
		{name: "invalid UTF-8", answer: `{"jsonrpc":"2.0","id":@ID@,"result":{"content":[{"type":"text","text":"a` + "\xff" + `b"}]}}` + "\n",
			hostSees: "could be read more than one way", isError: true, stderr: "dropped"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "answer")
			require.NoError(t, os.WriteFile(file, []byte(c.answer), 0o644))
			h := startRaw(t, append([]string{"--ask", "refuse"}, c.flags...), []string{lenientserver, dir}, []string{"LENIENTSERVER_ANSWER=" + file})
			h.initialize(map[string]any{})
			h.callTool(7, "read_text_file", map[string]any{"path": filepath.Join(dir, "a.txt")})
			text, isError := resultText(t, h.response(7, 20*time.Second))
			assert.Equal(t, c.isError, isError, text)
			if c.hostSees == "" {
				assert.Equal(t, "fine", text, "the server's own answer, after the fault")
			} else {
				assert.Contains(t, text, c.hostSees)
			}
			h.waitStderr(c.stderr)
			if c.maxLines > 0 {
				assert.LessOrEqual(t, strings.Count(h.stderr.String(), c.stderr), c.maxLines, "a flood is counted, not written")
			}
			h.send(map[string]any{"jsonrpc": "2.0", "id": 8, "method": "ping"})
			assert.NotNil(t, h.response(8, 20*time.Second)["result"], "the proxy goes on")
		})
	}
}
