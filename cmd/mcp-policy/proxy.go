package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-policy/mcp-policy/decisionlog"
	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
	"github.com/mcp-policy/mcp-policy/internal/managed"
	"github.com/mcp-policy/mcp-policy/internal/notify"
	"github.com/mcp-policy/mcp-policy/internal/proxy"
)

// proxyFlags are mcp-policy proxy's flags as given.
type proxyFlags struct {
	fset       *flag.FlagSet
	policy     cliconfig.Flags
	logFile    string
	logArgs    string
	ask        string
	askTimeout time.Duration
	askWait    time.Duration
	listDenied bool
	serverURL  string
	headers    []string
	maxLine    int
	notify     []string
	command    []string // the server to run, after --
}

// parseProxyFlags reads the flags, and checks what can be checked without
// opening anything.
func parseProxyFlags(args []string, stderr io.Writer) (f *proxyFlags, code int, err error) {
	f = &proxyFlags{fset: flag.NewFlagSet("proxy", flag.ContinueOnError)}
	fset := f.fset
	fset.SetOutput(stderr)
	f.policy.Register(fset)
	f.policy.RegisterGrantRecord(fset)
	fset.StringVar(&f.logFile, "log", "", "write one JSON line per decision to FILE (- for stderr)")
	fset.StringVar(&f.logArgs, "log-arguments", "masked", "masked: leave out argument values that may hold file contents; full: keep them")
	fset.StringVar(&f.ask, "ask", proxy.AskElicitApprovals, "where questions go: elicit (the human, through the host), approvals (the page of mcp-policy approvals, beside --grants), "+
		"elicit,approvals (the host when it can elicit, else approvals), refuse (refuse what needs asking)")
	fset.DurationVar(&f.askTimeout, "ask-timeout", 10*time.Minute, "how long a question waits for an answer, the host's (by elicitation or in an input-required round) or an approver's")
	fset.BoolVar(&f.listDenied, "list-denied", false, "keep in tools/list the tools a rule or grant denies outright (left out by default: every call of them is refused)")
	fset.DurationVar(&f.askWait, "ask-wait", 0, "how long a call is held for an approver before the host is told to make it again once it is answered (for hosts that give up on a call sooner than --ask-timeout); 0: held until --ask-timeout")
	fset.StringVar(&f.serverURL, "url", "", "a remote MCP server over streamable HTTP, instead of COMMAND")
	fset.Var(stringList{&f.headers}, "header", "'Name: value': an HTTP header for --url (repeatable)")
	fset.Var(stringList{&f.notify}, "notify", "a webhook told of each question waiting for an approver, and of its end: slack:URL, ntfy:URL, json:URL or a URL (repeatable)")
	fset.IntVar(&f.maxLine, "max-line", proxy.DefaultMaxLine, "the longest message, in bytes, read from the host or the server; a longer one is dropped, and the request it is or answers fails")
	fset.Usage = func() { fmt.Fprint(stderr, usage, "\nflags:\n"); fset.PrintDefaults() }
	if code, ok := parsed(fset.Parse(args)); !ok {
		return nil, code, nil
	}
	f.command = fset.Args()
	switch {
	case f.serverURL == "" && len(f.command) == 0:
		return nil, exitUsage, errors.New("give the server to run after --, or --url")
	case f.serverURL != "" && len(f.command) > 0:
		return nil, exitUsage, errors.New("give either a server to run or --url, not both")
	case f.serverURL == "" && len(f.headers) > 0:
		return nil, exitUsage, errors.New("--header is for --url")
	case f.logArgs != "masked" && f.logArgs != "full":
		return nil, exitUsage, fmt.Errorf("--log-arguments %q: want masked or full", f.logArgs)
	case f.askTimeout <= 0:
		return nil, exitUsage, errors.New("--ask-timeout must be positive")
	case f.askWait < 0:
		return nil, exitUsage, errors.New("--ask-wait must not be negative")
	case f.maxLine < 1<<20:
		return nil, exitUsage, fmt.Errorf("--max-line %d: at least 1048576 (1 MiB): less would refuse ordinary messages", f.maxLine)
	case f.maxLine > proxy.MaxMaxLine:
		return nil, exitUsage, fmt.Errorf("--max-line %d: at most %d (1 GiB)", f.maxLine, proxy.MaxMaxLine)
	}
	if err := proxy.ParseAsk(f.ask); err != nil {
		return nil, exitUsage, err
	}
	return f, exitOK, nil
}

// proxyCommand runs mcp-policy proxy: everything is read and checked, then
// the server is started and the proxy relays until the host or the server
// goes.
func proxyCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	usage := failer(stderr, "proxy")
	fail := func(format string, a ...any) int { return usage(exitUsage, format, a...) }
	f, code, err := parseProxyFlags(args, stderr)
	if err != nil {
		return fail("%v", err)
	} else if f == nil {
		return code
	}
	cfg, err := f.config()
	if err != nil {
		return fail("%v", err)
	}
	store, err := cfg.OpenGrants()
	if err != nil {
		return fail("%v", err)
	}
	pins, err := cfg.OpenPins()
	if err != nil {
		return fail("%v", err)
	}
	defer pins.Close()
	queue, closeQueue, err := cfg.OpenQueue(store)
	if err != nil {
		return fail("%v", err)
	}
	defer closeQueue()
	if queue == nil && given(f.fset, "ask") && strings.Contains(f.ask, proxy.AskApprovals) {
		return fail("--ask %s needs --grants (a file or a postgres:// URL): questions wait for an approver where the grants are", f.ask)
	}
	var targets []notify.Target
	for _, s := range f.notify {
		t, err := notify.ParseTarget(s)
		if err != nil {
			return fail("%v", err)
		}
		targets = append(targets, t)
	}
	switch {
	case len(targets) > 0 && queue == nil:
		return fail("--notify needs --grants (a file or a postgres:// URL): it tells of the questions waiting for an approver there")
	case len(targets) > 0 && !strings.Contains(f.ask, proxy.AskApprovals):
		return fail("--notify with --ask %s: no question waits for an approver, so none would be told", f.ask)
	}
	logOpts := decisionlog.Options{FullArguments: f.logArgs == "full"}
	say := func(line string) { fmt.Fprintf(stderr, "mcp-policy proxy: %s\n", line) }
	tel, stopTelemetry, err := cliconfig.StartTelemetry("mcp-policy", say)
	if err != nil {
		return fail("%v", err)
	}
	defer stopTelemetry()
	live, err := managed.Start(context.Background(), cfg, true, say, stderr, logOpts, cliconfig.Activations(tel))
	if err != nil {
		return fail("%v", err)
	}
	defer func() {
		// The decisions OPA's plugin still holds go up before the proxy exits.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		live.Stop(ctx)
	}()
	var notifier *notify.Notifier
	if len(targets) > 0 {
		notifier = notify.New(targets, say)
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			notifier.Close(ctx)
		}()
	}
	opt := proxy.Options{Notify: notifier, Config: cfg, Grants: store, Ask: f.ask, Approvals: queue, Server: f.serverText(), AskTimeout: f.askTimeout, AskWait: f.askWait, ListDenied: f.listDenied,
		Stderr: stderr, Source: live.Source(), Decisions: live.Decisions(), MaxLine: f.maxLine, Telemetry: tel, Pins: pins, PinServer: f.pinServer()}
	if tel != nil && store != nil {
		if err := tel.GrantsInForce(cliconfig.GrantsInForce(store)); err != nil {
			return fail("telemetry: %v", err)
		}
	}
	if f.logFile != "" {
		l, err := openLog(f.logFile, logOpts)
		if err != nil {
			return fail("--log: %v", err)
		}
		defer l.Close()
		opt.Log = l
	}
	p, err := proxy.New(opt, stdout)
	if err != nil {
		return fail("%v", err)
	}
	if own := ownFlagsAfter(f.fset, f.command); len(own) > 0 {
		say(fmt.Sprintf("warning: after the server's command, %s go to the server, not to mcp-policy; put mcp-policy's flags before --", strings.Join(own, ", ")))
	}
	say(proxy.StartupLine(cfg, live, store, f.logFile, f.ask, queue))
	defer live.ReloadOnSignal(say)()
	code = f.run(p, stdin, stdout, stderr)
	if err := store.Close(); err != nil {
		say(err.Error())
		if code == exitOK {
			code = exitFailure
		}
	}
	return code
}

// config loads the policy flags, and settles what depends on where the
// server runs: "~" and links are read as this machine has them for a
// server the proxy starts, and left unknown for one at --url.
func (f *proxyFlags) config() (*cliconfig.Config, error) {
	cfg, err := f.policy.Load()
	if err != nil {
		return nil, err
	}
	if err := cfg.CheckRootDirs(); err != nil {
		return nil, err
	}
	if f.logFile, err = cliconfig.ExpandPath("--log", f.logFile); err != nil {
		return nil, err
	}
	cfg.Protected = append(cfg.Protected, proxy.OwnFiles(f.logFile)...)
	local := "" // a server on another machine: its home cannot be told
	if f.serverURL == "" {
		// The server this proxy starts runs as this user, with this
		// environment: "~" is $HOME to it.
		if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) && filepath.Clean(h) != "/" {
			local = filepath.Clean(h)
		}
	}
	cfg.Home = cfg.HomeFor(local)
	cfg.ResolveLinks = cfg.LinksFor(f.serverURL == "")
	return cfg, nil
}

// serverText names the server, for the questions and the log.
func (f *proxyFlags) serverText() string {
	if f.serverURL != "" {
		return f.serverURL
	}
	return strings.Join(f.command, " ")
}

// pinServer is the server as its tool pins name it: its URL, or its
// command line with each word quoted (so ["a b", "c"] and ["a", "b c"]
// are two servers).
func (f *proxyFlags) pinServer() string {
	if f.serverURL != "" {
		return f.serverURL
	}
	words := make([]string, len(f.command))
	for i, w := range f.command {
		words[i] = strconv.Quote(w)
	}
	return strings.Join(words, " ")
}

// run starts the server, everything else checked, and relays until the
// host or the server goes. A server that does not start is told to the
// host too, which would otherwise see only a closed pipe.
func (f *proxyFlags) run(p *proxy.Proxy, stdin io.Reader, stdout, stderr io.Writer) int {
	fail := failer(stderr, "proxy")
	var server proxy.Server
	var err error
	if f.serverURL != "" {
		if server, err = proxy.DialServer(f.serverURL, f.headers, f.maxLine); err != nil {
			return fail(exitUsage, "--url: %v", err)
		}
	} else if server, err = proxy.StartServer(f.command[0], f.command[1:], stderr, f.maxLine); err != nil {
		code := exitFailure
		switch {
		case errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist):
			code = exitNotFound
		case errors.Is(err, fs.ErrPermission):
			code = exitNoExec
		}
		why := fmt.Sprintf("the MCP server %s did not start: %v", f.command[0], err)
		fail(code, "%s", why) // said before the host is waited for
		proxy.TellHost(stdin, stdout, why)
		return code
	}
	for _, f := range []any{stdin, stdout} {
		if f, ok := f.(*os.File); ok {
			proxy.GrowPipe(f) // the host's pipes, when they are pipes
		}
	}
	return p.Run(server, stdin, signals())
}

// signals delivers the number of a signal that ends the proxy. SIGPIPE is
// caught too, so that a host gone makes writes fail instead of killing the
// proxy before it stops the server.
func signals() <-chan int {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, stopSignals...)
	out := make(chan int, 1)
	go func() {
		for s := range ch {
			if n, ok := s.(syscall.Signal); ok && !isPipe(n) {
				out <- int(n)
				return
			}
		}
	}()
	return out
}

// openLog opens the decision log, making its directory (mode 0700) if it
// does not exist yet, as the grants store does for its file.
func openLog(file string, o decisionlog.Options) (*decisionlog.Logger, error) {
	if file != "-" {
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			return nil, err
		}
	}
	return decisionlog.Open(file, o)
}

// ownFlagsAfter are the arguments after the server's command that look
// like the proxy's own flags: written after --, they go to the server.
func ownFlagsAfter(fset *flag.FlagSet, command []string) []string {
	if len(command) < 2 {
		return nil
	}
	var out []string
	for _, a := range command[1:] {
		name, ok := strings.CutPrefix(a, "--")
		if !ok {
			name, ok = strings.CutPrefix(a, "-")
		}
		name, _, _ = strings.Cut(name, "=")
		if ok && name != "" && fset.Lookup(name) != nil && !slices.Contains(out, "--"+name) {
			out = append(out, "--"+name)
		}
	}
	return out
}
