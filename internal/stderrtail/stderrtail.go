// Package stderrtail keeps the end of an MCP server's stderr, so that an
// error about the server (it would not start, it died) can quote its last
// words: what the MCP client and the proxy both say when a server fails.
package stderrtail

import (
	"io"
	"strings"
	"sync"
)

// Size is how much of the stream a Buffer keeps.
const Size = 4 << 10

// Buffer is an io.Writer that keeps the last Size bytes written to it and
// copies everything to Tee, when set. It is safe for concurrent use.
type Buffer struct {
	mu  sync.Mutex
	buf []byte
	Tee io.Writer
}

func (t *Buffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > Size {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-Size:]...)
	}
	tee := t.Tee
	t.mu.Unlock()
	if tee != nil {
		_, _ = tee.Write(p)
	}
	return len(p), nil
}

// Suffix is the last line written, as "; stderr: LINE" to end a message
// with, or "" when nothing (but whitespace) was.
func (t *Buffer) Suffix() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if s == "" {
		return ""
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return "; stderr: " + s
}
