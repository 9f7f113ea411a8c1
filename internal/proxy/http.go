package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// httpUpstream is a remote server over streamable HTTP, through mcp-go's
// transport (sessions, SSE streams, the GET stream, 2026-07-28 headers),
// seen by the relay as a stream of messages like a process's stdout. Each
// request of the host's becomes a POST; the server's answer comes back as
// a message built around the result the server sent (its bytes kept);
// requests and notifications the server sends on its streams become
// messages to the host.
type httpUpstream struct {
	tr  *transport.StreamableHTTP
	url string
	in  chan []byte

	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once

	mu      sync.Mutex
	waiting map[string]chan []byte // the server's requests, awaiting the host's answer
}

func newHTTPUpstream(url string, headers []string, maxLine int) (*httpUpstream, error) {
	hdrs := map[string]string{}
	for _, h := range headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("--header %q: want 'Name: value'", h)
		}
		hdrs[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	client := &http.Client{Transport: lineCapped{base: http.DefaultTransport, max: maxLine}}
	// A server on a protocol before 2026-07-28 sends its requests and
	// notifications outside a call on the standalone GET stream, which the
	// proxy must keep open to relay them; the option is deprecated only
	// because the newest protocol has no such stream.
	//lint:ignore SA1019 see above
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(hdrs), transport.WithContinuousListening(),
		transport.WithHTTPBasicClient(client))
	if err != nil {
		return nil, err
	}
	u := &httpUpstream{tr: tr, url: url, in: make(chan []byte, 64), waiting: map[string]chan []byte{}}
	u.ctx, u.cancel = context.WithCancel(context.Background())
	tr.SetNotificationHandler(func(n mcp.JSONRPCNotification) {
		if b, err := json.Marshal(n); err == nil {
			u.deliver(append(b, '\n'))
		}
	})
	tr.SetRequestHandler(u.serverRequest)
	if err := tr.Start(u.ctx); err != nil {
		return nil, err
	}
	return u, nil
}

// deliver hands a message to recv.
func (u *httpUpstream) deliver(msg []byte) {
	select {
	case u.in <- msg:
	case <-u.ctx.Done():
	}
}

func (u *httpUpstream) recv() ([]byte, error) {
	select {
	case m := <-u.in:
		return m, nil
	case <-u.ctx.Done():
		return nil, io.EOF
	}
}

func (u *httpUpstream) send(msg []byte) error {
	env, err := parseEnvelope(msg)
	if err != nil {
		return err
	}
	switch {
	case env.isRequest():
		var id mcp.RequestId
		if err := json.Unmarshal(env.id, &id); err != nil {
			return err
		}
		req := transport.JSONRPCRequest{JSONRPC: "2.0", ID: id, Method: env.method}
		if env.params != nil {
			req.Params = json.RawMessage(bytes.Clone(env.params))
			if version, _, modern := modernMeta(member(env.params, "_meta")); modern {
				u.tr.SetProtocolVersion(version)
				req.Header = http.Header{}
				for k, v := range mcp.StandardHeaders(version, mcp.MCPMethod(env.method), env.params) {
					req.Header.Set(k, v)
				}
			}
		}
		rawID := bytes.Clone(env.id)
		go u.request(req, rawID)
	case env.isNotification():
		var n mcp.JSONRPCNotification
		if err := json.Unmarshal(msg, &n); err != nil {
			return err
		}
		go func() { _ = u.tr.SendNotification(u.ctx, n) }()
	case env.isResponse():
		key := idKey(env.id)
		u.mu.Lock()
		ch := u.waiting[key]
		delete(u.waiting, key)
		u.mu.Unlock()
		if ch != nil {
			ch <- bytes.Clone(msg)
		}
	}
	return nil
}

// request POSTs one request of the host's and delivers the answer.
func (u *httpUpstream) request(req transport.JSONRPCRequest, rawID []byte) {
	overLimit := &atomic.Pointer[lineTooLong]{}
	resp, err := u.tr.SendRequest(context.WithValue(u.ctx, overLimitKey{}, overLimit), req)
	if e := overLimit.Load(); e != nil {
		// The transport may say only that no answer came (an SSE event
		// it stopped reading): the host is told why.
		u.deliver(errorMessage(rawID, errServerGone, fmt.Sprintf("mcp-policy: the MCP server at %s answered with %v; dropped", u.url, e)))
		return
	}
	if err != nil {
		if u.ctx.Err() == nil {
			u.deliver(errorMessage(rawID, errServerGone, fmt.Sprintf("mcp-policy: the MCP server at %s: %v", u.url, err)))
		}
		return
	}
	if sent, got := idJSON(req.ID), idJSON(resp.ID); sent != got {
		// An answer to another request (a stream the server mixed up, or
		// a forgery): it answers nothing here, and this request fails
		// rather than take it, as the stdio path drops such answers.
		u.deliver(errorMessage(rawID, errServerGone, fmt.Sprintf("mcp-policy: the MCP server at %s answered request %s with id %.40s; not passed on", u.url, sent, got)))
		return
	}
	if resp.Error != nil {
		u.deliver(marshalLine(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(rawID), "error": resp.Error}))
		return
	}
	if req.Method == methodInitialize {
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(resp.Result, &r) == nil && r.ProtocolVersion != "" {
			u.tr.SetProtocolVersion(r.ProtocolVersion)
		}
	}
	result := resp.Result
	if len(result) == 0 {
		result = json.RawMessage("{}")
	}
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(rawID)
	b.WriteString(`,"result":`)
	b.Write(result)
	b.WriteString("}\n")
	u.deliver(b.Bytes())
}

// serverRequest passes a request the server sent on a stream to the relay,
// and waits for the answer the host gives it.
func (u *httpUpstream) serverRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	idRaw, err := json.Marshal(req.ID)
	if err != nil {
		return nil, err
	}
	ch := make(chan []byte, 1)
	key := idKey(idRaw)
	u.mu.Lock()
	u.waiting[key] = ch
	u.mu.Unlock()
	defer func() {
		u.mu.Lock()
		delete(u.waiting, key)
		u.mu.Unlock()
	}()
	u.deliver(append(b, '\n'))
	select {
	case answer := <-ch:
		var resp transport.JSONRPCResponse
		if err := json.Unmarshal(answer, &resp); err != nil {
			return nil, err
		}
		return &resp, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-u.ctx.Done():
		return nil, errors.New("mcp-policy proxy: stopping")
	}
}

func (u *httpUpstream) stop() {
	u.once.Do(func() {
		u.cancel()
		_ = u.tr.Close()
	})
}

func (u *httpUpstream) exit() (int, string) {
	<-u.ctx.Done()
	return 0, "the connection to the MCP server at " + u.url + " was closed"
}

func (u *httpUpstream) stoppedByUs() bool { return true }

// idJSON is a request id as JSON, for comparing one sent with one
// answered.
func idJSON(id mcp.RequestId) string {
	b, err := json.Marshal(id)
	if err != nil {
		return ""
	}
	return string(b)
}

// lineCapped bounds every line of a response body, SSE event lines and a
// JSON body alike, at max bytes: past it the body ends with a
// *lineTooLong, and the request it answers fails, rather than the proxy
// holding a message of any size.
type lineCapped struct {
	base http.RoundTripper
	max  int
}

// overLimitKey carries, in a request's context, where its response body
// says it went over the limit: the one request the body answers.
type overLimitKey struct{}

func (l lineCapped) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.base.RoundTrip(req)
	if err == nil && resp.Body != nil {
		over, _ := req.Context().Value(overLimitKey{}).(*atomic.Pointer[lineTooLong])
		sse := strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/event-stream")
		resp.Body = &cappedBody{ReadCloser: resp.Body, max: l.max, sse: sse, over: over}
	}
	return resp, err
}

// cappedBody bounds a response body at max bytes between blank lines: an
// SSE event (whose data lines are joined into one message), or a whole
// JSON body (which has none), whatever lines it is cut into. It bounds
// what an SSE event's lines cost to join, too: the MCP client below joins
// an event's data lines one string at a time, copying the message so far
// at each, so a megabyte cut into a million short lines would cost it
// minutes of CPU. The sum of the event's lengths at each line's end is
// held to joinBudget(max): one line of the largest message passes, as
// does one cut into a few hundred lines; one cut into thousands of short
// lines fails within a few hundred kilobytes.
type cappedBody struct {
	io.ReadCloser
	max     int
	message int   // bytes since the last blank line
	sse     bool  // an event stream, whose events' joining is bounded too
	lines   int   // lines since the last blank line
	joined  int64 // the sum of message at each of those lines' ends
	newline bool  // the last byte read was a newline
	err     error
	over    *atomic.Pointer[lineTooLong] // told when the limit is passed; nil for none
}

// joinBudget is what joining one SSE event's lines may copy: four times
// the largest message, and at least 256 MiB (a few tens of milliseconds).
func joinBudget(limit int) int64 { return max(4*int64(limit), 256<<20) }

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.ReadCloser.Read(p)
	for _, c := range p[:n] {
		switch {
		case c == '\r':
		case c == '\n' && b.newline:
			b.message, b.lines, b.joined = 0, 0, 0 // a blank line: the event ends
		case c == '\n':
			b.newline = true
			b.message++
			b.lines++
			b.joined += int64(b.message)
		default:
			b.newline = false
			b.message++
		}
		if b.sse && b.joined > joinBudget(b.max) {
			e := &lineTooLong{size: int64(b.message), max: b.max, lines: b.lines}
			if b.over != nil {
				b.over.Store(e)
			}
			b.err = e
			return 0, b.err
		}
		if b.message > b.max {
			e := &lineTooLong{size: int64(b.message), max: b.max}
			if b.over != nil {
				b.over.Store(e)
			}
			b.err = e
			return 0, b.err
		}
	}
	return n, err
}
