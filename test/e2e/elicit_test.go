package e2e_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/mcpclient"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// The two ways a server's question reaches the client: legacy elicitation/create and 2026-07-28 input-required rounds.
var eras = []struct {
	name, protocol string
	env            []string
}{
	// An input-required round inside tools/call: the hook's ctx derives
	// from the call's.
	{"2026-07-28", "2026-07-28", nil},
	// A server-initiated elicitation/create: attributed to the call because
	// it is the only one in flight on the client.
	{"legacy", "2025-11-25", []string{"FSSERVER_LEGACY_ELICIT=1"}},
}

// fleetOverOneClient is the EXAMPLES' wiring: the client needs its hook at
// construction and the hook needs the parent policy, so the parent is
// declared first and assigned once the client exists. The child shares the
// client and, with childClaims, claims the elicitations its own calls
// provoke. With shareStore the two are a fleet sharing a grants.Store (and
// so one ask lock).
func fleetOverOneClient(t *testing.T, dir string, env []string, protocol string, childAsk policy.AskFunc, childClaims, shareStore bool, opts ...mcpclient.Option) (client *mcpclient.Client, child *policy.Policy, parentAsk *asker) {
	t.Helper()
	var store *grants.Store
	if shareStore {
		var err error
		store, err = grants.NewStore(nil)
		require.NoError(t, err)
	}
	var wired *policy.Policy
	client = connect(t, dir, append(opts, mcpclient.WithEnv(env),
		mcpclient.WithElicitHook(func(ctx context.Context, req provider.ElicitRequest) (provider.ElicitResult, error) {
			return wired.ElicitHook()(ctx, req)
		}))...)
	require.Equal(t, protocol, client.ProtocolVersion(), "negotiated protocol")
	parentAsk = &asker{answer: func(q policy.Question) policy.Answer {
		assert.Failf(t, "the parent was asked", "%+v", q)
		return policy.Answer{Action: policy.Decline}
	}}
	wired = newPolicy(t, policy.Options{Provider: client, OnAsk: parentAsk.ask, Roots: map[string]string{"fs": dir}, Name: "parent", GrantsStore: store})
	child = newPolicy(t, policy.Options{
		Provider:     client,
		Rules:        append(policy.DefaultRules(), rules.Rule{Tool: "fs_delete", Decision: rules.Allow}),
		Roots:        map[string]string{"fs": dir},
		OnAsk:        childAsk,
		ClaimElicits: childClaims,
		Name:         "child",
		GrantsStore:  store,
	})
	return client, child, parentAsk
}

// elicitMessage is the message of a server-elicit question's request.
func elicitMessage(t *testing.T, q policy.Question) string {
	t.Helper()
	require.Equal(t, policy.KindServerElicit, q.Kind, "question %+v", q)
	require.NotNil(t, q.Request, "question %+v: a server-elicit carries its request", q)
	require.Equal(t, provider.ElicitMethod, q.Request.Method, "request method")
	var params struct {
		Message         string         `json:"message"`
		RequestedSchema map[string]any `json:"requestedSchema"`
	}
	require.NoError(t, json.Unmarshal(q.Request.Params, &params), "request params %s", q.Request.Params)
	require.NotNil(t, params.RequestedSchema, "request params carry no schema: %s", q.Request.Params)
	return params.Message
}

// TestClaimedElicitation: the child's fs_delete of a non-empty directory
// makes the server ask; the question goes to the child's OnAsk, not the
// wired parent's, and the child's answer decides what happens on disk.
func TestClaimedElicitation(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		for _, shareStore := range []bool{false, true} {
			name := era.name
			if shareStore {
				name += "/shared-store"
			}
			t.Run(name, func(t *testing.T) {
				for _, tc := range []struct {
					name    string
					answer  policy.Answer
					deleted bool
					errText string
				}{
					{"accept", policy.Answer{Action: policy.Accept, Content: map[string]any{"confirm": true}}, true, ""},
					{"decline", policy.Answer{Action: policy.Decline}, false, "the user did not confirm"},
					{"accept-unconfirmed", policy.Answer{Action: policy.Accept, Content: map[string]any{"confirm": false}}, false, "the user did not confirm"},
				} {
					t.Run(tc.name, func(t *testing.T) {
						dir := t.TempDir()
						mkfile(t, dir, "tree/a.txt", "a")
						mkfile(t, dir, "tree/sub/b.txt", "b")
						childAsk := &asker{answer: func(policy.Question) policy.Answer { return tc.answer }}
						_, child, parentAsk := fleetOverOneClient(t, dir, era.env, era.protocol, childAsk.ask, true, shareStore)

						rs := execute(t, child, mkcall("del", "fs_delete", map[string]string{"path": "tree"}))

						qs := childAsk.asked()
						require.Len(t, qs, 1, "the child's questions: want 1 (the server's)")
						require.Equal(t, "Delete the directory tree and everything in it?", elicitMessage(t, qs[0]), "elicitation message")
						require.Empty(t, parentAsk.asked(), "the parent was asked")
						if tc.deleted {
							wantOK(t, rs[0])
							wantAbsent(t, filepath.Join(dir, "tree"))
						} else {
							wantError(t, rs[0], tc.errText)
							wantFile(t, filepath.Join(dir, "tree", "sub", "b.txt"), "b")
						}
					})
				}
			})
		}
	}
}

// TestUnclaimedElicitation: the fallbacks. A child that does not claim, or
// a claiming child with no one to ask, leaves the server's question to the
// wired parent.
func TestUnclaimedElicitation(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			for _, tc := range []struct {
				name     string
				claims   bool
				headless bool
			}{
				{"not-claiming", false, false},
				{"headless-claimant", true, true},
			} {
				t.Run(tc.name, func(t *testing.T) {
					dir := t.TempDir()
					mkfile(t, dir, "tree/a.txt", "a")
					var childAsk policy.AskFunc
					if !tc.headless {
						childAsk = refuse(t, "the child")
					}
					_, child, parentAsk := fleetOverOneClient(t, dir, era.env, era.protocol, childAsk, tc.claims, true)
					parentAsk.mu.Lock()
					parentAsk.answer = func(policy.Question) policy.Answer {
						return policy.Answer{Action: policy.Accept, Content: map[string]any{"confirm": true}}
					}
					parentAsk.mu.Unlock()

					rs := execute(t, child, mkcall("del", "fs_delete", map[string]string{"path": "tree"}))
					wantOK(t, rs[0])
					wantAbsent(t, filepath.Join(dir, "tree"))
					qs := parentAsk.asked()
					require.Len(t, qs, 1, "the parent's questions")
					require.Equal(t, "Delete the directory tree and everything in it?", elicitMessage(t, qs[0]), "elicitation message")
				})
			}
		})
	}
}

// TestElicitationBesideAnotherCall: the same claimed delete while another
// call is in flight on the client. On 2026-07-28 the question still names its
// call, so the child answers. A legacy elicitation/create names no call, and
// with two in flight the client cannot say whose it is: it goes uncorrelated
// to the wired parent rather than to a guess.
func TestElicitationBesideAnotherCall(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			dir := t.TempDir()
			mkfile(t, dir, "tree/a.txt", "a")
			mkfile(t, dir, "slow.txt", "slow")
			confirm := func(policy.Question) policy.Answer {
				return policy.Answer{Action: policy.Accept, Content: map[string]any{"confirm": true}}
			}
			childAsk := &asker{answer: confirm}
			stderr := newLineWatch("fsserver: call fs_read (in flight: 1)")
			// fs_read waits a minute: it stays in flight until cancelled.
			env := append([]string{"FSSERVER_SLOW_MS=60000"}, era.env...)
			client, child, parentAsk := fleetOverOneClient(t, dir, env, era.protocol, childAsk.ask, true, false, mcpclient.WithStderr(stderr))
			parentAsk.mu.Lock()
			parentAsk.answer = confirm
			parentAsk.mu.Unlock()

			// Another agent's read, straight on the client, in flight.
			readCtx, cancelRead := context.WithCancel(context.Background())
			readDone := make(chan provider.Result, 1)
			go func() {
				readDone <- client.ExecuteToolCalls(readCtx, []provider.Call{mkcall("read", "fs_read", map[string]string{"path": "slow.txt"})})[0]
			}()
			<-stderr.seen // the server is running the read

			rs := execute(t, child, mkcall("del", "fs_delete", map[string]string{"path": "tree"}))
			cancelRead()
			r := <-readDone
			require.True(t, r.IsError, "the cancelled read succeeded: %s", r.Content)
			wantOK(t, rs[0])
			wantAbsent(t, filepath.Join(dir, "tree"))

			want, other := childAsk, parentAsk
			if era.name == "legacy" {
				want, other = parentAsk, childAsk
			}
			qs := want.asked()
			require.Len(t, qs, 1, "questions %+v, want one server-elicit", qs)
			require.Equal(t, policy.KindServerElicit, qs[0].Kind, "questions %+v", qs)
			require.Empty(t, other.asked(), "the other policy was asked too")
		})
	}
}
