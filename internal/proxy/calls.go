package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-policy/mcp-policy/provider"
)

// hostCall is one request of the host's the policy decides (decidedMethods),
// from its decision to its answer.
type hostCall struct {
	method string        // tools/call, resources/read, prompts/get or completion/complete
	call   provider.Call // as the policy decides it
	line   []byte        // the request as the host sent it
	params []byte        // its params
	// modern: the request declared protocol 2026-07-28 or later in _meta;
	// meta is that _meta.
	modern   bool
	meta     []byte
	caps     capsSeen // what the host can be asked on this request
	protocol string

	ctx    context.Context
	cancel context.CancelCauseFunc
	resp   chan upReply // the server's answer to the forwarded request

	mu       sync.Mutex
	id       []byte                     // where the answer goes
	filed    openID                     // id, as p.calls files it
	moved    bool                       // id is not the one in line
	live     bool                       // the host waits for an answer on id
	extra    map[string]json.RawMessage // params added for the server: an answered round of its own
	byHost   bool                       // the host cancelled it
	diedWith string                     // the server died while it was being decided
	sent     bool                       // filed at the server: sent, or about to be, so it may have run
	atServer bool                       // sent on, its answer to come from the server alone

	answered atomic.Bool // the one answer has been given (or the server's passed through)

	// waitsFor is what the held call waits for, as its progress says
	// (nil: its turn to ask); stopProgress ends that progress, set and
	// called by the goroutine deciding it.
	waitsFor     atomic.Pointer[string]
	stopProgress func()

	// root is the host's root the call was decided with ("" for none),
	// set and read by the goroutine deciding it.
	root string
	// failCode is the JSON-RPC error code of the answer when the proxy,
	// not the policy, kept the call from running (answerRefused), 0 for
	// none; set and read by the goroutine deciding it.
	failCode int
}

// upReply is what became of a forwarded call: the server's answer passed
// through to the host, an input-required round of the server's (modern),
// or a failure.
type upReply struct {
	forwarded     bool
	inputRequired []byte
	fail          string
}

var errCancelledByHost = errors.New("the host cancelled the call")

// cancelledByHost marks the call cancelled by the host and says whether
// it was at the server then. Under hc.mu, as forwardCall files it at the
// server: a call is cancelled either before (and is never sent) or once
// it is filed there.
func (hc *hostCall) cancelledByHost() (atServer bool) {
	hc.mu.Lock()
	hc.byHost = true
	atServer = hc.atServer
	hc.mu.Unlock()
	hc.cancel(errCancelledByHost)
	return atServer
}

func (hc *hostCall) setAtServer(at bool) {
	hc.mu.Lock()
	hc.atServer = at
	hc.mu.Unlock()
}

// isAtServer says the call was sent on and waits on the server alone.
func (hc *hostCall) isAtServer() bool {
	hc.mu.Lock()
	defer hc.mu.Unlock()
	return hc.atServer
}

func (hc *hostCall) serverDied(why string) {
	hc.mu.Lock()
	hc.diedWith = why
	hc.mu.Unlock()
	hc.cancel(errors.New(why))
}

// claim takes the right to answer: only one answer goes to the host.
func (hc *hostCall) claim() bool { return hc.answered.CompareAndSwap(false, true) }

// requestLine is the request to send the server now: as the host sent it,
// or rebuilt once an input-required round moved its id or added answers;
// and its id.
func (hc *hostCall) requestLine() ([]byte, []byte, openID) {
	hc.mu.Lock()
	defer hc.mu.Unlock()
	if !hc.moved && hc.extra == nil {
		return hc.line, hc.id, hc.filed
	}
	var params map[string]json.RawMessage
	if err := json.Unmarshal(hc.params, &params); err != nil || params == nil {
		params = map[string]json.RawMessage{}
	}
	maps.Copy(params, hc.extra)
	return requestMessage(hc.id, hc.method, params), hc.id, hc.filed
}

// answerRefused is the host's answer when hc is not run, r saying why: for
// a tools/call the is_error result the model reads; for the other methods,
// whose results have no isError, a JSON-RPC error with the same words,
// coded errRefused, or failCode when the proxy could not carry the request
// through.
func (hc *hostCall) answerRefused(id []byte, r provider.Result) []byte {
	return hc.answerFailed(id, hc.failCode, r)
}

// answerFailed is answerRefused with the code given (errRefused for 0).
func (hc *hostCall) answerFailed(id []byte, code int, r provider.Result) []byte {
	if hc.method == methodToolsCall {
		return resultMessage(id, r)
	}
	if code == 0 {
		code = errRefused
	}
	return errorMessage(id, code, r.Content)
}

// hostCallRequest reads a request the policy decides and returns it, to be
// decided; nil when it needs no deciding (malformed, or the answer to a
// round of ours).
func (p *Proxy) hostCallRequest(msg []byte, env envelope) *hostCall {
	m := decidedMethods[env.method]
	req, err := readCallRequest(env.method, env.params)
	if err != nil {
		p.toHost(errorMessage(env.id, -32602, "mcp-policy: "+env.method+" params: "+err.Error()+"; not passed on"))
		return nil
	}
	if len(req.requestState) > len(p.roundPrefix) && req.requestState[:len(p.roundPrefix)] == p.roundPrefix {
		p.resumeRound(env, req)
		return nil
	}
	info := p.session()
	line := bytes.Clone(msg) // msg is the reader's buffer, read into again
	hc := &hostCall{method: env.method, line: line, params: sameBytesIn(line, msg, env.params), id: sameBytesIn(line, msg, env.id), live: true,
		filed: openIDOf(env.id), caps: info.caps, protocol: info.protocol, resp: make(chan upReply, 1)}
	if version, caps, ok := modernMeta(req.meta); ok {
		hc.modern, hc.meta, hc.protocol = true, bytes.Clone(req.meta), version
		// On 2026-07-28 a question rides an input-required round on the
		// request itself, which only some methods may carry.
		hc.caps = capsSeen{elicit: caps.elicit && m.rounds, anyElicit: caps.anyElicit && m.rounds}
	}
	hc.call = provider.Call{ID: callID(env.id), Type: "function", Function: provider.CallFunction{Name: req.name, Arguments: req.arguments}}
	// Not a child of p.ctx: a child is filed with its parent under the
	// parent's lock, which every call would share. The proxy's stop
	// reaches it through the tables instead (endCalls).
	hc.ctx, hc.cancel = context.WithCancelCause(context.Background())
	p.calls.file(hc.filed, hc)
	p.endIfStopped(hc)
	p.answering.Add(1)
	return hc
}

// sameBytesIn is part, a slice of msg, as the same bytes of clone, a copy
// of msg: no second copy of a call's params, which can be megabytes. A
// part that is not msg's own is copied.
func sameBytesIn(clone, msg, part []byte) []byte {
	if len(part) == 0 {
		return bytes.Clone(part)
	}
	i := cap(msg) - cap(part) // part is msg[i:j], whose capacity runs to msg's end
	if i < 0 || i+len(part) > len(msg) || &msg[i] != &part[0] {
		return bytes.Clone(part)
	}
	return clone[i : i+len(part) : i+len(part)]
}

// dispatch hands hc to an idle worker, or to a new one (the calls of a
// batch, which the reading goroutine cannot all decide itself).
func (p *Proxy) dispatch(hc *hostCall) {
	select {
	case p.work <- hc:
	default:
		go p.worker(hc)
	}
}

func (p *Proxy) worker(hc *hostCall) {
	for {
		p.runCall(hc)
		p.answering.Add(-1)
		select {
		case hc = <-p.work:
		case <-p.ctx.Done():
			return
		}
	}
}

// endCalls ends every call being decided or asked about when the proxy
// stops, after p.ctx is cancelled: each is filed in calls, or in rounds
// while the host answers a round. A call is filed in rounds before it is
// forgotten in calls (hostRound), so calls then rounds finds it; one
// filed in calls later (hostCallRequest, resumeRound) finds p.ctx ended
// itself (endIfStopped).
func (p *Proxy) endCalls() {
	p.calls.each(func(hc *hostCall) { hc.cancel(context.Canceled) })
	p.mu.Lock()
	inRounds := make([]*hostCall, 0, len(p.rounds))
	for _, r := range p.rounds {
		inRounds = append(inRounds, r.hc)
	}
	p.mu.Unlock()
	for _, hc := range inRounds {
		hc.cancel(context.Canceled)
	}
}

// endIfStopped ends hc, just filed in calls, if the proxy stopped.
func (p *Proxy) endIfStopped(hc *hostCall) {
	if p.ctx.Err() != nil {
		hc.cancel(context.Canceled)
	}
}

// done forgets a call that is over: answered, or gone with the server.
func (p *Proxy) done(hc *hostCall) {
	hc.mu.Lock()
	id := hc.filed // the id it is filed under, if it is (hostRound, resumeRound)
	hc.mu.Unlock()
	p.calls.forget(id, hc)
	hc.cancel(context.Canceled)
}

// callID is the call's id as the policy and the log see it.
func callID(raw []byte) string {
	if len(raw) > 0 && raw[0] == '"' {
		if s, err := stringValue(raw); err == nil {
			return s
		}
	}
	return string(raw) // a number, as written (json.Unmarshal's error for it allocates)
}

// capsSeen is what a host can be asked, as its capabilities say.
type capsSeen struct {
	elicit    bool // form mode: the proxy can ask its questions
	anyElicit bool // form or URL mode: the server's questions can be put
}

// clientCapabilities is what the proxy reads of a host's capabilities:
// the one reading of them, whether they come in initialize's params or in
// a 2026-07-28 request's _meta.
type clientCapabilities struct {
	Elicitation *struct {
		Form *json.RawMessage `json:"form"`
		URL  *json.RawMessage `json:"url"`
	} `json:"elicitation"`
}

func (c clientCapabilities) seen() capsSeen {
	e := c.Elicitation
	// An empty elicitation object is form mode (protocol 2025-06-18).
	return capsSeen{elicit: e != nil && (e.Form != nil || e.URL == nil), anyElicit: e != nil}
}

// modernMeta reads a request's _meta: its protocol version when that is
// 2026-07-28 or later, and the capabilities it declares.
func modernMeta(meta []byte) (string, capsSeen, bool) {
	if len(meta) == 0 {
		return "", capsSeen{}, false
	}
	var m struct {
		Version string             `json:"io.modelcontextprotocol/protocolVersion"`
		Caps    clientCapabilities `json:"io.modelcontextprotocol/clientCapabilities"`
	}
	if json.Unmarshal(meta, &m) != nil || m.Version < modernProtocol {
		return "", capsSeen{}, false
	}
	return m.Version, m.Caps.seen(), true
}

// runCall decides one call and answers it, unless it went to the server,
// whose answer then goes to the host on its own.
func (p *Proxy) runCall(hc *hostCall) {
	p.awaitRoots(hc.ctx)
	set := p.pols.Load()
	hc.root = set.hostRoot
	pol := set.forCall(p, hc)
	set.refresh(hc.ctx, p, pol)
	hc.stopProgress = p.progressWhileHeld(hc)
	r := pol.ExecuteToolCalls(hc.ctx, []provider.Call{hc.call})[0]
	hc.stopProgress() // when the call was not sent on
	p.finishCall(hc, r)
}

// finishCall gives the host the call's answer, unless the server's went
// already.
func (p *Proxy) finishCall(hc *hostCall, r provider.Result) {
	hc.mu.Lock()
	atServer := hc.atServer
	hc.mu.Unlock()
	if atServer {
		return // the server answers, straight to the host
	}
	defer p.done(hc)
	if !hc.claim() {
		return
	}
	hc.mu.Lock()
	id, live, byHost, died := hc.id, hc.live, hc.byHost, hc.diedWith
	if hc.sent {
		died = "" // the server may have run it: its own answer says so
	}
	hc.mu.Unlock()
	if byHost || !live {
		return // nobody waits for it
	}
	if died != "" && r.IsError && len(r.MCP) == 0 {
		r.Content = "mcp-policy: " + died + "; the call was not run."
		hc.failCode = errServerGone
	}
	p.toHost(hc.answerRefused(id, r))
}

// callAnswered is the server's response to a forwarded call: passed to the
// host as it came, unless it is an input-required round of the server's
// (protocol 2026-07-28), which the proxy fulfils.
func (p *Proxy) callAnswered(hc *hostCall, msg []byte, env envelope) {
	if hc.modern && env.result != nil {
		if rt := member(env.result, "resultType"); rt != nil {
			if s, _ := stringValue(rt); s == "input_required" {
				hc.resp <- upReply{inputRequired: bytes.Clone(env.result)}
				return
			}
		}
	}
	if hc.claim() {
		p.toHost(hc.onHostsID(msg, env))
	}
	if hc.modern {
		hc.resp <- upReply{forwarded: true}
		return
	}
	p.done(hc) // nobody waits on resp: forwardCall left it at the server
}

// onHostsID is the server's answer msg on the id the host waits on: the
// id the server was sent, unless a round of the proxy's moved the call to
// the host's retry while it was at the server (a server's own question,
// put to a 2026-07-28 host as a round on the call). Then the answer goes
// to the retry, which waits for it, and not again to the id the round
// answered.
func (hc *hostCall) onHostsID(msg []byte, env envelope) []byte {
	hc.mu.Lock()
	id := hc.id
	hc.mu.Unlock()
	if bytes.Equal(id, env.id) {
		return msg
	}
	m := map[string]json.RawMessage{"jsonrpc": json.RawMessage(`"2.0"`), "id": id}
	if env.result != nil {
		m["result"] = env.result
	} else {
		m["error"] = env.err
	}
	return marshalLine(m)
}

// serverProvider is the provider below the policy: it sends an allowed
// call to the server as the host wrote it. Each host's request is decided
// through a view of the policy (policySet.forCall) whose provider names
// the request, hc; the policies' own (hc nil) forwards nothing.
type serverProvider struct {
	p  *Proxy
	hc *hostCall
}

// ToolsForLLM is the catalogue the policy decides by: the server's tools
// and the decided requests' entries (withRequestTools). A server with no
// tools (tools/list is no method of its) still has resources and prompts.
func (s serverProvider) ToolsForLLM(ctx context.Context) ([]provider.Tool, error) {
	tools, err := s.p.listTools(ctx, s.hc)
	if err != nil && !errors.Is(err, errNoTools) {
		if s.p.opt.pins != nil {
			// No catalogue read is no tool approved: the policy must not
			// go on deciding by the one it had (pins.go).
			return withRequestTools(nil), nil
		}
		return nil, err
	}
	return withRequestTools(tools), nil
}

func (s serverProvider) ExecuteToolCalls(ctx context.Context, calls []provider.Call) []provider.Result {
	hc := s.hc
	out := make([]provider.Result, len(calls))
	for i, c := range calls {
		if hc == nil || c.ID != hc.call.ID {
			out[i] = provider.ErrorResult(c.ID, "mcp-policy proxy: internal error: a call with no request of the host's behind it")
			continue
		}
		if hc.stopProgress != nil {
			hc.stopProgress() // the token is the server's from here
		}
		out[i] = s.p.forwardCall(ctx, hc)
	}
	return out
}

// maxServerRounds bounds the input-required rounds of one call.
const maxServerRounds = 10

// forwardCall sends the call to the server. Before protocol 2026-07-28 it
// returns once the line is written: the server's answer goes to the host
// on the server's reader goroutine (callAnswered), byte for byte, and
// never comes back here. From 2026-07-28 it waits for the answer, which
// may be a round of input the server requires (fulfilServerRound), and
// sends the call again with it. The Result is empty when the host has, or
// will have, the server's own bytes.
func (p *Proxy) forwardCall(ctx context.Context, hc *hostCall) provider.Result {
	fail := func(msg string) provider.Result {
		hc.failCode = -32603
		return provider.ErrorResult(hc.call.ID, msg)
	}
	for round := 0; ; round++ {
		line, raw, id := hc.requestLine()
		fr := &forwardedRequest{method: hc.method, id: raw, call: hc}
		dead, cancelled := "", false
		sent := p.sendDecided(hc, func() {
			// Filed at the server under hc.mu, as hostCancelled reads it:
			// a call the host cancelled first is not sent at all. Before
			// 2026-07-28 nothing in the server's answer is for the proxy:
			// it goes to the host as it comes (callAnswered), and this
			// worker need not wait for it; whoever takes the call from
			// p.pending then answers the host (failPending).
			hc.mu.Lock()
			if cancelled = hc.byHost; cancelled {
				hc.mu.Unlock()
				return
			}
			hc.atServer = !hc.modern
			hc.sent = true
			p.pending.file(id, fr)
			hc.mu.Unlock()
			if why, ours := p.goneSinceFiled(id, fr); why != "" {
				if ours { // else serverGone took it, and answers it
					dead = why
					hc.setAtServer(false) // answered by this worker
				}
				return
			}
			p.toUpstream(line)
		})
		switch {
		case !sent:
			return fail("mcp-policy: the host's roots changed while the call was being decided, so the server may resolve its " +
				"relative paths against another root than the one it was decided by; the call was not run. Call the tool again.")
		case dead != "":
			r := fail("mcp-policy: " + dead + "; the call was not run.")
			hc.failCode = errServerGone
			return r
		case cancelled:
			return fail("mcp-policy: the host cancelled the call; it was not run.")
		case !hc.modern:
			// Or taken by serverGone, which answers it.
			return provider.Result{Role: "tool", ToolCallID: hc.call.ID}
		}
		var r upReply
		p.waitStarts()
		select {
		case r = <-hc.resp:
			p.waitEnds()
		case <-ctx.Done():
			// serverGone files the failure before it cancels the call: a
			// reply that came with the cancellation says more than it.
			select {
			case r = <-hc.resp:
				p.waitEnds()
			default:
				p.waitEnds()
				// The server may answer still: the answer is dropped. It
				// had the call, so it may have acted on it.
				p.withdraw(id, fr)
				return fail(fmt.Sprintf("mcp-policy: the call was stopped: %v; the call may not have finished.", context.Cause(ctx)))
			}
		}
		switch {
		case r.forwarded:
			return provider.Result{Role: "tool", ToolCallID: hc.call.ID}
		case r.fail != "":
			return fail("mcp-policy: " + r.fail + "; the call may not have finished.")
		}
		if round >= maxServerRounds {
			return fail(fmt.Sprintf("mcp-policy: the MCP server asked for input more than %d times", maxServerRounds))
		}
		extra, err := p.fulfilServerRound(ctx, hc, r.inputRequired)
		if err != nil {
			return fail(fmt.Sprintf("mcp-policy: the MCP server's question could not be answered: %v", err))
		}
		hc.mu.Lock()
		hc.extra = extra
		hc.mu.Unlock()
	}
}

// fulfilServerRound answers an input-required round of the server's: its
// elicitations one at a time through the policy's elicit hook (under the
// ask lock), its sampling and roots requests in one round with the host.
// It returns the params the retry adds: inputResponses and requestState.
func (p *Proxy) fulfilServerRound(ctx context.Context, hc *hostCall, result []byte) (map[string]json.RawMessage, error) {
	var r struct {
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  *string                    `json:"requestState"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return nil, err
	}
	responses := map[string]json.RawMessage{}
	others := map[string]json.RawMessage{}
	for _, key := range slices.Sorted(maps.Keys(r.InputRequests)) {
		var req struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(r.InputRequests[key], &req); err != nil {
			return nil, fmt.Errorf("input request %q: %w", key, err)
		}
		if req.Method != methodElicit {
			others[key] = r.InputRequests[key]
			continue
		}
		hook := p.pols.Load().elicitHook(p, hc)
		res, err := hook(provider.WithCall(ctx, hc.call), provider.ElicitRequest{Method: methodElicit, Params: req.Params})
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		responses[key] = b
	}
	if len(others) > 0 {
		got, err := p.hostRound(ctx, hc, others)
		if err != nil {
			return nil, err
		}
		maps.Copy(responses, got)
	}
	extra := map[string]json.RawMessage{}
	if len(responses) > 0 {
		b, _ := json.Marshal(responses)
		extra["inputResponses"] = b
	}
	if r.RequestState != nil {
		b, _ := json.Marshal(*r.RequestState)
		extra["requestState"] = b
	}
	return extra, nil
}

// ---- the proxy's input-required rounds with the host (2026-07-28)

// round is a question of the proxy's that the host owes an answer to, as a
// retry of the call carrying the round's requestState.
type round struct {
	hc    *hostCall
	onKey string // the idKey of the request it answered
	ch    chan roundAnswer
}

// endedRounds remembers the calls of the last rounds that ended, by
// requestState, so that a stale retry withdraws the open round of its own
// call alone (resumeRound). Guarded by p.mu.
type endedRounds struct {
	byToken map[string]*hostCall
	order   []string // oldest first
}

// endedRoundsKept bounds what endedRounds keeps: a retry staler than the
// last so many rounds is taken as one whose requestState was never issued.
const endedRoundsKept = 256

func (e *endedRounds) note(token string, hc *hostCall) {
	if e.byToken == nil {
		e.byToken = map[string]*hostCall{}
	}
	if len(e.order) == endedRoundsKept {
		delete(e.byToken, e.order[0])
		e.order = e.order[1:]
	}
	e.byToken[token] = hc
	e.order = append(e.order, token)
}

func (e *endedRounds) call(token string) *hostCall { return e.byToken[token] }

type roundAnswer struct {
	responses []byte
	err       error
}

// hostRound answers the host's pending call (a tools/call, resources/read
// or prompts/get) with an input-required result carrying requests, and
// waits for the retry that answers them. The call's answer then goes to
// the retry.
func (p *Proxy) hostRound(ctx context.Context, hc *hostCall, requests map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	token := p.roundPrefix + randomHex(12)
	hc.mu.Lock()
	id, filed, live := hc.id, hc.filed, hc.live
	hc.live = false
	hc.mu.Unlock()
	if !live {
		return nil, errors.New("the host is no longer waiting for this call")
	}
	r := &round{hc: hc, onKey: filed.key, ch: make(chan roundAnswer, 1)}
	// The round first, then the call forgotten: a cancellation of the id
	// finds one of them (hostCancelled), never neither.
	p.mu.Lock()
	p.rounds[token] = r
	p.mu.Unlock()
	if p.testHookRound != nil {
		p.testHookRound(filed)
	}
	p.calls.forget(filed, hc)
	defer func() {
		p.mu.Lock()
		delete(p.rounds, token)
		p.ended.note(token, hc)
		p.mu.Unlock()
	}()
	p.toHost(responseMessage(id, map[string]any{"resultType": "input_required", "inputRequests": requests, "requestState": token}))
	timer := time.NewTimer(p.opt.askTimeout)
	defer timer.Stop()
	p.waitStarts()
	defer p.waitEnds()
	select {
	case a := <-r.ch:
		if a.err != nil {
			return nil, a.err
		}
		var out map[string]json.RawMessage
		if err := json.Unmarshal(a.responses, &out); err != nil {
			return nil, fmt.Errorf("the host's inputResponses: %w", err)
		}
		for k := range requests {
			if _, ok := out[k]; !ok {
				return nil, fmt.Errorf("the host did not answer input request %q", k)
			}
		}
		return out, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case <-p.hostGone:
		return nil, errors.New("the host is gone")
	case <-timer.C:
		return nil, fmt.Errorf("the host did not answer within %s: %w", p.opt.askTimeout, errAskTimeout)
	}
}

// resumeRound is the host's retry answering one of the proxy's rounds: the
// call it belongs to goes on, to be answered on the retry's id. A retry
// with a requestState of the proxy's that is not its call's open round
// (expired, another call's, or made up) is refused, and withdraws the
// round it names and any open round of the call that round was about
// (of any call like the retry, when the requestState was never issued):
// the host will not answer those with their own requestState, and a
// question left open would hold the human's attention, and every other
// question, until --ask-timeout. A stale retry leaves another request's
// rounds alone, even one with the same tool and arguments: its own retry
// answers it.
func (p *Proxy) resumeRound(env envelope, req callRequest) {
	p.mu.Lock()
	r := p.rounds[req.requestState]
	delete(p.rounds, req.requestState)
	owner := p.ended.call(req.requestState)
	p.mu.Unlock()
	if r != nil {
		owner = r.hc
	}
	sameCall := func(hc *hostCall) bool {
		return env.method == hc.method && req.name == hc.call.Function.Name && sameJSON([]byte(req.arguments), []byte(hc.call.Function.Arguments))
	}
	if r == nil || !sameCall(r.hc) {
		why := "mcp-policy: this question was already answered or has expired; the call was not run. Call the tool again."
		if r != nil {
			r.ch <- roundAnswer{err: errors.New("the host's retry named another tool or other arguments")}
			why = "mcp-policy: the retry does not match the call the question was about; the call was not run."
		}
		// The call the requestState was issued for, where it is known;
		// else (made up, or older than endedRoundsKept rounds) any open
		// round of a call like the retry.
		match := func(o *round) bool { return sameCall(o.hc) }
		if owner != nil {
			match = func(o *round) bool { return o.hc == owner }
		}
		p.withdrawRounds(match, "the host retried the call with another requestState")
		stale := &hostCall{method: env.method}
		p.toHost(stale.answerRefused(env.id, provider.ErrorResult("", why)))
		return
	}
	hc := r.hc
	hc.mu.Lock()
	hc.id, hc.filed, hc.moved, hc.live = bytes.Clone(env.id), openIDOf(env.id), true, true
	filed := hc.filed
	hc.mu.Unlock()
	p.calls.file(filed, hc)
	p.endIfStopped(hc)
	r.ch <- roundAnswer{responses: bytes.Clone(req.inputResponses)}
}

// withdrawRounds ends the open rounds match picks: their questions are
// answered with why as an error (a permission question is deny once), and
// a retry carrying one of their requestStates finds it expired.
func (p *Proxy) withdrawRounds(match func(*round) bool, why string) {
	p.mu.Lock()
	var ended []*round
	for token, r := range p.rounds {
		if match(r) {
			delete(p.rounds, token)
			ended = append(ended, r)
		}
	}
	p.mu.Unlock()
	for _, r := range ended {
		r.ch <- roundAnswer{err: errors.New(why)}
	}
}

// sameJSON compares two JSON texts as values (absent counts as {}).
func sameJSON(a, b []byte) bool {
	norm := func(x []byte) any {
		if len(bytes.TrimSpace(x)) == 0 || string(x) == "null" {
			x = []byte("{}")
		}
		var v any
		d := json.NewDecoder(bytes.NewReader(x))
		d.UseNumber()
		if d.Decode(&v) != nil {
			return nil
		}
		return v
	}
	x, _ := json.Marshal(norm(a))
	y, _ := json.Marshal(norm(b))
	return bytes.Equal(x, y)
}

// ---- the server's elicitation/create (protocols before 2026-07-28)

// serverElicit puts the server's question to the human through the
// policy's elicit hook, under the ask lock, and answers the server.
func (p *Proxy) serverElicit(id, params []byte) {
	defer p.answering.Add(-1)
	ctx := p.ctx
	hc := p.onlyCallAtServer()
	if hc != nil {
		// As the mcpclient does: with one call at the server, the question
		// is that call's.
		ctx = provider.WithCall(hc.ctx, hc.call)
	}
	res, err := p.pols.Load().elicitHook(p, hc)(ctx, provider.ElicitRequest{Method: methodElicit, Params: params})
	// Answered, the id is the server's to use again.
	key := idKey(id)
	p.mu.Lock()
	if sr := p.fromSrv[key]; sr != nil && sr.kept {
		delete(p.fromSrv, key)
	}
	p.mu.Unlock()
	if err != nil {
		p.toUpstream(errorMessage(id, -32603, "mcp-policy: "+err.Error()))
		return
	}
	p.toUpstream(responseMessage(id, res))
}

// onlyCallAtServer is the decided request waiting on the server, when exactly
// one does.
func (p *Proxy) onlyCallAtServer() *hostCall {
	var only *hostCall
	calls := 0
	p.pending.each(func(hr *forwardedRequest) {
		if hr.call != nil {
			only, calls = hr.call, calls+1
		}
	})
	if calls != 1 {
		return nil
	}
	return only
}
