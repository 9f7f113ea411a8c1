package proxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/rules"
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

type Proxy struct {
	parked   parkedQuestions // questions whose calls the host was told to make again
	warnings warnLimiter     // stderr lines of each kind, counted
	opt      options
	up       upstream
	host     *lineWriter
	stderr   io.Writer

	// prefix starts every id the proxy originates; roundPrefix every
	// requestState of its input-required rounds.
	prefix      string
	roundPrefix string
	nextID      atomic.Uint64

	pols atomic.Pointer[policySet]
	cat  catalogue
	// rootsChecked: checkRootKeys has looked at a whole catalogue.
	rootsChecked atomic.Bool
	// hiddenSaid: stderr was told which tools tools/list leaves out.
	hiddenSaid atomic.Bool
	// pinsState: what the pins last said of the server's tools.
	pinsState pinState
	// unreadableSaid: stderr was told a tools/list answer could not be read.
	unreadableSaid atomic.Bool
	// flaggedSaid are the digests of the tool definitions whose text
	// aimed at the model stderr was told of, once each; flaggedCount,
	// how many.
	flaggedSaid  sync.Map
	flaggedCount atomic.Int64

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
	ended    endedRounds                 // the calls of the rounds that ended last
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

// warnf writes a line of the proxy's own on stderr. Lines of one kind
// (one format) beyond warnBurst in warnWindow are counted, not written: a
// host or server flooding the proxy with what it warns about cannot flood
// stderr (or the disk under it). The next line of the kind written says
// how many were left out.
func (p *Proxy) warnf(format string, a ...any) {
	if dropped, ok := p.warnings.allow(format, time.Now()); !ok {
		return
	} else if dropped > 0 {
		format += fmt.Sprintf(" (and %d more like it left out)", dropped)
	}
	p.sayf(format, a...)
}

// sayf writes a line of the proxy's own on stderr that is never counted
// instead: one a human acts on (where a question waits, who answered it,
// why the server ended), which no flood of other lines may hide.
func (p *Proxy) sayf(format string, a ...any) {
	fmt.Fprintf(p.stderr, "mcp-policy proxy: "+format+"\n", a...)
}

// leftOut says, as the proxy ends, how many warnings were counted and not
// written since the last of their kind was.
func (p *Proxy) leftOut() {
	if n := p.warnings.pending(); n > 0 {
		p.sayf("%d more warnings like the ones above were left out", n)
	}
}

const (
	warnBurst  = 20
	warnWindow = 10 * time.Second
)

// warnLimiter counts the warnings of each kind in the current window.
type warnLimiter struct {
	mu    sync.Mutex
	kinds map[string]*warnKind
}

type warnKind struct {
	since   time.Time
	written int
	dropped int
}

// allow says whether a warning of kind may be written at now, and how many
// of the kind were left out before it.
func (l *warnLimiter) allow(kind string, now time.Time) (dropped int, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.kinds == nil {
		l.kinds = map[string]*warnKind{}
	}
	k := l.kinds[kind]
	if k == nil {
		k = &warnKind{since: now}
		l.kinds[kind] = k
	}
	if now.Sub(k.since) >= warnWindow {
		k.since, k.written = now, 0
	}
	if k.written >= warnBurst {
		k.dropped++
		return 0, false
	}
	k.written++
	dropped, k.dropped = k.dropped, 0
	return dropped, true
}

// pending is how many warnings were counted and never said.
func (l *warnLimiter) pending() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, k := range l.kinds {
		n += k.dropped
	}
	return n
}

// run relays until the host leaves or the server goes, and returns the
// status to exit with.
func (p *Proxy) run(hostIn io.Reader, signals <-chan int) int {
	serverDone := make(chan int, 1)
	go func() {
		for {
			msg, err := p.up.recv()
			if tooLong, ok := err.(*lineTooLong); ok {
				p.serverLineTooLong(tooLong)
				continue
			}
			if err != nil {
				break
			}
			p.fromUpstream(msg)
		}
		serverDone <- p.serverGone()
	}()
	lr := newLineReader(hostIn)
	lr.max = p.opt.maxLine
	go p.readHost(lr)
	sig := 0
	select {
	case code := <-serverDone:
		// The host has been told. Requests already on their way get an
		// error rather than silence while the last answers go out.
		time.Sleep(100 * time.Millisecond)
		p.wait(time.Second)
		p.leftOut()
		// Nothing waits on a server that is gone: a parked question ends
		// now (withdrawn, its approver told), not when the process does.
		p.cancel()
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
	p.leftOut()
	return code
}

// wait waits for the goroutines answering calls, at most d. It looks
// every millisecond: it runs once, at the end.
func (p *Proxy) wait(d time.Duration) {
	for deadline := time.Now().Add(d); p.answering.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}
