// Package testkit holds the helpers the module's tests share, written once:
// a tool call, a buffer a process's stderr can be written into while a
// test reads it, and waiting for something another goroutine does.
package testkit

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/provider"
)

// Call is a function call as a model makes it: id, tool name and the
// arguments' JSON text.
func Call(id, name, args string) provider.Call {
	return provider.Call{ID: id, Type: "function", Function: provider.CallFunction{Name: name, Arguments: args}}
}

// SyncBuffer is a bytes.Buffer safe to write from one goroutine (a
// server's stderr copied by os/exec, a logger) while a test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Eventually waits, within d, for cond to hold, and fails the test with
// what (and what each of show returns, to see the state it ended in)
// when it does not.
func Eventually(t testing.TB, d time.Duration, what string, cond func() bool, show ...func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			var seen []string
			for _, f := range show {
				seen = append(seen, f())
			}
			t.Fatalf("not within %v: %s %s", d, what, strings.Join(seen, "\n"))
		}
		time.Sleep(5 * time.Millisecond)
	}
}
