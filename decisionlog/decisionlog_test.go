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

	"github.com/mcp-policy/mcp-policy/decisionlog"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/policy/rules"
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
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func call(id, name, args string) provider.Call {
	return provider.Call{ID: id, Type: "function", Function: provider.CallFunction{Name: name, Arguments: args}}
}

func newPolicy(t *testing.T, log *decisionlog.Logger, ask policy.AskFunc, extra ...rules.Rule) *policy.Policy {
	t.Helper()
	p, err := policy.New(policy.Options{Provider: files{}, Rules: append(policy.DefaultRules(), extra...),
		Roots: map[string]string{"*": "/srv"}, OnAsk: ask, OnDecision: log.Log, Name: "team-policy"})
	if err != nil {
		t.Fatal(err)
	}
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
		call("r1", "read_file", `{"path":"notes.md","reason":"to see the plan"}`),
		call("e1", "edit_file", `{"path":"/srv/scratch/a.md","edits":[{"oldText":"secret one","newText":"secret two"}],"content":"SECRET"}`),
		call("e2", "edit_file", `{"path":"/srv/prod/app.conf","content":"SECRET"}`),
		call("bad", "edit_file", `{"path":`),
	})
	if rs[0].IsError || rs[1].IsError || !rs[2].IsError || !rs[3].IsError {
		t.Fatalf("results %+v", rs)
	}
	if asked != 1 {
		t.Fatalf("asked %d times", asked)
	}
	if strings.Contains(buf.String(), "SECRET") || strings.Contains(buf.String(), "secret") {
		t.Fatalf("the log holds file contents:\n%s", buf.String())
	}
	es := lines(t, &buf)
	if len(es) != 4 {
		t.Fatalf("%d entries:\n%s", len(es), buf.String())
	}
	for _, e := range es {
		for _, k := range []string{"decision_id", "timestamp", "path", "input", "result", "allowed"} {
			if _, ok := e[k]; !ok {
				t.Errorf("entry lacks %q: %v", k, e)
			}
		}
		if e["path"] != decisionlog.Path {
			t.Errorf("path %v", e["path"])
		}
		if _, err := time.Parse(time.RFC3339Nano, e["timestamp"].(string)); err != nil {
			t.Errorf("timestamp: %v", err)
		}
		if l := e["labels"].(map[string]any); l["policy"] != "team-policy" || l["app"] != "proxy" {
			t.Errorf("labels %v", l)
		}
	}
	if es[0]["decision_id"] == es[1]["decision_id"] {
		t.Error("two decisions share an id")
	}

	// The read: allowed by the default rule, reason kept, nothing erased.
	read := es[0]
	in := read["input"].(map[string]any)
	if in["tool"] != "read_file" || in["call_id"] != "r1" || in["arguments"].(map[string]any)["reason"] != "to see the plan" {
		t.Errorf("read input %v", in)
	}
	res := read["result"].(map[string]any)
	if res["decision"] != "allow" || res["reason"] != "rule" || res["rule"] == nil || read["allowed"] != true {
		t.Errorf("read %v", read)
	}
	if _, ok := read["erased"]; ok {
		t.Errorf("read erased %v", read["erased"])
	}

	// The asked edit: question, answer and the grant it left; contents erased
	// at every depth, listed by pointer.
	edit := es[1]
	if edit["result"].(map[string]any)["decision"] != "ask" || edit["allowed"] != true {
		t.Errorf("edit %v", edit)
	}
	q := edit["question"].(map[string]any)
	if q["kind"] != "permission" || q["reason"] != "no-match" || q["allow_grantable"] != true ||
		q["suggestion"].(map[string]any)["under"] != "/srv/scratch" {
		t.Errorf("question %v", q)
	}
	if a := edit["answer"].(map[string]any); a["action"] != "always-allow" {
		t.Errorf("answer %v", a)
	}
	if rem := edit["remembered"].([]any); len(rem) != 1 || rem[0].(map[string]any)["under"] != "/srv/scratch" || rem[0].(map[string]any)["decision"] != "allow" {
		t.Errorf("remembered %v", rem)
	}
	wantErased := []any{"/input/arguments/content", "/input/arguments/edits/0/newText", "/input/arguments/edits/0/oldText"}
	if got := edit["erased"]; !equalJSON(got, wantErased) {
		t.Errorf("erased %v, want %v", got, wantErased)
	}
	args := edit["input"].(map[string]any)["arguments"].(map[string]any)
	if args["path"] != "/srv/scratch/a.md" || len(args["edits"].([]any)[0].(map[string]any)) != 0 {
		t.Errorf("edit arguments %v", args)
	}

	// The denied edit: the rule and the refusal.
	deny := es[2]
	if deny["allowed"] != false || !strings.Contains(deny["refusal"].(string), "prod is read-only") ||
		deny["result"].(map[string]any)["rule"].(map[string]any)["under"] != "/srv/prod" {
		t.Errorf("deny %v", deny)
	}

	// The call that could not be read: no result, the error, the text erased.
	bad := es[3]
	if bad["result"] != nil || bad["error"] == "" || bad["allowed"] != false || !equalJSON(bad["erased"], []any{"/input/arguments_text"}) {
		t.Errorf("bad %v", bad)
	}
}

func TestFullArguments(t *testing.T) {
	var buf bytes.Buffer
	log := decisionlog.New(&buf, decisionlog.Options{FullArguments: true})
	p := newPolicy(t, log, nil)
	p.ExecuteToolCalls(context.Background(), []provider.Call{
		call("e1", "edit_file", `{"path":"/srv/a","content":"kept"}`),
		call("bad", "edit_file", `{"path"`),
	})
	es := lines(t, &buf)
	if got := es[0]["input"].(map[string]any)["arguments"].(map[string]any)["content"]; got != "kept" {
		t.Errorf("content %v", got)
	}
	if _, ok := es[0]["erased"]; ok {
		t.Error("full arguments erased something")
	}
	if got := es[1]["input"].(map[string]any)["arguments_text"]; got != `{"path"` {
		t.Errorf("arguments_text %v", got)
	}
	// Headless: the refusal is logged, and nobody was asked.
	if es[0]["allowed"] != false || !strings.HasPrefix(es[0]["refusal"].(string), "Permission required: 'edit_file'") || es[0]["question"] != nil {
		t.Errorf("headless %v", es[0])
	}
}

func TestConcurrentEntriesAreWholeLines(t *testing.T) {
	file := filepath.Join(t.TempDir(), "decisions.jsonl")
	log, err := decisionlog.Open(file, decisionlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := newPolicy(t, log, nil)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			big := strings.Repeat("x", 10000+i)
			p.ExecuteToolCalls(context.Background(), []provider.Call{call("c", "read_file", `{"path":"/srv/a","note":"`+big+`"}`)})
		})
	}
	wg.Wait()
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	if err := log.Err(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.Write(data)
	if n := len(lines(t, &buf)); n != 20 {
		t.Fatalf("%d lines", n)
	}
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600: a decision log says what an agent did", info.Mode().Perm())
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
