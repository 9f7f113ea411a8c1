package proxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/provider"
)

// The relay passes every message between the host (our stdin and stdout)
// and the server (upstream) byte for byte, reading only its envelope, and
// steps in where the policy must:
//
//   - tools/call from the host is decided by the policy; an allowed call
//     goes to the server as the host sent it and the server's answer comes
//     back as the server sent it; a refused one is answered with an
//     is_error result the model can read. resources/read, prompts/get and
//     completion/complete are decided the same way, as calls to a tool
//     named by the method (requests.go); a refused one is answered with a
//     JSON-RPC error, their results having no isError.
//   - initialize, tools/list and their answers are read on their way past
//     (what the host can do; the catalogue the policy decides by).
//   - elicitation/create from the server goes through the policy's elicit
//     hook, so that it waits its turn with the permission questions.
//   - the server's roots/list and the host's answers to it set the
//     policy's root (roots.go).
//   - the proxy's own questions to the host (elicitation/create) and to
//     the server (tools/list) carry ids of their own, which nobody else's
//     ids can take.
//
// On protocol 2026-07-28 (the host says so in each request's _meta) the
// server cannot send the host requests: a question rides an input-required
// round instead. The proxy asks its own questions that way, and fulfils the
// server's rounds itself — its elicitations through the elicit hook, its
// sampling and roots requests by a round with the host — so the host only
// ever sees the proxy's rounds.

const (
	methodInitialize  = "initialize"
	methodToolsCall   = "tools/call"
	methodToolsList   = "tools/list"
	methodElicit      = "elicitation/create"
	methodRootsList   = "roots/list"
	notifyCancelled   = "notifications/cancelled"
	notifyInitialized = "notifications/initialized"
	notifyRootsChange = "notifications/roots/list_changed"
	notifyToolsChange = "notifications/tools/list_changed"
	notifyMessage     = "notifications/message"

	// modernProtocol is the first protocol version without the initialize
	// handshake, where questions ride input-required rounds.
	modernProtocol = "2026-07-28"
	metaProtocol   = "io.modelcontextprotocol/protocolVersion"
	metaClientCaps = "io.modelcontextprotocol/clientCapabilities"

	// errServerGone is the JSON-RPC error code for a request the server
	// can no longer answer (the TypeScript SDK's ConnectionClosed).
	errServerGone = -32000
)

// reply is the answer to a request the proxy sent: the result or error
// of the response, or why there will be none.
type reply struct {
	result, err []byte
	fail        string
}

// forwardedRequest is a request of the host's forwarded to the server,
// awaiting its answer.
type forwardedRequest struct {
	method string
	id     []byte
	call   *hostCall           // a decided request (decidedMethods)
	snoop  func(result []byte) // reads the result on its way to the host
	// withdrawn: the host cancelled the decided call (withdraw).
	withdrawn bool
}

// cancelledGrace is how long a call the host cancelled at the server
// keeps its id in use, for the server's answer to come and be dropped.
// A server should not answer a cancelled request at all (MCP's
// cancellation), so the entry cannot wait for the answer: that would
// keep it, and refuse its id, for as long as the proxy runs.
const cancelledGrace = 5 * time.Second

// withdraw leaves hr, a call at the server that the host cancelled,
// filed as withdrawn for p.cancelledGrace: the server's answer, should it
// come meanwhile, is dropped, and cannot be taken for the answer to a
// request reusing the id (which JSON-RPC forbids, and refusedID refuses
// while the entry stands). The entry holds a copy of the id alone, not
// the call and its line.
func (p *Proxy) withdraw(id openID, hr *forwardedRequest) {
	w := &forwardedRequest{method: hr.method, id: bytes.Clone(hr.id), withdrawn: true}
	if p.pending.replace(id, hr, w) {
		time.AfterFunc(p.cancelledGrace, func() { p.pending.forget(id, w) })
	}
}

// serverRequest is a request of the server's still open: relayed to the
// host, whose answer goes back to the server, or kept by the proxy (an
// elicitation put to the human through the policy), which answers it.
type serverRequest struct {
	method string
	id     []byte
	kept   bool
}

// hostSession is what the host said of itself in initialize (Proxy.session).
type hostSession struct {
	protocol string // negotiated (the server's answer), else asked for
	caps     capsSeen
	client   string // its name and version, as it gave them
}

type Proxy struct {
	opt    options
	up     upstream
	host   *lineWriter
	stderr io.Writer

	// prefix starts every id the proxy originates; roundPrefix every
	// requestState of its input-required rounds.
	prefix      string
	roundPrefix string
	nextID      atomic.Uint64

	pols atomic.Pointer[policySet]
	cat  catalogue
	// rootsChecked: checkRootKeys has looked at a whole catalogue.
	rootsChecked atomic.Bool

	ctx      context.Context // ends at shutdown
	cancel   context.CancelFunc
	hostGone chan struct{} // closed when stdout breaks
	goneOnce sync.Once

	// The host's open requests: at the server, and being decided (by the
	// host id they answer on). Tables of their own, with no lock shared
	// by all calls (openRequests).
	pending openRequests[*forwardedRequest]
	calls   openRequests[*hostCall]
	// dead is why the server is gone, nil while it serves: stored once,
	// under p.mu (serverGone), read without it.
	dead atomic.Pointer[string]

	mu       sync.Mutex
	hostPeer peer                        // the proxy's own requests to the host
	srvPeer  peer                        // the proxy's own requests to the server
	fromSrv  map[string]*serverRequest   // the server's open requests, by id
	rounds   map[string]*round           // rounds the host owes an answer, by requestState
	info     atomic.Pointer[hostSession] // changed under p.mu (setSession), read without it
	// serverSpecs are the argument specs of the server by the name it
	// gave in initialize (useServerSpecs).
	serverSpecs []rules.ArgumentSpec

	roots rootsState
	// answering counts the calls being decided and the questions being
	// answered, for the proxy's end to wait on (wait). Not a
	// sync.WaitGroup, whose Add may not race its Wait at 0: a call read
	// as the server goes is counted while serverGone waits.
	answering atomic.Int64
	work      chan *hostCall // to an idle worker

	reader   chan *lineReader // the host's stdin, handed to whoever reads on
	standing atomic.Int32     // goroutines waiting to be handed it
	// heldReader is the host's stdin while the goroutine that read a call
	// decides it, for freeHostReader to hand on; nil otherwise.
	heldReader atomic.Pointer[lineReader]
	waiting    atomic.Int32  // waits under way while calls are decided or answered (waitStarts)
	hostDone   chan struct{} // closed at the end of the host's input
	doneOnce   sync.Once

	cancelledGrace time.Duration // cancelledGrace, but in tests
	// testHookRound, for tests, runs in hostRound between the filing of
	// the round and the forgetting of the call it moves out of p.calls.
	testHookRound func(openID)
}

func newProxy(opt options, up upstream, hostOut io.Writer) *Proxy {
	ctx, cancel := context.WithCancel(context.Background())
	tag := randomHex(6)
	p := &Proxy{
		opt: opt, up: up, stderr: opt.stderr,
		prefix: "mcp-policy-" + tag + "-", roundPrefix: "mcp-policy/" + tag + "/",
		ctx: ctx, cancel: cancel, hostGone: make(chan struct{}),
		fromSrv: map[string]*serverRequest{}, rounds: map[string]*round{},
		work: make(chan *hostCall), cancelledGrace: cancelledGrace,
		reader: make(chan *lineReader, 1), hostDone: make(chan struct{}),
	}
	if p.stderr == nil {
		p.stderr = io.Discard
	}
	p.host = &lineWriter{w: hostOut, onErr: func(error) { p.goneOnce.Do(func() { close(p.hostGone) }) }}
	p.hostPeer = peer{name: "the host", write: p.toHost, gone: p.hostGone, own: map[string]chan reply{},
		goneWhy: func() string {
			select {
			case <-p.hostGone:
				return "the host is gone"
			default:
				return ""
			}
		}}
	// The server's going (serverGone) fails the requests waiting on it.
	p.srvPeer = peer{name: "the server", write: p.toUpstream, own: map[string]chan reply{}, goneWhy: p.deadReason}
	return p
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (p *Proxy) warnf(format string, a ...any) {
	fmt.Fprintf(p.stderr, "mcp-policy proxy: "+format+"\n", a...)
}

// run relays until the host leaves or the server goes, and returns the
// status to exit with.
func (p *Proxy) run(hostIn io.Reader, signals <-chan int) int {
	serverDone := make(chan int, 1)
	go func() {
		for {
			msg, err := p.up.recv()
			if err != nil {
				break
			}
			p.fromUpstream(msg)
		}
		serverDone <- p.serverGone()
	}()
	go p.readHost(newLineReader(hostIn))
	sig := 0
	select {
	case code := <-serverDone:
		// The host has been told. Requests already on their way get an
		// error rather than silence while the last answers go out.
		time.Sleep(100 * time.Millisecond)
		p.wait(time.Second)
		return code
	case <-p.hostDone:
	case <-p.hostGone:
	case sig = <-signals:
	}
	// The host is gone, or we were told to go: stop the server, and
	// everything waiting on it or on the host.
	p.cancel()
	p.endCalls()
	p.up.stop()
	code := <-serverDone
	if p.up.stoppedByUs() {
		code = 0
	}
	if sig != 0 {
		code = 128 + sig
	}
	return code
}

// wait waits for the goroutines answering calls, at most d. It looks
// every millisecond: it runs once, at the end.
func (p *Proxy) wait(d time.Duration) {
	for deadline := time.Now().Add(d); p.answering.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

// ---- messages from the host

// readHost reads the host's messages while it holds lr, the one reader of
// the host's stdin. A decided request (a tools/call, resources/read,
// prompts/get or completion/complete) is decided by the goroutine that read
// it (decideReading), so that no handing over stands between the host's
// request and the server; whoever holds lr when the call is decided reads
// on. Whoever reads end of input closes hostDone.
func (p *Proxy) readHost(lr *lineReader) {
	for {
		msg, err := lr.next()
		if err != nil {
			p.doneOnce.Do(func() { close(p.hostDone) })
			return
		}
		hc := p.fromHost(msg)
		if hc == nil || p.decideReading(hc, lr) {
			continue
		}
		// Another goroutine reads the host now: stand by to be handed
		// the reader in turn.
		p.standing.Add(1)
		select {
		case lr = <-p.reader:
			p.standing.Add(-1)
		case <-p.ctx.Done():
			return
		}
	}
}

// decideReading decides hc on the goroutine that read it, which holds lr,
// and says whether it still does. Handing lr to another goroutine costs a
// wake-up of another thread per call, more than a small call's whole
// decision, so lr is handed over only when that buys something: at once
// when more of the host's input is already buffered (another goroutine
// reads it while this one decides) or when anything is waiting (see
// waitStarts), and otherwise as soon as anything starts waiting: nothing
// the host sends — the human's answer above all — waits behind a call
// that waits.
func (p *Proxy) decideReading(hc *hostCall, lr *lineReader) bool {
	defer p.answering.Add(-1)
	if lr.buffered() {
		p.handOver(lr)
		p.runCall(hc)
		return false
	}
	// Held first, then the count read: a wait that starts after the
	// count is read finds lr held, and hands it over itself.
	p.heldReader.Store(lr)
	if p.waiting.Load() > 0 {
		p.freeHostReader()
	}
	p.runCall(hc)
	return p.heldReader.CompareAndSwap(lr, nil)
}

// waitStarts is said by whatever is about to wait while a call is decided
// or answered — for the roots to settle (awaitRoots), for an answer of the
// host's or the server's (request, hostRound, forwardCall) — and waitEnds
// when it has done: meanwhile no call is decided holding the host's
// reader, and a call that holds it now hands it over, so the host is read
// while anything waits. That covers the one wait the proxy cannot mark,
// the policy's ask lock, inside package policy: a call waits on it only
// while another call holds it, and a call holds it to ask the human,
// through request or hostRound, that is, waiting.
func (p *Proxy) waitStarts() {
	p.waiting.Add(1)
	p.freeHostReader()
}

func (p *Proxy) waitEnds() { p.waiting.Add(-1) }

// freeHostReader hands the host's reader on if a goroutine deciding a
// call holds it (decideReading).
func (p *Proxy) freeHostReader() {
	if lr := p.heldReader.Swap(nil); lr != nil {
		p.handOver(lr)
	}
}

// handOver gives lr to a goroutine standing by, starting one if none is.
func (p *Proxy) handOver(lr *lineReader) {
	if p.standing.Load() == 0 {
		p.standing.Add(1)
		go p.standBy()
	}
	p.reader <- lr
}

// standBy waits to be handed the reader.
func (p *Proxy) standBy() {
	select {
	case lr := <-p.reader:
		p.standing.Add(-1)
		p.readHost(lr)
	case <-p.ctx.Done():
	}
}

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
		key := idKey(env.id)
		p.mu.Lock()
		ch, ours := p.hostPeer.take(key)
		sr := p.fromSrv[key]
		if ours || sr == nil || sr.kept || !validID(env.id) {
			sr = nil
		} else {
			delete(p.fromSrv, key)
		}
		p.mu.Unlock()
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
	case env.isRequest():
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
		switch env.method {
		case methodInitialize:
			p.readInitialize(env.params)
			p.forward(msg, env, p.readInitializeResult)
		case methodToolsList:
			var snoop func([]byte)
			if member(env.params, "cursor") == nil {
				snoop = p.readToolsList
			}
			p.forward(msg, env, snoop)
		default:
			p.forward(msg, env, nil)
		}
	case env.isNotification():
		if env.method == notifyRootsChange && !p.opt.rootsFixed {
			p.hostRootsChanged(msg) // before the host's next message is read
			return nil
		}
		p.toUpstream(msg)
		if env.method == notifyCancelled {
			p.hostCancelled(env.params)
		}
	default:
		p.refuseFromHost(env, msg, errors.New("neither a request, a response nor a notification"))
	}
	return nil
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
	if err == nil || env.id != nil {
		return []envelope{env}
	}
	return nil
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

// toUpstream sends msg to the server. A server that cannot be written to is
// stopped; its going answers whatever waits on it.
func (p *Proxy) toUpstream(msg []byte) {
	if err := p.up.send(msg); err != nil && p.deadReason() == "" {
		go p.up.stop()
	}
}

func (p *Proxy) toHost(msg []byte) { _ = p.host.write(msg) }

func (p *Proxy) ownID(raw []byte) bool {
	return len(raw) > 0 && raw[0] == '"' && strings.HasPrefix(idKey(raw), "s"+p.prefix)
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

// readInitialize notes what the host can do, and says on stderr whether
// its questions can reach the human.
func (p *Proxy) readInitialize(params []byte) {
	var in struct {
		ProtocolVersion string             `json:"protocolVersion"`
		Capabilities    clientCapabilities `json:"capabilities"`
		ClientInfo      struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"clientInfo"`
	}
	if err := json.Unmarshal(params, &in); err != nil {
		return
	}
	caps := in.Capabilities.seen()
	client := strings.TrimSpace(in.ClientInfo.Name + " " + in.ClientInfo.Version)
	p.setSession(func(s *hostSession) { s.protocol, s.caps, s.client = in.ProtocolVersion, caps, client })
	host := "the host"
	if client != "" {
		host = fmt.Sprintf("the host %.60q", client)
	}
	p.warnf("%s", p.routeLine(host, caps))
}

func (p *Proxy) readInitializeResult(result []byte) {
	var out struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if json.Unmarshal(result, &out) != nil {
		return
	}
	if out.ProtocolVersion != "" {
		p.setSession(func(s *hostSession) { s.protocol = out.ProtocolVersion })
	}
	p.useServerSpecs(out.ServerInfo.Name)
}

// session is what the host said of itself in initialize. Every decided
// request reads it, without a lock.
func (p *Proxy) session() hostSession {
	if s := p.info.Load(); s != nil {
		return *s
	}
	return hostSession{}
}

// setSession changes the session with change, under p.mu, so that two
// changes do not lose either.
func (p *Proxy) setSession(change func(*hostSession)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.session()
	change(&s)
	p.info.Store(&s)
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

// ---- messages from the server

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
			// server's argument specs then decide the host's first call.
			first := hr.method == methodInitialize
			if first && hr.snoop != nil && env.result != nil {
				hr.snoop(env.result)
			}
			p.toHost(msg)
			if !first && hr.snoop != nil && env.result != nil {
				hr.snoop(env.result)
			}
		}
	case env.isRequest():
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
	case env.isNotification():
		p.toHost(msg)
		switch env.method {
		case notifyToolsChange:
			p.cat.invalidate()
		case notifyCancelled:
			// The server gave up on a request of its: the host's answer,
			// should it come, is for nobody.
			if raw := member(env.params, "requestId"); raw != nil {
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
		}
	default:
		p.refuseFromServer(env, msg, errors.New("neither a request, a response nor a notification"))
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
	if env.id == nil || env.result == nil && env.err == nil && !env.hasMethod {
		// Unread by the proxy, perhaps read by a lenient host: each
		// answer found there fails the request it answers, which would
		// otherwise wait for ever.
		for _, e := range leniently(msg) {
			if e.id != nil && !e.hasMethod {
				p.failAnswered(e.id, why)
			}
		}
		return
	}
	switch {
	case env.id == nil:
	case env.result == nil && env.err == nil:
		if env.hasMethod {
			p.toUpstream(errorMessage(env.id, -32600, "mcp-policy: invalid request: "+err.Error()+"; not passed on"))
		}
	default: // it would answer something
		p.failAnswered(env.id, why)
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
		p.warnf("%s", why)
		p.toHost(notification(notifyMessage, map[string]any{"level": "error", "logger": "mcp-policy", "data": "mcp-policy: " + why}))
	}
	return code
}

// ---- the proxy's own requests

// newID is a fresh id of the proxy's own, as raw JSON.
func (p *Proxy) newID() []byte {
	return strconv.AppendQuote(nil, p.prefix+strconv.FormatUint(p.nextID.Add(1), 10))
}

// peer is one side of the relay, the host or the server, as the proxy's
// own requests see it: the one engine that sends them, waits for their
// answers, and withdraws them (request) serves both.
type peer struct {
	name  string
	write func(msg []byte)
	// gone is closed when the side can answer no more (nil: never, the
	// side's going answers its requests instead); goneWhy, called with
	// p.mu held, says why, "" while it can answer.
	gone    <-chan struct{}
	goneWhy func() string
	own     map[string]chan reply // the requests awaiting an answer, by idKey; under p.mu
}

// ownAnswered takes the channel of the proxy's own request to side that
// a response with id answers. Only an id of the proxy's can be one
// (ownID), so any other response passes without p.mu: the answers to the
// host's calls are most of what the server sends.
func (p *Proxy) ownAnswered(side *peer, id []byte) (chan reply, bool) {
	if !p.ownID(id) {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return side.take(idKey(id))
}

// take removes and returns the channel of the request key answers, when
// it is one of the proxy's own to this side. p.mu is held.
func (s *peer) take(key string) (chan reply, bool) {
	ch, ok := s.own[key]
	delete(s.own, key)
	return ch, ok
}

// request sends to a request of the proxy's own and waits for its answer:
// the response's result or error, or an error when the side goes or fails
// it (reply.fail). If ctx ends first the request is withdrawn: forgotten,
// and cancelled with a notification.
func (p *Proxy) request(ctx context.Context, to *peer, method string, params any) (reply, error) {
	id := p.newID()
	key := idKey(id)
	ch := make(chan reply, 1)
	p.mu.Lock()
	if why := to.goneWhy(); why != "" {
		p.mu.Unlock()
		return reply{}, errors.New(why)
	}
	to.own[key] = ch
	p.mu.Unlock()
	to.write(requestMessage(id, method, params))
	p.waitStarts()
	defer p.waitEnds()
	forget := func() {
		p.mu.Lock()
		to.take(key)
		p.mu.Unlock()
	}
	select {
	case r := <-ch:
		if r.fail != "" {
			return r, errors.New(r.fail)
		}
		return r, nil
	case <-to.gone:
		forget()
		return reply{}, errors.New(to.name + " is gone")
	case <-ctx.Done():
		forget()
		to.write(notification(notifyCancelled, map[string]any{"requestId": json.RawMessage(id), "reason": context.Cause(ctx).Error()}))
		return reply{}, context.Cause(ctx)
	}
}

// ---- message construction

// rawID is id for a message of the proxy's own: as it came, or null when it
// is not one JSON value (a line the proxy refuses can carry anything there;
// JSON-RPC answers an id it cannot read with null).
func rawID(id []byte) json.RawMessage {
	// json.Valid takes invalid UTF-8 inside a string; a strict host does
	// not, and would drop the whole answer.
	if !json.Valid(id) || !utf8.Valid(id) {
		return json.RawMessage("null")
	}
	return json.RawMessage(id)
}

func requestMessage(id []byte, method string, params any) []byte {
	m := map[string]any{"jsonrpc": "2.0", "id": rawID(id), "method": method}
	if params != nil {
		m["params"] = params
	}
	return marshalLine(m)
}

func notification(method string, params any) []byte {
	return marshalLine(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func errorMessage(id []byte, code int, msg string) []byte {
	return marshalLine(map[string]any{"jsonrpc": "2.0", "id": rawID(id),
		"error": map[string]any{"code": code, "message": msg}})
}

func responseMessage(id []byte, result any) []byte {
	return marshalLine(map[string]any{"jsonrpc": "2.0", "id": rawID(id), "result": result})
}

// resultMessage answers a tools/call with r: the MCP result it carries, or
// its text as one text block.
func resultMessage(id []byte, r provider.Result) []byte {
	if len(r.MCP) > 0 {
		return responseMessage(id, r.MCP)
	}
	res := map[string]any{"content": []any{map[string]any{"type": "text", "text": r.Content}}}
	if r.IsError {
		res["isError"] = true
	}
	return responseMessage(id, res)
}

func errorResult(text string) provider.Result { return provider.ErrorResult("", text) }

func marshalLine(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only our own maps of JSON values are marshalled
	}
	return buf.Bytes()
}
