package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
)

// failer is a subcommand's way out: "mcp-policy NAME: message" on stderr,
// and the code to exit with.
func failer(stderr io.Writer, name string) func(code int, format string, a ...any) int {
	return func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "mcp-policy %s: %s\n", name, fmt.Sprintf(format, a...))
		return code
	}
}

// parsed says how parsing a subcommand's flags ended: ok to go on, or the
// code to exit with (0 when help was asked for; the flag package has said
// what was wrong otherwise).
func parsed(err error) (code int, ok bool) {
	switch {
	case err == nil:
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		return exitOK, false
	}
	return exitUsage, false
}

// subcommand checks the subcommand a command with several (grants, pins)
// is given, args[0], against subs: none, or help, writes usage (and
// exits with exitUsage for none, exitOK for help); one it does not have is
// a usage error naming it. ok says to go on with args[0].
func subcommand(command string, args, subs []string, usage string, stdout, stderr io.Writer) (code int, ok bool) {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		if len(args) == 0 {
			return exitUsage, false
		}
		return exitOK, false
	}
	if !slices.Contains(subs, args[0]) {
		fmt.Fprintf(stderr, "mcp-policy %s: unknown subcommand %q\n%s", command, args[0], usage)
		return exitUsage, false
	}
	return 0, true
}

// writeJSON writes v as indented JSON, for --json.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// writeJSONOut is writeJSON for a subcommand whose result is its exit code.
func writeJSONOut(stdout, stderr io.Writer, v any) int {
	if err := writeJSON(stdout, v); err != nil {
		fmt.Fprintf(stderr, "mcp-policy: %v\n", err)
		return exitFailure
	}
	return exitOK
}
