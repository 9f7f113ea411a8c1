package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/mcp-policy/mcp-policy/internal/approvals"
	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
	"github.com/mcp-policy/mcp-policy/internal/visible"
)

// approveCommand lists the pending questions, shows one in full, or
// answers one.
func approveCommand(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("approve", flag.ContinueOnError)
	fset.SetOutput(stderr)
	grantsFile := fset.String("grants", "", "the grants file or postgres:// URL the proxies share (required)")
	asJSON := fset.Bool("json", false, "list and show: write the questions as JSON (an array; one object for show), for scripts and other UIs")
	fset.Usage = func() {
		fmt.Fprint(stderr, "usage: mcp-policy approve --grants FILE|URL [--json] [list | show ID | allow|deny|always-allow|allow-for-a-day|always-deny ID]\n\n"+
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
	_, queue, closeQueue, grantsErr, err := cliconfig.OpenGrantsAndQueue(*grantsFile)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	defer closeQueue()
	if grantsErr != nil {
		// Answering needs the queue alone; the proxy that asked writes
		// an always-answer's grant, and says so if it cannot.
		fmt.Fprintf(stderr, "mcp-policy approve: warning: %v\n", grantsErr)
	}
	switch {
	case len(pos) == 0 || (len(pos) == 1 && pos[0] == "list"):
		return listQuestions(queue, *asJSON, stdout, stderr, fail)
	case len(pos) == 2 && pos[0] == "show":
		q, err := queue.Get(pos[1])
		if err != nil {
			return fail(exitFailure, "%v", err)
		}
		if *asJSON {
			return writeJSONOut(stdout, stderr, q)
		}
		approvals.WriteQuestion(stdout, q, queue.Grants(), true)
		return exitOK
	}
	action, ok := approvals.ActionOf(pos[0])
	if !ok || len(pos) != 2 {
		fset.Usage()
		return exitUsage
	}
	return answerQuestion(queue, pos[1], action, stdout, fail)
}

// listQuestions writes the pending questions, as text or JSON.
func listQuestions(queue approvals.Queue, asJSON bool, stdout, stderr io.Writer, fail func(int, string, ...any) int) int {
	qs, err := queue.Pending()
	if err != nil {
		return fail(exitFailure, "%v", err)
	}
	if asJSON {
		return writeJSONOut(stdout, stderr, append([]approvals.Question{}, qs...))
	}
	if len(qs) == 0 {
		fmt.Fprintln(stdout, "No question is waiting.")
		warnUnused(queue, stderr, "approve")
	}
	for _, q := range qs {
		approvals.WriteQuestion(stdout, q, queue.Grants(), false)
	}
	return exitOK
}

// answerQuestion answers the question id with action.
func answerQuestion(queue approvals.Queue, id, action string, stdout io.Writer, fail func(int, string, ...any) int) int {
	q, err := queue.Get(id)
	if err != nil {
		return fail(exitFailure, "%v", err)
	}
	// Answered only once the proxy that asked has carried it out (an
	// "always" saved): a proxy that died meanwhile, or could not save it,
	// is reported, and the command fails.
	_, err = approvals.Deliver(queue, q.ID, q.Digest, action, "the approve command")
	later := errors.Is(err, approvals.ErrOnRetry)
	if err != nil && !later {
		return fail(exitFailure, "%v", err)
	}
	for _, o := range q.Options {
		if o.Action == action {
			fmt.Fprintf(stdout, "Answered %s: %s.\n", visible.Whole(q.Tool), o.Label())
			if later {
				fmt.Fprintln(stdout, approvals.AppliesOnRetry)
			}
		}
	}
	return exitOK
}
