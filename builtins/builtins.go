// Package builtins is mcp-policy's Go builtins for Rego, for the tooling a
// Rego author uses: Register adds the mcp.path.*, mcp.url.*, mcp.host.* and
// mcp.tool.* builtins to OPA's global registry, so that a query, `opa test`
// run in-process or a compiler in this program knows them; Declarations
// describes them for a capabilities file (`opa check --capabilities`,
// Regal), as `policy-eval capabilities` prints it.
//
// The builtins answer with internal/matching's tri-state over
// internal/lexical's helpers (containment, folding, host extraction, tool
// globs), the same code the Go grant matcher and the proxy call.
package builtins
