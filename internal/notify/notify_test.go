package notify_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/notify"
)

func TestParseTarget(t *testing.T) {
	for in, want := range map[string]notify.Target{
		"slack:https://example.com/x":            {URL: "https://example.com/x", Shape: "slack"},
		"https://hooks.slack.com/services/T/B/X": {URL: "https://hooks.slack.com/services/T/B/X", Shape: "slack"},
		"https://ntfy.sh/topic":                  {URL: "https://ntfy.sh/topic", Shape: "ntfy"},
		"ntfy:http://127.0.0.1:8080/t":           {URL: "http://127.0.0.1:8080/t", Shape: "ntfy"},
		"json:https://example.com/hook":          {URL: "https://example.com/hook", Shape: "json"},
		"https://example.com/hook":               {URL: "https://example.com/hook", Shape: "json"},
	} {
		got, err := notify.ParseTarget(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "slack:", "ftp://example.com/x", "example.com/hook", "slack:/relative", "file:///etc/passwd"} {
		_, err := notify.ParseTarget(bad)
		assert.Error(t, err, bad)
	}
	_, err := notify.ParseTarget("gopher://hooks.example/services/SECRET")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "SECRET", "a webhook's path is its secret")
}

// TestNtfyShape: an ntfy topic gets the text as the body and the title,
// tags and priority in its headers, ASCII only.
func TestNtfyShape(t *testing.T) {
	var mu sync.Mutex
	var body string
	var head http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		body, head = string(b), r.Header.Clone()
		mu.Unlock()
	}))
	defer srv.Close()
	n := notify.New([]notify.Target{{URL: srv.URL + "/topic", Shape: "ntfy"}}, func(string) {})
	n.Send(notify.Event{Kind: notify.Question, ID: "q1", Tool: "fs_write\u202e", Machine: "box", Question: "May it write é?",
		Commands: []string{"mcp-policy approve --grants g allow q1"}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n.Close(ctx)
	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, body, "May it write é?")
	assert.Contains(t, body, "mcp-policy approve --grants g allow q1")
	assert.Equal(t, "mcp-policy asks about fs_write??? on box", head.Get("Title"), "printable ASCII only")
	assert.Equal(t, "high", head.Get("Priority"))
	assert.Equal(t, "question", head.Get("Tags"))
}

// TestAHungWebhookDelaysNothing: Send returns at once while a webhook
// hangs; past the queue's bound notices are dropped, and said so; a
// refusing webhook is said so too.
func TestAHungWebhookDelaysNothing(t *testing.T) {
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	defer hung.Close()
	defer close(release)
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no", http.StatusInternalServerError)
	}))
	defer refusing.Close()

	var mu sync.Mutex
	var said []string
	warn := func(s string) { mu.Lock(); said = append(said, s); mu.Unlock() }
	n := notify.New([]notify.Target{{URL: refusing.URL, Shape: "json"}, {URL: hung.URL, Shape: "json"}}, warn)
	start := time.Now()
	for range 1000 {
		n.Send(notify.Event{Kind: notify.Question, ID: "q"})
	}
	assert.Less(t, time.Since(start), 4*time.Second, "Send never waits for a webhook (one post may wait 5s)")
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(strings.Join(said, "\n"), "answered 500") && strings.Contains(strings.Join(said, "\n"), "notices dropped")
	}, 10*time.Second, 10*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	n.Close(ctx) // bounded by ctx, not by the hung webhook
	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, said[len(said)-1], "stopped before every notice was posted")
}

// TestNoRedirectNoPanicAfterClose: a webhook's redirect is not followed
// (it would carry the question elsewhere), and a notice sent while the
// proxy stops is dropped, not a panic.
func TestNoRedirectNoPanicAfterClose(t *testing.T) {
	var mu sync.Mutex
	elsewhere := 0
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { mu.Lock(); elsewhere++; mu.Unlock() }))
	defer other.Close()
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/steal", http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	var said []string
	n := notify.New([]notify.Target{{URL: redirecting.URL, Shape: "json"}}, func(s string) { mu.Lock(); said = append(said, s); mu.Unlock() })
	n.Send(notify.Event{Kind: notify.Question, ID: "q1", Question: "a question"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n.Close(ctx)
	n.Send(notify.Event{Kind: notify.Answered, ID: "q1"}) // after Close: dropped
	mu.Lock()
	defer mu.Unlock()
	assert.Zero(t, elsewhere, "the redirect was not followed")
	require.NotEmpty(t, said)
	assert.Contains(t, said[0], "answered 307")
}
