package leases_test

import (
	"context"
	"fmt"
	"time"

	"github.com/mcp-policy/mcp-policy/leases"
	"github.com/mcp-policy/mcp-policy/provider"
)

// countingServer stands for the provider below Leases (an MCP client, a
// registry): it answers every call and counts the calls that reached it.
type countingServer struct{ reached int }

func (s *countingServer) ToolsForLLM(context.Context) ([]provider.Tool, error) { return nil, nil }

func (s *countingServer) ExecuteToolCalls(_ context.Context, calls []provider.Call) []provider.Result {
	out := make([]provider.Result, len(calls))
	for i, c := range calls {
		s.reached++
		out[i] = provider.TextResult(c.ID, "fetched")
	}
	return out
}

func fetch(id string) provider.Call {
	return provider.Call{ID: id, Function: provider.CallFunction{Name: "web_fetch", Arguments: `{"url":"https://docs.raku.org/"}`}}
}

// A total budget: two calls to web_fetch over the life of the Leases. The
// third is refused with an error result the model can read, and never
// reaches the server.
func ExampleNew() {
	server := &countingServer{}
	l, err := leases.New(server, leases.Limit{Tool: "web_fetch", Count: 2})
	if err != nil {
		panic(err)
	}
	for _, r := range l.ExecuteToolCalls(context.Background(), []provider.Call{fetch("1"), fetch("2"), fetch("3")}) {
		fmt.Printf("%s error=%v %s\n", r.ToolCallID, r.IsError, r.Content)
	}
	fmt.Println("calls that reached the server:", server.reached)
	// Output:
	// 1 error=false fetched
	// 2 error=false fetched
	// 3 error=true lease exhausted: 'web_fetch' has used all 2 calls of its lease (limit 'web_fetch'); no more calls to it will be made
	// calls that reached the server: 2
}

// A sliding window: at most two calls in any minute. WithClock lets the
// example move time instead of waiting for it.
func ExampleWithClock() {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	l, err := leases.New(&countingServer{},
		leases.Limit{Tool: "web_*", Per: time.Minute, PerCount: 2},
		leases.WithClock(func() time.Time { return now }))
	if err != nil {
		panic(err)
	}
	try := func(id string) {
		r := l.ExecuteToolCalls(context.Background(), []provider.Call{fetch(id)})[0]
		fmt.Printf("%s %s error=%v %s\n", now.Format("15:04:05"), id, r.IsError, r.Content)
	}
	try("1")
	now = now.Add(40 * time.Second)
	try("2")
	try("3") // two calls in the last minute already
	now = now.Add(20 * time.Second)
	try("4") // the first call has left the window
	// Output:
	// 12:00:00 1 error=false fetched
	// 12:00:40 2 error=false fetched
	// 12:00:40 3 error=true lease exhausted: 'web_fetch' may make at most 2 calls per 1m0s (limit 'web_*'); try again in 20s
	// 12:01:00 4 error=false fetched
}

// A limit that limits nothing, or that cannot mean what it says, is an
// error from New rather than a lease that silently lets everything through.
func ExampleLimit() {
	for _, lim := range []leases.Limit{
		{Tool: "fs_write"},                   // neither a count nor a window
		{Tool: "fs_write", Per: time.Minute}, // a window with no count
		{Tool: "fs_write", Count: -1},        // negative
		{Tool: "fs_*", Count: 100},           // 100 calls to fs tools in all
	} {
		_, err := leases.New(&countingServer{}, lim)
		fmt.Println(err)
	}
	// Output:
	// leases: limit 1 ("fs_write"): limits nothing: set count, or per and per-count
	// leases: limit 1 ("fs_write"): per 1m0s needs a per-count: how many calls per 1m0s?
	// leases: limit 1 ("fs_write"): count -1 is negative
	// <nil>
}
