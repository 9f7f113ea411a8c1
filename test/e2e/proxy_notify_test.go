//go:build unix

package e2e_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// webhook is a local HTTP receiver that keeps each POST's body.
type webhook struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []string
	heads  []http.Header
}

func newWebhook(t *testing.T) *webhook {
	w := &webhook{}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.mu.Lock()
		w.bodies = append(w.bodies, string(b))
		w.heads = append(w.heads, r.Header.Clone())
		w.mu.Unlock()
	}))
	t.Cleanup(w.srv.Close)
	return w
}

// wait waits for the n-th body (from 1) and returns it.
func (w *webhook) wait(t *testing.T, n int) string {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		w.mu.Lock()
		if len(w.bodies) >= n {
			b := w.bodies[n-1]
			w.mu.Unlock()
			return b
		}
		w.mu.Unlock()
	}
	t.Fatalf("the webhook got no notice %d", n)
	return ""
}

// TestNotifyTellsWebhooksOfQuestionsAndTheirEnds: with --notify, a
// question waiting for an approver reaches a generic JSON webhook and a
// Slack-shaped one with the commands that answer it; running the notice's
// own "allow" command lets the call run, and the answer's notice follows;
// a question no one answers ends as timed out. A webhook that is down
// delays nothing.
func TestNotifyTellsWebhooksOfQuestionsAndTheirEnds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	grantsFile := filepath.Join(t.TempDir(), "grants.json")
	generic, slack := newWebhook(t), newWebhook(t)
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	deadURL := "http://" + dead.Addr().String() + "/secret-path"
	require.NoError(t, dead.Close()) // nothing listens there now

	h := startRaw(t, []string{"--root", "fs=" + dir, "--grants", grantsFile, "--ask", "approvals", "--ask-timeout", "4s",
		"--notify", "json:" + deadURL, "--notify", "json:" + generic.srv.URL + "/hook", "--notify", "slack:" + slack.srv.URL + "/services/x"},
		[]string{fsserver, dir}, nil)
	h.initialize(map[string]any{})
	h.callTool(1, "fs_write", map[string]any{"path": "notes <b>.md", "content": "hi-secret-content"})

	var q struct {
		Event, ID, Tool, Machine, Question string
		Commands                           []string
	}
	require.NoError(t, json.Unmarshal([]byte(generic.wait(t, 1)), &q))
	assert.Equal(t, "question", q.Event)
	assert.Equal(t, "fs_write", q.Tool)
	assert.Contains(t, q.Question, "The agent wants to run fs_write.")
	assert.NotContains(t, generic.wait(t, 1), `hi-secret-content`, "the file's contents stay here")
	assert.NotContains(t, q.Question, "Its arguments")
	var allow string
	for _, c := range q.Commands {
		if strings.HasSuffix(c, " allow "+q.ID) {
			allow = c
		}
	}
	require.NotEmpty(t, allow, "the notice says how to allow it: %v", q.Commands)

	text := slack.wait(t, 1)
	var msg map[string]string
	require.NoError(t, json.Unmarshal([]byte(text), &msg))
	assert.Contains(t, msg["text"], "mcp-policy asks about fs_write")
	assert.Contains(t, msg["text"], "notes &lt;b&gt;.md", "Slack's markup escaped")
	assert.NotContains(t, msg["text"], "<b>")

	// The approver runs the command the notice gave, as a shell would.
	f := strings.Fields(allow)
	require.Equal(t, "mcp-policy", f[0])
	out, err := exec.Command(proxyBinary(t), f[1:]...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	_, isErr := resultText(t, h.response(1, 20*time.Second))
	require.False(t, isErr, "the approved write")

	var ended map[string]string
	require.NoError(t, json.Unmarshal([]byte(generic.wait(t, 2)), &ended))
	assert.Equal(t, "answered", ended["event"])
	assert.Equal(t, q.ID, ended["id"])
	assert.Equal(t, "allow-once", ended["answer"])
	assert.NotEmpty(t, ended["by"])

	progress(t, "a question no one answers")
	h.callTool(2, "fs_write", map[string]any{"path": "other.md", "content": "x"})
	require.NoError(t, json.Unmarshal([]byte(generic.wait(t, 3)), &q))
	assert.Equal(t, "question", q.Event)
	_, isErr = resultText(t, h.response(2, 20*time.Second))
	require.True(t, isErr)
	require.NoError(t, json.Unmarshal([]byte(generic.wait(t, 4)), &ended))
	assert.Equal(t, "timed-out", ended["event"])
	assert.Equal(t, q.ID, ended["id"])

	h.waitStderr("notify: json webhook at " + dead.Addr().String())
	assert.NotContains(t, h.stderr.String(), "secret-path", "a webhook's path is its secret")
}
