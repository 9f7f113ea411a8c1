package proxy

import (
	"encoding/json"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/testkit"
)

// The relay's state machine, driven without processes: the host and the
// server are the test's ends of in-memory pipes (io.Pipe, which holds
// nothing: a write waits for its reader, as a full OS pipe does).

// pipeServer is an upstream over two io.Pipes: what the proxy sends, the
// test reads from stdin; what the test writes to stdout, the proxy receives.
type pipeServer struct {
	stdin  *io.PipeReader // the server's end of what the proxy sends
	stdout *io.PipeWriter // the server's end of what the proxy receives
	inW    *io.PipeWriter
	out    *lineReader
	w      lineWriter
	once   sync.Once
	// writing counts the proxy's writes under way: a write to an io.Pipe
	// lasts until the test reads it.
	writing atomic.Int32
}

func newPipeServer() *pipeServer {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &pipeServer{stdin: inR, stdout: outW, inW: inW, out: newLineReader(outR)}
	s.w.w = inW
	return s
}

func (s *pipeServer) send(msg []byte) error {
	s.writing.Add(1)
	defer s.writing.Add(-1)
	return s.w.write(msg)
}
func (s *pipeServer) recv() ([]byte, error) { return s.out.next() }
func (s *pipeServer) stop() {
	s.once.Do(func() {
		_ = s.inW.Close()
		_ = s.stdout.Close()
	})
}
func (s *pipeServer) exit() (int, string) { return 0, "the test's server ended" }
func (s *pipeServer) stoppedByUs() bool   { return true }

// relayTest is a proxy running between a test host and a test server.
type relayTest struct {
	t      *testing.T
	p      *Proxy
	srv    *pipeServer
	hostIn *io.PipeWriter
	host   chan map[string]any // what the proxy wrote to the host
	server chan map[string]any // what the proxy wrote to the server, when drained
	srvIn  *lineReader         // the server's stdin, when not drained
	done   chan int
}

// newRelayTest starts a proxy deciding by rulesJSON (no default rules),
// with the server's tools tools (their annotations as given). With drain,
// what the proxy writes to the server is read at once into server; without
// it the test reads srv.stdin itself.
func newRelayTest(t *testing.T, rulesJSON string, drain bool) *relayTest {
	t.Helper()
	return newRelayTestWith(t, rulesJSON, drain, relayLimits{})
}

// relayLimits are what a test sets beyond the defaults: the longest line
// each side may send (0: DefaultMaxLine for the host, none for the
// server), and where the proxy's stderr goes (nil: the test's log).
type relayLimits struct {
	hostMaxLine, serverMaxLine int
	stderr                     io.Writer
}

func newRelayTestWith(t *testing.T, rulesJSON string, drain bool, lim relayLimits) *relayTest {
	t.Helper()
	rs, err := rules.ParseRules([]byte(rulesJSON), "rules.json")
	require.NoError(t, err)
	cfg := &cliconfig.Config{Rules: rs, Roots: map[string]string{}}
	store, err := cfg.OpenGrants()
	require.NoError(t, err)
	hostOutR, hostOutW := io.Pipe()
	hostInR, hostInW := io.Pipe()
	var stderr io.Writer = testWriter{t}
	if lim.stderr != nil {
		stderr = io.MultiWriter(stderr, lim.stderr)
	}
	p, err := New(Options{Config: cfg, Grants: store, Ask: AskElicit, AskTimeout: 5 * time.Second, Stderr: stderr, MaxLine: lim.hostMaxLine}, hostOutW)
	require.NoError(t, err)
	srv := newPipeServer()
	srv.out.max = lim.serverMaxLine
	rt := &relayTest{t: t, p: p, srv: srv, hostIn: hostInW,
		host: make(chan map[string]any, 100), server: make(chan map[string]any, 100), done: make(chan int, 1)}
	go readLines(hostOutR, rt.host)
	if drain {
		go readLines(rt.srv.stdin, rt.server)
	} else {
		rt.srvIn = newLineReader(rt.srv.stdin)
	}
	go func() { rt.done <- p.Run(rt.srv, hostInR, nil) }()
	t.Cleanup(func() {
		_ = hostInW.Close()
		select {
		case <-rt.done:
		case <-time.After(10 * time.Second):
			t.Error("the proxy did not stop when the host left")
		}
		_ = hostOutR.Close()
	})
	return rt
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) { w.t.Logf("%s", b); return len(b), nil }

func readLines(r io.Reader, ch chan<- map[string]any) {
	lr := newLineReader(r)
	for {
		line, err := lr.next()
		if err != nil {
			close(ch)
			return
		}
		var m map[string]any
		if json.Unmarshal(line, &m) != nil {
			m = map[string]any{"unreadable": string(line)}
		}
		ch <- m
	}
}

// fromHost writes the host's message to the proxy.
func (rt *relayTest) fromHost(msg string) {
	rt.t.Helper()
	_, err := io.WriteString(rt.hostIn, msg+"\n")
	require.NoError(rt.t, err)
}

// fromServer writes the server's message to the proxy.
func (rt *relayTest) fromServer(msg string) {
	rt.t.Helper()
	_, err := io.WriteString(rt.srv.stdout, msg+"\n")
	require.NoError(rt.t, err)
}

// next is the next message on ch, failing after a while.
func next(t *testing.T, ch <-chan map[string]any, what string) map[string]any {
	t.Helper()
	select {
	case m, ok := <-ch:
		require.True(t, ok, "%s: the stream ended", what)
		return m
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: nothing came", what)
		return nil
	}
}

// nothing says no message comes on ch for a little while.
func nothing(t *testing.T, ch <-chan map[string]any, what string) {
	t.Helper()
	select {
	case m := <-ch:
		t.Fatalf("%s: got %v", what, m)
	case <-time.After(100 * time.Millisecond):
	}
}

const testTools = `{"tools":[{"name":"echo","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}},` +
	`{"name":"secret","inputSchema":{"type":"object"}},{"name":"ask_me","inputSchema":{"type":"object"}}]}`

const testRules = `[{"tool":"echo","decision":"allow"},{"tool":"secret","decision":"deny"},{"tool":"ask_me","decision":"ask"}]`

// initialize runs the handshake, the host declaring caps, and lists the
// tools through the host, so the policy has the catalogue.
func (rt *relayTest) initialize(caps string) {
	rt.t.Helper()
	rt.fromHost(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":` + caps + `,"clientInfo":{"name":"t","version":"1"}}}`)
	m := rt.atServer("initialize at the server")
	require.Equal(rt.t, "initialize", m["method"])
	rt.fromServer(`{"jsonrpc":"2.0","id":"init","result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
	require.Equal(rt.t, "init", next(rt.t, rt.host, "initialize's answer")["id"])
	rt.fromHost(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`)
	require.Equal(rt.t, "tools/list", rt.atServer("tools/list at the server")["method"])
	rt.fromServer(`{"jsonrpc":"2.0","id":"list","result":` + testTools + `}`)
	require.Equal(rt.t, "list", next(rt.t, rt.host, "tools/list's answer")["id"])
	// The answer is read after it goes to the host: until then a call
	// would have the proxy list the tools itself.
	testkit.Eventually(rt.t, 5*time.Second, "the catalogue is read", func() bool {
		rt.p.cat.mu.Lock()
		defer rt.p.cat.mu.Unlock()
		return rt.p.cat.fresh
	})
}

// atServer is the next message the proxy wrote to the server.
func (rt *relayTest) atServer(what string) map[string]any {
	rt.t.Helper()
	if rt.srvIn == nil {
		return next(rt.t, rt.server, what)
	}
	ch := make(chan map[string]any, 1)
	go func() {
		line, err := rt.srvIn.next()
		if err != nil {
			close(ch)
			return
		}
		var m map[string]any
		_ = json.Unmarshal(line, &m)
		ch <- m
	}()
	return next(rt.t, ch, what)
}

// rootsNow reads the roots state under its lock.
func (rt *relayTest) rootsNow() (dir string, settled bool, sending int) {
	rs := &rt.p.roots
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.dir, rs.settled(), int(rs.sending.Load())
}

// giveRoot has the server ask for roots and the host answer with dir, and
// waits until the policy's root is dir.
func (rt *relayTest) giveRoot(reqID, dir string) {
	rt.t.Helper()
	rt.fromServer(`{"jsonrpc":"2.0","id":"` + reqID + `","method":"roots/list"}`)
	m := next(rt.t, rt.host, "roots/list at the host")
	require.Equal(rt.t, "roots/list", m["method"])
	_, settled, _ := rt.rootsNow()
	require.False(rt.t, settled, "a roots/list in flight unsettles the root")
	rt.fromHost(`{"jsonrpc":"2.0","id":"` + reqID + `","result":{"roots":[{"uri":"file://` + dir + `"}]}}`)
	require.Equal(rt.t, reqID, rt.atServer("the host's roots at the server")["id"])
	testkit.Eventually(rt.t, 5*time.Second, "the root settles", func() bool {
		d, settled, _ := rt.rootsNow()
		return settled && d == dir
	})
}
