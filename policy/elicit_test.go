package policy_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/verdict"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

var elicitReq = provider.ElicitRequest{Method: provider.ElicitMethod,
	Params: json.RawMessage(`{"message":"Which branch?","requestedSchema":{"type":"object","properties":{"branch":{"type":"string"}}}}`)}

func TestDecideNeverAsks(t *testing.T) {
	fake := newFake()
	p := newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults(rules.Rule{Tool: "fs_delete", Decision: rules.Deny}),
		Grants: []rules.Rule{{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/ok"}},
		OnAsk: func(context.Context, policy.Question) policy.Answer {
			t.Error("Decide must never ask")
			return policy.Answer{Action: policy.AllowOnce}
		}})
	ctx := context.Background()

	d, err := p.Decide(ctx, write("1", "docs/a.md"))
	require.NoError(t, err)
	assert.Equal(t, rules.Ask, d.Decision)
	assert.Equal(t, rules.ReasonNoMatch, d.Reason)
	assert.Equal(t, []string{"/srv/docs/a.md"}, d.Paths)
	assert.Equal(t, &rules.Rule{Tool: "fs_write", Under: "/srv/docs"}, d.Suggestion)

	d, err = p.Decide(ctx, write("2", "ok/a.md"))
	require.NoError(t, err)
	assert.Equal(t, rules.Allow, d.Decision)
	assert.Equal(t, rules.ReasonGrant, d.Reason)
	require.NotNil(t, d.Grant)

	d, err = p.Decide(ctx, testkit.Call("3", "fs_delete", `{"path":"x"}`))
	require.NoError(t, err)
	assert.Equal(t, rules.Deny, d.Decision)
	assert.Equal(t, rules.ReasonRule, d.Reason)

	d, err = p.Decide(ctx, testkit.Call("4", "fs_read", `{"path":"x"}`))
	require.NoError(t, err)
	assert.Equal(t, rules.Allow, d.Decision)

	_, err = p.Decide(ctx, testkit.Call("5", "fs_read", `[1]`))
	assert.Error(t, err)
	_, err = p.Decide(ctx, testkit.Call("6", "", `{}`))
	assert.Error(t, err)
	assert.Empty(t, fake.Calls(), "Decide runs nothing")
}

func TestGrantDecision(t *testing.T) {
	p := newPolicy(t, policy.Options{Provider: newFake(), Rules: withDefaults(rules.Rule{Tool: "fs_edit", Decision: rules.Ask}),
		Grants: []rules.Rule{
			{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/ok"},
			{Tool: "fs_write", Decision: rules.Deny, Under: "/srv/ok/secret"},
			{Tool: "fs_edit", Decision: rules.Allow, Under: "/srv"},
		}})
	for name, tc := range map[string]struct {
		c    provider.Call
		want verdict.Decision
		ok   bool
	}{
		"allow grant":          {write("1", "ok/a"), rules.Allow, true},
		"deny grant":           {write("2", "ok/secret/a"), rules.Deny, true},
		"nothing to say":       {write("3", "elsewhere/a"), "", false},
		"not an ask":           {testkit.Call("4", "fs_read", `{"path":"ok/a"}`), "", false},
		"explicit ask rule":    {testkit.Call("5", "fs_edit", `{"path":"a"}`), "", false},
		"floor ask":            {write("6", "ok/.git/config"), "", false},
		"unevaluable no guess": {testkit.Call("7", "fs_write", `{"path":"$HOME/a"}`), "", false},
		"bad call":             {testkit.Call("8", "fs_write", `nope`), "", false},
	} {
		t.Run(name, func(t *testing.T) {
			d, ok := p.GrantDecision(tc.c)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, d)
		})
	}
}

func TestElicitHookAnswers(t *testing.T) {
	for _, tc := range []struct {
		answer policy.Answer
		want   provider.ElicitResult
	}{
		{policy.Answer{Action: "accept", Content: map[string]any{"branch": "main"}}, provider.ElicitResult{Action: "accept", Content: map[string]any{"branch": "main"}}},
		{policy.Answer{Action: "decline", Content: map[string]any{"ignored": true}}, provider.ElicitResult{Action: "decline"}},
		{policy.Answer{Action: "cancel"}, provider.ElicitResult{Action: "cancel"}},
	} {
		t.Run(string(tc.answer.Action), func(t *testing.T) {
			a := answering(tc.answer)
			p := newPolicy(t, policy.Options{Provider: newFake(), OnAsk: a.ask})
			got, err := p.ElicitHook()(context.Background(), elicitReq)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			qs := a.Questions()
			require.Len(t, qs, 1)
			assert.Equal(t, policy.KindServerElicit, qs[0].Kind)
			require.NotNil(t, qs[0].Request)
			assert.Equal(t, elicitReq, *qs[0].Request)
			assert.Empty(t, qs[0].Tool)
			assert.Empty(t, p.Grants(), "an elicitation remembers nothing")
		})
	}
}

func TestElicitHookRefusals(t *testing.T) {
	p := newPolicy(t, policy.Options{Provider: newFake(), OnAsk: answering(policy.Answer{Action: policy.AllowOnce}).ask})
	_, err := p.ElicitHook()(context.Background(), elicitReq)
	assert.Error(t, err, "a permission action is no answer to a server's question")

	panicky := newPolicy(t, policy.Options{Provider: newFake(), OnAsk: func(context.Context, policy.Question) policy.Answer { panic("boom") }})
	require.NotPanics(t, func() { _, err = panicky.ElicitHook()(context.Background(), elicitReq) })
	assert.Error(t, err)

	headless := newPolicy(t, policy.Options{Provider: newFake()})
	got, err := headless.ElicitHook()(context.Background(), elicitReq)
	require.NoError(t, err)
	assert.Equal(t, provider.ElicitDecline, got.Action, "no one to ask: decline")
}

func TestElicitationWaitsForOpenPermissionQuestion(t *testing.T) {
	permissionOpen := make(chan struct{})
	release := make(chan struct{})
	var mu sync.Mutex
	var order []string
	p := newPolicy(t, policy.Options{Provider: newFake(), OnAsk: func(_ context.Context, q policy.Question) policy.Answer {
		mu.Lock()
		order = append(order, string(q.Kind)+" start")
		mu.Unlock()
		if q.Kind == policy.KindPermission {
			close(permissionOpen)
			<-release
		}
		mu.Lock()
		order = append(order, string(q.Kind)+" end")
		mu.Unlock()
		if q.Kind == policy.KindPermission {
			return policy.Answer{Action: policy.AllowOnce}
		}
		return policy.Answer{Action: "accept"}
	}})
	permDone := make(chan provider.Result, 1)
	go func() { permDone <- run1(p, write("1", "x")) }()
	<-permissionOpen

	elicitDone := make(chan provider.ElicitResult, 1)
	go func() {
		r, _ := p.ElicitHook()(context.Background(), elicitReq)
		elicitDone <- r
	}()
	select {
	case <-elicitDone:
		t.Fatal("the elicitation was answered while a permission question was open")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	select {
	case r := <-elicitDone:
		assert.Equal(t, provider.ElicitAccept, r.Action)
	case <-time.After(5 * time.Second):
		t.Fatal("the elicitation never got its turn")
	}
	assert.False(t, (<-permDone).IsError)
	assert.Equal(t, []string{"permission start", "permission end", "server-elicit start", "server-elicit end"}, order)
}

func TestPermissionWaitsForOpenElicitation(t *testing.T) {
	elicitOpen := make(chan struct{})
	release := make(chan struct{})
	var asked sync.WaitGroup
	asked.Add(1)
	p := newPolicy(t, policy.Options{Provider: newFake(), OnAsk: func(_ context.Context, q policy.Question) policy.Answer {
		if q.Kind == policy.KindServerElicit {
			close(elicitOpen)
			<-release
			return policy.Answer{Action: "cancel"}
		}
		asked.Done()
		return policy.Answer{Action: policy.AllowOnce}
	}})
	go p.ElicitHook()(context.Background(), elicitReq)
	<-elicitOpen
	done := make(chan provider.Result, 1)
	go func() { done <- run1(p, write("1", "x")) }()
	select {
	case <-done:
		t.Fatal("a permission question was put while an elicitation was open")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	within(t, 5*time.Second, "the permission question", func() { asked.Wait() })
	assert.False(t, (<-done).IsError)
}

// elicitingProvider calls hook from inside ExecuteToolCalls, the way an MCP
// client answers an input-required round inline, and reports the answer as
// the call's result.
func elicitingProvider(hook *provider.ElicitFunc, ctxFor func(ctx context.Context) context.Context) *fakeProvider {
	f := newFake()
	f.exec = func(ctx context.Context, calls []provider.Call) []provider.Result {
		out := make([]provider.Result, len(calls))
		for i, c := range calls {
			r, err := (*hook)(ctxFor(ctx), elicitReq)
			if err != nil {
				out[i] = provider.ErrorResult(c.ID, err.Error())
				continue
			}
			b, _ := json.Marshal(r)
			out[i] = provider.TextResult(c.ID, string(b))
		}
		return out
	}
	return f
}

// labelled answers a server-elicit question with its own label.
func labelled(label string, kinds *[]string, mu *sync.Mutex) policy.AskFunc {
	return func(_ context.Context, q policy.Question) policy.Answer {
		mu.Lock()
		*kinds = append(*kinds, label+":"+string(q.Kind))
		mu.Unlock()
		if q.Kind == policy.KindServerElicit {
			return policy.Answer{Action: "accept", Content: map[string]any{"by": label}}
		}
		return policy.Answer{Action: policy.AllowOnce}
	}
}

func sameCtx(ctx context.Context) context.Context { return ctx }

func otherCtx(context.Context) context.Context { return context.Background() }

var allowAll = []rules.Rule{{Tool: "*", Decision: rules.Allow}}

func TestClaimElicits(t *testing.T) {
	var mu sync.Mutex
	var hook provider.ElicitFunc
	type setup struct {
		ctxFor func(context.Context) context.Context
		build  func(fake *fakeProvider, seen *[]string) provider.Provider
		tool   string // as the top of the stack sees it
		want   string // whose OnAsk answers
	}
	cases := map[string]setup{
		"claiming child answers its own": {sameCtx, func(fake *fakeProvider, seen *[]string) provider.Provider {
			return newPolicy(t, policy.Options{Provider: fake, Rules: allowAll, ClaimElicits: true, OnAsk: labelled("child", seen, &mu)})
		}, "fs_write", "child"},
		"non-claiming child: the wired policy": {sameCtx, func(fake *fakeProvider, seen *[]string) provider.Provider {
			return newPolicy(t, policy.Options{Provider: fake, Rules: allowAll, OnAsk: labelled("child", seen, &mu)})
		}, "fs_write", "parent"},
		"claimant without OnAsk: the wired policy": {sameCtx, func(fake *fakeProvider, seen *[]string) provider.Provider {
			return newPolicy(t, policy.Options{Provider: fake, Rules: allowAll, ClaimElicits: true})
		}, "fs_write", "parent"},
		"provider on another context: the wired policy": {otherCtx, func(fake *fakeProvider, seen *[]string) provider.Provider {
			return newPolicy(t, policy.Options{Provider: fake, Rules: allowAll, ClaimElicits: true, OnAsk: labelled("child", seen, &mu)})
		}, "fs_write", "parent"},
		"outermost claim wins": {sameCtx, func(fake *fakeProvider, seen *[]string) provider.Provider {
			inner := newPolicy(t, policy.Options{Provider: fake, Rules: allowAll, ClaimElicits: true, OnAsk: labelled("inner", seen, &mu)})
			return newPolicy(t, policy.Options{Provider: inner, Rules: allowAll, ClaimElicits: true, OnAsk: labelled("outer", seen, &mu)})
		}, "fs_write", "outer"},
		"inner claim under a non-claiming outer": {sameCtx, func(fake *fakeProvider, seen *[]string) provider.Provider {
			inner := newPolicy(t, policy.Options{Provider: fake, Rules: allowAll, ClaimElicits: true, OnAsk: labelled("inner", seen, &mu)})
			return newPolicy(t, policy.Options{Provider: inner, Rules: allowAll, OnAsk: labelled("outer", seen, &mu)})
		}, "fs_write", "inner"},
		"claim through a registry": {sameCtx, func(fake *fakeProvider, seen *[]string) provider.Provider {
			reg := provider.NewRegistry()
			require.NoError(t, reg.Add(fake, "srv"))
			return newPolicy(t, policy.Options{Provider: reg, Rules: allowAll, ClaimElicits: true, OnAsk: labelled("child", seen, &mu)})
		}, "srv_fs_write", "child"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var seen []string
			fake := elicitingProvider(&hook, tc.ctxFor)
			parent := newPolicy(t, policy.Options{Provider: fake, OnAsk: labelled("parent", &seen, &mu)})
			hook = parent.ElicitHook() // the client was wired to the parent
			top := tc.build(fake, &seen)
			var res []provider.Result
			within(t, 10*time.Second, "an elicitation from inside a call", func() {
				res = top.ExecuteToolCalls(context.Background(), []provider.Call{testkit.Call("1", tc.tool, `{"path":"/srv/x"}`)})
			})
			require.Len(t, res, 1)
			require.False(t, res[0].IsError, res[0].Content)
			require.Len(t, fake.Calls(), 1)
			var got provider.ElicitResult
			require.NoError(t, json.Unmarshal([]byte(res[0].Content), &got))
			assert.Equal(t, provider.ElicitAccept, got.Action)
			assert.Equal(t, tc.want, got.Content["by"])
			mu.Lock()
			assert.Equal(t, []string{tc.want + ":" + string(policy.KindServerElicit)}, seen, "only the claimant was asked, and only the server's question")
			mu.Unlock()
		})
	}
}

func TestClaimedElicitationUsesTheClaimantsLock(t *testing.T) {
	// While the claimant's human is busy with a permission question, an
	// elicitation from another of its batches waits for it.
	var hook provider.ElicitFunc
	fake := elicitingProvider(&hook, sameCtx)
	permOpen := make(chan struct{})
	release := make(chan struct{})
	var mu sync.Mutex
	var order []string
	child := newPolicy(t, policy.Options{Provider: fake, ClaimElicits: true,
		Rules: []rules.Rule{{Tool: "fs_read", Decision: rules.Allow}},
		OnAsk: func(_ context.Context, q policy.Question) policy.Answer {
			mu.Lock()
			order = append(order, string(q.Kind))
			mu.Unlock()
			if q.Kind == policy.KindPermission {
				close(permOpen)
				<-release
				return policy.Answer{Action: policy.DenyOnce}
			}
			return policy.Answer{Action: "decline"}
		}})
	parent := newPolicy(t, policy.Options{Provider: fake, OnAsk: func(context.Context, policy.Question) policy.Answer {
		t.Error("the parent must not be asked")
		return policy.Answer{Action: "cancel"}
	}})
	hook = parent.ElicitHook()

	go run1(child, write("w", "x")) // asks, and blocks
	<-permOpen
	done := make(chan provider.Result, 1)
	go func() { done <- run1(child, testkit.Call("r", "fs_read", `{"path":"x"}`)) }() // allowed, elicits
	select {
	case <-done:
		t.Fatal("the claimed elicitation jumped the open question")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	var r provider.Result
	select {
	case r = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the claimed elicitation never got its turn")
	}
	assert.Contains(t, r.Content, `"decline"`)
	mu.Lock()
	assert.Equal(t, []string{string(policy.KindPermission), string(policy.KindServerElicit)}, order)
	mu.Unlock()
}
