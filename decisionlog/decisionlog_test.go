package decisionlog_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/decisionlog"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// files is a provider with two tools, enough for a policy to decide over.
type files struct{}

func (files) ToolsForLLM(context.Context) ([]provider.Tool, error) {
	yes, no := true, false
	return []provider.Tool{
		{Type: "function", Function: provider.ToolFunction{Name: "read_file", Parameters: json.RawMessage(`{"type":"object"}`)},
			Annotations: &provider.Annotations{ReadOnlyHint: &yes}},
		{Type: "function", Function: provider.ToolFunction{Name: "edit_file", Parameters: json.RawMessage(`{"type":"object"}`)},
			Annotations: &provider.Annotations{ReadOnlyHint: &no}},
	}, nil
}

func (files) ExecuteToolCalls(_ context.Context, calls []provider.Call) []provider.Result {
	out := make([]provider.Result, len(calls))
	for i, c := range calls {
		out[i] = provider.TextResult(c.ID, "done")
	}
	return out
}

// lines decodes every line the logger wrote.
func lines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(buf.Bytes()))
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), "line %q", sc.Text())
		out = append(out, m)
	}
	require.NoError(t, sc.Err(), "reading the log")
	return out
}

// field is m[k] as a T, failing the test when it is absent or of another
// type.
func field[T any](t *testing.T, m map[string]any, k string) T {
	t.Helper()
	v, ok := m[k].(T)
	require.True(t, ok, "%q is %T (%v), want %T, in %v", k, m[k], m[k], v, m)
	return v
}

func newPolicy(t *testing.T, log *decisionlog.Logger, ask policy.AskFunc, extra ...rules.Rule) *policy.Policy {
	t.Helper()
	p, err := policy.New(policy.Options{Provider: files{}, Rules: append(policy.DefaultRules(), extra...),
		Roots: map[string]string{"*": "/srv"}, OnAsk: ask, OnDecision: log.Log, Name: "team-policy"})
	require.NoError(t, err)
	return p
}

func TestEntriesHaveOPAShapeAndMaskContents(t *testing.T) {
	var buf bytes.Buffer
	log := decisionlog.New(&buf, decisionlog.Options{Labels: map[string]string{"app": "proxy"}})
	asked := 0
	p := newPolicy(t, log, func(_ context.Context, q policy.Question) policy.Answer {
		asked++
		return policy.Answer{Action: policy.AlwaysAllow}
	}, rules.Rule{Tool: "edit_file", Decision: rules.Deny, Under: "/srv/prod", Message: "prod is read-only"})

	rs := p.ExecuteToolCalls(context.Background(), []provider.Call{
		testkit.Call("r1", "read_file", `{"path":"notes.md","reason":"to see the plan"}`),
		testkit.Call("e1", "edit_file", `{"path":"/srv/scratch/a.md","edits":[{"oldText":"secret one","newText":"secret two"}],"content":"SECRET"}`),
		testkit.Call("e2", "edit_file", `{"path":"/srv/prod/app.conf","content":"SECRET"}`),
		testkit.Call("bad", "edit_file", `{"path":`),
	})
	require.Len(t, rs, 4)
	require.False(t, rs[0].IsError, "the read failed: %+v", rs[0])
	require.False(t, rs[1].IsError, "the asked edit failed: %+v", rs[1])
	require.True(t, rs[2].IsError, "the denied edit ran: %+v", rs[2])
	require.True(t, rs[3].IsError, "the unreadable call ran: %+v", rs[3])
	require.Equal(t, 1, asked, "times asked")
	require.NotContains(t, buf.String(), "SECRET", "the log holds file contents")
	require.NotContains(t, buf.String(), "secret", "the log holds file contents")
	es := lines(t, &buf)
	require.Len(t, es, 4, "entries:\n%s", buf.String())
	for _, e := range es {
		for _, k := range []string{"decision_id", "timestamp", "path", "input", "result", "allowed"} {
			assert.Contains(t, e, k, "entry lacks %q", k)
		}
		assert.Equal(t, decisionlog.Path, e["path"], "path")
		_, err := time.Parse(time.RFC3339Nano, field[string](t, e, "timestamp"))
		assert.NoError(t, err, "timestamp")
		l := field[map[string]any](t, e, "labels")
		assert.Equal(t, "team-policy", l["policy"], "labels %v", l)
		assert.Equal(t, "proxy", l["app"], "labels %v", l)
	}
	assert.NotEqual(t, es[0]["decision_id"], es[1]["decision_id"], "two decisions share an id")

	// The read: allowed by the default rule, reason kept, nothing erased.
	read := es[0]
	in := field[map[string]any](t, read, "input")
	assert.Equal(t, "read_file", in["tool"], "read input %v", in)
	assert.Equal(t, "r1", in["call_id"], "read input %v", in)
	assert.Equal(t, "to see the plan", field[map[string]any](t, in, "arguments")["reason"], "read input %v", in)
	res := field[map[string]any](t, read, "result")
	assert.Equal(t, "allow", res["decision"], "read %v", read)
	assert.Equal(t, "rule", res["reason"], "read %v", read)
	assert.NotNil(t, res["rule"], "read %v", read)
	assert.Equal(t, true, read["allowed"], "read %v", read)
	assert.NotContains(t, read, "erased", "read erased %v", read["erased"])

	// The asked edit: question, answer and the grant it left; contents erased
	// at every depth, listed by pointer.
	edit := es[1]
	assert.Equal(t, "ask", field[map[string]any](t, edit, "result")["decision"], "edit %v", edit)
	assert.Equal(t, true, edit["allowed"], "edit %v", edit)
	q := field[map[string]any](t, edit, "question")
	assert.Equal(t, "permission", q["kind"], "question %v", q)
	assert.Equal(t, "no-match", q["reason"], "question %v", q)
	assert.Equal(t, true, q["allow_grantable"], "question %v", q)
	assert.Equal(t, "/srv/scratch", field[map[string]any](t, q, "suggestion")["under"], "question %v", q)
	a := field[map[string]any](t, edit, "answer")
	assert.Equal(t, "always-allow", a["action"], "answer %v", a)
	rem := field[[]any](t, edit, "remembered")
	if assert.Len(t, rem, 1, "remembered %v", rem) {
		r, ok := rem[0].(map[string]any)
		require.True(t, ok, "remembered %v", rem)
		assert.Equal(t, "/srv/scratch", r["under"], "remembered %v", rem)
		assert.Equal(t, "allow", r["decision"], "remembered %v", rem)
	}
	wantErased := []any{"/input/arguments/content", "/input/arguments/edits/0/newText", "/input/arguments/edits/0/oldText"}
	assert.Equal(t, wantErased, edit["erased"], "erased")
	args := field[map[string]any](t, field[map[string]any](t, edit, "input"), "arguments")
	assert.Equal(t, "/srv/scratch/a.md", args["path"], "edit arguments %v", args)
	edits := field[[]any](t, args, "edits")
	require.Len(t, edits, 1, "edit arguments %v", args)
	e0, ok := edits[0].(map[string]any)
	require.True(t, ok, "edit arguments %v", args)
	assert.Empty(t, e0, "edit arguments %v", args)

	// The denied edit: the rule and the refusal.
	deny := es[2]
	assert.Equal(t, false, deny["allowed"], "deny %v", deny)
	assert.Contains(t, field[string](t, deny, "refusal"), "prod is read-only", "deny %v", deny)
	assert.Equal(t, "/srv/prod", field[map[string]any](t, field[map[string]any](t, deny, "result"), "rule")["under"], "deny %v", deny)

	// The call that could not be read: no result, the error, the text erased.
	bad := es[3]
	assert.Nil(t, bad["result"], "bad %v", bad)
	assert.NotEmpty(t, field[string](t, bad, "error"), "bad %v", bad)
	assert.Equal(t, false, bad["allowed"], "bad %v", bad)
	assert.Equal(t, []any{"/input/arguments_text"}, bad["erased"], "bad %v", bad)
}

func TestFullArguments(t *testing.T) {
	var buf bytes.Buffer
	log := decisionlog.New(&buf, decisionlog.Options{FullArguments: true})
	p := newPolicy(t, log, nil)
	p.ExecuteToolCalls(context.Background(), []provider.Call{
		testkit.Call("e1", "edit_file", `{"path":"/srv/a","content":"kept"}`),
		testkit.Call("bad", "edit_file", `{"path"`),
	})
	es := lines(t, &buf)
	require.Len(t, es, 2, "entries:\n%s", buf.String())
	assert.Equal(t, "kept", field[map[string]any](t, field[map[string]any](t, es[0], "input"), "arguments")["content"], "content")
	assert.NotContains(t, es[0], "erased", "full arguments erased something")
	assert.Equal(t, `{"path"`, field[map[string]any](t, es[1], "input")["arguments_text"], "arguments_text")
	// Headless: the refusal is logged, and nobody was asked.
	assert.Equal(t, false, es[0]["allowed"], "headless %v", es[0])
	refusal := field[string](t, es[0], "refusal")
	assert.True(t, strings.HasPrefix(refusal, "Permission required: 'edit_file'"), "headless refusal %q", refusal)
	assert.Nil(t, es[0]["question"], "headless %v", es[0])
}

func TestConcurrentEntriesAreWholeLines(t *testing.T) {
	file := filepath.Join(t.TempDir(), "decisions.jsonl")
	log, err := decisionlog.Open(file, decisionlog.Options{})
	require.NoError(t, err)
	p := newPolicy(t, log, nil)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			big := strings.Repeat("x", 10000+i)
			p.ExecuteToolCalls(context.Background(), []provider.Call{testkit.Call("c", "read_file", `{"path":"/srv/a","note":"`+big+`"}`)})
		})
	}
	wg.Wait()
	require.NoError(t, log.Close())
	require.NoError(t, log.Err())
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var buf bytes.Buffer
	buf.Write(data)
	require.Len(t, lines(t, &buf), 20, "lines")
	info, err := os.Stat(file)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "mode: a decision log says what an agent did")
}
