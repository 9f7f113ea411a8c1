package main

import (
	"bufio"
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
	"github.com/mcp-policy/mcp-policy/grants/pgstore"
	"github.com/mcp-policy/mcp-policy/internal/approvals"
	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
	"github.com/mcp-policy/mcp-policy/internal/visible"
)

// openQueue reads --grants for approvals and approve: the grants store
// and the queue where the grants are (beside the file, or in the
// database), and what closes them.
func openQueue(file string) (*grants.Store, approvals.Queue, func(), error) {
	path, err := cliconfig.ExpandPath("--grants", file)
	if err != nil {
		return nil, nil, nil, err
	}
	if path == "" {
		return nil, nil, nil, errors.New("give --grants FILE or postgres:// URL: the grants the proxies were started with (their questions wait there)")
	}
	if cliconfig.IsPostgres(path) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		store, err := pgstore.Open(ctx, path, pgstore.Options{})
		if err != nil {
			return nil, nil, nil, fmt.Errorf("--grants: %w", err)
		}
		queue, err := openPostgresQueue(path)
		if err != nil {
			store.Close()
			return nil, nil, nil, fmt.Errorf("--grants: %w", err)
		}
		return store, queue, func() { queue.Close(); store.Close() }, nil
	}
	store, err := grants.Open(path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--grants: %w", err)
	}
	queue, err := approvals.Open(path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--grants: %w", err)
	}
	return store, queue, func() { store.Close() }, nil
}

// openPostgresQueue is the queue in the grants database at url.
func openPostgresQueue(url string) (*approvals.PostgresQueue, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return approvals.OpenPostgres(ctx, url, approvals.PostgresOptions{})
}

// warnUnused tells the human when no proxy has ever put a question in
// queue: they most likely named another grants file or database than
// their proxies'.
func warnUnused(queue approvals.Queue, stderr io.Writer, cmd string) {
	if used, err := queue.Used(); err == nil && !used {
		fmt.Fprintf(stderr, "mcp-policy %s: warning: no proxy has put a question in %s yet: is this the --grants your proxies use?\n", cmd, queue.Grants())
	}
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

// approvalsCommand serves the approvals page until a signal comes,
// printing a fresh single-use link whenever a line is read from stdin.
func approvalsCommand(args []string, stdin io.Reader, stdout, stderr io.Writer, signals <-chan int) int {
	fset := flag.NewFlagSet("approvals", flag.ContinueOnError)
	fset.SetOutput(stderr)
	grantsFile := fset.String("grants", "", "the grants file or postgres:// URL the proxies share (required)")
	listen := fset.String("listen", "", "the address to serve the page on (port 0: any free port); by default a random address in 127.0.0.0/8, so that no other local service receives the page's cookie")
	fset.Usage = func() {
		fmt.Fprint(stderr, "usage: mcp-policy approvals --grants FILE|URL [--listen ADDR]\n\nServes a page of the questions proxies with that --grants (a file or a postgres:// URL) hold for an approver, and the grants in force.\n"+
			"It prints a link that opens the page once; press Enter for another (a new browser, or a session past 12 hours).\n\nflags:\n")
		fset.PrintDefaults()
	}
	pos, err := parseInterleaved(fset, args)
	if code, ok := parsed(err); !ok {
		return code
	}
	fail := failer(stderr, "approvals")
	if len(pos) > 0 {
		return fail(exitUsage, "unexpected argument %q", pos[0])
	}
	store, queue, closeQueue, err := openQueue(*grantsFile)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	defer closeQueue()
	warnUnused(queue, stderr, "approvals")
	var ln net.Listener
	if *listen == "" {
		var note string
		ln, note, err = approvals.Listen()
		if note != "" {
			fmt.Fprintf(stderr, "mcp-policy approvals: warning: %s\n", note)
		}
	} else {
		ln, err = net.Listen("tcp", *listen)
	}
	if err != nil {
		return fail(exitFailure, "--listen: %v", err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	if *listen != "" && (addr.IP.Equal(net.IPv4(127, 0, 0, 1)) || addr.IP.Equal(net.IPv6loopback)) {
		fmt.Fprintf(stderr, "mcp-policy approvals: warning: on %s, which every local service shares, the page's cookie also reaches them all (browsers keep cookies apart by host, not port); without --listen the page gets an address of its own\n", addr.IP)
	}
	if !addr.IP.IsLoopback() {
		fmt.Fprintf(stderr, "mcp-policy approvals: warning: listening on %s, which other machines can reach; the page is plain HTTP, so its link and cookie cross the network readable\n", addr)
	}
	host := addr.String() // the one Host the page answers to...
	if addr.IP.IsUnspecified() {
		host = "" // ...unless it listens everywhere: then any IP address
	}
	page := approvals.NewPage(queue, store, host)
	srv := &http.Server{Handler: page, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stderr, "mcp-policy approvals: the questions of every proxy with --grants %s, and its grants. Open this link; it works once (press Enter for another), Ctrl-C to stop:\n", queue.Grants())
	fmt.Fprintln(stdout, page.NewLink(addr.String()))
	go func() {
		lines := bufio.NewScanner(stdin)
		for lines.Scan() {
			fmt.Fprintln(stdout, page.NewLink(addr.String()))
		}
	}()
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

// approveCommand lists the pending questions, shows one in full, or
// answers one.
func approveCommand(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("approve", flag.ContinueOnError)
	fset.SetOutput(stderr)
	grantsFile := fset.String("grants", "", "the grants file or postgres:// URL the proxies share (required)")
	fset.Usage = func() {
		fmt.Fprint(stderr, "usage: mcp-policy approve --grants FILE|URL [list | show ID | allow|deny|always-allow|always-deny ID]\n\n"+
			"Lists the questions proxies with that --grants (a file or a postgres:// URL) hold for an approver, shows one with all its\n"+
			"arguments (read it before you answer), or answers one: allow or deny once, or always (the\n"+
			"proxy remembers the grant the question names).\n\nflags:\n")
		fset.PrintDefaults()
	}
	pos, err := parseInterleaved(fset, args)
	if code, ok := parsed(err); !ok {
		return code
	}
	fail := failer(stderr, "approve")
	_, queue, closeQueue, err := openQueue(*grantsFile)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	defer closeQueue()
	if len(pos) == 0 || (len(pos) == 1 && pos[0] == "list") {
		qs, err := queue.Pending()
		if err != nil {
			return fail(exitFailure, "%v", err)
		}
		if len(qs) == 0 {
			fmt.Fprintln(stdout, "No question is waiting.")
			warnUnused(queue, stderr, "approve")
		}
		for _, q := range qs {
			writeQuestion(stdout, q, *grantsFile, false)
		}
		return exitOK
	}
	if len(pos) == 2 && pos[0] == "show" {
		q, err := queue.Get(pos[1])
		if err != nil {
			return fail(exitFailure, "%v", err)
		}
		writeQuestion(stdout, q, *grantsFile, true)
		return exitOK
	}
	action, ok := approvals.ActionOf(pos[0])
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
			fmt.Fprintf(stdout, "Answered %s: %s.\n", visible.Whole(q.Tool), o.Label())
		}
	}
	return exitOK
}

// writeQuestion writes a pending question as approve lists it (a summary:
// the question's message) or shows it (full: every argument too).
// Everything from the question file is escaped for the terminal: no
// escape sequence in it can move the cursor, retitle the window or
// redraw the lines of another question.
func writeQuestion(w io.Writer, q approvals.Question, grantsFile string, full bool) {
	approve := approvals.Command("approve", grantsFile)
	fmt.Fprintf(w, "%s  %s, asked %s ago by process %d on %s (server: %s)\n", q.ID, visible.Whole(q.Tool),
		time.Since(q.Asked).Round(time.Second), q.Asker.PID, visible.Whole(q.Asker.Machine), visible.Whole(q.Asker.Server))
	for _, line := range strings.Split(visible.Lines(q.Message), "\n") {
		fmt.Fprintf(w, "    %s\n", line)
	}
	if full {
		fmt.Fprintln(w, "  All its arguments, in full (this is what runs):")
		for _, line := range strings.Split(visible.Lines(q.Arguments), "\n") {
			fmt.Fprintf(w, "    %s\n", line)
		}
	} else {
		fmt.Fprintf(w, "  Its arguments in full: %s show %s\n", approve, q.ID)
	}
	for _, o := range q.Options {
		fmt.Fprintf(w, "  %s %s %s   # %s\n", approve, o.Word(), q.ID, o.Label())
	}
	fmt.Fprintln(w)
}
