// Command mcp-policy puts mcp-policy's per-directory permissions in front
// of any MCP server, for any MCP host.
//
//	mcp-policy proxy [--rules FILE] [--policy PATH]... [--no-default-rules] [--root KEY=DIR]... [--home DIR|none] [--links resolve|lexical]
//	                 [--config FILE] [--grants FILE] [--log FILE] [--log-arguments masked|full]
//	                 [--arguments NAME|FILE]... [--timeout D]
//	                 [--ask elicit|approvals|elicit,approvals|refuse] [--ask-timeout D] -- COMMAND [ARGS...]
//	mcp-policy proxy [flags] --url https://host/mcp [--header 'Name: value']...
//	mcp-policy approvals --grants FILE [--listen ADDR]
//	mcp-policy approve --grants FILE [list | show ID | allow|deny|always-allow|always-deny ID]
//	mcp-policy version
//
// The proxy is an MCP server on stdio to the host and a client of the
// server it runs (or reaches at --url); internal/proxy is the proxy, this
// command parses its flags and starts it. approvals and approve answer the
// questions proxies sharing a grants file hold for an approver
// (internal/approvals).
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
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-policy/mcp-policy/decisionlog"
	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/grants/pgstore"
	"github.com/mcp-policy/mcp-policy/internal/approvals"
	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
	"github.com/mcp-policy/mcp-policy/internal/managed"
	"github.com/mcp-policy/mcp-policy/internal/proxy"
)

const usage = `usage:
  mcp-policy proxy [--rules FILE] [--policy PATH]... [--no-default-rules] [--root KEY=DIR]... [--home DIR|none] [--links resolve|lexical]
                   [--config FILE] [--grants FILE|URL] [--label KEY=VALUE]... [--grant-ttl DURATION]
                   [--log FILE|-] [--log-arguments masked|full]
                   [--arguments NAME|FILE]... [--timeout DURATION]
                   [--ask elicit|approvals|elicit,approvals|refuse] [--ask-timeout DURATION]
                   -- COMMAND [ARGS...]
  mcp-policy proxy [flags] --url https://host/mcp [--header 'Name: value']...
  mcp-policy approvals --grants FILE [--listen ADDR]
  mcp-policy approve --grants FILE [list | show ID | allow|deny|always-allow|always-deny ID]
  mcp-policy grants list|show|revoke|add|prune --grants FILE|URL ...
  mcp-policy version

The proxy's flags go before --; everything after the server's COMMAND is
the server's. --root KEY=DIR: relative paths of the tools named KEY or
KEY_* resolve against DIR (KEY is a tool-name prefix, or * for every tool).
--home DIR: what "~" in a call names (default: $HOME for the server it
starts, unknown for --url; none: unknown). --links resolve|lexical:
whether paths are also read through the file system's symbolic links
(default: resolve for the server it starts, lexical for --url).
Paths may start with ~ or $HOME (hosts run no shell to expand them).
--config FILE is an OPA configuration: rules from its bundles, decisions
to its decision-log service (docs/fleet.md). Without bundles, the --rules
and --policy files are read again when they change, and on SIGHUP.
"mcp-policy proxy --help" says what each flag means.
`

// Exit statuses of the proxy's own (otherwise it exits with the server's).
const (
	exitOK       = 0
	exitFailure  = 1
	exitUsage    = 2
	exitNoExec   = 126
	exitNotFound = 127
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "proxy":
		return proxyCommand(args[1:], stdin, stdout, stderr)
	case "approvals":
		return approvalsCommand(args[1:], stdin, stdout, stderr, signals())
	case "approve":
		return approveCommand(args[1:], stdout, stderr)
	case "grants":
		return grantsCommand(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, versionLine())
		return exitOK
	default:
		fmt.Fprintf(stderr, "mcp-policy: unknown command %q\n%s", args[0], usage)
		return exitUsage
	}
}

// stringList is a flag that may be given many times.
type stringList struct{ list *[]string }

func (s stringList) String() string {
	if s.list == nil {
		return ""
	}
	return strings.Join(*s.list, ", ")
}
func (s stringList) Set(v string) error { *s.list = append(*s.list, v); return nil }

func proxyCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fset.SetOutput(stderr)
	var pf cliconfig.Flags
	pf.Register(fset)
	pf.RegisterGrantRecord(fset)
	logFile := fset.String("log", "", "write one JSON line per decision to FILE (- for stderr)")
	logArgs := fset.String("log-arguments", "masked", "masked: leave out argument values that may hold file contents; full: keep them")
	ask := fset.String("ask", proxy.AskElicitApprovals, "where questions go: elicit (the human, through the host), approvals (the page of mcp-policy approvals, beside --grants), "+
		"elicit,approvals (the host when it can elicit, else approvals), refuse (refuse what needs asking)")
	askTimeout := fset.Duration("ask-timeout", 10*time.Minute, "how long a question waits for an answer, the host's (by elicitation or in an input-required round) or an approver's")
	serverURL := fset.String("url", "", "a remote MCP server over streamable HTTP, instead of COMMAND")
	var hdrs []string
	fset.Var(stringList{&hdrs}, "header", "'Name: value': an HTTP header for --url (repeatable)")
	fset.Usage = func() { fmt.Fprint(stderr, usage, "\nflags:\n"); fset.PrintDefaults() }
	if code, ok := parsed(fset.Parse(args)); !ok {
		return code
	}
	usage := failer(stderr, "proxy")
	fail := func(format string, a ...any) int { return usage(exitUsage, format, a...) }
	command := fset.Args()
	switch {
	case *serverURL == "" && len(command) == 0:
		return fail("give the server to run after --, or --url")
	case *serverURL != "" && len(command) > 0:
		return fail("give either a server to run or --url, not both")
	case *serverURL == "" && len(hdrs) > 0:
		return fail("--header is for --url")
	}
	if err := proxy.ParseAsk(*ask); err != nil {
		return fail("%v", err)
	}
	if *logArgs != "masked" && *logArgs != "full" {
		return fail("--log-arguments %q: want masked or full", *logArgs)
	}
	if *askTimeout <= 0 {
		return fail("--ask-timeout must be positive")
	}
	cfg, err := pf.Load()
	if err != nil {
		return fail("%v", err)
	}
	if err := cfg.CheckRootDirs(); err != nil {
		return fail("%v", err)
	}
	logPath, err := cliconfig.ExpandPath("--log", *logFile)
	if err != nil {
		return fail("%v", err)
	}
	cfg.Protected = append(cfg.Protected, ownFiles(logPath)...)
	store, err := cfg.OpenGrants()
	if err != nil {
		return fail("%v", err)
	}
	var queue approvals.Queue
	switch {
	case cliconfig.IsPostgres(cfg.GrantsFile):
		pq, err := openPostgresQueue(cfg.GrantsFile)
		if err != nil {
			return fail("%v", err)
		}
		defer pq.Close()
		queue = pq
	case store.File() != "":
		fq, err := approvals.Open(store.File())
		if err != nil {
			return fail("%v", err)
		}
		// Whoever can write an answer there approves calls.
		cfg.Protected = append(cfg.Protected, fq.Dir())
		queue = fq
	case given(fset, "ask") && strings.Contains(*ask, proxy.AskApprovals):
		return fail("--ask %s needs --grants (a file or a postgres:// URL): questions wait for an approver where the grants are", *ask)
	}
	serverText := *serverURL
	local := "" // a server on another machine: its home cannot be told
	if serverText == "" {
		serverText = strings.Join(command, " ")
		// The server this proxy starts runs as this user, with this
		// environment: "~" is $HOME to it.
		if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) && filepath.Clean(h) != "/" {
			local = filepath.Clean(h)
		}
	}
	cfg.Home = cfg.HomeFor(local)
	cfg.ResolveLinks = cfg.LinksFor(*serverURL == "")
	logOpts := decisionlog.Options{FullArguments: *logArgs == "full"}
	say := func(line string) { fmt.Fprintf(stderr, "mcp-policy proxy: %s\n", line) }
	live, err := managed.Start(context.Background(), cfg, true, say, stderr, logOpts)
	if err != nil {
		return fail("%v", err)
	}
	defer func() {
		// The decisions OPA's plugin still holds go up before the proxy exits.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		live.Stop(ctx)
	}()
	opt := proxy.Options{Config: cfg, Grants: store, Ask: *ask, Approvals: queue, Server: serverText, AskTimeout: *askTimeout, Stderr: stderr,
		Source: live.Source(), Decisions: live.Decisions()}
	if logPath != "" {
		l, err := openLog(logPath, logOpts)
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
	if len(command) > 0 {
		if own := ownFlagsAfter(fset, command); len(own) > 0 {
			fmt.Fprintf(stderr, "mcp-policy proxy: warning: after the server's command, %s go to the server, not to mcp-policy; put mcp-policy's flags before --\n",
				strings.Join(own, ", "))
		}
	}
	fmt.Fprintf(stderr, "mcp-policy proxy: %s; questions: %s\n", inForce(cfg, live, store, logPath), questionsGo(*ask, queue))
	stopReload := reloadOnSignal(live, say)
	defer stopReload()

	// Everything checked: only now is the server started.
	var server proxy.Server
	if *serverURL != "" {
		server, err = proxy.DialServer(*serverURL, hdrs)
		if err != nil {
			return fail("--url: %v", err)
		}
	} else {
		server, err = proxy.StartServer(command[0], command[1:], stderr)
		if err != nil {
			why := fmt.Sprintf("the MCP server %s did not start: %v", command[0], err)
			fmt.Fprintf(stderr, "mcp-policy proxy: %s\n", why)
			proxy.TellHost(stdin, stdout, why)
			if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
				return exitNotFound
			}
			if errors.Is(err, fs.ErrPermission) {
				return exitNoExec
			}
			return exitFailure
		}
	}
	for _, f := range []any{stdin, stdout} {
		if f, ok := f.(*os.File); ok {
			proxy.GrowPipe(f) // the host's pipes, when they are pipes
		}
	}
	code := p.Run(server, stdin, signals())
	if err := store.Close(); err != nil {
		fmt.Fprintf(stderr, "mcp-policy proxy: %v\n", err)
		if code == exitOK {
			code = exitFailure
		}
	}
	return code
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

// reloadOnSignal reads the rule files again on each SIGHUP, until the
// returned function is called.
func reloadOnSignal(live *managed.Managed, say func(string)) (stop func()) {
	if len(reloadSignals) == 0 {
		return func() {}
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, reloadSignals...)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-ch:
				switch {
				case live.Files != nil:
					live.Files.Reload()
				case live.Plane != nil && live.Plane.HasBundles():
					say("SIGHUP: the rules come from the bundles of --config, which OPA polls; nothing to reload")
				default:
					say("SIGHUP: no --rules or --policy files to reload")
				}
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// ownFiles are the proxy's files beyond its rules and grants, which the
// floor guards too: its own program, by the name the host started it by and
// the file that is (an agent that could replace it would be the policy
// next time), and the decision log (an agent could erase what it did).
func ownFiles(logFile string) []string {
	var out []string
	if exe, err := os.Executable(); err == nil {
		out = append(out, exe)
	}
	if filepath.IsAbs(os.Args[0]) {
		out = append(out, os.Args[0])
	}
	if logFile != "" && logFile != "-" {
		out = append(out, absPath(logFile))
	}
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

// inForce is the start-up line: the rules, grants, log and roots the
// proxy runs with.
func inForce(cfg *cliconfig.Config, live *managed.Managed, store *grants.Store, logFile string) string {
	var rules []string
	if cfg.Defaults {
		rules = append(rules, "default")
	}
	if cfg.RulesFile != "" {
		rules = append(rules, absPath(cfg.RulesFile))
	}
	for _, p := range cfg.PolicyPaths {
		rules = append(rules, absPath(p))
	}
	switch {
	case live.Plane != nil && live.Plane.HasBundles():
		rules = append(rules, "the bundles of "+absPath(cfg.OPAConfigFile)+" (every call refused until they are active)")
	case live.Files != nil:
		rules[len(rules)-1] += " (watched)"
	}
	if len(rules) == 0 {
		rules = append(rules, "none")
	}
	grantsText := "in memory until the proxy exits (no --grants)"
	if f := store.File(); f != "" {
		grantsText = fmt.Sprintf("%s (%d held)", f, len(store.List()))
	} else if cliconfig.IsPostgres(cfg.GrantsFile) {
		grantsText = fmt.Sprintf("%s (%d held)", pgstore.Redact(cfg.GrantsFile), len(store.List()))
	}
	if cfg.GrantTTL > 0 {
		grantsText += fmt.Sprintf(", each for %v", cfg.GrantTTL)
	}
	logText := "none"
	switch logFile {
	case "":
	case "-":
		logText = "stderr"
	default:
		logText = absPath(logFile)
	}
	if live.Decisions() != nil {
		logText += " + OPA decision logs (" + absPath(cfg.OPAConfigFile) + ")"
	}
	rootsText := "the host's"
	if len(cfg.Roots) > 0 {
		keys := make([]string, 0, len(cfg.Roots))
		for k := range cfg.Roots {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			keys[i] = k + "=" + cfg.Roots[k]
		}
		rootsText = strings.Join(keys, ", ")
	}
	homeText := cfg.Home
	if homeText == "" {
		homeText = "unknown"
	}
	linksText := "as written"
	if cfg.ResolveLinks {
		linksText = "resolved"
	}
	return fmt.Sprintf("rules: %s; grants: %s; log: %s; roots: %s; home: %s; links: %s", strings.Join(rules, " + "), grantsText, logText, rootsText, homeText, linksText)
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// versionLine is the module's version as the build recorded it
// ("(devel)" for a build from a checkout without one) and Go's.
func versionLine() string {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	return fmt.Sprintf("mcp-policy %s %s", v, runtime.Version())
}

// given says the flag was on the command line, not left at its default.
func given(fset *flag.FlagSet, name string) bool {
	found := false
	fset.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// questionsGo says where the proxy's questions go, for the start-up line.
func questionsGo(ask string, queue approvals.Queue) string {
	switch {
	case ask == proxy.AskRefuse:
		return "refused (--ask refuse)"
	case queue == nil && ask == proxy.AskElicit:
		return "to the host (refused if it cannot elicit)"
	case queue == nil:
		return "to the host (refused if it cannot elicit; give --grants FILE to approve with `mcp-policy approvals` instead)"
	case ask == proxy.AskApprovals:
		return "to `mcp-policy approvals` (--ask approvals)"
	case ask == proxy.AskElicit:
		return "to the host (refused if it cannot elicit)"
	default:
		return "to the host, or to `mcp-policy approvals` if it cannot elicit"
	}
}
