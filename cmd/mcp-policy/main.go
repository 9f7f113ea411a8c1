// Command mcp-policy puts mcp-policy's per-directory permissions in front
// of any MCP server, for any MCP host.
//
//	mcp-policy proxy [--rules FILE] [--policy PATH]... [--no-default-rules] [--root KEY=DIR]... [--home DIR|none] [--links resolve|lexical]
//	                 [--config FILE] [--grants FILE] [--log FILE] [--log-arguments masked|full]
//	                 [--arguments NAME|FILE]... [--timeout D]
//	                 [--ask elicit|approvals|elicit,approvals|refuse] [--ask-timeout D] -- COMMAND [ARGS...]
//	mcp-policy proxy [flags] --url https://host/mcp [--header 'Name: value']...
//	mcp-policy approvals --grants FILE [--listen ADDR]
//	mcp-policy approve --grants FILE [--json] [list | show ID | allow|deny|always-allow|allow-for-a-day|always-deny ID]
//	mcp-policy grants list|show|revoke|add|prune --grants FILE|URL ...
//	mcp-policy pins list|show|approve|forget --grants FILE|URL ...
//	mcp-policy version
//
// The proxy is an MCP server on stdio to the host and a client of the
// server it runs (or reaches at --url); internal/proxy is the proxy, this
// command parses its flags and starts it. approvals and approve answer the
// questions proxies sharing a grants file hold for an approver
// (internal/approvals).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
)

const usage = `usage:
  mcp-policy proxy [--rules FILE] [--policy PATH]... [--no-default-rules] [--root KEY=DIR]... [--home DIR|none] [--links resolve|lexical]
                   [--config FILE] [--grants FILE|URL] [--label KEY=VALUE]... [--grant-ttl DURATION]
                   [--log FILE|-] [--log-arguments masked|full]
                   [--arguments NAME|FILE]... [--timeout DURATION]
                   [--ask elicit|approvals|elicit,approvals|refuse] [--ask-timeout DURATION] [--ask-wait DURATION] [--max-line BYTES]
                   [--notify slack:URL|ntfy:URL|json:URL]... [--list-denied] -- COMMAND [ARGS...]
  mcp-policy proxy [flags] --url https://host/mcp [--header 'Name: value']...
  mcp-policy approvals --grants FILE [--listen ADDR]
  mcp-policy approve --grants FILE [--json] [list | show ID | allow|deny|always-allow|allow-for-a-day|always-deny ID]
  mcp-policy grants list|show|revoke|add|prune --grants FILE|URL ...
  mcp-policy pins list|show|approve|forget --grants FILE|URL ...
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
	case "pins":
		return pinsCommand(args[1:], stdout, stderr)
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
