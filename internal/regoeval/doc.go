// Package regoeval is the Rego evaluation beneath internal/rules.Engine: it
// compiles rego/engine.rego with the floor, the defaults, a team's modules
// and the data rules into a Decider (the fast path, a residual query whose
// outcome a sink takes, or the plain path, OPA's prepared query read back),
// and holds everything that touches OPA's internals to make that cheap: the
// engine's builtin mcp.engine.decide, the Go matcher and index it matches
// data rules with (Matcher, RuleSet, shared with the grant matcher), the
// caches, the prune, interning, and a guard test for each assumption about
// OPA.
//
// It is not an engine of its own: internal/rules.Engine is the one Engine,
// and this package is how it evaluates.
package regoeval
