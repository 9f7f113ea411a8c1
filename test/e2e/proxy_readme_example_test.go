//go:build unix

package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-policy/mcp-policy/mcpclient"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// Example_askingTheUser is docs/embedding.md's example, run:
// the human (here a script that prints each question) behind OnAsk, and
// the client's elicitation hook wired to the policy, so that the server's
// own questions wait their turn with the policy's. Everything between the
// markers is that page's code block; TestReadmeAskingSnippet keeps them
// the same.
func Example_askingTheUser() {
	command := fsserver // go build -o fsserver ./test/fsserver
	dir, err := os.MkdirTemp("", "asking")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.MkdirAll(filepath.Join(dir, "old"), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "old", "f.txt"), []byte("f"), 0o644); err != nil {
		log.Fatal(err)
	}

	// README asking snippet begins.
	ctx := context.Background()

	// The client needs its hook when it starts, and the hook needs the
	// policy: declare the policy first, assign it once the client exists.
	var p *policy.Policy
	client, err := mcpclient.ConnectStdio(ctx, command, []string{dir},
		mcpclient.WithElicitHook(func(ctx context.Context, req provider.ElicitRequest) (provider.ElicitResult, error) {
			return p.ElicitHook()(ctx, req) // the server's questions take their turn with the policy's
		}))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	// askTheUser is the human: one question at a time, under the policy's ask lock.
	askTheUser := func(ctx context.Context, q policy.Question) policy.Answer {
		if q.Kind == policy.KindServerElicit { // the server asks (fsserver confirms deleting a full directory)
			var form struct{ Message string }
			_ = json.Unmarshal(q.Request.Params, &form)
			fmt.Printf("%s asks: %s -> yes\n", q.Tool, form.Message)
			return policy.Answer{Action: policy.Accept, Content: map[string]any{"confirm": true}}
		}
		fmt.Printf("allow %s? (%s) -> always\n", q.Tool, q.Reason) // q.Paths, q.Arguments, q.Suggestion say more
		return policy.Answer{Action: policy.AlwaysAllow}           // remembers q.Suggestion as a grant
	}

	p, err = policy.New(policy.Options{
		Provider: client,
		Rules:    policy.DefaultRules(),
		Roots:    map[string]string{"fs": dir},
		OnAsk:    askTheUser,
	})
	if err != nil {
		log.Fatal(err)
	}

	for _, call := range []provider.Call{
		{ID: "1", Function: provider.CallFunction{Name: "fs_write", Arguments: `{"path":"notes.md","content":"hello"}`}},
		{ID: "2", Function: provider.CallFunction{Name: "fs_write", Arguments: `{"path":"todo.md","content":"hello"}`}}, // the grant answers
		{ID: "3", Function: provider.CallFunction{Name: "fs_delete", Arguments: `{"path":"old"}`}},
	} {
		r := p.ExecuteToolCalls(ctx, []provider.Call{call})[0]
		fmt.Printf("%s (error: %v): %s\n", r.ToolCallID, r.IsError, r.Content)
	}
	// README asking snippet ends.

	// Output:
	// allow fs_write? (no-match) -> always
	// 1 (error: false): wrote 5 bytes to notes.md
	// 2 (error: false): wrote 5 bytes to todo.md
	// allow fs_delete? (no-match) -> always
	// fs_delete asks: Delete the directory old and everything in it? -> yes
	// 3 (error: false): deleted old and everything in it
}

// TestReadmeAskingSnippet: docs/embedding.md's "Asking the user", where the
// README's Embedding section leads, shows exactly the code
// Example_askingTheUser runs.
func TestReadmeAskingSnippet(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("proxy_readme_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	begin, end := "// README asking snippet begins.\n", "\t// README asking snippet ends.\n"
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatal("snippet markers not found")
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(s[i+len(begin):j], "\n") {
		b.WriteString(strings.TrimPrefix(line, "\t"))
	}
	page, err := os.ReadFile(filepath.Join(modRoot, "docs", "embedding.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := bytes.Cut(page, []byte("\n## Asking the user\n"))
	if !ok {
		t.Fatal("docs/embedding.md has no \"Asking the user\" section")
	}
	if next := bytes.Index(section, []byte("\n## ")); next >= 0 {
		section = section[:next]
	}
	if !bytes.Contains(section, []byte("```go\n"+b.String()+"```\n")) {
		t.Fatalf("docs/embedding.md's \"Asking the user\" does not show Example_askingTheUser's code verbatim; it should contain:\n```go\n%s```", b.String())
	}
}
