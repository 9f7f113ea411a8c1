// Package notify tells webhooks of the questions waiting for an approver
// and of how each ended, so that a human away from the terminal hears of
// them: Slack's incoming webhooks, ntfy topics, and a generic JSON shape
// (docs/approvals.md documents it). Posting happens on a goroutine of its
// own, from a bounded queue: a webhook that is slow, down or refusing
// never delays a decision; what it missed is said on stderr.
//
// A notice carries the question's text up to its arguments (what the
// rules read of the call), the tool, the server, the machine and the
// commands that answer it; never the arguments' values.
package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The kinds of Event.
const (
	Question  = "question"  // a question was put, waiting for an approver
	Answered  = "answered"  // an approver answered it
	TimedOut  = "timed-out" // no one answered in time: the call was refused
	Cancelled = "cancelled" // the call went away first (the host cancelled, or left)
)

// Event is one notice.
type Event struct {
	Kind string `json:"event"`
	ID   string `json:"id"` // the question's, as mcp-policy approve names it
	Tool string `json:"tool"`
	// Server is the MCP server the proxy fronts; Machine, where it runs.
	Server  string `json:"server"`
	Machine string `json:"machine"`
	// Question is the question's text, as the approvals page shows it.
	Question string `json:"question,omitempty"`
	// Answer and By say how an answered question was answered, and by
	// whom.
	Answer string `json:"answer,omitempty"`
	By     string `json:"by,omitempty"`
	// Commands answer the question from a terminal (a question only).
	Commands []string  `json:"commands,omitempty"`
	Time     time.Time `json:"time"`
}

// Target is one webhook: its URL and the shape it takes.
type Target struct {
	URL   string
	Shape string // "slack", "ntfy" or "json"
}

// host is the target as said on stderr: a webhook's URL is its secret.
func (t Target) host() string {
	u, err := url.Parse(t.URL)
	if err != nil {
		return "a webhook"
	}
	return t.Shape + " webhook at " + u.Host
}

// ParseTarget reads a --notify value: slack:URL, ntfy:URL or json:URL, or
// a bare URL (Slack's when its host is hooks.slack.com, ntfy's when it is
// ntfy.sh, else the generic JSON). The URL must be http or https.
func ParseTarget(s string) (Target, error) {
	t := Target{URL: s}
	for _, shape := range []string{"slack", "ntfy", "json"} {
		if rest, ok := strings.CutPrefix(s, shape+":"); ok && !strings.HasPrefix(rest, "//") {
			t = Target{URL: rest, Shape: shape}
		}
	}
	u, err := url.Parse(t.URL)
	if err != nil || u.Host == "" || u.Scheme != "https" && u.Scheme != "http" {
		return Target{}, fmt.Errorf("--notify: %q is not an http or https URL (give slack:URL, ntfy:URL, json:URL or a URL)", redact(s))
	}
	if t.Shape == "" {
		switch strings.ToLower(u.Hostname()) {
		case "hooks.slack.com":
			t.Shape = "slack"
		case "ntfy.sh":
			t.Shape = "ntfy"
		default:
			t.Shape = "json"
		}
	}
	return t, nil
}

// redact is a URL as an error may show it: scheme and host, no path (a
// Slack webhook's path is its secret).
func redact(s string) string {
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		return u.Scheme + "://" + u.Host + "/…"
	}
	if len(s) > 12 {
		return s[:12] + "…"
	}
	return s
}

// queueSize bounds the notices waiting to be posted; past it a notice is
// dropped, and said so.
const queueSize = 256

// postTimeout bounds one post.
const postTimeout = 5 * time.Second

// Notifier posts events to its targets, each target from a queue and a
// goroutine of its own: a webhook that hangs delays no other. Send never
// blocks, and is safe after Close (it drops the event).
type Notifier struct {
	sinks  []*sink
	client *http.Client
	warn   func(string)

	mu     sync.RWMutex
	closed bool
}

// sink is one target's queue.
type sink struct {
	target  Target
	queue   chan Event
	done    chan struct{}
	dropped atomic.Int64 // since the last warning
	warned  atomic.Int64 // unix seconds of the last drop warning
}

// dropWarnEvery is the least time between two warnings of dropped notices
// for one webhook.
const dropWarnEvery = 30 * time.Second

// New starts a notifier posting to targets; warn is told of each post
// that failed and of notices dropped. Close stops it.
func New(targets []Target, warn func(string)) *Notifier {
	n := &Notifier{warn: warn, client: &http.Client{Timeout: postTimeout,
		// A redirect is not followed: it would carry the question to a
		// host the operator did not name. It reads as a failed post.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	for _, t := range targets {
		s := &sink{target: t, queue: make(chan Event, queueSize), done: make(chan struct{})}
		n.sinks = append(n.sinks, s)
		go n.run(s)
	}
	return n
}

// Send queues e for every target; a target whose queue is full drops it
// (said on stderr, at most every half minute, with how many), and an event
// of no kind is dropped.
func (n *Notifier) Send(e Event) {
	if n == nil || e.Kind == "" {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	if n.closed {
		return // the proxy is stopping: nothing is posted any more
	}
	for _, s := range n.sinks {
		select {
		case s.queue <- e:
		default:
			dropped := s.dropped.Add(1)
			now := time.Now().Unix()
			if last := s.warned.Load(); now-last >= int64(dropWarnEvery/time.Second) && s.warned.CompareAndSwap(last, now) {
				s.dropped.Store(0)
				n.warn(fmt.Sprintf("notify: %s is behind; %d notices dropped", s.target.host(), dropped))
			}
		}
	}
}

// Close posts what is queued, within ctx, and stops; a later Send drops
// its event.
func (n *Notifier) Close(ctx context.Context) {
	if n == nil {
		return
	}
	n.mu.Lock()
	if !n.closed {
		n.closed = true
		for _, s := range n.sinks {
			close(s.queue)
		}
	}
	n.mu.Unlock()
	for _, s := range n.sinks {
		select {
		case <-s.done:
		case <-ctx.Done():
			n.warn("notify: stopped before every notice was posted")
			return
		}
	}
}

func (n *Notifier) run(s *sink) {
	defer close(s.done)
	for e := range s.queue {
		if err := n.post(s.target, e); err != nil {
			n.warn(fmt.Sprintf("notify: %s: %v", s.target.host(), err))
		}
	}
}

// post sends e to t in t's shape.
func (n *Notifier) post(t Target, e Event) error {
	var body []byte
	header := http.Header{}
	switch t.Shape {
	case "slack":
		b, err := json.Marshal(map[string]string{"text": slackText(e)})
		if err != nil {
			return err
		}
		body = b
		header.Set("Content-Type", "application/json")
	case "ntfy":
		body = []byte(plainText(e))
		header.Set("Content-Type", "text/plain; charset=utf-8")
		header.Set("Title", asciiHeader(title(e)))
		header.Set("Tags", map[string]string{Question: "question", Answered: "white_check_mark", TimedOut: "hourglass", Cancelled: "x"}[e.Kind])
		if e.Kind == Question {
			header.Set("Priority", "high")
		}
	default:
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		body = b
		header.Set("Content-Type", "application/json")
	}
	req, err := http.NewRequest(http.MethodPost, t.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header = header
	req.Header.Set("User-Agent", "mcp-policy")
	resp, err := n.client.Do(req)
	if err != nil {
		return redactErr(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("answered %s", resp.Status)
	}
	return nil
}

// redactErr is a client's error without the URL's path (the webhook's
// secret): the url.Error's URL replaced by the host.
func redactErr(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return fmt.Errorf("%s: %v", ue.Op, ue.Err)
	}
	return err
}

// title is the notice's one line.
func title(e Event) string {
	switch e.Kind {
	case Question:
		return fmt.Sprintf("mcp-policy asks about %s on %s", e.Tool, e.Machine)
	case Answered:
		return fmt.Sprintf("question %s answered %s by %s", e.ID, e.Answer, e.By)
	case TimedOut:
		return fmt.Sprintf("question %s about %s: no answer in time; the call was refused", e.ID, e.Tool)
	}
	return fmt.Sprintf("question %s about %s: cancelled (the call went away)", e.ID, e.Tool)
}

// plainText is the notice as text: its title, the question, the server,
// and the commands that answer it.
func plainText(e Event) string {
	var b strings.Builder
	b.WriteString(title(e))
	if e.Question != "" {
		b.WriteString("\n\n" + e.Question)
	}
	if e.Server != "" {
		b.WriteString("\n\nserver: " + e.Server)
	}
	if len(e.Commands) > 0 {
		b.WriteString("\n\nanswer with:")
		for _, c := range e.Commands {
			b.WriteString("\n  " + c)
		}
	}
	return b.String()
}

// slackText is the notice in Slack's mrkdwn, with &, < and > escaped as
// Slack asks (its text is otherwise shown as written: no link or mention
// can be made from the question's words).
func slackText(e Event) string {
	esc := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	var b strings.Builder
	b.WriteString("*" + esc.Replace(title(e)) + "*")
	if e.Question != "" {
		b.WriteString("\n```" + strings.ReplaceAll(esc.Replace(e.Question), "```", "'''") + "```")
	}
	if e.Server != "" {
		b.WriteString("\nserver: `" + strings.ReplaceAll(esc.Replace(e.Server), "`", "'") + "`")
	}
	for _, c := range e.Commands {
		b.WriteString("\n`" + strings.ReplaceAll(esc.Replace(c), "`", "'") + "`")
	}
	return b.String()
}

// asciiHeader is s as an HTTP header value: printable ASCII, the rest as
// "?" (ntfy shows the title as given).
func asciiHeader(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	if len(b) > 200 {
		b = append(b[:199], '.')
	}
	return string(b)
}
