// Package proxy is mcp-policy's MCP proxy: an MCP server on one stream to
// the host and a client of the server it stands in front of (a process it
// runs, or a remote server over streamable HTTP). Everything passes
// through unchanged except tools/call, resources/read, prompts/get and
// completion/complete, which the policy decides (the last three as calls
// to a tool named by the method): allowed calls go to the server as the
// host sent them and come back as the server answered; denied ones get an
// is_error result the model can read (a JSON-RPC error for the three,
// whose results have no isError); asks reach the human as an elicitation
// through the host.
//
// The package is internal. Its one user is cmd/mcp-policy, which parses
// flags and starts it: New, then StartServer or DialServer, then Run. A Go
// host or gateway that wants the policy in-process has the policy and
// provider packages, which decide calls without any JSON-RPC relaying;
// what this package adds is the byte-for-byte relaying of a stdio or HTTP
// stream, with its process supervision, signals and exit statuses, which
// is a program's business rather than a library's, and whose API would
// freeze details (the upstream interface, the options) still moving.
package proxy
