package e2e_test

import (
	"bytes"
	"context"
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

// Example_embedding is the README's embedding example, run: everything
// between the snippet markers is the README's code block, verbatim (less
// one level of indentation); TestReadmeSnippet keeps the two the same.
func Example_embedding() {
	// Outside the snippet: the server to run, and its sandbox.
	command := fsserver
	dir, err := os.MkdirTemp("", "embedding")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// README snippet begins.
	ctx := context.Background()

	// Any MCP server over stdio; this one serves fs_read, fs_write, … in dir.
	client, err := mcpclient.ConnectStdio(ctx, command, []string{dir})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	p, err := policy.New(policy.Options{
		Provider: client,
		Rules: append(policy.DefaultRules(), // reads, and asking
			policy.Rule{Tool: "fs_write", Decision: policy.Allow, Under: "scratch"},
			policy.Rule{Tool: "fs_delete", Decision: policy.Deny},
		),
		Roots: map[string]string{"fs": dir}, // relative paths of fs_* tools
		// OnAsk: askTheUser, // without one, anything not allowed is refused
	})
	if err != nil {
		log.Fatal(err)
	}

	// p is a provider.Provider too: give it to the agent loop instead of client.
	results := p.ExecuteToolCalls(ctx, []provider.Call{
		{ID: "call_1", Function: provider.CallFunction{Name: "fs_write", Arguments: `{"path":"scratch/notes.md","content":"hello"}`}},
		{ID: "call_2", Function: provider.CallFunction{Name: "fs_delete", Arguments: `{"path":"scratch/notes.md"}`}},
		{ID: "call_3", Function: provider.CallFunction{Name: "fs_write", Arguments: `{"path":"notes.md","content":"hello"}`}},
	})
	for _, r := range results {
		fmt.Printf("%s (error: %v): %s\n", r.ToolCallID, r.IsError, r.Content)
	}
	// README snippet ends.

	// Output:
	// call_1 (error: false): wrote 5 bytes to scratch/notes.md
	// call_2 (error: true): Denied by mcp-policy: 'fs_delete' is not allowed by rule {"tool":"fs_delete","decision":"deny"}. The call was not run; do not retry it unchanged.
	// call_3 (error: true): Permission required: 'fs_write' needs approval, but no one is available to approve it (mcp-policy is running without anyone to ask). The call was not run; do not retry it, and tell the user it needs their approval.
}

const (
	snippetBegin = "// README snippet begins.\n"
	snippetEnd   = "// README snippet ends.\n"
)

// readmeSnippet is the code between the markers of Example_embedding, less
// one tab of indentation: the text README.md shows.
func readmeSnippet(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	i := strings.Index(s, snippetBegin)
	j := strings.Index(s, "\t"+snippetEnd)
	if i < 0 || j < i {
		t.Fatal("example_test.go: README snippet markers not found")
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(s[i+len(snippetBegin):j], "\n") {
		b.WriteString(strings.TrimPrefix(line, "\t"))
	}
	return b.String()
}

// TestReadmeSnippet: README.md's Embedding section must show exactly the
// code Example_embedding runs (skipped while the section is absent or still
// a placeholder).
func TestReadmeSnippet(t *testing.T) {
	t.Parallel()
	snippet := readmeSnippet(t)
	readme, err := os.ReadFile(filepath.Join(modRoot, "README.md"))
	if err != nil {
		t.Skipf("no README.md: %v", err)
	}
	_, section, ok := bytes.Cut(readme, []byte("\n## Embedding\n"))
	if !ok {
		t.Skip("README.md has no Embedding section")
	}
	if next := bytes.Index(section, []byte("\n## ")); next >= 0 {
		section = section[:next]
	}
	if bytes.Contains(section, []byte("EMBEDDING_EXAMPLE")) {
		t.Skip("README.md's Embedding section is still a placeholder")
	}
	if !bytes.Contains(section, []byte("```go\n"+snippet+"```\n")) {
		t.Fatalf("README.md's Embedding section does not show Example_embedding's code verbatim; it should contain:\n```go\n%s```", snippet)
	}
}
