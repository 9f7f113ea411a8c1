package rules_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/provider"
)

// benchRules is a rule set of n rules shaped like real ones: most name one
// tool and one directory or host, a few are globs.
func benchRules(n int) []rules.Rule {
	rs := []rules.Rule{
		{Tool: "*", Decision: rules.Allow, Annotations: map[string]bool{"readOnlyHint": true}, Under: "/"},
		{Tool: "*_user_ask", Decision: rules.Allow},
		{Tool: "fs_*", Decision: rules.Deny, Under: "/srv/live"},
	}
	for i := len(rs); i < n; i++ {
		switch i % 4 {
		case 0:
			rs = append(rs, rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: fmt.Sprintf("/srv/projects/p%d", i)})
		case 1:
			rs = append(rs, rules.Rule{Tool: fmt.Sprintf("t%d_exec", i), Decision: rules.Deny})
		case 2:
			rs = append(rs, rules.Rule{Tool: "web_fetch", Decision: rules.Allow, Host: fmt.Sprintf("h%d.example.com", i)})
		default:
			rs = append(rs, rules.Rule{Tool: "fs_edit", Decision: rules.Ask, Under: fmt.Sprintf("rel%d", i)})
		}
	}
	return rs
}

var benchCall = provider.Call{ID: "1", Function: provider.CallFunction{Name: "fs_write",
	Arguments: `{"path":"/srv/projects/p4/notes.md","content":"hello"}`}}

func BenchmarkDecide(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10, 100, 1000, 10000} {
		e, err := rules.NewEngine(ctx, rules.Config{Rules: benchRules(n), Roots: map[string]string{"fs": "/srv"}})
		if err != nil {
			b.Fatal(err)
		}
		d, _, err := e.Decide(ctx, benchCall, nil)
		if err != nil || d.Decision != rules.Allow {
			b.Fatalf("n=%d: %+v %v", n, d, err)
		}
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := e.Decide(ctx, benchCall, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecideRead is the call most agents make most: a read by a tool
// its server marks read-only, which the default rule allows. The floor
// skips its costliest test for it (see rego/floor.rego).
func BenchmarkDecideRead(b *testing.B) {
	ctx := context.Background()
	e, err := rules.NewEngine(ctx, rules.Config{Rules: benchRules(10), Roots: map[string]string{"fs": "/srv"}})
	if err != nil {
		b.Fatal(err)
	}
	readOnly := true
	tool := &provider.Tool{Function: provider.ToolFunction{Name: "fs_read"},
		Annotations: &provider.Annotations{ReadOnlyHint: &readOnly}}
	read := provider.Call{ID: "1", Function: provider.CallFunction{Name: "fs_read", Arguments: `{"path":"/srv/projects/p4/notes.md"}`}}
	if d, _, err := e.Decide(ctx, read, tool); err != nil || d.Decision != rules.Allow {
		b.Fatalf("%+v %v", d, err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := e.Decide(ctx, read, tool); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPreparedQueryFixedCost is the floor under any Rego decision:
// the same call as any OPA user would run it, arguments decoded by
// encoding/json and given as input to a prepared query that reads one
// field. None of the engine's code is in it, so making the engine's input
// cheaper cannot lower the yardstick it is measured by.
func BenchmarkPreparedQueryFixedCost(b *testing.B) {
	ctx := context.Background()
	pq, err := rego.New(rego.Query("input.tool")).PrepareForEval(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var args map[string]any
		if err := json.Unmarshal([]byte(benchCall.Function.Arguments), &args); err != nil {
			b.Fatal(err)
		}
		input := map[string]any{"tool": benchCall.Function.Name, "arguments": args}
		if _, err := pq.Eval(ctx, rego.EvalInput(input)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecideCommand is BenchmarkDecide's write with a 200-byte shell
// command line in place of the path, under a rule that allows the tool
// under the project: the line parsed, each command read, the floor's
// command rules on it. Compare with BenchmarkDecide/rules=10 in one run.
func BenchmarkDecideCommand(b *testing.B) {
	ctx := context.Background()
	rs := append(benchRules(10), rules.Rule{Tool: "run_command", Decision: rules.Allow, Under: "/srv/projects"})
	e, err := rules.NewEngine(ctx, rules.Config{Rules: rs, Roots: map[string]string{"*": "/srv/projects/p4"}})
	if err != nil {
		b.Fatal(err)
	}
	line := `cd packages/api && npm run build -- --mode production && git status --short && grep -rn "TODO" src | head -n 20 > todo.txt; ls -la dist`
	for len(line) < 200 {
		line += " && true"
	}
	call := provider.Call{ID: "1", Function: provider.CallFunction{Name: "run_command",
		Arguments: fmt.Sprintf(`{"command":%q,"cwd":"/srv/projects/p4"}`, line)}}
	if d, _, err := e.Decide(ctx, call, nil); err != nil || d.Decision != rules.Allow {
		b.Fatalf("%+v %v", d, err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := e.Decide(ctx, call, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecideLinks is BenchmarkDecide's write on a real directory
// tree, read lexically and with its links resolved through the file
// system (ResolveLinks, a stdio server's reading): compare the two in one
// run. The file exists, four directories deep; resolving it is a walk of
// its names.
func BenchmarkDecideLinks(b *testing.B) {
	ctx := context.Background()
	top, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(top, "srv", "projects", "p4")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		b.Fatal(err)
	}
	call := provider.Call{ID: "1", Function: provider.CallFunction{Name: "fs_write",
		Arguments: fmt.Sprintf(`{"path":%q,"content":"hello"}`, file)}}
	rs := append(benchRules(10), rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: dir})
	for _, links := range []bool{false, true} {
		e, err := rules.NewEngine(ctx, rules.Config{Rules: rs, Roots: map[string]string{"fs": dir}, ResolveLinks: links})
		if err != nil {
			b.Fatal(err)
		}
		if d, _, err := e.Decide(ctx, call, nil); err != nil || d.Decision != rules.Allow {
			b.Fatalf("%+v %v", d, err)
		}
		name := "lexical"
		if links {
			name = "resolved"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := e.Decide(ctx, call, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
