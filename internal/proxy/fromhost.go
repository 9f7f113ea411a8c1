package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// Messages from the host, by kind and method.

// fromHost handles one message of the host's, and returns the request in
// it for the caller to decide, if it is one the policy decides.
func (p *Proxy) fromHost(msg []byte) *hostCall {
	env, batch, err := readMessage(msg)
	if err != nil {
		p.refuseFromHost(env, msg, err)
		return nil
	}
	if batch != nil {
		// A batch (protocol 2025-03-26) is taken apart, so that no
		// request in it can pass undecided; its answers come back one
		// by one.
		for _, e := range batch {
			if hc := p.fromHost(append(bytes.Clone(e), '\n')); hc != nil {
				p.dispatch(hc)
			}
		}
		return nil
	}
	switch {
	case env.isResponse():
		p.hostAnswered(msg, env)
	case env.isRequest():
		return p.hostRequest(msg, env)
	case env.isNotification():
		if handle := hostNotifications[env.method]; handle != nil {
			handle(p, msg, env)
		} else {
			p.toUpstream(msg)
		}
	default:
		p.refuseFromHost(env, msg, errors.New("neither a request, a response nor a notification"))
	}
	return nil
}

// handler is what the proxy does with one message of a method.
type handler = func(p *Proxy, msg []byte, env envelope)

// hostRequests are the host's requests the proxy reads on their way to
// the server, by method; any other passes as it came (forward). The
// requests the policy decides are decidedMethods' (requests.go). Filled by
// init: their handlers lead back to fromHost, which reads them.
var hostRequests map[string]handler

// hostNotifications are the host's notifications the proxy acts on; any
// other goes to the server as it came. Filled by init, as hostRequests.
var hostNotifications map[string]handler

func init() {
	hostRequests = map[string]handler{
		methodInitialize: func(p *Proxy, msg []byte, env envelope) {
			p.readInitialize(env.params)
			p.forward(msg, env, p.readInitializeResult)
		},
		methodToolsList: func(p *Proxy, msg []byte, env envelope) {
			first := member(env.params, "cursor") == nil // the catalogue starts anew
			p.forward(msg, env, func(result []byte) { p.readToolsPage(result, first) })
		},
	}
	hostNotifications = map[string]handler{
		notifyRootsChange: func(p *Proxy, msg []byte, env envelope) {
			if p.opt.rootsFixed {
				p.toUpstream(msg)
				return
			}
			p.hostRootsChanged(msg) // before the host's next message is read
		},
		notifyCancelled: func(p *Proxy, msg []byte, env envelope) {
			p.toUpstream(msg)
			p.hostCancelled(env.params)
		},
	}
}

// hostRequest passes a request of the host's on, or returns it for the
// caller to decide when the policy decides its method.
func (p *Proxy) hostRequest(msg []byte, env envelope) *hostCall {
	if why := p.refusedID(env.id, true); why != "" {
		p.toHost(errorMessage(env.id, -32600, "mcp-policy: "+why+"; not passed on"))
		return nil
	}
	if why := p.deadReason(); why != "" {
		p.answerDead(env.method, env.id, why)
		return nil
	}
	if _, decided := decidedMethods[env.method]; decided {
		return p.hostCallRequest(msg, env)
	}
	if handle := hostRequests[env.method]; handle != nil {
		handle(p, msg, env)
		return nil
	}
	p.forward(msg, env, nil)
	return nil
}

// hostAnswered takes the host's answer to a request: the proxy's own
// question, or the server's request the host was asked.
func (p *Proxy) hostAnswered(msg []byte, env envelope) {
	key := idKey(env.id)
	ch, ours, sr := p.hostAnswers(key, validID(env.id))
	switch {
	case ours:
		ch <- reply{result: bytes.Clone(env.result), err: bytes.Clone(env.err)}
	case sr == nil:
		// Not the answer to a request of the server's the host was
		// asked: one the proxy keeps for the human, one answered
		// already, or none at all. The server would take it for an
		// answer to whatever it reads the id as.
		p.warnf("the host answered id %.40s, which is no request of the MCP server's awaiting the host's answer; dropped", env.id)
	case sr.method == methodRootsList && !p.opt.rootsFixed:
		p.hostAnswersRoots(key, msg, env.result)
	default:
		p.toUpstream(msg)
	}
}

// refuseFromHost answers a host line the server could read otherwise than
// the proxy (see readMessage): a request gets an error, and nothing reaches
// the server.
func (p *Proxy) refuseFromHost(env envelope, msg []byte, err error) {
	answer := "mcp-policy: invalid request: " + err.Error() + "; not passed on"
	if env.id != nil && env.method != "" {
		p.toHost(errorMessage(env.id, -32600, answer))
		return
	}
	p.warnf("the host sent a line that is not one JSON-RPC message a server reads one way (%v); dropped: %.120q", err, msg)
	// What the proxy could not read, a lenient reader may: each request it
	// finds there is answered with the error, so that the host waits on
	// none (a batch with one bad byte, a BOM before the object).
	for _, e := range leniently(msg) {
		if e.id != nil && e.result == nil && e.err == nil && validID(e.id) {
			p.toHost(errorMessage(e.id, -32600, answer)) // a request, or what a lenient reader takes for one
		}
	}
}

// leniently are the envelopes a lenient reader finds in a refused line:
// with the bytes that are not UTF-8, a byte-order mark and control bytes
// dropped, as such a reader drops them. They are read only to answer
// what the other side waits on, never to pass anything on.
func leniently(msg []byte) []envelope {
	repaired := bytes.ToValidUTF8(msg, nil)
	repaired = bytes.ReplaceAll(repaired, []byte("\ufeff"), nil)
	repaired = bytes.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' || r == 0x7f {
			return -1
		}
		return r
	}, repaired)
	env, batch, err := readMessage(repaired)
	if batch != nil {
		var out []envelope
		for _, e := range batch {
			if be, berr := parseEnvelope(e); berr == nil || be.id != nil {
				out = append(out, be)
			}
		}
		return out
	}
	if err == nil {
		return []envelope{env}
	}
	return everyID(repaired) // every id a reader could take: the first, the last, any case
}

// everyID reads an object no strict reader takes (a member twice, say) as
// the readers that take the first of a duplicated member, or the last, or
// match member names in any case, would: one envelope for each id any of
// them could find, each saying whether the object has a method, a result
// or an error. It reads as far as it can, so the start of a line too long
// to read whole gives what comes before the member that does not fit.
// Used only to answer what would otherwise wait for ever.
func everyID(msg []byte) []envelope {
	shape, ids := readHead(msg)
	out := make([]envelope, 0, len(ids))
	for _, id := range ids {
		e := shape
		e.id = id
		out = append(out, e)
	}
	return out
}

// readHead reads an object's members as far as it can (everyID): every
// id any reader could find, and whether a method, a result or an error
// came before the first member it could not read.
func readHead(msg []byte) (shape envelope, ids [][]byte) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return shape, nil
	}
	for dec.More() {
		t, err := dec.Token()
		key, ok := t.(string)
		if err != nil || !ok {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		switch strings.ToLower(key) {
		case "id":
			ids = append(ids, v)
		case "method":
			shape.hasMethod = true
		case "result":
			shape.result = v
		case "error":
			shape.err = v
		}
	}
	return shape, ids
}

// refusedID says why a request's id is not taken, "" when it is: not a
// string or an integer spelt one way (validID); one of the proxy's own;
// or one a lenient reader reads as the id of another open request from
// the same side, whose answer and cancellation would then be taken for
// either.
func (p *Proxy) refusedID(id []byte, fromHost bool) string {
	switch {
	case !validID(id):
		return "a request id must be a string or an integer written without fraction or exponent"
	case p.ownID(id):
		return "request ids starting " + p.prefix + " are the proxy's own"
	}
	// The ids of one side's open requests must differ as the most lenient
	// reader reads them (idReading): were 2 and "2" both open, an answer
	// to either could be taken for the other's.
	reading := idReading(id)
	inUse := "request id " + string(id) + " is in use by a request not yet answered"
	if fromHost {
		// The host's open requests are filed by reading: two lookups.
		_, forwarded := p.pending.underReading(reading)
		hc, deciding := p.calls.underReading(reading)
		if forwarded || deciding && !hc.answered.Load() {
			return inUse
		}
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, sr := range p.fromSrv {
		if idReading(sr.id) == reading {
			return inUse
		}
	}
	return ""
}

// forward sends a host request to the server, to be answered by the
// server's response.
func (p *Proxy) forward(msg []byte, env envelope, snoop func([]byte)) {
	id := openIDOf(env.id)
	fr := &forwardedRequest{method: env.method, id: bytes.Clone(env.id), snoop: snoop}
	p.pending.file(id, fr)
	if why, ours := p.goneSinceFiled(id, fr); why != "" {
		if ours {
			p.answerDead(env.method, env.id, why)
		}
		return
	}
	p.toUpstream(msg)
}

// hostCancelled stops a decided request the host gave up on: it is answered no
// more, and a question it waits on is withdrawn. A call whose question
// rides an input-required round was answered on its id already (with the
// round): the cancellation of that id withdraws the round, unless the host
// has a request open on the id again.
func (p *Proxy) hostCancelled(params []byte) {
	raw := member(params, "requestId")
	if raw == nil {
		return
	}
	id := openIDOf(raw)
	if hc, _ := p.calls.find(id); hc != nil {
		if hc.cancelledByHost() {
			// The server was told too (the notification went on); if it
			// answers anyway, the answer is dropped.
			if hr, _ := p.pending.find(id); hr != nil && hr.call == hc {
				p.withdraw(id, hr)
			}
			p.done(hc)
		}
		return
	}
	if _, open := p.pending.find(id); !open {
		p.withdrawRounds(func(r *round) bool { return r.onKey == id.key }, "the host cancelled the call")
	}
}

// hostLineTooLong answers a message of the host's longer than the limit,
// which no one reads: a request whose id its start or end gives is
// answered with the error; an answer of the host's fails the request it
// answers (the server's, or the proxy's own question), which would
// otherwise wait for ever; anything else is only said on stderr.
func (p *Proxy) hostLineTooLong(e *lineTooLong) {
	p.warnf("the host sent %v; not passed on", e)
	answer := func(id []byte) {
		p.toHost(errorMessage(id, -32600, "mcp-policy: the request is "+e.Error()+"; not passed on"))
	}
	why := "the host's answer is " + e.Error() + ", and was dropped"
	shape, ids := readHead(e.head)
	if len(ids) == 0 {
		// The id after the member too long to read: written last.
		if id := e.idAtEnd(); id != nil {
			ids = [][]byte{id}
		}
	}
	for _, id := range ids {
		switch {
		case !validID(id):
		case shape.hasMethod:
			answer(id)
		case p.hostAnswerFailed(id, why):
		case shape.result == nil && shape.err == nil:
			// Its start says neither: a request whose method comes after
			// its params, as far as anyone can tell.
			answer(id)
		}
	}
}

// hostAnswers takes what an answer of the host's with id key answers:
// the proxy's own question (ours, its channel), or the server's request
// the host was asked (sr; nil for none, for one the proxy keeps for the
// human, and when the id is not valid), which is then no longer waiting.
func (p *Proxy) hostAnswers(key string, valid bool) (ch chan reply, ours bool, sr *serverRequest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ch, ours = p.hostPeer.take(key)
	sr = p.fromSrv[key]
	if ours || sr == nil || sr.kept || !valid {
		return ch, ours, nil
	}
	delete(p.fromSrv, key)
	return ch, ours, sr
}

// hostAnswerFailed fails the request an answer of the host's that could
// not be read would have answered: the proxy's own question, or the
// server's request, which gets the error back. False when id answers no
// request waiting on the host.
func (p *Proxy) hostAnswerFailed(id []byte, why string) bool {
	ch, ours, sr := p.hostAnswers(idKey(id), true)
	switch {
	case ours:
		ch <- reply{fail: why}
	case sr != nil:
		p.toUpstream(errorMessage(sr.id, -32603, "mcp-policy: "+why))
	default:
		return false
	}
	return true
}
