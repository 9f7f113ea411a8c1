package mcpclient_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/mcp-policy/mcp-policy/mcpclient"
	"github.com/mcp-policy/mcp-policy/provider"
)

// A Client over a stdio MCP server is a provider.Provider. Here the server is
// the small sandboxed filesystem server of the module's test/fsserver (the
// test binary builds it first; fsserver is its path), started on a
// directory of its own.
//
// Every failure comes back as an IsError result, never an error or a panic:
// a call the server refuses, arguments that are not a JSON object (refused
// before they reach the server), and any call after Close.
func ExampleConnectStdio() {
	dir, err := os.MkdirTemp("", "mcpclient-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := mcpclient.ConnectStdio(ctx, fsserver, []string{dir}, mcpclient.WithCallTimeout(5*time.Second))
	if err != nil {
		panic(err)
	}

	tools, err := c.ToolsForLLM(ctx)
	if err != nil {
		panic(err)
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Function.Name < tools[j].Function.Name })
	for _, t := range tools {
		fmt.Printf("%s read-only=%v\n", t.Function.Name, *t.Annotations.ReadOnlyHint)
	}

	results := c.ExecuteToolCalls(ctx, []provider.Call{
		{ID: "w", Function: provider.CallFunction{Name: "fs_write", Arguments: `{"path":"notes.md","content":"hello"}`}},
		{ID: "out", Function: provider.CallFunction{Name: "fs_read", Arguments: `{"path":"../../etc/passwd"}`}},
		{ID: "bad", Function: provider.CallFunction{Name: "fs_read", Arguments: `["notes.md"]`}},
	})
	for _, r := range results {
		fmt.Printf("%s error=%v %s\n", r.ToolCallID, r.IsError, strings.ReplaceAll(r.Content, dir, "$DIR"))
	}
	// The calls of a batch run concurrently: a read that must see the write
	// goes in a batch of its own.
	r := c.ExecuteToolCalls(ctx, []provider.Call{{ID: "r", Function: provider.CallFunction{Name: "fs_read", Arguments: `{"path":"notes.md"}`}}})[0]
	fmt.Printf("%s error=%v %s\n", r.ToolCallID, r.IsError, r.Content)

	if err := c.Close(); err != nil {
		panic(err)
	}
	r = c.ExecuteToolCalls(ctx, []provider.Call{{ID: "late", Function: provider.CallFunction{Name: "fs_read", Arguments: `{"path":"notes.md"}`}}})[0]
	fmt.Printf("%s error=%v %s\n", r.ToolCallID, r.IsError, r.Content)
	// Output:
	// fs_delete read-only=false
	// fs_edit read-only=false
	// fs_list read-only=true
	// fs_mkdir read-only=false
	// fs_move read-only=false
	// fs_read read-only=true
	// fs_write read-only=false
	// w error=false wrote 5 bytes to notes.md
	// out error=true openat ../../etc/passwd: path escapes from parent
	// bad error=true mcp tool call 'fs_read' not sent: arguments must be a JSON object
	// r error=false hello
	// late error=true mcp client closed
}
