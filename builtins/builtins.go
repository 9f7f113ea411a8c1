// Package builtins is the home of mcp-policy's Go builtins for Rego: the
// lexical path containment, host extraction and matching, and tool-name
// globs that every decision rests on, and their registration with OPA.
//
// What it exports is what a Go program or a Rego author's tooling needs:
//
//   - Register adds the mcp.path.*, mcp.url.*, mcp.host.* and mcp.tool.*
//     builtins to OPA's global registry, so that a query, `opa test` run
//     in-process or a compiler in this program knows them; Declarations
//     describes them for a capabilities file (`opa check --capabilities`,
//     Regal), as `policy-eval capabilities` prints it.
//   - Match is the one tri-state answer mcp-policy gives wherever a lexical
//     reading may not settle a question: whether a path is inside a
//     directory (Contains, WithinAll, WithinAny), whether hosts match a
//     rule's host (MatchAllHosts, MatchAnyHosts), and whether a rule applies
//     to a call (internal/rules). Unknown is not No: callers fail closed on it.
//   - The plain functions a caller needs to put a call's arguments in the
//     form those answers expect: Resolve, FoldPath, URLHost, HostOf,
//     NormalizeHostPattern, MatchTool.
//
// The helpers underneath (evaluability, cleaning, folding, the danger
// floor's list of sensitive files) are in internal/lexical. There is one
// copy of each: the Rego builtins, the Go grant matcher and the proxy all
// call them, so a grant and a rule can never disagree about what "inside"
// means.
package builtins

import "github.com/mcp-policy/mcp-policy/internal/lexical"

// Match is the tri-state answer to a yes-or-no question about a call that a
// lexical reading cannot always settle. Its zero value is Unknown, so a
// Match nobody set fails closed.
type Match int

const (
	// Unknown: the question cannot be answered lexically (a path or URL
	// that cannot be evaluated, a relative directory with no root); it
	// might go either way, and callers must fail closed on it (ask, never
	// allow).
	Unknown Match = iota
	Yes
	No
)

func (m Match) String() string {
	switch m {
	case Yes:
		return "yes"
	case No:
		return "no"
	default:
		return "unknown"
	}
}

// Resolve makes p absolute against root and cleans it lexically; symlinks
// are not followed. A file: URI naming a local path is read as that path.
// ok is false when p (or, for a relative p, root) cannot be evaluated: see
// Contains for what that takes.
func Resolve(root, p string) (string, bool) { return lexical.Resolve(root, p) }

// FoldPath is p as a file system that ignores case and Unicode
// normalisation compares it (macOS, Windows): each name case-folded,
// composed (NFC), stripped of the code points HFS+ ignores and of the dots
// and spaces NTFS drops from a name's end. Deny and ask rules compare
// folded paths (WithinAny); allow compares exactly (WithinAll).
func FoldPath(p string) string { return lexical.FoldPath(p) }

// URLHost extracts the host a browser would connect to for an http(s) URL,
// normalised (case, IDNA, trailing dot, port dropped, IPv4 canonical, IPv6
// in brackets). ok is false for anything it cannot be sure of, which a
// caller treats as unknown.
func URLHost(raw string) (string, bool) { return lexical.URLHost(raw) }

// HostOf normalises a bare host as an argument names one ("docs.raku.org",
// "10.0.0.1:8080", "::1") as URLHost normalises the host of a URL. ok is
// false for anything that is not one host.
func HostOf(s string) (string, bool) { return lexical.HostOf(s) }

// NormalizeHostPattern validates a rule's host — "docs.raku.org" (exact),
// "*.raku.org" (any subdomain, not raku.org itself) or an IP range
// ("10.0.0.0/8") — and returns it in the form MatchAllHosts and
// MatchAnyHosts expect.
func NormalizeHostPattern(pattern string) (string, error) {
	return lexical.NormalizeHostPattern(pattern)
}

// MatchTool reports whether a tool name matches a rule's tool glob: "*"
// matches any run of characters, "?" one character, and "\" makes the
// character after it literal.
func MatchTool(pattern, name string) bool { return lexical.MatchTool(pattern, name) }
