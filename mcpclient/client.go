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
// decline instead.
package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-policy/mcp-policy/provider"
)

// DefaultCallTimeout bounds one tool call unless WithCallTimeout says otherwise.
const DefaultCallTimeout = 60 * time.Second

// Option configures ConnectStdio.
type Option func(*config)

type config struct {
	hook        provider.ElicitFunc
	callTimeout time.Duration
	env         []string
	name        string
	version     string
	stderr      io.Writer
}

// WithElicitHook answers the server's elicitations. Only with a hook does the
// client declare the elicitation capability, so a server without it knows it
// cannot ask.
func WithElicitHook(f provider.ElicitFunc) Option {
	return func(c *config) { c.hook = f }
}

// WithCallTimeout bounds each tool call (default DefaultCallTimeout); d <= 0
// leaves calls bounded only by the caller's ctx. Time spent in the elicitation
// hook on a question attributed to the call does not count.
func WithCallTimeout(d time.Duration) Option {
	return func(c *config) { c.callTimeout = d }
}

// WithEnv adds KEY=VALUE entries to the server's environment, which otherwise
// is this process's.
func WithEnv(env []string) Option {
	return func(c *config) { c.env = append(c.env, env...) }
}

// WithClientInfo sets the name and version the client reports to the server.
func WithClientInfo(name, version string) Option {
	return func(c *config) { c.name, c.version = name, version }
}

// WithStderr copies the server's stderr to w (by default it is discarded,
// though its tail is kept for error messages). w must be safe for use from
// another goroutine; writes that would block are dropped rather than stall
// the server.
func WithStderr(w io.Writer) Option {
	return func(c *config) { c.stderr = w }
}

// Client is a provider.Provider over one MCP server subprocess. It is safe for
// concurrent use.
type Client struct {
	mc     *client.Client
	cfg    config
	tail   *tailBuffer
	base   context.Context // lives until Close; legacy elicitations run on it
	cancel context.CancelFunc

	mu       sync.Mutex
	inFlight map[*call]struct{}
	closed   bool

	reapOnce sync.Once
	exited   string // why the server is gone, once reaped; under mu
}

var _ provider.Provider = (*Client)(nil)

// ConnectStdio starts command with args, performs the MCP handshake and
// returns the connected Client. ctx bounds the start-up only: the process
// lives until Close.
func ConnectStdio(ctx context.Context, command string, args []string, opts ...Option) (*Client, error) {
	cfg := config{callTimeout: DefaultCallTimeout, name: "mcp-policy", version: "0.1.0"}
	for _, o := range opts {
		o(&cfg)
	}
	c := &Client{cfg: cfg, tail: &tailBuffer{tee: cfg.stderr}, inFlight: map[*call]struct{}{}}
	// Not derived from ctx: the process and legacy elicitations must outlive
	// the connect call, and an uncorrelated elicitation must not carry the
	// connect call's values.
	c.base, c.cancel = context.WithCancel(context.Background())

	tr := transport.NewStdioWithOptions(command, cfg.env, args,
		// exec.Command, not CommandContext: the transport's Close shuts the
		// process down gracefully (stdin EOF, SIGTERM, SIGKILL); a context
		// kill would skip the first two.
		transport.WithCommandFunc(func(_ context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd := exec.Command(command, args...)
			cmd.Env = append(os.Environ(), env...)
			return cmd, nil
		}),
		transport.WithCommandStderrWriter(c.tail),
	)
	var copts []client.ClientOption
	if cfg.hook != nil {
		copts = append(copts, client.WithElicitationHandler(elicitHandler{c}))
	}
	c.mc = client.NewClient(tr, copts...)

	if err := c.mc.Start(c.base); err != nil {
		c.cancel()
		return nil, fmt.Errorf("mcp server %s: start: %w", command, err)
	}
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: cfg.name, Version: cfg.version}
	if _, err := c.mc.Initialize(ctx, init); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("mcp server %s: initialize: %w%s", command, err, c.tail.suffix())
	}
	return c, nil
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
		err = c.mc.Close()
		c.mu.Lock()
		c.exited = "mcp client closed"
		c.mu.Unlock()
	})
	// A shutdown we asked for: the exit status of a server killed by our own
	// SIGTERM is not an error of Close.
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
		if isGone(err) {
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
	args, err := objectArguments(pc.Function.Arguments)
	if err != nil {
		return provider.ErrorResult(pc.ID, fmt.Sprintf("mcp tool call '%s' not sent: arguments %v", name, err))
	}
	if msg := c.gone(); msg != "" {
		return provider.ErrorResult(pc.ID, msg)
	}

	cl := c.begin(ctx)
	defer c.end(cl)
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.RawArguments = args // forwarded as the model wrote it
	out, err := c.mc.CallTool(cl.ctx, req)
	if err != nil {
		return provider.ErrorResult(pc.ID, c.describe(name, cl, err))
	}
	return provider.Result{Role: "tool", ToolCallID: pc.ID, Content: resultText(out), IsError: out.IsError}
}

// objectArguments checks that the arguments text is one JSON object; empty
// text means no arguments.
func objectArguments(text string) (json.RawMessage, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return json.RawMessage("{}"), nil
	}
	if !json.Valid([]byte(t)) {
		return nil, errors.New("are not valid JSON")
	}
	if t[0] != '{' {
		return nil, errors.New("must be a JSON object")
	}
	return json.RawMessage(t), nil
}

// describe words a failed call for the model.
func (c *Client) describe(name string, cl *call, err error) string {
	switch {
	case errors.Is(context.Cause(cl.ctx), errCallTimeout):
		return fmt.Sprintf("mcp tool call '%s' timed out after %s", name, c.cfg.callTimeout)
	case cl.ctx.Err() != nil:
		return fmt.Sprintf("mcp tool call '%s' cancelled: %v", name, context.Cause(cl.ctx))
	case isGone(err):
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

// reap closes the transport after the server went away — reaping the process,
// so its exit status can be reported — and returns the message every later
// call gets.
func (c *Client) reap() string {
	c.reapOnce.Do(func() {
		err := c.mc.Close()
		msg := "mcp server exited"
		if err != nil {
			msg += ": " + err.Error()
		}
		c.mu.Lock()
		c.exited = msg + c.tail.suffix()
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
