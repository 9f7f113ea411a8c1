// Package matching is the one tri-state answer mcp-policy gives wherever a
// lexical reading may not settle a question, and the functions that answer
// with it: whether a path is inside a directory (Contains, WithinAll,
// WithinAny) and whether hosts match a rule's host (MatchAllHosts,
// MatchAnyHosts); internal/rules answers whether a rule applies to a call
// with it too. Unknown is not No: callers fail closed on it.
//
// There is one copy of each: the Rego builtins (package builtins), the Go
// grant matcher and the proxy all call these, over internal/lexical's
// helpers, so a grant and a rule can never disagree about what "inside"
// means.
package matching

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
