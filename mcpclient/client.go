// Package mcpclient is a provider.Provider over a real MCP server, built on
// mark3labs/mcp-go's client.
//
// ConnectStdio starts the server as a subprocess and initializes it; the
// Client then lists the server's tools (annotations kept) and executes a
// model's tool calls, each call of a batch concurrently, every failure — a bad
// argument text, a JSON-RPC error, a timeout, a dead server — reported as an
// IsError result rather than an error or a panic.
//
// # Elicitation and the call that provoked it
//
// With WithElicitHook the client declares the elicitation capability and
// hands the server's questions to the hook. A policy wants to know which call
// a question belongs to (its claim travels in the call's ctx), so the hook is
// given a ctx derived from that call wherever the protocol allows:
//
//   - protocol 2026-07-28 (what mcp-go negotiates with a current mcp-go
//     server): the question arrives as an input-required round inside
//     tools/call, and the hook's ctx derives from the call's ctx.
//   - earlier protocols: the server sends elicitation/create on its own,
//     carrying nothing that names the call. When exactly one call is in
//     flight on this Client the question is attributed to it (the hook gets
//     that call's ctx); otherwise the hook gets a ctx carrying no call's
//     values, and whoever is wired to answer uncorrelated questions answers.
//
// While the hook answers a question attributed to a call, that call's
// timeout (WithCallTimeout) is paused: a human thinking is not a server hung.
//
// A hook that returns an error (or panics) fails the elicitation: on the
// legacy path the server receives a JSON-RPC error for its elicitation/create,
// on the 2026-07-28 path the tool call fails; either way the call's Result is
// an IsError result. A hook that wants the server to carry on should return a
// decline instead. So does an accepted answer that does not fit the form the
// server asked for. The hook's ctx carries the call it is attributed to
// (provider.CallFrom), which a policy puts in its server-elicit question.
//
// # A client that fails fast
//
// The start-up is bounded (DefaultHandshakeTimeout) even when ctx is not,
// and a start-up that fails kills the server at once. A server that writes
// anything but JSON-RPC to stdout ends the connection: waiting calls fail
// at once with what it wrote, and it is stopped. Results carry the server's
// whole CallToolResult (provider.Result.MCP) beside the text.
//
// # What else the client can declare
//
// WithSamplingHandler (sampling/createMessage), WithRoots (roots/list; give
// it the policy's roots), WithURLElicitation (URL-mode elicitation), and
// WithEnviron for an environment the caller sets whole.
package mcpclient

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-policy/mcp-policy/internal/stderrtail"
	"github.com/mcp-policy/mcp-policy/provider"
)

// DefaultCallTimeout bounds one tool call unless WithCallTimeout says otherwise.
const DefaultCallTimeout = 60 * time.Second

// DefaultHandshakeTimeout bounds the start-up (process start and MCP
// handshake) when the ctx given to ConnectStdio has no earlier deadline.
const DefaultHandshakeTimeout = 30 * time.Second

// Option configures ConnectStdio.
type Option func(*config)

type config struct {
	hook        provider.ElicitFunc
	urlElicit   bool
	sampling    SamplingFunc
	roots       []string
	callTimeout time.Duration
	handshake   time.Duration
	env         []string
	environ     []string
	environSet  bool
	name        string
	version     string
	stderr      io.Writer
}

// WithElicitHook answers the server's elicitations. Only with a hook does the
// client declare the elicitation capability, so a server without it knows it
// cannot ask. Content the hook accepts is checked against the form the
// server asked for before it goes back: an answer that does not fit fails
// the elicitation.
func WithElicitHook(f provider.ElicitFunc) Option {
	return func(c *config) { c.hook = f }
}

// WithURLElicitation declares URL-mode elicitation too (protocol
// 2025-11-25): the server may ask the human to open a URL, and the hook is
// handed that request (params "mode": "url", "url", "elicitationId") to
// show it and answer accept, decline or cancel, without content. It takes
// effect only with WithElicitHook.
func WithURLElicitation() Option {
	return func(c *config) { c.urlElicit = true }
}

// SamplingFunc answers a server's request for an LLM completion
// (sampling/createMessage).
type SamplingFunc func(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)

// WithSamplingHandler lets the server sample the host's model through f;
// only with it does the client declare the sampling capability. ctx derives
// from the provoking call's, as an elicitation's does, where the protocol
// allows.
func WithSamplingHandler(f SamplingFunc) Option {
	return func(c *config) { c.sampling = f }
}

// WithRoots declares the roots capability and answers roots/list with
// these directories (as file:// URIs): give it the policy's roots
// (RootDirs), so that the server works where the policy resolves relative
// paths. Note that some servers take the client's roots as their sandbox
// (server-filesystem replaces its command-line directories with them).
func WithRoots(dirs ...string) Option {
	return func(c *config) { c.roots = append([]string(nil), dirs...) }
}

// RootDirs are the distinct directories of a policy's roots, in key order.
func RootDirs(roots map[string]string) []string {
	keys := make([]string, 0, len(roots))
	for k := range roots {
		keys = append(keys, k)
	}
	sortStrings(keys)
	seen := map[string]bool{}
	var out []string
	for _, k := range keys {
		if d := roots[k]; !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// WithCallTimeout bounds each tool call (default DefaultCallTimeout); d <= 0
// leaves calls bounded only by the caller's ctx. Time spent in the elicitation
// hook on a question attributed to the call does not count.
func WithCallTimeout(d time.Duration) Option {
	return func(c *config) { c.callTimeout = d }
}

// WithHandshakeTimeout bounds the start-up when ConnectStdio's ctx has no
// earlier deadline (default DefaultHandshakeTimeout); d <= 0 leaves it to
// ctx alone.
func WithHandshakeTimeout(d time.Duration) Option {
	return func(c *config) { c.handshake = d }
}

// WithEnv adds KEY=VALUE entries to the server's environment: to this
// process's, or to the one WithEnviron sets.
func WithEnv(env []string) Option {
	return func(c *config) { c.env = append(c.env, env...) }
}

// WithEnviron sets the server's whole environment (nil or empty: none at
// all), instead of this process's: a server need not see the agent's
// credentials. WithEnv entries are added to it.
func WithEnviron(env []string) Option {
	return func(c *config) { c.environ, c.environSet = append([]string(nil), env...), true }
}

// WithClientInfo sets the name and version the client reports to the server.
func WithClientInfo(name, version string) Option {
	return func(c *config) { c.name, c.version = name, version }
}

// WithStderr copies the server's stderr to w (by default it is discarded,
// though its tail is kept for error messages). w must be safe for use from
// another goroutine.
func WithStderr(w io.Writer) Option {
	return func(c *config) { c.stderr = w }
}

// Client is a provider.Provider over one MCP server subprocess. It is safe for
// concurrent use.
type Client struct {
	mc     *client.Client
	cfg    config
	tail   *stderrtail.Buffer
	proc   *process
	base   context.Context // lives until Close; legacy elicitations run on it
	cancel context.CancelFunc

	mu       sync.Mutex
	inFlight map[*call]struct{}
	closed   bool
	reapOnce sync.Once
	exited   string // why the server is gone, once reaped; under mu
	broken   string // what the server wrote that is not JSON-RPC; under mu
}

var _ provider.Provider = (*Client)(nil)

// ConnectStdio starts command with args, performs the MCP handshake and
// returns the connected Client. ctx bounds the start-up only (and
// DefaultHandshakeTimeout, unless WithHandshakeTimeout says otherwise): the
// process lives until Close. A start-up that fails or runs out of time
// kills the process at once and returns.
func ConnectStdio(ctx context.Context, command string, args []string, opts ...Option) (*Client, error) {
	cfg := config{callTimeout: DefaultCallTimeout, handshake: DefaultHandshakeTimeout, name: "mcp-policy", version: "0.1.0"}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.handshake > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.handshake)
		defer cancel()
	}
	c := &Client{cfg: cfg, tail: &stderrtail.Buffer{Tee: cfg.stderr}, inFlight: map[*call]struct{}{}}
	env := os.Environ()
	if cfg.environSet {
		env = cfg.environ
	}
	proc, stdin, stdout, err := startProcess(command, args, append(append([]string{}, env...), cfg.env...), c.tail)
	if err != nil {
		return nil, fmt.Errorf("mcp server %s: start: %w", command, err)
	}
	c.proc = proc
	// Not derived from ctx: the process and legacy elicitations must outlive
	// the connect call, and an uncorrelated elicitation must not carry the
	// connect call's values.
	c.base, c.cancel = context.WithCancel(context.Background())
	// The transport reads the server's stdout through a check that each
	// line is JSON: anything else ends the connection at once, instead of
	// leaving every call to wait for its timeout.
	checked := &checkedStdout{r: bufio.NewReaderSize(stdout, 64<<10), onBad: c.brokeWith}
	tr := transport.NewIO(checked, stdin, nil)
	copts := []client.ClientOption{}
	if cfg.hook != nil {
		copts = append(copts, client.WithElicitationHandler(elicitHandler{c}))
		if cfg.urlElicit {
			copts = append(copts, client.WithClientCapabilities(mcp.ClientCapabilities{
				Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}}))
		}
	}
	if cfg.sampling != nil {
		copts = append(copts, client.WithSamplingHandler(samplingHandler{c}))
	}
	if cfg.roots != nil {
		copts = append(copts, client.WithRootsHandler(rootsHandler{cfg.roots}))
	}
	c.mc = client.NewClient(tr, copts...)
	fail := func(what string, err error) (*Client, error) {
		c.abort()
		if b := c.brokenWith(); b != "" {
			return nil, fmt.Errorf("mcp server %s: %s: %s", command, what, b)
		}
		return nil, fmt.Errorf("mcp server %s: %s: %w%s", command, what, err, c.tail.Suffix())
	}
	if err := c.mc.Start(c.base); err != nil {
		return fail("start", err)
	}
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: cfg.name, Version: cfg.version}
	if _, err := c.mc.Initialize(ctx, init); err != nil {
		return fail("initialize", err)
	}
	return c, nil
}

// abort ends a connection that never started: the process is killed, not
// asked to leave.
func (c *Client) abort() {
	c.cancel()
	if c.mc != nil {
		_ = c.mc.Close()
	}
	c.proc.kill()
	c.mu.Lock()
	c.closed = true
	c.exited = "mcp client closed"
	c.mu.Unlock()
}

// brokeWith notes a line the server wrote that is not JSON-RPC.
func (c *Client) brokeWith(line []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken == "" {
		c.broken = fmt.Sprintf("the server wrote something that is not JSON-RPC to stdout: %.200q", line)
	}
}

func (c *Client) brokenWith() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.broken
}

// ProtocolVersion is the MCP protocol version negotiated with the server.
func (c *Client) ProtocolVersion() string { return c.mc.ProtocolVersion() }

// Close shuts the server down (stdin EOF, then SIGTERM, then SIGKILL) and
// waits for it to exit. Calls still running get error results. Close is
// idempotent; a server that had already died is not reported again.
func (c *Client) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	// Cancel first: a legacy elicitation hook blocked on a human is released
	// rather than holding up the shutdown.
	c.cancel()
	var err error
	c.reapOnce.Do(func() {
		_ = c.mc.Close() // closes the server's stdin
		err = c.proc.stop()
		c.mu.Lock()
		c.exited = "mcp client closed"
		c.mu.Unlock()
	})
	// A shutdown we asked for: the exit status of a server killed by our own
	// signal is not an error of Close.
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		err = nil
	}
	return err
}

// ToolsForLLM lists the server's tools, following pagination cursors.
func (c *Client) ToolsForLLM(ctx context.Context) ([]provider.Tool, error) {
	if msg := c.gone(); msg != "" {
		return nil, errors.New(msg)
	}
	res, err := c.mc.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		if isGone(err) || c.brokenWith() != "" {
			return nil, errors.New(c.reap())
		}
		return nil, fmt.Errorf("mcp tools/list: %w", err)
	}
	tools := make([]provider.Tool, 0, len(res.Tools))
	for _, t := range res.Tools {
		pt, err := convertTool(t)
		if err != nil {
			return nil, err
		}
		tools = append(tools, pt)
	}
	return tools, nil
}

// convertTool turns an MCP tool into the chat-completion shape.
func convertTool(t mcp.Tool) (provider.Tool, error) {
	var params json.RawMessage
	var err error
	if t.RawInputSchema != nil {
		params = t.RawInputSchema
	} else if params, err = json.Marshal(t.InputSchema); err != nil {
		return provider.Tool{}, fmt.Errorf("mcp tool %s: input schema: %w", t.Name, err)
	}
	a := t.Annotations
	return provider.Tool{
		Type: "function",
		Function: provider.ToolFunction{
			Name:        t.Name,
			Description: t.Description,
			Parameters:  params,
		},
		Annotations: &provider.Annotations{
			ReadOnlyHint:    copyBool(a.ReadOnlyHint),
			DestructiveHint: copyBool(a.DestructiveHint),
			IdempotentHint:  copyBool(a.IdempotentHint),
			OpenWorldHint:   copyBool(a.OpenWorldHint),
		},
	}, nil
}

func copyBool(b *bool) *bool {
	if b == nil {
		return nil
	}
	v := *b
	return &v
}

// ExecuteToolCalls runs every call of the batch concurrently and returns one
// Result per call, in the callers' order. It never panics.
func (c *Client) ExecuteToolCalls(ctx context.Context, calls []provider.Call) []provider.Result {
	results := make([]provider.Result, len(calls))
	var wg sync.WaitGroup
	for i, cl := range calls {
		wg.Go(func() { results[i] = c.execute(ctx, cl) })
	}
	wg.Wait()
	return results
}

func (c *Client) execute(ctx context.Context, pc provider.Call) (res provider.Result) {
	name := pc.Function.Name
	defer func() {
		if r := recover(); r != nil {
			res = provider.ErrorResult(pc.ID, fmt.Sprintf("mcp tool call '%s' failed: internal error: %v", name, r))
		}
	}()
	args, err := provider.ObjectArguments(pc.Function.Arguments)
	if err != nil {
		return provider.ErrorResult(pc.ID, fmt.Sprintf("mcp tool call '%s' not sent: arguments %v", name, err))
	}
	if msg := c.gone(); msg != "" {
		return provider.ErrorResult(pc.ID, msg)
	}

	cl := c.begin(ctx, pc)
	defer c.end(cl)
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.RawArguments = args // forwarded as the model wrote it
	out, err := c.mc.CallTool(cl.ctx, req)
	if err != nil {
		return provider.ErrorResult(pc.ID, c.describe(name, cl, err))
	}
	res = provider.Result{Role: "tool", ToolCallID: pc.ID, Content: resultText(out), IsError: out.IsError}
	if raw, err := json.Marshal(out); err == nil {
		res.MCP = raw // every content block, as the server sent them
	}
	return res
}

// describe words a failed call for the model.
func (c *Client) describe(name string, cl *call, err error) string {
	switch {
	case errors.Is(context.Cause(cl.ctx), errCallTimeout):
		return fmt.Sprintf("mcp tool call '%s' timed out after %s", name, c.cfg.callTimeout)
	case cl.ctx.Err() != nil:
		return fmt.Sprintf("mcp tool call '%s' cancelled: %v", name, context.Cause(cl.ctx))
	case isGone(err) || c.brokenWith() != "":
		return fmt.Sprintf("mcp tool call '%s' failed: %s", name, c.reap())
	default:
		return fmt.Sprintf("mcp tool call '%s' failed: %v", name, err)
	}
}

// isGone reports an error that means the connection to the server is over:
// the transport saw EOF (server exited or closed stdout), or a write found the
// pipe closed before the reader noticed.
func isGone(err error) bool {
	return errors.Is(err, transport.ErrTransportClosed) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)
}

// reap closes the transport after the server went away — reaping the
// process, so its exit status can be reported, or stopping a server whose
// output broke — and returns the message every later call gets.
func (c *Client) reap() string {
	c.reapOnce.Do(func() {
		_ = c.mc.Close()
		broken := c.brokenWith()
		var err error
		if broken != "" {
			err = c.proc.terminate()
		} else {
			err = c.proc.stop()
		}
		msg := "mcp server exited"
		switch {
		case broken != "":
			msg = "mcp server stopped: " + broken
		case err != nil:
			msg += ": " + err.Error()
		}
		c.mu.Lock()
		c.exited = msg + c.tail.Suffix()
		c.mu.Unlock()
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exited
}

// gone returns why the client cannot call the server any more, or "".
func (c *Client) gone() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return "mcp client closed"
	}
	return c.exited
}
