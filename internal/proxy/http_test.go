package proxy

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// misbehavingHTTPServer answers each POSTed request by its method: with
// another request's id (over SSE), with a body whose one line is longer
// than the proxy's limit, or as it should.
func misbehavingHTTPServer(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed) // no GET stream
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &req) != nil || req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		switch req.Method {
		case "wrong-id":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":99999,\"result\":{\"content\":[]}}\n\n")
		case "huge":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"text":"%s"}}`, req.ID, strings.Repeat("h", 2<<20))
		case "many-lines":
			// Short lines, a big body: what counts is the message.
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"items":[`, req.ID)
			for i := range 40000 {
				fmt.Fprintf(w, "\n\"%064d\",", i)
			}
			fmt.Fprint(w, "\n\"end\"]}}")
		case "sse-pretty":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: {\ndata:  \"jsonrpc\": \"2.0\",\ndata:  \"id\": %s,\ndata:  \"result\": {\"ok\": true}\ndata: }\n\n", req.ID)
		case "sse-many-lines":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: message\n")
			for range 40000 {
				fmt.Fprintf(w, "data: %064d\n", 0)
			}
			fmt.Fprint(w, "\n")
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"ok":true}}`, req.ID)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// recvWithin is the upstream's next message, failing after a while.
func recvWithin(t *testing.T, u upstream) map[string]any {
	t.Helper()
	got := make(chan []byte, 1)
	go func() {
		msg, _ := u.recv()
		got <- msg
	}()
	select {
	case msg := <-got:
		var m map[string]any
		require.NoError(t, json.Unmarshal(msg, &m), "%s", msg)
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no message from the server")
		return nil
	}
}

// Over --url an answer is matched to its request by id, as over stdio: an
// answer with another id fails the request rather than answer it, and a
// body with a line over the limit fails it too, naming the limit, with no
// more than the limit read into memory.
func TestHTTPAnswersAreTheirRequests(t *testing.T) {
	u, err := newHTTPUpstream(misbehavingHTTPServer(t), nil, 1<<20)
	require.NoError(t, err)
	t.Cleanup(u.stop)

	require.NoError(t, u.send([]byte(`{"jsonrpc":"2.0","id":2,"method":"wrong-id","params":{}}`+"\n")))
	m := recvWithin(t, u)
	assert.EqualValues(t, 2, m["id"])
	assert.Nil(t, m["result"], "another request's answer is not this one's")
	assert.Contains(t, fmt.Sprint(m["error"]), "answered request 2 with id 99999")

	require.NoError(t, u.send([]byte(`{"jsonrpc":"2.0","id":3,"method":"huge","params":{}}`+"\n")))
	m = recvWithin(t, u)
	assert.EqualValues(t, 3, m["id"])
	assert.Contains(t, fmt.Sprint(m["error"]), "limit of 1048576 bytes")

	require.NoError(t, u.send([]byte(`{"jsonrpc":"2.0","id":10,"method":"many-lines","params":{}}`+"\n")))
	m = recvWithin(t, u)
	assert.EqualValues(t, 10, m["id"])
	assert.Contains(t, fmt.Sprint(m["error"]), "limit of 1048576 bytes", "a JSON body over the limit, however it is cut into lines, said so: %.200v", m)

	// An SSE event cut into many lines fails on their number, before the
	// client below joins them (at a cost growing with lines times bytes):
	// 40,000 lines of 70 bytes took it seconds of CPU.
	start := time.Now()
	require.NoError(t, u.send([]byte(`{"jsonrpc":"2.0","id":11,"method":"sse-many-lines","params":{}}`+"\n")))
	m = recvWithin(t, u)
	assert.EqualValues(t, 11, m["id"])
	assert.Contains(t, fmt.Sprint(m["error"]), "too many to join for the limit of 1048576 bytes", "an event cut into too many lines said so: %.200v", m)
	t.Logf("refused in %v", time.Since(start))

	// An event of a few data lines, as some servers write pretty JSON, is
	// one message.
	require.NoError(t, u.send([]byte(`{"jsonrpc":"2.0","id":12,"method":"sse-pretty","params":{}}`+"\n")))
	m = recvWithin(t, u)
	assert.EqualValues(t, 12, m["id"])
	assert.Equal(t, map[string]any{"ok": true}, m["result"], "%.200v", m)

	require.NoError(t, u.send([]byte(`{"jsonrpc":"2.0","id":"ok","method":"fine","params":{}}`+"\n")))
	m = recvWithin(t, u)
	assert.Equal(t, "ok", m["id"])
	assert.Equal(t, map[string]any{"ok": true}, m["result"])
}
