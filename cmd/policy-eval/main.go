// Command policy-eval decides tool calls against mcp-policy's static rules,
// runs Rego tests with its builtins, and prints OPA capabilities that
// include them.
//
//	policy-eval decide [--rules FILE] [--no-default-rules] [--policy PATH]...
//	                   [--root KEY=DIR]... [--grants FILE] [--tools FILE]
//	                   [--arguments NAME|FILE]... [--timeout D]
//	                   [--config FILE [--wait D]] [CALL]
//	policy-eval test [opa test flags] [PATH...]
//	policy-eval capabilities
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `usage:
  policy-eval decide [--rules FILE] [--no-default-rules] [--policy PATH]...
                     [--root KEY=DIR]... [--grants FILE] [--tools FILE]
                     [--arguments NAME|FILE]... [--timeout D]
                     [--config FILE [--wait D]] [CALL]
  policy-eval test [-v] [--coverage] [PATH...]
  policy-eval capabilities
`

// Exit codes of decide: every line decided, some line malformed, bad flags
// or policy.
const (
	exitOK        = 0
	exitMalformed = 1
	exitUsage     = 2
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
	case "decide":
		return decide(args[1:], stdin, stdout, stderr)
	case "test":
		return test(args[1:], stdout, stderr)
	case "capabilities":
		return capabilities(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "policy-eval: unknown command %q\n%s", args[0], usage)
		return exitUsage
	}
}
