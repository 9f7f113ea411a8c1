package decisionlog_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/mcp-policy/mcp-policy/decisionlog"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// printEntries prints each line of a decision log, indented, with its
// decision_id and timestamp, which differ on every run, replaced by what
// they are.
func printEntries(log []byte) {
	sc := bufio.NewScanner(bytes.NewReader(log))
	for sc.Scan() {
		var e decisionlog.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			panic(err)
		}
		if _, err := time.Parse(time.RFC3339Nano, e.Timestamp); err != nil || e.DecisionID == "" {
			panic(fmt.Sprintf("entry without id or time: %s", sc.Bytes()))
		}
		e.DecisionID, e.Timestamp = "UUID", "TIME"
		enc := json.NewEncoder(os.Stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(e); err != nil {
			panic(err)
		}
	}
}

// A policy's decisions as OPA-style decision log lines. The file contents
// an edit carries are erased by default and listed by JSON pointer, so a log
// shipped to a SIEM does not leak what the agent wrote; the rule that
// decided, and what the model was told, are kept.
func ExampleNew() {
	var buf bytes.Buffer
	log := decisionlog.New(&buf, decisionlog.Options{Labels: map[string]string{"host": "ci-runner-7"}})

	p, err := policy.New(policy.Options{
		Provider:   files{}, // read_file (read-only) and edit_file
		Rules:      []policy.Rule{{Tool: "edit_file", Decision: policy.Deny, Under: "/srv/prod", Message: "prod is read-only"}},
		Roots:      map[string]string{"*": "/srv"},
		OnDecision: log.Log,
		Name:       "team-policy",
	})
	if err != nil {
		panic(err)
	}
	p.ExecuteToolCalls(context.Background(), []provider.Call{
		{ID: "e1", Function: provider.CallFunction{Name: "edit_file",
			Arguments: `{"path":"prod/app.conf","edits":[{"oldText":"debug=false","newText":"debug=true"}]}`}},
	})
	printEntries(buf.Bytes())
	// Output:
	// {
	//   "decision_id": "UUID",
	//   "timestamp": "TIME",
	//   "path": "mcp/engine/decision",
	//   "labels": {
	//     "host": "ci-runner-7",
	//     "policy": "team-policy"
	//   },
	//   "input": {
	//     "tool": "edit_file",
	//     "call_id": "e1",
	//     "arguments": {
	//       "edits": [
	//         {}
	//       ],
	//       "path": "prod/app.conf"
	//     }
	//   },
	//   "result": {
	//     "decision": "deny",
	//     "reason": "rule",
	//     "rule": {
	//       "tool": "edit_file",
	//       "decision": "deny",
	//       "under": "/srv/prod",
	//       "message": "prod is read-only"
	//     },
	//     "grant": null,
	//     "paths": [
	//       "/srv/prod/app.conf"
	//     ],
	//     "hosts": [],
	//     "suggestion": {
	//       "tool": "edit_file",
	//       "under": "/srv/prod"
	//     }
	//   },
	//   "erased": [
	//     "/input/arguments/edits/0/newText",
	//     "/input/arguments/edits/0/oldText"
	//   ],
	//   "allowed": false,
	//   "refusal": "Denied by team-policy: 'edit_file' is not allowed by rule {\"tool\":\"edit_file\",\"decision\":\"deny\",\"under\":\"/srv/prod\"}: prod is read-only. The call was not run; do not retry it unchanged."
	// }
}

// A headless policy (no OnAsk) refuses what it would have asked, and the log
// says so: the rules' decision, that the call was not forwarded, and what
// the model was told. A call whose arguments cannot be read has no decision
// at all, only an error, and its text is erased too.
func Example_headless() {
	var buf bytes.Buffer
	log := decisionlog.New(&buf, decisionlog.Options{})
	p, err := policy.New(policy.Options{
		Provider:   files{},
		Rules:      policy.DefaultRules(), // read-only tools may read local paths
		Roots:      map[string]string{"*": "/srv"},
		OnDecision: log.Log,
	})
	if err != nil {
		panic(err)
	}
	p.ExecuteToolCalls(context.Background(), []provider.Call{
		{ID: "r1", Function: provider.CallFunction{Name: "read_file", Arguments: `{"path":"notes.md"}`}},
		{ID: "e1", Function: provider.CallFunction{Name: "edit_file", Arguments: `{"path":"notes.md","content":"new"}`}},
		{ID: "x1", Function: provider.CallFunction{Name: "edit_file", Arguments: `{"path":`}},
	})
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		var e decisionlog.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			panic(err)
		}
		fmt.Printf("%s %s: allowed=%v erased=%v\n", e.Input.CallID, e.Input.Tool, e.Allowed, e.Erased)
		if e.Result != nil {
			fmt.Printf("  result: %s (%s)\n", e.Result.Decision, e.Result.Reason)
		} else {
			fmt.Printf("  no result: %s\n", e.Error)
		}
		if e.Refusal != "" {
			fmt.Printf("  refusal: %s\n", e.Refusal)
		}
	}
	// Output:
	// r1 read_file: allowed=true erased=[]
	//   result: allow (rule)
	// e1 edit_file: allowed=false erased=[/input/arguments/content]
	//   result: ask (no-match)
	//   refusal: Permission required: 'edit_file' needs approval, but no one is available to approve it (mcp-policy is running without anyone to ask). The call was not run; do not retry it, and tell the user it needs their approval.
	// x1 edit_file: allowed=false erased=[/input/arguments_text]
	//   no result: bad call to 'edit_file': arguments are not valid JSON: invalid JSON: unexpected end of JSON input
	//   refusal: mcp-policy refused the call: bad call to 'edit_file': arguments are not valid JSON: invalid JSON: unexpected end of JSON input
}
