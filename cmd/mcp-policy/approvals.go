package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/approvals"
	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
)

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
	store, queue, closeQueue, grantsErr, err := cliconfig.OpenGrantsAndQueue(*grantsFile)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	defer closeQueue()
	if grantsErr != nil {
		fmt.Fprintf(stderr, "mcp-policy approvals: warning: %v; the page answers questions, but shows no grants until it is restarted on a grants file it can read\n", grantsErr)
	}
	warnUnused(queue, stderr, "approvals")
	ln, host, err := approvals.ListenAt(*listen, func(w string) { fmt.Fprintf(stderr, "mcp-policy approvals: warning: %s\n", w) })
	if err != nil {
		return fail(exitFailure, "--listen: %v", err)
	}
	addr := ln.Addr().String()
	page := approvals.NewPage(queue, store, host)
	srv := approvals.NewServer(page)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stderr, "mcp-policy approvals: the questions of every proxy with --grants %s, and its grants. Open this link; it works once (press Enter for another), Ctrl-C to stop:\n", queue.Grants())
	fmt.Fprintln(stdout, page.NewLink(addr))
	go func() {
		lines := bufio.NewScanner(stdin)
		for lines.Scan() {
			fmt.Fprintln(stdout, page.NewLink(addr))
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
