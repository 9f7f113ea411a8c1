package decisionlog_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/decisionlog"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// record is a decision record for a call with these arguments (the text and
// the parsed copy the policy hands to OnDecision).
func record(t *testing.T, args string) policy.Record {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(args), &m))
	return policy.Record{ID: "id", Call: testkit.Call("c1", "edit_file", args), Arguments: m}
}

func TestMaskKeysAreComparedCaseBlindWithoutSeparators(t *testing.T) {
	l := decisionlog.New(&bytes.Buffer{}, decisionlog.Options{})
	e := l.Entry(record(t, `{"old_text":"a","OLD-TEXT":"b","OldText":"c","oldTexts":"kept","path":"/srv/a"}`))
	assert.Equal(t, []string{"/input/arguments/OLD-TEXT", "/input/arguments/OldText", "/input/arguments/old_text"}, e.Erased)
	assert.Equal(t, map[string]any{"oldTexts": "kept", "path": "/srv/a"}, e.Input.Arguments,
		"only the names that fold to a mask key are erased")
}

// A server reading arguments with Go's encoding/json takes "oldſtring"
// (long s) and "\u212aey"-style spellings as the field they fold to, so
// the mask folds them as the rules fold argument names (red team 4: the
// long s left both strings of an edit in the log).
func TestMaskKeysAreComparedUnicodeFolded(t *testing.T) {
	l := decisionlog.New(&bytes.Buffer{}, decisionlog.Options{})
	e := l.Entry(record(t, `{"edits":[{"oldſtring":"SECRET-C","newſtr":"SECRET-D","CONTENT":"SECRET-E"}],"path":"/srv/a"}`))
	assert.Equal(t, []string{"/input/arguments/edits/0/CONTENT", "/input/arguments/edits/0/newſtr", "/input/arguments/edits/0/oldſtring"}, e.Erased)
	line, err := l.Marshal(record(t, `{"edits":[{"oldſtring":"SECRET-C","newſtr":"SECRET-D","CONTENT":"SECRET-E"}]}`))
	require.NoError(t, err)
	assert.NotContains(t, string(line), "SECRET")
}

func TestMaskKeysReplaceTheDefaults(t *testing.T) {
	args := `{"content":"file text","token":"s3cret","path":"/srv/a"}`

	e := decisionlog.New(&bytes.Buffer{}, decisionlog.Options{MaskKeys: []string{"token"}}).Entry(record(t, args))
	assert.Equal(t, []string{"/input/arguments/token"}, e.Erased)
	assert.Equal(t, map[string]any{"content": "file text", "path": "/srv/a"}, e.Input.Arguments,
		"the defaults are replaced, not added to")

	e = decisionlog.New(&bytes.Buffer{}, decisionlog.Options{MaskKeys: []string{}}).Entry(record(t, args))
	assert.Empty(t, e.Erased, "an empty list, unlike nil, masks nothing")
	assert.Len(t, e.Input.Arguments, 3)
}

// The erased fields are JSON pointers (RFC 6901): a "/" or "~" in a name is
// escaped, so a pointer names one field and no other.
func TestErasedPointersAreEscaped(t *testing.T) {
	e := decisionlog.New(&bytes.Buffer{}, decisionlog.Options{}).Entry(record(t,
		`{"files":{"a/b.md":{"content":"x"},"m~n":{"content":"y"}},"edits":[{"newText":"z"}]}`))
	assert.Equal(t, []string{
		"/input/arguments/edits/0/newText",
		"/input/arguments/files/a~1b.md/content",
		"/input/arguments/files/m~0n/content",
	}, e.Erased)
}

// Masking works on a copy: the policy's parsed arguments are not changed
// under it, and other OnDecision consumers see them whole.
func TestMaskingLeavesTheRecordAlone(t *testing.T) {
	rec := record(t, `{"path":"/srv/a","edits":[{"oldText":"o","newText":"n"}],"content":"c"}`)
	before, err := json.Marshal(rec.Arguments)
	require.NoError(t, err)

	e := decisionlog.New(&bytes.Buffer{}, decisionlog.Options{}).Entry(rec)
	require.Len(t, e.Erased, 3)

	after, err := json.Marshal(rec.Arguments)
	require.NoError(t, err)
	assert.JSONEq(t, string(before), string(after))
}

func TestLabelsAreTheLoggersOwnCopy(t *testing.T) {
	labels := map[string]string{"app": "proxy"}
	l := decisionlog.New(&bytes.Buffer{}, decisionlog.Options{Labels: labels})
	labels["app"] = "changed"
	labels["extra"] = "x"
	rec := record(t, `{}`)
	rec.Policy = "team"
	assert.Equal(t, map[string]string{"app": "proxy", "policy": "team"}, l.Entry(rec).Labels)
}

// failingWriter fails its first n writes.
type failingWriter struct {
	n   int
	buf bytes.Buffer
}

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n > 0 {
		w.n--
		return 0, errors.New("disk full")
	}
	return w.buf.Write(p)
}

// A write that fails is remembered in Err, and the Logger keeps trying: a
// full disk may empty, and the next decision is still logged.
func TestAFailedWriteIsReportedAndTheNextOneTried(t *testing.T) {
	w := &failingWriter{n: 1}
	l := decisionlog.New(w, decisionlog.Options{})
	require.NoError(t, l.Err())

	l.Log(record(t, `{"path":"/srv/a"}`))
	require.EqualError(t, l.Err(), "disk full")
	assert.Zero(t, w.buf.Len())

	rec := record(t, `{"path":"/srv/b"}`)
	rec.Call = provider.Call{ID: "c2", Function: provider.CallFunction{Name: "read_file", Arguments: `{"path":"/srv/b"}`}}
	l.Log(rec)
	line, err := l.Marshal(rec)
	require.NoError(t, err)
	assert.Equal(t, string(line), w.buf.String(), "the next entry is written whole")
	assert.EqualError(t, l.Err(), "disk full", "Err is the first error")
}
