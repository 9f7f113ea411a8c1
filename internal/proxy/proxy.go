package proxy

import (
	"io"
	"os"
	"time"

	"github.com/mcp-policy/mcp-policy/decisionlog"
	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/approvals"
	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
	"github.com/mcp-policy/mcp-policy/internal/notify"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/telemetry"
)

// The values of Options.Ask.
const (
	AskElicit = "elicit" // ask the human through the host
	AskRefuse = "refuse" // refuse what needs asking
)

// Options are what the proxy runs with.
type Options struct {
	Config *cliconfig.Config
	Grants *grants.Store
	Log    *decisionlog.Logger // nil: no decision log
	// Source feeds the rules while the proxy runs (OPA bundles, or the
	// rule files watched), after Config's Rules and Modules; nil for
	// Config's alone.
	Source policy.RuleSource
	// Decisions is told every decision beside Log (OPA's decision-log
	// plugin); nil for none.
	Decisions func(policy.Record)
	// Ask is AskElicit, AskApprovals, AskElicitApprovals or AskRefuse.
	Ask string
	// Approvals is the queue questions wait in for an approver (when Ask
	// names approvals); nil for none, and then no question goes there.
	Approvals approvals.Queue
	// Server is the server as an approver is told of it: its command or
	// URL.
	Server string
	// AskTimeout bounds how long a question waits for an answer: the
	// host's in a 2026-07-28 input-required round, or an approver's.
	AskTimeout time.Duration
	Stderr     io.Writer // the proxy's own messages, and a server's stderr
	// AskWait, when shorter than AskTimeout and not 0, is how long a call
	// is held for an approver's answer before the host is told to make it
	// again once the question is answered (see parked.go); 0 holds it
	// for AskTimeout.
	AskWait time.Duration
	// MaxLine bounds one message from the host (the server's are bounded
	// where it is started: StartServer, DialServer); 0 is DefaultMaxLine.
	MaxLine int
	// ListDenied keeps in the host's tools/list the tools a rule or grant
	// denies outright, which are left out by default (hidden.go).
	ListDenied bool
	// Telemetry is told every decision and counts the questions waiting
	// for a human; nil for none.
	Telemetry *telemetry.Recorder
	// Notify is told of each question put in the approvals queue and of
	// how it ended; nil for none.
	Notify *notify.Notifier
	// Pins holds the server's tools to the definitions a human approved
	// (pins.go); nil pins nothing.
	Pins *grants.Pins
	// PinServer is the server as its pins name it: how it is reached (its
	// command line, each word quoted, or its URL), never a name the server
	// gives itself, which it could change to be pinned afresh.
	PinServer string
}

// options are what the proxy runs with, as it reads them.
type options struct {
	cfg        *cliconfig.Config
	store      *grants.Store
	log        *decisionlog.Logger
	source     policy.RuleSource
	decisions  func(policy.Record)
	askMode    string
	approvals  approvals.Queue
	server     string
	askTimeout time.Duration
	askWait    time.Duration
	rootsFixed bool // --root given: the host's roots are passed up, not used
	stderr     io.Writer
	maxLine    int
	listDenied bool
	telemetry  *telemetry.Recorder
	notify     *notify.Notifier
	pins       *grants.Pins
	pinServer  string
}

// New compiles the policies and returns a proxy that writes to the host on
// hostOut. No server is started yet.
func New(o Options, hostOut io.Writer) (*Proxy, error) {
	opt := options{cfg: o.Config, store: o.Grants, log: o.Log, source: o.Source, decisions: o.Decisions, askMode: o.Ask, askTimeout: o.AskTimeout, askWait: o.AskWait,
		approvals: o.Approvals, server: o.Server,
		rootsFixed: len(o.Config.Roots) > 0, stderr: o.Stderr, maxLine: o.MaxLine, listDenied: o.ListDenied,
		telemetry: o.Telemetry, notify: o.Notify, pins: o.Pins, pinServer: o.PinServer}
	opt.maxLine = lineLimit(opt.maxLine)
	p := newProxy(opt, nil, hostOut)
	set, err := p.buildPolicies(o.Config.Roots)
	if err != nil {
		return nil, err
	}
	p.pols.Store(set)
	p.roots.init(set)
	return p, nil
}

// lineLimit is a message limit as given, 0 for the default, and never
// above MaxMaxLine.
func lineLimit(n int) int {
	if n <= 0 {
		return DefaultMaxLine
	}
	return min(n, MaxMaxLine)
}

// Server is the MCP server the proxy stands in front of.
type Server interface{ upstream }

// StartServer runs command in a process group of its own, its stderr
// copied to stderr; a line it writes longer than maxLine bytes (0:
// DefaultMaxLine) is dropped, and the call it answers fails.
func StartServer(command string, args []string, stderr io.Writer, maxLine int) (Server, error) {
	u, err := startStdio(command, args, stderr, lineLimit(maxLine))
	if err != nil {
		return nil, err
	}
	return u, nil
}

// DialServer reaches a remote server over streamable HTTP, with headers
// ("Name: value") on every request; a line of a body longer than maxLine
// bytes (0: DefaultMaxLine) ends that body, and the call it answers fails.
func DialServer(url string, headers []string, maxLine int) (Server, error) {
	u, err := newHTTPUpstream(url, headers, lineLimit(maxLine))
	if err != nil {
		return nil, err
	}
	return u, nil
}

// Run relays between the host (hostIn, and the hostOut New was given) and
// s until the host leaves, the server goes or a signal number arrives on
// signals, and returns the status to exit with: the server's when it
// ended on its own.
func (p *Proxy) Run(s Server, hostIn io.Reader, signals <-chan int) int {
	p.up = s
	if f, ok := hostIn.(*os.File); ok {
		hostIn = polled(f)
	}
	return p.run(hostIn, signals)
}

// GrowPipe enlarges the pipe f is an end of, if it is one and the system
// allows it; otherwise nothing changes.
func GrowPipe(f *os.File) { growPipe(f) }

// TellHost answers the host's first request, when one comes within 5
// seconds, with why there is no server.
func TellHost(hostIn io.Reader, hostOut io.Writer, why string) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		lr := newLineReader(hostIn)
		lr.max = DefaultMaxLine
		for {
			msg, err := lr.next()
			if _, tooLong := err.(*lineTooLong); tooLong {
				continue
			}
			if err != nil {
				return
			}
			env, err := parseEnvelope(msg)
			if err != nil || !env.isRequest() {
				continue
			}
			if env.method == methodToolsCall {
				_, _ = hostOut.Write(resultMessage(env.id, errorResult("mcp-policy: "+why)))
			} else {
				_, _ = hostOut.Write(errorMessage(env.id, errServerGone, "mcp-policy: "+why))
			}
			return
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
}
