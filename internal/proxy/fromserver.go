package proxy

import (
	"bytes"
	"errors"
	"time"
)

// Messages from the server, by kind and method, and the server's death.

// goneSinceFiled reads the server's state after fr was filed at it under
// id: why the server is gone ("" while it serves), and whether fr is the
// caller's to answer then. serverGone stores why first, then takes what
// is filed; so a request filed first is either taken there, and answered
// by serverGone, or forgotten here, and ours (or both were seen, and one
// of them has it).
func (p *Proxy) goneSinceFiled(id openID, fr *forwardedRequest) (why string, ours bool) {
	if why = p.deadReason(); why == "" {
		return "", false
	}
	return why, p.pending.forget(id, fr)
}

// deadReason is why the server is gone, "" while it serves.
func (p *Proxy) deadReason() string {
	if why := p.dead.Load(); why != nil {
		return *why
	}
	return ""
}

// answerDead answers a request the server can no longer answer.
func (p *Proxy) answerDead(method string, id []byte, why string) {
	if method == methodToolsCall {
		p.toHost(resultMessage(id, errorResult("mcp-policy: "+why+"; the call was not run.")))
		return
	}
	p.toHost(errorMessage(id, errServerGone, "mcp-policy: "+why))
}

func (p *Proxy) fromUpstream(msg []byte) {
	env, batch, err := readMessage(msg)
	if err != nil {
		p.refuseFromServer(env, msg, err)
		return
	}
	if batch != nil {
		for _, e := range batch {
			p.fromUpstream(append(bytes.Clone(e), '\n'))
		}
		return
	}
	switch {
	case env.isResponse():
		p.serverAnswered(msg, env)
	case env.isRequest():
		p.serverRequest(msg, env)
	case env.isNotification():
		p.toHost(msg)
		if handle := serverNotifications[env.method]; handle != nil {
			handle(p, msg, env)
		}
	default:
		p.refuseFromServer(env, msg, errors.New("neither a request, a response nor a notification"))
	}
}

// serverNotifications are the server's notifications the proxy acts on
// once they are passed to the host, by method. (Filled by init, as
// hostNotifications are.)
var serverNotifications map[string]handler

func init() {
	serverNotifications = map[string]handler{
		notifyToolsChange: func(p *Proxy, _ []byte, _ envelope) { p.cat.invalidate() },
		notifyCancelled:   (*Proxy).serverCancelled,
	}
}

// serverCancelled: the server gave up on a request of its, so the host's
// answer, should it come, is for nobody.
func (p *Proxy) serverCancelled(_ []byte, env envelope) {
	raw := member(env.params, "requestId")
	if raw == nil {
		return
	}
	key := idKey(raw)
	p.mu.Lock()
	sr := p.fromSrv[key]
	if sr != nil && !sr.kept {
		delete(p.fromSrv, key)
	}
	p.mu.Unlock()
	if sr != nil && sr.method == methodRootsList && !p.opt.rootsFixed {
		p.serverDroppedRoots(key)
	}
}

// serverRequest puts a request of the server's to the host, or to the
// human through the policy (elicitation), or answers it (the roots).
func (p *Proxy) serverRequest(msg []byte, env envelope) {
	if why := p.refusedID(env.id, false); why != "" {
		p.toUpstream(errorMessage(env.id, -32600, "mcp-policy: "+why+"; not passed on"))
		return
	}
	sr := &serverRequest{method: env.method, id: bytes.Clone(env.id), kept: env.method == methodElicit}
	p.mu.Lock()
	p.fromSrv[idKey(env.id)] = sr
	p.mu.Unlock()
	switch {
	case sr.kept:
		p.answering.Add(1)
		go p.serverElicit(sr.id, bytes.Clone(env.params))
	case env.method == methodRootsList && !p.opt.rootsFixed:
		p.serverAsksRoots(idKey(env.id), msg)
	default:
		p.toHost(msg)
	}
}

// serverAnswered takes the server's answer to a request: the proxy's own,
// or the host's, which goes to the host as the server wrote it.
func (p *Proxy) serverAnswered(msg []byte, env envelope) {
	if ch, ours := p.ownAnswered(&p.srvPeer, env.id); ours {
		ch <- reply{result: bytes.Clone(env.result), err: bytes.Clone(env.err)}
		return
	}
	hr, _ := p.pending.take(openIDOf(env.id))
	switch {
	case hr == nil:
		// Not the answer to a request of the host's at the server: a
		// call still being decided, or refused, or answered already,
		// or an id the host reads as another's (2.0 or "2" for 2).
		p.warnf("the MCP server answered id %.40s, which is no request of the host's awaiting the server's answer; dropped", env.id)
	case hr.withdrawn:
		// The host cancelled it: nobody waits for the answer.
	case hr.call != nil:
		p.callAnswered(hr.call, msg, env)
	default:
		// initialize's answer is read before the host has it: the
		// server's argument specs then decide the host's first call. So
		// is the first page of tools/list: the catalogue is held back
		// from calls before the host can show the model a changed tool.
		first := hr.method == methodInitialize || hr.method == methodToolsList
		if first && hr.snoop != nil && env.result != nil {
			hr.snoop(env.result)
		}
		if hr.method == methodToolsList && env.result != nil {
			p.warnPoisoned(env.result)
			if !p.opt.listDenied {
				msg = p.withoutDeniedTools(msg, env)
			}
		}
		p.toHost(msg)
		if !first && hr.snoop != nil && env.result != nil {
			hr.snoop(env.result)
		}
	}
}

// refuseFromServer drops a server line the host could read otherwise than
// the proxy (see readMessage): none of it reaches the host. What it
// answers, if that can be read, is answered with an error instead: the
// host's request, or the proxy's own; a request of the server's gets an
// error back.
func (p *Proxy) refuseFromServer(env envelope, msg []byte, err error) {
	p.warnf("the MCP server wrote a line that is not one JSON-RPC message a host reads one way (%v); dropped: %.120q", err, msg)
	why := "the MCP server's answer could be read more than one way (" + err.Error() + "); not passed on"
	if env.id != nil && env.result == nil && env.err == nil && env.hasMethod {
		p.toUpstream(errorMessage(env.id, -32600, "mcp-policy: invalid request: "+err.Error()+"; not passed on"))
		return
	}
	// What would answer something fails the request it answers, which
	// would otherwise wait for ever: as the proxy read it, and as every
	// lenient reader could (a duplicated id read first or last).
	failed := map[string]bool{}
	fail := func(id []byte) {
		if k := idKey(id); !failed[k] {
			failed[k] = true
			p.failAnswered(id, why)
		}
	}
	if env.id != nil && (env.result != nil || env.err != nil) {
		fail(env.id)
	}
	for _, e := range leniently(msg) {
		if e.id != nil && (!e.hasMethod || e.result != nil || e.err != nil) {
			fail(e.id)
		}
	}
}

// failAnswered fails the request a refused answer of the server's would
// have answered: the proxy's own, or the host's.
func (p *Proxy) failAnswered(id []byte, why string) {
	ch, ours := p.ownAnswered(&p.srvPeer, id)
	var hr *forwardedRequest
	if !ours {
		hr, _ = p.pending.take(openIDOf(id))
	}
	switch {
	case ours:
		ch <- reply{fail: why}
	case hr != nil:
		p.failPending(hr, -32603, why)
	}
}

// failPending answers a host request at the server that the server will
// not answer: with code and why, or for a call with an error result.
func (p *Proxy) failPending(hr *forwardedRequest, code int, why string) {
	switch hc := hr.call; {
	case hr.withdrawn:
		// The host cancelled it: nobody waits for an answer.
	case hc != nil && hc.isAtServer():
		if hc.claim() {
			p.toHost(hc.answerFailed(hr.id, code, errorResult("mcp-policy: "+why+"; the call may not have finished.")))
		}
		p.done(hc)
	case hc != nil:
		hc.resp <- upReply{fail: why}
	default:
		p.toHost(errorMessage(hr.id, code, "mcp-policy: "+why))
	}
}

// serverGone answers everything that waited on the server, tells the host,
// and returns the server's exit status.
func (p *Proxy) serverGone() int {
	code, why := p.up.exit()
	p.mu.Lock()
	// Stored before the requests at the server are taken: a call filed at
	// the server after this sees it (forwardCall), and one filed before is
	// taken here.
	p.dead.Store(&why)
	ownUp := p.srvPeer.own
	p.srvPeer.own, p.fromSrv = map[string]chan reply{}, map[string]*serverRequest{}
	p.mu.Unlock()
	pending := p.pending.takeAll()
	// Not taken: done forgets the calls as they end.
	var calls []*hostCall
	p.calls.each(func(hc *hostCall) { calls = append(calls, hc) })
	for _, hr := range pending {
		p.failPending(hr, errServerGone, why)
	}
	for _, ch := range ownUp {
		ch <- reply{fail: why}
	}
	// A call still waiting on the human has nothing to wait for.
	for _, hc := range calls {
		hc.serverDied(why)
	}
	// The calls' answers first, then the word to the host.
	p.wait(time.Second)
	select {
	case <-p.ctx.Done(): // we stopped it: nobody to tell
	default:
		p.sayf("%s", why)
		p.toHost(notification(notifyMessage, map[string]any{"level": "error", "logger": "mcp-policy", "data": "mcp-policy: " + why}))
	}
	return code
}

// serverLineTooLong drops a message of the server's longer than the limit:
// the host's request it answers, when its start says which, fails rather
// than wait for ever; a request of the server's gets the error back, for
// the same reason.
func (p *Proxy) serverLineTooLong(e *lineTooLong) {
	p.warnf("the MCP server wrote %v; dropped", e)
	if shape, ids := readHead(e.head); shape.hasMethod {
		if id := e.idAtEnd(); len(ids) == 0 && id != nil {
			ids = [][]byte{id}
		}
		for _, id := range ids {
			if validID(id) {
				p.toUpstream(errorMessage(id, -32600, "mcp-policy: the request is "+e.Error()+"; not passed on"))
			}
		}
		return
	}
	why := "the MCP server's answer is " + e.Error() + ", and was dropped"
	failed := false
	for _, env := range everyID(e.head) {
		if !env.hasMethod && validID(env.id) {
			p.failAnswered(env.id, why)
			failed = true
		}
	}
	if !failed && bytes.HasSuffix(bytes.TrimSpace(e.tail), []byte("}")) {
		// The id written last, as the official TypeScript servers write
		// it: `...,"id":7}`. Taken only if a host request at the server
		// has it; else the one host call at the server, if there is one.
		if id := e.idAtEnd(); id != nil {
			if _, open := p.pending.find(openIDOf(id)); open {
				p.failAnswered(id, why)
				return
			}
		}
		var only []*forwardedRequest
		p.pending.each(func(hr *forwardedRequest) {
			if hr.call != nil && !hr.withdrawn {
				only = append(only, hr)
			}
		})
		if len(only) == 1 {
			p.failAnswered(only[0].id, why)
		}
	}
}
