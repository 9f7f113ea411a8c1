package policy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// exampleServer stands in for an MCP filesystem server (a real one is
// covered by the end-to-end tests): it lists read, write and delete, the
// first marked read-only, and answers every call with what it ran.
func exampleServer(prefix string) provider.Func {
	yes, no := true, false
	tool := func(name string, readOnly *bool) provider.Tool {
		return provider.Tool{Type: "function",
			Function:    provider.ToolFunction{Name: prefix + name, Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
			Annotations: &provider.Annotations{ReadOnlyHint: readOnly}}
	}
	return provider.Func{
		Tools: []provider.Tool{tool("read", &yes), tool("write", &no), tool("delete", &no)},
		Run: func(_ context.Context, c provider.Call) (string, error) {
			return "server ran " + c.Function.Name + " " + c.Function.Arguments, nil
		},
	}
}

func exampleCall(id, tool, args string) provider.Call {
	return provider.Call{ID: id, Type: "function", Function: provider.CallFunction{Name: tool, Arguments: args}}
}

func printResults(rs []provider.Result) {
	for _, r := range rs {
		fmt.Printf("%s error=%v: %s\n", r.ToolCallID, r.IsError, r.Content)
	}
}

func printRules(rs []policy.Rule) {
	b, _ := json.Marshal(rs)
	fmt.Println(string(b))
}

// The synopsis: default rules, writes allowed under scratch, deletes
// denied, and a human who answers "always allow".
func Example() {
	ctx := context.Background()
	p, err := policy.New(policy.Options{
		Provider: exampleServer("fs_"),
		Rules: append(policy.DefaultRules(), // reads, and asking
			policy.Rule{Tool: "fs_write", Decision: policy.Allow, Under: "scratch"},
			policy.Rule{Tool: "fs_delete", Decision: policy.Deny},
		),
		Roots: map[string]string{"fs": "/srv"},
		OnAsk: func(_ context.Context, q policy.Question) policy.Answer {
			fmt.Printf("asked (%s): may %s touch %v? suggesting %s under %s\n", q.Reason, q.Tool, q.Paths, q.Suggestion.Tool, q.Suggestion.Under)
			return policy.Answer{Action: policy.AlwaysAllow}
		},
	})
	if err != nil {
		panic(err)
	}

	// A provider itself: it goes wherever the client or the registry went.
	// fs_delete, which a rule denies outright, is not offered to the model.
	tools, _ := p.ToolsForLLM(ctx)
	fmt.Println(len(tools), "tools")
	printResults(p.ExecuteToolCalls(ctx, []provider.Call{
		exampleCall("call_1", "fs_write", `{"path":"scratch/notes.md"}`),
		exampleCall("call_2", "fs_delete", `{"path":"scratch/old.md"}`),
		exampleCall("call_3", "fs_write", `{"path":"docs/guide.md"}`),
		exampleCall("call_4", "fs_write", `{"path":"docs/faq.md"}`), // decided by the grant call_3 left
	}))
	printRules(p.Grants())
	// Output:
	// 2 tools
	// asked (no-match): may fs_write touch [/srv/docs/guide.md]? suggesting fs_write under /srv/docs
	// call_1 error=false: server ran fs_write {"path":"scratch/notes.md"}
	// call_2 error=true: Denied by mcp-policy: 'fs_delete' is not allowed by rule {"tool":"fs_delete","decision":"deny"}. The call was not run; do not retry it unchanged.
	// call_3 error=false: server ran fs_write {"path":"docs/guide.md"}
	// call_4 error=false: server ran fs_write {"path":"docs/faq.md"}
	// [{"tool":"fs_write","decision":"allow","under":"/srv/docs"}]
}

// Headless, with no human anywhere — a batch job, a CI run: anything not
// explicitly allowed is refused with a message saying so.
func ExampleNew_headless() {
	p, err := policy.New(policy.Options{
		Provider: exampleServer("fs_"),
		Rules:    policy.DefaultRules(), // the read-only tools, and user_ask
		Roots:    map[string]string{"fs": "/srv"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("interactive:", p.Interactive())
	printResults(p.ExecuteToolCalls(context.Background(), []provider.Call{
		exampleCall("1", "fs_write", `{"path":"x"}`),
		exampleCall("2", "fs_read", `{"path":"x"}`),
	}))
	// Output:
	// interactive: false
	// 1 error=true: Permission required: 'fs_write' needs approval, but no one is available to approve it (mcp-policy is running without anyone to ask). The call was not run; do not retry it, and tell the user it needs their approval.
	// 2 error=false: server ran fs_read {"path":"x"}
}

// One policy for many conversations: each batch is seen through its
// conversation's own human (and could be, its own provider), passed as a
// value; the rules and the grants are the policy's, shared by all.
func ExamplePolicy_With() {
	p, err := policy.New(policy.Options{
		Provider: exampleServer("fs_"),
		Rules:    policy.DefaultRules(),
		Roots:    map[string]string{"fs": "/srv"},
	})
	if err != nil {
		panic(err)
	}
	humanOf := func(conversation string) policy.AskFunc {
		return func(_ context.Context, q policy.Question) policy.Answer {
			fmt.Printf("%s is asked about %s %v\n", conversation, q.Tool, q.Paths)
			return policy.Answer{Action: policy.AllowOnce}
		}
	}
	ctx := context.Background()
	for _, c := range []string{"alice", "bob"} {
		batch := p.With(policy.Via{OnAsk: humanOf(c)})
		printResults(batch.ExecuteToolCalls(ctx, []provider.Call{exampleCall(c+"_1", "fs_write", `{"path":"`+c+`/notes.md"}`)}))
	}
	// Output:
	// alice is asked about fs_write [/srv/alice/notes.md]
	// alice_1 error=false: server ran fs_write {"path":"alice/notes.md"}
	// bob is asked about fs_write [/srv/bob/notes.md]
	// bob_1 error=false: server ran fs_write {"path":"bob/notes.md"}
}

// A fleet — a parent agent and the children it spawned — shares one grant
// store, so the human answers a question once, not once per child.
func ExampleNew_fleet() {
	ctx := context.Background()
	store, err := grants.NewStore(nil) // or seeded with a resumed session's grants
	if err != nil {
		panic(err)
	}
	onAsk := func(_ context.Context, q policy.Question) policy.Answer {
		fmt.Println("the human is asked about", q.Tool, q.Paths)
		return policy.Answer{Action: policy.AlwaysAllow}
	}
	newAgent := func(name string) *policy.Policy {
		p, err := policy.New(policy.Options{
			Provider: exampleServer("fs_"), Rules: policy.DefaultRules(),
			Roots: map[string]string{"fs": "/srv"}, OnAsk: onAsk, GrantsStore: store, Name: name,
			OnGrant: func(gs []policy.Rule) { fmt.Println(name, "made a grant; persist", len(gs)) },
		})
		if err != nil {
			panic(err)
		}
		return p
	}
	parent := newAgent("parent")
	child := newAgent("child") // started before the grant

	printResults(parent.ExecuteToolCalls(ctx, []provider.Call{exampleCall("p1", "fs_write", `{"path":"work/plan.md"}`)}))
	printResults(child.ExecuteToolCalls(ctx, []provider.Call{exampleCall("c1", "fs_write", `{"path":"work/notes.md"}`)}))
	late := newAgent("late") // started after it
	printResults(late.ExecuteToolCalls(ctx, []provider.Call{exampleCall("l1", "fs_write", `{"path":"work/todo.md"}`)}))
	printRules(store.List())
	// Output:
	// the human is asked about fs_write [/srv/work/plan.md]
	// parent made a grant; persist 1
	// p1 error=false: server ran fs_write {"path":"work/plan.md"}
	// c1 error=false: server ran fs_write {"path":"work/notes.md"}
	// l1 error=false: server ran fs_write {"path":"work/todo.md"}
	// [{"tool":"fs_write","decision":"allow","under":"/srv/work"}]
}

// Stacked, with a rule set at each layer: the inner policy speaks the
// server's names, the outer one, over the registry, the model's.
func ExampleNew_stacked() {
	ctx := context.Background()
	inner, err := policy.New(policy.Options{
		Provider: exampleServer(""), // lists read, write, delete
		Rules:    []policy.Rule{{Tool: "delete", Decision: policy.Deny}, {Tool: "*", Decision: policy.Allow}},
		Roots:    map[string]string{"*": "/srv"}, // keys in the server's names too
		Name:     "inner",
	})
	if err != nil {
		panic(err)
	}
	registry := provider.NewRegistry()
	if err := registry.Add(inner, "fs"); err != nil {
		panic(err)
	}
	outer, err := policy.New(policy.Options{
		Provider: registry,
		Rules:    []policy.Rule{{Tool: "fs_write", Decision: policy.Ask}, {Tool: "fs_*", Decision: policy.Allow}},
		Roots:    map[string]string{"fs": "/srv"},
		Name:     "outer",
		OnAsk: func(_ context.Context, q policy.Question) policy.Answer {
			fmt.Println("outer asks about", q.Tool, q.Paths)
			return policy.Answer{Action: policy.AllowOnce}
		},
	})
	if err != nil {
		panic(err)
	}
	tools, _ := outer.ToolsForLLM(ctx)
	var names []string
	for _, t := range tools {
		names = append(names, t.Function.Name)
	}
	fmt.Println(strings.Join(names, " "))
	printResults(outer.ExecuteToolCalls(ctx, []provider.Call{
		exampleCall("1", "fs_write", `{"path":"a.md"}`),
		exampleCall("2", "fs_delete", `{"path":"a.md"}`),
		exampleCall("3", "fs_read", `{"path":"a.md"}`),
	}))
	// Output:
	// fs_read fs_write
	// outer asks about fs_write [/srv/a.md]
	// 1 error=false: server ran write {"path":"a.md"}
	// 2 error=true: Denied by inner: 'delete' is not allowed by rule {"tool":"delete","decision":"deny"}. The call was not run; do not retry it unchanged.
	// 3 error=false: server ran read {"path":"a.md"}
}
