package opaplane

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/logging"
)

// lineLogger writes OPA's plugin messages as the proxy writes its own, one
// line each on stderr ("mcp-policy: opa: ..."), warnings and errors only:
// an operator sees bundles refused and failing to download, and the
// plane's own line says when a set comes into force. OPA's info messages
// (a status report sent on every poll) would be a line a minute in the
// host's log saying nothing happened.
type lineLogger struct {
	w      io.Writer // a lockedWriter: one line at a time
	level  logging.Level
	fields map[string]any
}

func newLineLogger(w io.Writer) *lineLogger {
	return &lineLogger{w: w, level: logging.Warn}
}

func (l *lineLogger) Debug(f string, a ...any) { l.write(logging.Debug, "debug", f, a) }
func (l *lineLogger) Info(f string, a ...any)  { l.write(logging.Info, "info", f, a) }
func (l *lineLogger) Warn(f string, a ...any)  { l.write(logging.Warn, "warning", f, a) }
func (l *lineLogger) Error(f string, a ...any) { l.write(logging.Error, "error", f, a) }

func (l *lineLogger) WithFields(fields map[string]any) logging.Logger {
	n := *l
	n.fields = maps.Clone(l.fields)
	if n.fields == nil {
		n.fields = map[string]any{}
	}
	maps.Copy(n.fields, fields)
	return &n
}

func (l *lineLogger) GetLevel() logging.Level  { return l.level }
func (l *lineLogger) SetLevel(v logging.Level) { l.level = v }

func (l *lineLogger) write(level logging.Level, name, f string, a []any) {
	if level > l.level {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "mcp-policy: opa: %s: ", name)
	fmt.Fprintf(&b, f, a...)
	for _, k := range slices.Sorted(maps.Keys(l.fields)) {
		fmt.Fprintf(&b, " %s=%v", k, l.fields[k])
	}
	b.WriteByte('\n')
	_, _ = io.WriteString(l.w, b.String())
}

// lockedWriter is stderr for the plugins' goroutines and the plane's own:
// one line at a time, whatever the writer underneath.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
