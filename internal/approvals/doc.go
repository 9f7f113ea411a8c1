// Package approvals is the second way a proxy's question reaches a human:
// not through the host (MCP elicitation), but through a queue of pending
// questions beside the grants file, which `mcp-policy approvals` (a web
// page) and `mcp-policy approve` (a command) read and answer. The human
// answering need not be the one driving the agent, and a host that cannot
// elicit can still have its calls approved.
//
// Queue is what a proxy and an approver need of the queue; it lives where
// the grants live. FileQueue is a directory beside the grants file;
// PostgresQueue a table in the grants database (grants/pgstore's, one
// schema: internal/pgschema), for approvers on other machines. The checks
// on an answer (NewAnswer, CheckAnswer) are shared by both.
//
// The file queue is a directory, <grants file>.pending: one JSON file per
// question, written by the proxy that holds the call, and one answer file
// beside it, written by the approver. Every proxy sharing the grants file
// shares the queue, so an approver sees the questions of all of them. The
// directory is used only when it is the user's alone (mode 0700, theirs),
// and its files are read as possibly planted: no links followed, no
// FIFOs, regular files of bounded size.
//
// An answer names the question's id and the digest of the call it was
// shown (the tool and its arguments, canonical JSON, SHA-256): the proxy
// takes it only when both are its own question's, so an answer cannot be
// replayed onto another call, nor onto a question rewritten since the
// human read it. "Always" answers are remembered by the proxy's policy,
// which writes the grant as an elicited answer's grant is written.
//
// A waiting proxy touches its question file every few seconds; a question
// untouched for longer than StaleAfter belongs to a proxy that is gone, and
// is removed by the next reader.
package approvals
