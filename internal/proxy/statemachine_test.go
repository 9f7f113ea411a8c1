package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The relay's state machine without processes: the decisions, the ids it
// takes, cancellation, input-required rounds and roots.

func errorCode(m map[string]any) any {
	e, _ := m["error"].(map[string]any)
	return e["code"]
}

func isErrorResult(m map[string]any) bool {
	r, _ := m["result"].(map[string]any)
	return r["isError"] == true
}

// An allowed call goes to the server as the host sent it and its answer
// comes back; a denied one is answered with an is_error result and never
// reaches the server.
func TestRelayDecides(t *testing.T) {
	rt := newRelayTest(t, testRules, true)
	rt.initialize(`{}`)
	rt.fromHost(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"secret","arguments":{}}}`)
	m := next(t, rt.host, "the refusal")
	assert.EqualValues(t, 1, m["id"])
	assert.True(t, isErrorResult(m), "%v", m)
	nothing(t, rt.server, "a denied call")

	rt.fromHost(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"x":"y"}}}`)
	m = next(t, rt.server, "the allowed call")
	assert.Equal(t, "tools/call", m["method"])
	assert.EqualValues(t, 2, m["id"])
	rt.fromServer(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"y"}]}}`)
	m = next(t, rt.host, "the server's answer")
	assert.EqualValues(t, 2, m["id"])
	assert.False(t, isErrorResult(m))

	// A resources/read refused is a JSON-RPC error: its result has no isError.
	rt.fromHost(`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}`)
	m = next(t, rt.host, "the refused read")
	assert.EqualValues(t, errRefused, errorCode(m), "%v", m)
	nothing(t, rt.server, "a refused read")
}

// An id open already, as any reader reads it, or of the proxy's own, is
// refused; the server never sees the request.
func TestRelayRefusesIDsInUse(t *testing.T) {
	rt := newRelayTest(t, testRules, true)
	rt.initialize(`{}`)
	rt.fromHost(`{"jsonrpc":"2.0","id":7,"method":"resources/list"}`)
	assert.EqualValues(t, 7, next(t, rt.server, "the first request")["id"])
	for _, id := range []string{`7`, `"7"`, `"0x7"`, `"` + rt.p.prefix + `1"`, `1.5`} {
		rt.fromHost(`{"jsonrpc":"2.0","id":` + id + `,"method":"resources/list"}`)
		m := next(t, rt.host, "the refusal of "+id)
		assert.EqualValues(t, -32600, errorCode(m), "%s: %v", id, m)
	}
	nothing(t, rt.server, "refused requests")
	rt.fromServer(`{"jsonrpc":"2.0","id":7,"result":{"resources":[]}}`)
	assert.EqualValues(t, 7, next(t, rt.host, "the answer")["id"])
	rt.fromHost(`{"jsonrpc":"2.0","id":"7","method":"resources/list"}`)
	assert.Equal(t, "7", next(t, rt.server, "the id again, answered")["id"])
}

// The host's cancellation of a call at the server goes on to the server,
// and the server's answer, should it come, is dropped. For a while the id
// stays in use: were the host to reuse it (JSON-RPC forbids that), a late
// answer would be taken for the new request's. Not for ever: a server
// should not answer a cancelled request at all.
func TestRelayHostCancelsACall(t *testing.T) {
	rt := newRelayTest(t, testRules, true)
	rt.p.cancelledGrace = time.Hour
	rt.initialize(`{}`)
	rt.fromHost(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	assert.EqualValues(t, 4, next(t, rt.server, "the call")["id"])
	rt.fromHost(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`)
	m := next(t, rt.server, "the cancellation")
	assert.Equal(t, "notifications/cancelled", m["method"])
	testkit.Eventually(t, 5*time.Second, "the call is forgotten", func() bool { return rt.p.calls.empty() })
	rt.p.pending.each(func(hr *forwardedRequest) {
		assert.Nil(t, hr.call, "the withdrawn entry holds the call (and its line)")
	})

	rt.fromHost(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"again":true}}}`)
	assert.EqualValues(t, -32600, errorCode(next(t, rt.host, "the id reused before the server answered")))
	rt.fromServer(`{"jsonrpc":"2.0","id":4,"result":{"content":[]}}`)
	nothing(t, rt.host, "an answer to a cancelled call")
	testkit.Eventually(t, 5*time.Second, "the id is free", func() bool { return rt.p.pending.empty() })
	rt.fromHost(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"again":true}}}`)
	assert.EqualValues(t, 4, next(t, rt.server, "the id reused once the server answered")["id"])
}

// A cancelled call's entry goes after cancelledGrace when the server,
// as it should, never answers.
func TestCancelledIDIsFreeAfterTheGrace(t *testing.T) {
	rt := newRelayTest(t, testRules, true)
	rt.p.cancelledGrace = 50 * time.Millisecond
	rt.initialize(`{}`)
	rt.fromHost(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	assert.EqualValues(t, 4, next(t, rt.server, "the call")["id"])
	rt.fromHost(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`)
	next(t, rt.server, "the cancellation")
	testkit.Eventually(t, 5*time.Second, "nothing is left of the call", func() bool { return rt.p.calls.empty() && rt.p.pending.empty() })
	rt.fromHost(`{"jsonrpc":"2.0","id":"4","method":"ping"}`)
	assert.Equal(t, "4", next(t, rt.server, "the id's reading, free again")["id"])
}

// On 2026-07-28 the proxy's question rides an input-required round on the
// call; the host's retry carrying the round's requestState and the answer
// resumes the call, answered on the retry's id. A retry with a
// requestState of the proxy's that is no open round is refused.
func TestRelayRounds(t *testing.T) {
	rt := newRelayTest(t, testRules, true)
	rt.initialize(`{}`)
	meta := `"_meta":{"` + metaProtocol + `":"2026-07-28","` + metaClientCaps + `":{"elicitation":{"form":{}}}}`
	rt.fromHost(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ask_me","arguments":{"a":1},` + meta + `}}`)
	m := next(t, rt.host, "the round")
	assert.EqualValues(t, 5, m["id"])
	res := m["result"].(map[string]any)
	require.Equal(t, "input_required", res["resultType"], "%v", m)
	state, _ := res["requestState"].(string)
	require.True(t, strings.HasPrefix(state, rt.p.roundPrefix), state)
	ask := res["inputRequests"].(map[string]any)[askKey].(map[string]any)
	assert.Equal(t, methodElicit, ask["method"])
	nothing(t, rt.server, "a call waiting on the human")

	rt.fromHost(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"ask_me","arguments":{"a":1},"requestState":"` + rt.p.roundPrefix + `forged",` + meta + `}}`)
	m = next(t, rt.host, "the forged retry's refusal")
	assert.EqualValues(t, 6, m["id"])
	assert.True(t, isErrorResult(m), "%v", m)

	// The forged retry withdrew the round of the same call: a question
	// left open would hold every other until --ask-timeout.
	answer, _ := json.Marshal(map[string]any{askKey: map[string]any{"action": "accept", "content": map[string]any{answerField: "allow-once"}}})
	rt.fromHost(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask_me","arguments":{"a":1},"requestState":"` + state + `","inputResponses":` + string(answer) + `,` + meta + `}}`)
	m = next(t, rt.host, "the stale retry's refusal")
	assert.EqualValues(t, 7, m["id"])
	assert.True(t, isErrorResult(m), "%v", m)

	// Asked again, and answered.
	rt.fromHost(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"ask_me","arguments":{"a":1},` + meta + `}}`)
	state, _ = next(t, rt.host, "the second round")["result"].(map[string]any)["requestState"].(string)
	rt.fromHost(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"ask_me","arguments":{"a":1},"requestState":"` + state + `","inputResponses":` + string(answer) + `,` + meta + `}}`)
	m = next(t, rt.server, "the allowed call")
	assert.EqualValues(t, 9, m["id"], "the call goes on under the retry's id")
	assert.Equal(t, "tools/call", m["method"])
	rt.fromServer(`{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"done"}]}}`)
	m = next(t, rt.host, "the answer on the retry")
	assert.EqualValues(t, 9, m["id"])
	assert.False(t, isErrorResult(m))
}

// The policy's root follows the server's: taken away while a roots/list
// of the server's is in flight or the host's roots changed, given once the
// server has the answer and has had rootsSettle, and given back at once
// when the server cancels its roots/list.
func TestRelayRoots(t *testing.T) {
	rt := newRelayTest(t, testRules, true)
	rt.initialize(`{"roots":{"listChanged":true}}`)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	rt.giveRoot("r1", dir)

	rt.fromHost(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	assert.Equal(t, notifyRootsChange, next(t, rt.server, "list_changed at the server")["method"])
	d, settled, _ := rt.rootsNow()
	assert.False(t, settled, "the host's roots changed")
	assert.Empty(t, d)

	rt.fromServer(`{"jsonrpc":"2.0","id":"r2","method":"roots/list"}`)
	assert.Equal(t, "roots/list", next(t, rt.host, "the second roots/list")["method"])
	rt.fromServer(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r2"}}`)
	next(t, rt.host, "the cancellation at the host")
	d, settled, _ = rt.rootsNow()
	assert.False(t, settled, "still changed since the server was last given roots")
	assert.Empty(t, d)

	rt.giveRoot("r3", dir)
	// Two roots: no root.
	rt.fromServer(`{"jsonrpc":"2.0","id":"r4","method":"roots/list"}`)
	next(t, rt.host, "the fourth roots/list")
	rt.fromHost(`{"jsonrpc":"2.0","id":"r4","result":{"roots":[{"uri":"file://` + dir + `"},{"uri":"file:///tmp"}]}}`)
	assert.Equal(t, "r4", next(t, rt.server, "the answer")["id"])
	testkit.Eventually(t, 5*time.Second, "settled with no root", func() bool {
		d, settled, _ := rt.rootsNow()
		return settled && d == ""
	})
}

// A server that calls itself by a name whose argument specs ship has them
// applied when --arguments names none: github-mcp-server's "path" is in
// the remote repository, so a write to .github/workflows/ci.yml there is
// no local path for the floor to ask about; any other server's is.
func TestRelayAppliesTheServersArgumentSpecs(t *testing.T) {
	for _, tc := range []struct {
		server  string
		allowed bool
	}{{"github-mcp-server", true}, {"some-other-server", false}} {
		t.Run(tc.server, func(t *testing.T) {
			rt := newRelayTest(t, `[{"tool":"*","decision":"allow"}]`, true)
			rt.fromHost(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
			require.Equal(t, "initialize", rt.atServer("initialize at the server")["method"])
			rt.fromServer(`{"jsonrpc":"2.0","id":"init","result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"` + tc.server + `","version":"1"}}}`)
			require.Equal(t, "init", next(t, rt.host, "initialize's answer")["id"])
			rt.fromHost(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_or_update_file","arguments":{"owner":"acme","repo":"web","path":".github/workflows/ci.yml","content":"on: push"}}}`)
			list := rt.atServer("the proxy lists the tools")
			require.Equal(t, "tools/list", list["method"])
			id, err := json.Marshal(list["id"])
			require.NoError(t, err)
			rt.fromServer(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"tools":[{"name":"create_or_update_file","inputSchema":{"type":"object"}}]}}`)
			if tc.allowed {
				m := rt.atServer("the call, allowed")
				assert.Equal(t, "tools/call", m["method"])
				return
			}
			m := next(t, rt.host, "the refusal")
			assert.True(t, isErrorResult(m), "%v", m)
		})
	}
}

// --ask-timeout bounds a question put by elicitation/create (protocols
// before 2026-07-28) as it bounds an input-required round: a host that
// never answers has the question withdrawn, and the call is refused as
// unanswered, not as declined by the user.
func TestRelayAskTimeoutBoundsAnElicitation(t *testing.T) {
	rt := newRelayTest(t, testRules, true)
	rt.p.opt.askTimeout = 300 * time.Millisecond
	rt.initialize(`{"elicitation":{"form":{}}}`)
	rt.fromHost(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask_me","arguments":{}}}`)
	question := next(t, rt.host, "the question")
	require.Equal(t, "elicitation/create", question["method"], "%v", question)
	withdrawn := next(t, rt.host, "the question withdrawn")
	require.Equal(t, "notifications/cancelled", withdrawn["method"], "%v", withdrawn)
	assert.Equal(t, question["id"], withdrawn["params"].(map[string]any)["requestId"])
	m := next(t, rt.host, "the refusal")
	assert.EqualValues(t, 1, m["id"])
	require.True(t, isErrorResult(m), "%v", m)
	text, _ := json.Marshal(m)
	assert.Contains(t, string(text), "no one answered within 300ms")
	assert.NotContains(t, string(text), "declined")
	nothing(t, rt.server, "an unanswered call")
}

// The goroutine that reads a call decides it holding the host's reader;
// a call that waits on the policy's ask lock, behind another call's
// question, must not keep the host's answer to that question unread. Two
// calls asked about at once are both answered, one question after the
// other.
func TestRelayReadsTheHostWhileACallWaitsItsTurn(t *testing.T) {
	rt := newRelayTest(t, testRules, true)
	rt.initialize(`{"elicitation":{}}`)
	rt.fromHost(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask_me","arguments":{"a":1}}}`)
	first := next(t, rt.host, "the first question")
	require.Equal(t, "elicitation/create", first["method"])
	// The second call waits for the human's attention.
	rt.fromHost(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_me","arguments":{"a":2}}}`)
	nothing(t, rt.host, "a second question while the first is open")
	for i, q := range []map[string]any{first, nil} {
		if q == nil {
			q = next(t, rt.host, "the second question")
			require.Equal(t, "elicitation/create", q["method"])
		}
		answer, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": q["id"],
			"result": map[string]any{"action": "accept", "content": map[string]any{answerField: "allow-once"}}})
		require.NoError(t, err)
		// Written aside: io.Pipe holds nothing, and a proxy that read no
		// more would hold the write, and the test, forever.
		go func() { _, _ = rt.hostIn.Write(append(answer, '\n')) }()
		m := next(t, rt.server, "the call allowed once")
		assert.Equal(t, "tools/call", m["method"])
		assert.EqualValues(t, i+1, m["id"])
	}
}

// Every call the host sent is answered once when the server goes while
// calls are read, decided and written: those filed at the server by the
// server's going (serverGone takes them), those filed after it (they see
// it, forwardCall), and those still being decided. Run many times, so
// that the server goes at every step of a call's way.
func TestEveryCallAnsweredWhenTheServerGoes(t *testing.T) {
	for run := range 20 {
		rt := newRelayTest(t, testRules, true)
		rt.initialize(`{}`)
		const calls = 40
		var batch []string
		for id := range calls {
			batch = append(batch, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
		}
		// Pings, which are forwarded undecided, among the calls.
		for id := calls; id < calls+10; id++ {
			batch = append(batch, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"ping"}`)
		}
		rt.fromHost("[" + strings.Join(batch, ",") + "]")
		for range run % 5 { // the server goes after 0 to 4 of them reached it
			next(t, rt.server, "a call at the server")
		}
		rt.srv.stop()
		answered := map[float64]int{}
		for len(answered) < calls+10 {
			m := next(t, rt.host, fmt.Sprintf("run %d: the answers, %d of %d so far", run, len(answered), calls))
			if id, ok := m["id"].(float64); ok {
				answered[id]++
				if id < calls {
					assert.True(t, isErrorResult(m), "run %d: call %v ran with no server: %v", run, id, m)
				}
			}
		}
		for id, n := range answered {
			assert.Equal(t, 1, n, "run %d: answers to call %v", run, id)
		}
	}
}

// A cancellation read while a call moves into an input-required round —
// its round filed, the call not yet forgotten — withdraws the question at
// once. (Forgotten first, the call was in neither table for a moment: a
// cancellation then found nothing, and the question held the human, and
// every other question, until --ask-timeout. Red team 26.)
func TestCancelWhileACallMovesIntoARound(t *testing.T) {
	rt := newRelayTest(t, testRules, true)
	rt.initialize(`{}`)
	cancelled := make(chan struct{})
	rt.p.testHookRound = func(id openID) {
		rt.p.hostCancelled([]byte(`{"requestId":5}`))
		close(cancelled)
	}
	meta := `"_meta":{"` + metaProtocol + `":"2026-07-28","` + metaClientCaps + `":{"elicitation":{"form":{}}}}`
	rt.fromHost(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ask_me","arguments":{"a":1},` + meta + `}}`)
	<-cancelled
	testkit.Eventually(t, 5*time.Second, "the question is withdrawn", func() bool {
		rt.p.mu.Lock()
		defer rt.p.mu.Unlock()
		return len(rt.p.rounds) == 0
	})
	testkit.Eventually(t, 5*time.Second, "the call is over", func() bool { return rt.p.calls.empty() && rt.p.answering.Load() == 0 })
	nothing(t, rt.server, "a cancelled call")
}

// A call the host cancelled before it was filed at the server is not sent
// at all; one filed there stays filed, withdrawn, so that its id is not
// taken again before the server answers (TestRelayHostCancelsACall).
func TestCallCancelledBeforeItIsSentIsNotSent(t *testing.T) {
	rt := newRelayTest(t, testRules, true)
	rt.initialize(`{}`)
	line := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{}}}` + "\n"
	env, _, err := readMessage([]byte(line))
	require.NoError(t, err)
	hc := rt.p.hostCallRequest([]byte(line), env)
	require.NotNil(t, hc)
	defer rt.p.answering.Add(-1)
	assert.False(t, hc.cancelledByHost(), "not at the server yet")
	r := rt.p.forwardCall(hc.ctx, hc)
	assert.True(t, r.IsError, "%+v", r)
	assert.Contains(t, r.Content, "the host cancelled the call")
	assert.True(t, rt.p.pending.empty(), "filed at the server")
	nothing(t, rt.server, "a call cancelled before it was sent")
}

// A request forwarded undecided as the server goes — past the reader's
// check, filed after serverGone took what was filed — is answered, not
// left waiting for a server that will not answer (red team 26).
func TestRequestForwardedAsTheServerGoesIsAnswered(t *testing.T) {
	rt := newRelayTest(t, testRules, true)
	rt.initialize(`{}`)
	why := "the test's server ended"
	rt.p.dead.Store(&why) // as serverGone stores it, between the reader's check and the filing
	line := []byte(`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n")
	env, _, err := readMessage(line)
	require.NoError(t, err)
	rt.p.forward(line, env, nil)
	m := next(t, rt.host, "the answer")
	assert.EqualValues(t, 3, m["id"])
	assert.EqualValues(t, errServerGone, errorCode(m), "%v", m)
	assert.True(t, rt.p.pending.empty())
	nothing(t, rt.server, "a request to a server gone")
}

// A call's context is no child of the proxy's, so the proxy's stop ends
// each call itself: those filed in calls and in rounds when it stops
// (endCalls), and one filed after (endIfStopped). The host leaving ends
// most calls in other ways too (their questions to the host fail, the
// server is stopped); this is what ends one that waits on nothing else.
func TestStopEndsEveryCallInFlight(t *testing.T) {
	rt := newRelayTest(t, testRules, true)
	p := rt.p
	call := func() *hostCall {
		hc := &hostCall{}
		hc.ctx, hc.cancel = context.WithCancelCause(context.Background())
		return hc
	}
	deciding, asking, late := call(), call(), call()
	p.calls.file(openIDOf([]byte("901")), deciding)
	p.mu.Lock()
	p.rounds[p.roundPrefix+"test"] = &round{hc: asking, ch: make(chan roundAnswer, 1)}
	p.mu.Unlock()
	p.cancel()
	p.endCalls()
	assert.Error(t, deciding.ctx.Err(), "a call being decided")
	assert.Error(t, asking.ctx.Err(), "a call in an input-required round")
	p.calls.file(openIDOf([]byte("902")), late)
	p.endIfStopped(late)
	assert.Error(t, late.ctx.Err(), "a call filed after the stop")
	p.calls.forget(openIDOf([]byte("901")), deciding)
	p.calls.forget(openIDOf([]byte("902")), late)
}
