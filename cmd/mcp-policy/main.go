// Command mcp-policy puts mcp-policy's per-directory permissions in front
// of any MCP server, for any MCP host.
//
//	mcp-policy proxy [--rules FILE] [--policy PATH]... [--no-default-rules] [--root KEY=DIR]...
//	                 [--grants FILE] [--log FILE] [--log-arguments masked|full]
//	                 [--ask elicit|refuse] [--ask-timeout D] -- COMMAND [ARGS...]
//	mcp-policy proxy [flags] --url https://host/mcp [--header 'Name: value']...
//
// The proxy is an MCP server on stdio to the host and a client of the
// server it runs (or reaches at --url); internal/proxy is the proxy, this
// command parses its flags and starts it.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-policy/mcp-policy/decisionlog"
	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
	"github.com/mcp-policy/mcp-policy/internal/proxy"
)

const usage = `usage:
  mcp-policy proxy [--rules FILE] [--policy PATH]... [--no-default-rules] [--root KEY=DIR]...
                   [--grants FILE] [--log FILE|-] [--log-arguments masked|full]
                   [--ask elicit|refuse] [--ask-timeout DURATION] -- COMMAND [ARGS...]
  mcp-policy proxy [flags] --url https://host/mcp [--header 'Name: value']...
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
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "mcp-policy: unknown command %q\n%s", args[0], usage)
		return exitUsage
	}
}

type headers []string

func (h *headers) String() string     { return strings.Join(*h, ", ") }
func (h *headers) Set(v string) error { *h = append(*h, v); return nil }

func proxyCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fset.SetOutput(stderr)
	var pf cliconfig.Flags
	pf.Register(fset)
	logFile := fset.String("log", "", "write one JSON line per decision to FILE (- for stderr)")
	logArgs := fset.String("log-arguments", "masked", "masked: leave out argument values that may hold file contents; full: keep them")
	ask := fset.String("ask", proxy.AskElicit, "elicit: ask the human through the host; refuse: refuse what needs asking")
	askTimeout := fset.Duration("ask-timeout", 10*time.Minute, "how long a question waits for the host's answer in a 2026-07-28 input-required round")
	serverURL := fset.String("url", "", "a remote MCP server over streamable HTTP, instead of COMMAND")
	var hdrs headers
	fset.Var(&hdrs, "header", "'Name: value': an HTTP header for --url (repeatable)")
	fset.Usage = func() { fmt.Fprint(stderr, usage); fset.PrintDefaults() }
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "mcp-policy proxy: "+format+"\n", a...)
		return exitUsage
	}
	command := fset.Args()
	switch {
	case *serverURL == "" && len(command) == 0:
		return fail("give the server to run after --, or --url")
	case *serverURL != "" && len(command) > 0:
		return fail("give either a server to run or --url, not both")
	case *serverURL == "" && len(hdrs) > 0:
		return fail("--header is for --url")
	}
	if *ask != proxy.AskElicit && *ask != proxy.AskRefuse {
		return fail("--ask %q: want elicit or refuse", *ask)
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
	cfg.Protected = append(cfg.Protected, ownFiles(*logFile)...)
	store, err := cfg.OpenGrants()
	if err != nil {
		return fail("%v", err)
	}
	opt := proxy.Options{Config: cfg, Grants: store, Ask: *ask, AskTimeout: *askTimeout, Stderr: stderr}
	if *logFile != "" {
		l, err := decisionlog.Open(*logFile, decisionlog.Options{FullArguments: *logArgs == "full"})
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
		if abs, err := filepath.Abs(logFile); err == nil {
			out = append(out, abs)
		}
	}
	return out
}
