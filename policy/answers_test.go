package policy_test

import (
	"bytes"
	"context"
	"errors"
	"log"
	"os"
	"testing"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

func run1(p *policy.Policy, c provider.Call) provider.Result {
	return p.ExecuteToolCalls(context.Background(), []provider.Call{c})[0]
}

func TestQuestionCarriesTheCall(t *testing.T) {
	fake := newFake()
	a := answering(policy.Answer{Action: policy.AllowOnce})
	p := newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults(), OnAsk: a.ask})
	c := testkit.Call("call_1", "fs_write", `{"path":"docs/notes.md","content":"hi","n":3}`)
	require.False(t, run1(p, c).IsError)

	qs := a.Questions()
	require.Len(t, qs, 1)
	q := qs[0]
	assert.Equal(t, policy.KindPermission, q.Kind)
	assert.Equal(t, "fs_write", q.Tool)
	assert.Equal(t, c, q.Call)
	assert.Equal(t, "docs/notes.md", q.Arguments["path"])
	assert.Equal(t, "hi", q.Arguments["content"])
	assert.Contains(t, q.Arguments, "n")
	assert.Nil(t, q.Rule)
	assert.Equal(t, rules.ReasonNoMatch, q.Reason)
	assert.Equal(t, []string{"/srv/docs/notes.md"}, q.Paths)
	assert.Equal(t, &rules.Rule{Tool: "fs_write", Under: "/srv/docs"}, q.Suggestion)
	assert.Nil(t, q.Request)

	// An explicit ask rule is reported as the rule that asked.
	a2 := answering(policy.Answer{Action: policy.AllowOnce})
	p2 := newPolicy(t, policy.Options{Provider: fake, OnAsk: a2.ask,
		Rules: []rules.Rule{{Tool: "fs_*", Decision: rules.Ask}}})
	run1(p2, c)
	require.Len(t, a2.Questions(), 1)
	assert.Equal(t, rules.ReasonRule, a2.Questions()[0].Reason)
	assert.Equal(t, &rules.Rule{Tool: "fs_*", Decision: rules.Ask}, a2.Questions()[0].Rule)

	// A web fetch is suggested by host.
	a3 := answering(policy.Answer{Action: policy.AllowOnce})
	p3 := newPolicy(t, policy.Options{Provider: fake, OnAsk: a3.ask})
	run1(p3, testkit.Call("w", "web_fetch", `{"url":"https://docs.raku.org/type/Str"}`))
	require.Len(t, a3.Questions(), 1)
	assert.Equal(t, &rules.Rule{Tool: "web_fetch", Host: "docs.raku.org"}, a3.Questions()[0].Suggestion)
	assert.Equal(t, []string{"docs.raku.org"}, a3.Questions()[0].Hosts)
}

func TestAllowOnce(t *testing.T) {
	fake := newFake()
	a := answering(policy.Answer{Action: policy.AllowOnce})
	g := &grantRecorder{}
	p := newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults(), OnAsk: a.ask, OnGrant: g.onGrant})
	c := write("1", "docs/a.md")
	r := run1(p, c)
	assert.False(t, r.IsError, r.Content)
	assert.Equal(t, []provider.Call{c}, fake.Calls())
	assert.Empty(t, p.Grants())
	assert.Empty(t, g.Lists())
	run1(p, c)
	assert.Equal(t, int32(2), a.n.Load(), "allow-once remembers nothing: asked again")
}

func TestDenyOnce(t *testing.T) {
	fake := newFake()
	a := answering(policy.Answer{Action: policy.DenyOnce})
	g := &grantRecorder{}
	p := newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults(), OnAsk: a.ask, OnGrant: g.onGrant})
	r := run1(p, write("1", "docs/a.md"))
	assert.True(t, r.IsError)
	assert.Contains(t, r.Content, "declined")
	assert.Empty(t, fake.Calls())
	assert.Empty(t, p.Grants())
	assert.Empty(t, g.Lists())
	run1(p, write("2", "docs/a.md"))
	assert.Equal(t, int32(2), a.n.Load(), "deny-once remembers nothing: asked again")
}

func TestAlwaysAllowRemembersTheSuggestion(t *testing.T) {
	fake := newFake()
	a := answering(policy.Answer{Action: policy.AlwaysAllow})
	g := &grantRecorder{}
	p := newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults(), OnAsk: a.ask, OnGrant: g.onGrant})

	r := run1(p, write("1", "docs/a.md"))
	assert.False(t, r.IsError, r.Content)
	want := []rules.Rule{{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/docs"}}
	assert.Equal(t, want, p.Grants())
	assert.Equal(t, [][]rules.Rule{want}, g.Lists(), "OnGrant once, with the whole list")

	// A later batch: decided by the grant, nobody asked, nothing fired.
	res := p.ExecuteToolCalls(context.Background(), []provider.Call{write("2", "docs/a.md"), write("3", "docs/sub/b.md")})
	assert.False(t, res[0].IsError)
	assert.False(t, res[1].IsError)
	assert.Equal(t, int32(1), a.n.Load())
	assert.Len(t, g.Lists(), 1, "deciding by a grant fires nothing")
	assert.Equal(t, want, p.Grants(), "nothing further remembered")

	// Outside the suggestion: asked again.
	run1(p, write("4", "other/c.md"))
	assert.Equal(t, int32(2), a.n.Load())

	d, err := p.Decide(context.Background(), write("5", "docs/a.md"))
	require.NoError(t, err)
	assert.Equal(t, rules.Allow, d.Decision)
	assert.Equal(t, rules.ReasonGrant, d.Reason)
	assert.Equal(t, &want[0], d.Grant)
}

func TestAlwaysAllowWithinOneBatch(t *testing.T) {
	// The grant an answer leaves decides the next call of the same batch.
	fake := newFake()
	a := answering(policy.Answer{Action: policy.AlwaysAllow})
	g := &grantRecorder{}
	p := newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults(), OnAsk: a.ask, OnGrant: g.onGrant})
	res := p.ExecuteToolCalls(context.Background(), []provider.Call{write("1", "docs/a.md"), write("2", "docs/b.md")})
	assert.False(t, res[0].IsError)
	assert.False(t, res[1].IsError)
	assert.Equal(t, int32(1), a.n.Load())
	assert.Len(t, g.Lists(), 1)
	require.Len(t, fake.Batches(), 1)
	assert.Len(t, fake.Batches()[0], 2)
}

func TestAlwaysDenyWithRule(t *testing.T) {
	fake := newFake()
	a := answering(policy.Answer{Action: policy.AlwaysDeny, Rule: &rules.Rule{Tool: "fs_*", Under: "/srv/live"}})
	g := &grantRecorder{}
	p := newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults(), OnAsk: a.ask, OnGrant: g.onGrant})

	r := run1(p, write("1", "live/index.html"))
	assert.True(t, r.IsError)
	assert.Contains(t, r.Content, "always deny")
	want := []rules.Rule{{Tool: "fs_*", Decision: rules.Deny, Under: "/srv/live"}}
	assert.Equal(t, want, p.Grants())
	assert.Equal(t, [][]rules.Rule{want}, g.Lists())

	// Any asked fs_ call under live is now denied without asking.
	res := p.ExecuteToolCalls(context.Background(), []provider.Call{
		write("2", "live/other.html"),
		testkit.Call("3", "fs_edit", `{"path":"live/deep/x"}`),
		testkit.Call("4", "fs_read", `{"path":"live/x"}`), // statically allowed: grants not consulted
	})
	assert.True(t, res[0].IsError)
	assert.True(t, res[1].IsError)
	assert.Contains(t, res[1].Content, "always deny")
	assert.False(t, res[2].IsError, "a grant is consulted only when the rules said ask")
	assert.Equal(t, int32(1), a.n.Load())
	assert.Len(t, g.Lists(), 1)
	assert.Equal(t, []provider.Call{testkit.Call("4", "fs_read", `{"path":"live/x"}`)}, fake.Calls())
}

func TestAnswerDecisionComesFromTheAction(t *testing.T) {
	fake := newFake()
	// The UI's rule says deny; the human clicked always-allow.
	a := answering(policy.Answer{Action: policy.AlwaysAllow, Rule: &rules.Rule{Tool: "fs_write", Decision: rules.Deny, Under: "/srv"}})
	p := newPolicy(t, policy.Options{Provider: fake, OnAsk: a.ask})
	assert.False(t, run1(p, write("1", "a/b")).IsError)
	assert.Equal(t, []rules.Rule{{Tool: "fs_write", Decision: rules.Allow, Under: "/srv"}}, p.Grants())
}

func TestAlwaysAllowSeveralRules(t *testing.T) {
	fake := newFake()
	offered := []rules.Rule{{Tool: "fs_write", Under: "/srv"}, {Tool: "fs_edit", Under: "/srv"}}
	a := answering(policy.Answer{Action: policy.AlwaysAllow, Rules: offered})
	g := &grantRecorder{}
	p := newPolicy(t, policy.Options{Provider: fake, OnAsk: a.ask, OnGrant: g.onGrant})

	assert.False(t, run1(p, write("1", "a/b")).IsError)
	want := []rules.Rule{{Tool: "fs_write", Decision: rules.Allow, Under: "/srv"}, {Tool: "fs_edit", Decision: rules.Allow, Under: "/srv"}}
	assert.Equal(t, want, p.Grants())
	assert.Equal(t, [][]rules.Rule{want}, g.Lists(), "one OnGrant per answer, however many rules")
	assert.Empty(t, offered[0].Decision, "the caller's rules are not modified")

	assert.False(t, run1(p, testkit.Call("2", "fs_edit", `{"path":"x/y"}`)).IsError)
	assert.Equal(t, int32(1), a.n.Load())
}

func TestRefusedAnswers(t *testing.T) {
	cases := map[string]policy.AskFunc{
		"unknown action": func(context.Context, policy.Question) policy.Answer { return policy.Answer{Action: "yes please"} },
		"empty action":   func(context.Context, policy.Question) policy.Answer { return policy.Answer{} },
		"elicit action":  func(context.Context, policy.Question) policy.Answer { return policy.Answer{Action: "accept"} },
		"invalid rule": func(context.Context, policy.Question) policy.Answer {
			return policy.Answer{Action: policy.AlwaysAllow, Rule: &rules.Rule{Tool: "fs_write", Under: "~/x"}}
		},
		"rule with no tool": func(context.Context, policy.Question) policy.Answer {
			return policy.Answer{Action: policy.AlwaysDeny, Rule: &rules.Rule{Under: "/srv"}}
		},
		"rule with unknown hint": func(context.Context, policy.Question) policy.Answer {
			return policy.Answer{Action: policy.AlwaysAllow, Rule: &rules.Rule{Tool: "fs_write", Annotations: map[string]bool{"safeHint": true}}}
		},
		"rules all-or-nothing": func(context.Context, policy.Question) policy.Answer {
			return policy.Answer{Action: policy.AlwaysAllow, Rules: []rules.Rule{
				{Tool: "fs_write", Under: "/srv"}, {Tool: "fs_edit", Under: "$HOME/x"}, {Tool: "fs_list", Under: "/srv"},
			}}
		},
		"both rule and rules": func(context.Context, policy.Question) policy.Answer {
			return policy.Answer{Action: policy.AlwaysAllow, Rule: &rules.Rule{Tool: "fs_write", Under: "/srv"},
				Rules: []rules.Rule{{Tool: "fs_edit", Under: "/srv"}}}
		},
		"both rule and empty rules": func(context.Context, policy.Question) policy.Answer {
			return policy.Answer{Action: policy.AlwaysAllow, Rule: &rules.Rule{Tool: "fs_write", Under: "/srv"}, Rules: []rules.Rule{}}
		},
		"empty rules": func(context.Context, policy.Question) policy.Answer {
			return policy.Answer{Action: policy.AlwaysAllow, Rules: []rules.Rule{}}
		},
		"panicking OnAsk": func(context.Context, policy.Question) policy.Answer { panic("the dialog crashed") },
		"unanswered always-allow": func(context.Context, policy.Question) policy.Answer {
			return policy.Answer{Action: policy.AlwaysAllow, Unanswered: errors.New("no one answered within 1m")}
		},
	}
	for name, ask := range cases {
		t.Run(name, func(t *testing.T) {
			fake := newFake()
			g := &grantRecorder{}
			p := newPolicy(t, policy.Options{Provider: fake, Rules: withDefaults(), OnAsk: ask, OnGrant: g.onGrant, Name: "pol"})
			var res []provider.Result
			require.NotPanics(t, func() {
				res = p.ExecuteToolCalls(context.Background(), []provider.Call{
					testkit.Call("r", "fs_read", `{"path":"a"}`), write("w", "docs/a.md"), testkit.Call("l", "fs_list", `{"path":"b"}`),
				})
			})
			require.Len(t, res, 3)
			assert.True(t, res[1].IsError)
			assert.Equal(t, "w", res[1].ToolCallID)
			assert.Contains(t, res[1].Content, "'fs_write'")
			assert.Contains(t, res[1].Content, "pol")
			assert.Contains(t, res[1].Content, "not run", "worded for the model")
			assert.False(t, res[0].IsError, "the others in the batch still run")
			assert.False(t, res[2].IsError)
			assert.Empty(t, p.Grants(), "nothing remembered")
			assert.Empty(t, g.Lists(), "OnGrant not fired")
			for _, c := range fake.Calls() {
				assert.NotEqual(t, "w", c.ID)
			}
		})
	}
}

func TestRefusedAnswerWithSharedStoreRemembersNothing(t *testing.T) {
	s := mustStore(t, nil)
	fake := newFake()
	p := newPolicy(t, policy.Options{Provider: fake, GrantsStore: s, OnAsk: func(context.Context, policy.Question) policy.Answer {
		return policy.Answer{Action: policy.AlwaysAllow, Rules: []rules.Rule{{Tool: "fs_write", Under: "/srv"}, {Tool: ""}}}
	}})
	assert.True(t, run1(p, write("1", "x")).IsError)
	assert.Empty(t, s.List())
}

func TestOnGrantFiresBeforeTheCallIsDecided(t *testing.T) {
	fake := newFake()
	seed := rules.Rule{Tool: "fs_edit", Decision: rules.Deny, Under: "/srv/old"}
	var seen [][]rules.Rule
	var providerCallsAtGrant []int
	p := newPolicy(t, policy.Options{
		Provider: fake, Rules: withDefaults(), Grants: []rules.Rule{seed},
		OnAsk: answering(policy.Answer{Action: policy.AlwaysAllow}).ask,
		OnGrant: func(gs []rules.Rule) {
			seen = append(seen, rules.CloneAll(gs))
			providerCallsAtGrant = append(providerCallsAtGrant, len(fake.Batches()))
			gs[0].Tool = "mutated" // a copy: the policy must not care
		},
	})
	res := p.ExecuteToolCalls(context.Background(), []provider.Call{testkit.Call("0", "fs_read", `{"path":"x"}`), write("1", "docs/a.md")})
	assert.False(t, res[0].IsError)
	assert.False(t, res[1].IsError)
	require.Len(t, seen, 1)
	assert.Equal(t, []int{0}, providerCallsAtGrant, "OnGrant ran before anything was forwarded")
	want := []rules.Rule{seed, {Tool: "fs_write", Decision: rules.Allow, Under: "/srv/docs"}}
	assert.Equal(t, want, seen[0], "the whole effective list")
	assert.Equal(t, want, p.Grants(), "OnGrant's copy was its own")
}

func TestPanickingOnGrantDoesNotLoseTheGrant(t *testing.T) {
	fake := newFake()
	p := newPolicy(t, policy.Options{Provider: fake, OnAsk: answering(policy.Answer{Action: policy.AlwaysAllow}).ask,
		OnGrant: func([]rules.Rule) { panic("persisting failed") }})
	var r provider.Result
	require.NotPanics(t, func() { r = run1(p, write("1", "a/b")) })
	assert.False(t, r.IsError, r.Content)
	assert.Len(t, p.Grants(), 1)
}

// A panicking OnGrant is reported, not swallowed: in the decision's
// Record when there is a decision log, else on the standard logger.
func TestPanickingOnGrantIsReported(t *testing.T) {
	var recs []policy.Record
	p := newPolicy(t, policy.Options{Provider: newFake(), OnAsk: answering(policy.Answer{Action: policy.AlwaysAllow}).ask,
		OnGrant:    func([]rules.Rule) { panic("persisting failed") },
		OnDecision: func(r policy.Record) { recs = append(recs, r) }})
	assert.False(t, run1(p, write("1", "a/b")).IsError)
	require.Len(t, recs, 1)
	require.Len(t, recs[0].Warnings, 1)
	assert.Contains(t, recs[0].Warnings[0], "OnGrant panicked: persisting failed")

	var logged bytes.Buffer
	log.SetOutput(&logged)
	defer log.SetOutput(os.Stderr)
	headless := newPolicy(t, policy.Options{Provider: newFake(), Name: "fs-policy", OnAsk: answering(policy.Answer{Action: policy.AlwaysAllow}).ask,
		OnGrant: func([]rules.Rule) { panic("persisting failed") }})
	assert.False(t, run1(headless, write("1", "a/b")).IsError)
	assert.Contains(t, logged.String(), "fs-policy: OnGrant panicked: persisting failed")
}

func TestDecidingByExistingGrantFiresNothing(t *testing.T) {
	fake := newFake()
	g := &grantRecorder{}
	a := answering(policy.Answer{Action: policy.AlwaysAllow})
	p := newPolicy(t, policy.Options{Provider: fake, OnAsk: a.ask, OnGrant: g.onGrant,
		Grants: []rules.Rule{{Tool: "fs_write", Decision: rules.Allow, Under: "/srv"}}})
	assert.False(t, run1(p, write("1", "a")).IsError)
	assert.Zero(t, a.n.Load())
	assert.Empty(t, g.Lists())
}

// A grant is an answer: what a tool's arguments hold is said in the
// rules, and a grant that says it is refused, not half-read.
func TestGrantsCarryNoDataMarks(t *testing.T) {
	_, err := policy.New(policy.Options{Provider: newFake(),
		Grants: []rules.Rule{{Tool: "fs_write", Decision: rules.Allow, Data: []string{"content"}}}})
	var ve *rules.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "data", ve.Field)
}

func TestGrantsReturnsACopy(t *testing.T) {
	fake := newFake()
	p := newPolicy(t, policy.Options{Provider: fake,
		Grants: []rules.Rule{{Tool: "fs_write", Decision: rules.Allow, Under: "/srv", Annotations: map[string]bool{"readOnlyHint": false}}}})
	gs := p.Grants()
	gs[0].Under = "/"
	gs[0].Annotations["readOnlyHint"] = true
	assert.Equal(t, "/srv", p.Grants()[0].Under)
	assert.False(t, p.Grants()[0].Annotations["readOnlyHint"])
}

// An unanswered question is refused in words that say so, not as the
// human's "declined": the model must not tell the user they said no.
func TestUnansweredIsNotADenial(t *testing.T) {
	p := newPolicy(t, policy.Options{Provider: newFake(), Rules: withDefaults(), Name: "pol",
		OnAsk: func(context.Context, policy.Question) policy.Answer {
			return policy.Answer{Unanswered: errors.New("no one answered within 1m; approve at the approvals page")}
		}})
	r := run1(p, write("w", "docs/a.md"))
	assert.True(t, r.IsError)
	assert.Contains(t, r.Content, "no one answered within 1m; approve at the approvals page")
	assert.NotContains(t, r.Content, "declined")
}

// An "always deny" answer to the floor's question about one file names
// that file: the project around it stays writable.
func TestAlwaysDenyOnAFloorFileNamesTheFile(t *testing.T) {
	fake := newFake()
	a := answering(policy.Answer{Action: policy.AlwaysDeny})
	p := newPolicy(t, policy.Options{Provider: fake, OnAsk: a.ask,
		Rules: []policy.Rule{{Tool: "fs_write", Decision: policy.Allow, Under: "/srv"}}, GrantsStore: mustStore(t, nil)})
	require.True(t, run1(p, testkit.Call("1", "fs_write", `{"path":"/srv/app/.env","content":"X=1"}`)).IsError)
	qs := a.Questions()
	require.Len(t, qs, 1)
	assert.Equal(t, policy.ReasonFloor, qs[0].Reason)
	assert.Equal(t, "/srv/app/.env", qs[0].Suggestion.Under, "the floor's file, not its directory")
	assert.Equal(t, []policy.Rule{{Tool: "fs_write", Decision: policy.Deny, Under: "/srv/app/.env"}}, p.Grants())

	assert.False(t, run1(p, testkit.Call("2", "fs_write", `{"path":"/srv/app/main.go","content":"package main"}`)).IsError,
		"the rest of the project is written as the rules allow")
	assert.True(t, run1(p, testkit.Call("3", "fs_write", `{"path":"/srv/app/.env","content":"X=2"}`)).IsError)
	assert.Len(t, a.Questions(), 1, "the file is denied without asking again")
}
