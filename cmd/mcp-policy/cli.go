package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
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

// writeJSONOut writes v as indented JSON, for --json.
func writeJSONOut(stdout, stderr io.Writer, v any) int {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "mcp-policy: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "%s\n", b)
	return exitOK
}
