package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/approvals"
	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
)

// openQueue reads --grants for approvals and approve: the grants store
// and the queue beside it.
func openQueue(file string) (*grants.Store, *approvals.Queue, error) {
	path, err := cliconfig.ExpandPath("--grants", file)
	if err != nil {
		return nil, nil, err
	}
	if path == "" {
		return nil, nil, errors.New("give --grants FILE: the grants file the proxies were started with (their questions wait beside it)")
	}
	store, err := grants.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--grants: %w", err)
	}
	queue, err := approvals.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--grants: %w", err)
	}
	return store, queue, nil
}

// parseInterleaved parses fset's flags wherever they stand among the
// positional arguments, which it returns.
func parseInterleaved(fset *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fset.Parse(args); err != nil {
			return nil, err
		}
		args = fset.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos, args = append(pos, args[0]), args[1:]
	}
}

// approvalsCommand serves the approvals page until a signal comes.
func approvalsCommand(args []string, stdout, stderr io.Writer, signals <-chan int) int {
	fset := flag.NewFlagSet("approvals", flag.ContinueOnError)
	fset.SetOutput(stderr)
	grantsFile := fset.String("grants", "", "the grants file the proxies share (required)")
	listen := fset.String("listen", "127.0.0.1:0", "the address to serve the page on (port 0: any free port); loopback unless you mean otherwise")
	fset.Usage = func() {
		fmt.Fprint(stderr, "usage: mcp-policy approvals --grants FILE [--listen ADDR]\n\nServes a page of the questions proxies with --grants FILE hold for an approver, and the grants in force.\n\nflags:\n")
		fset.PrintDefaults()
	}
	pos, err := parseInterleaved(fset, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "mcp-policy approvals: "+format+"\n", a...)
		return code
	}
	if len(pos) > 0 {
		return fail(exitUsage, "unexpected argument %q", pos[0])
	}
	store, queue, err := openQueue(*grantsFile)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fail(exitFailure, "--listen: %v", err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	if !addr.IP.IsLoopback() {
		fmt.Fprintf(stderr, "mcp-policy approvals: warning: listening on %s, which other machines can reach; the page is plain HTTP, so its token crosses the network readable\n", addr)
	}
	page := approvals.NewPage(queue, store)
	srv := &http.Server{Handler: page, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stderr, "mcp-policy approvals: the questions of every proxy with --grants %s, and its grants; open this URL (it holds the page's token), Ctrl-C to stop:\n", store.File())
	fmt.Fprintln(stdout, page.URL(addr.String()))
	select {
	case err := <-served:
		return fail(exitFailure, "%v", err)
	case <-signals:
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		return exitOK
	}
}

// answerActions are approve's words for the four answers.
var answerActions = map[string]string{
	"allow": "allow-once", "deny": "deny-once", "always-allow": "always-allow", "always-deny": "always-deny",
}

// approveCommand lists the pending questions, or answers one.
func approveCommand(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("approve", flag.ContinueOnError)
	fset.SetOutput(stderr)
	grantsFile := fset.String("grants", "", "the grants file the proxies share (required)")
	fset.Usage = func() {
		fmt.Fprint(stderr, "usage: mcp-policy approve --grants FILE [list | allow|deny|always-allow|always-deny ID]\n\n"+
			"Lists the questions proxies with --grants FILE hold for an approver, or answers one: allow or deny\n"+
			"once, or always (the proxy remembers the grant the question names).\n\nflags:\n")
		fset.PrintDefaults()
	}
	pos, err := parseInterleaved(fset, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "mcp-policy approve: "+format+"\n", a...)
		return code
	}
	_, queue, err := openQueue(*grantsFile)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	if len(pos) == 0 || (len(pos) == 1 && pos[0] == "list") {
		qs, err := queue.Pending()
		if err != nil {
			return fail(exitFailure, "%v", err)
		}
		if len(qs) == 0 {
			fmt.Fprintln(stdout, "No question is waiting.")
		}
		for _, q := range qs {
			writeQuestion(stdout, q, *grantsFile)
		}
		return exitOK
	}
	action, ok := answerActions[pos[0]]
	if !ok || len(pos) != 2 {
		fset.Usage()
		return exitUsage
	}
	q, err := queue.Get(pos[1])
	if err != nil {
		return fail(exitFailure, "%v", err)
	}
	if err := queue.Answer(q.ID, q.Digest, action, "the approve command"); err != nil {
		return fail(exitFailure, "%v", err)
	}
	for _, o := range q.Options {
		if o.Action == action {
			fmt.Fprintf(stdout, "Answered %s: %s.\n", q.Tool, o.Title)
		}
	}
	return exitOK
}

// writeQuestion writes a pending question as approve lists it.
func writeQuestion(w io.Writer, q approvals.Question, grantsFile string) {
	fmt.Fprintf(w, "%s  %s, asked %s ago by process %d on %s (server: %s)\n", q.ID, q.Tool,
		time.Since(q.Asked).Round(time.Second), q.Asker.PID, q.Asker.Machine, q.Asker.Server)
	for _, line := range strings.Split(q.Message, "\n") {
		fmt.Fprintf(w, "    %s\n", line)
	}
	words := map[string]string{}
	for word, action := range answerActions {
		words[action] = word
	}
	for _, o := range q.Options {
		fmt.Fprintf(w, "  mcp-policy approve --grants %s %s %s   # %s\n", shellQuote(grantsFile), words[o.Action], q.ID, o.Title)
	}
	fmt.Fprintln(w)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+~") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
