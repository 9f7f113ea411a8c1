// Package proxy is mcp-policy's MCP proxy: an MCP server on one stream to
// the host and a client of the server it stands in front of (a process it
// runs, or a remote server over streamable HTTP). Everything passes
// through unchanged except tools/call, resources/read, prompts/get and
// completion/complete, which the policy decides (the last three as calls
// to a tool named by the method): allowed calls go to the server as the
// host sent them and come back as the server answered; denied ones get an
// is_error result the model can read (a JSON-RPC error for the three,
// whose results have no isError); asks reach the human as an elicitation
// through the host, or wait, the call held, for an approver's answer in the
// approvals queue beside the grants file (internal/approvals; --ask says
// which).
//
// The package is internal. Its one user is cmd/mcp-policy, which parses
// flags and starts it: New, then StartServer or DialServer, then Run. A Go
// host or gateway that wants the policy in-process has the policy and
// provider packages, which decide calls without any JSON-RPC relaying;
// what this package adds is the byte-for-byte relaying of a stdio or HTTP
// stream, with its process supervision, signals and exit statuses, which
// is a program's business rather than a library's, and whose API would
// freeze details (the upstream interface, the options) still moving.
//
// # A call's way
//
// docs/life-of-a-call.md walks it step by step (not every branch: the
// approvals queue's parking, cancellations and the server dying are in
// their files' docs); in short, for
// tools/call: readHost (hostreader.go) reads the host's line; fromHost
// (fromhost.go) and readMessage (scan.go) refuse what is not one unambiguous JSON-RPC
// message; hostCallRequest (calls.go) and readCallRequest (requests.go)
// make it a hostCall, whose call is the provider.Call the policy decides;
// decideReading (hostreader.go) decides it on the reading goroutine, or hands
// the reader on first (see Concurrency); runCall picks the policy for the
// host's root and capabilities (policySet.forCall, policies.go) and calls
// its ExecuteToolCalls. The policy is above this package and calls back
// into it twice, through the view forCall made of it for this call
// (policy.With), each holding the hostCall: the question callback onAsk
// (ask.go: the host's elicitation, or the approvals queue, approvers.go)
// and the provider below it, serverProvider, whose ExecuteToolCalls is
// forwardCall: the line, as the host sent it, goes to the server
// (sendDecided, roots.go). The server's answer comes back on the server's
// reader goroutine (fromUpstream, callAnswered) and goes to the host
// unread; a refusal is written by finishCall.
//
// A request's state travels as the hostCall, a parameter. Two context
// values remain, each because an interface the proxy does not own carries
// only a context: provider.WithCall, the call a server's question belongs
// to, for the policy's elicitation hook; and overLimitKey (http.go), the
// request whose HTTP response went over --max-line, for the transport.
//
// # Concurrency
//
// Goroutines: one reads the host (readHost), and decides the calls it
// reads itself (decideReading), reading on once a call is written to the
// server, so that an allowed call crosses no goroutine between the host's
// pipe and the server's: a hand-over woke another thread per call, the
// largest part of the proxy's cost over a copy relay. It hands its reader
// to a goroutine standing by only when more input is already buffered, or
// when anything waits while calls are decided or answered — on the human,
// the roots or the server (waitStarts) — so the host is always read while
// anything waits. One reads the server (run's loop over up.recv, then
// serverGone); a call the reader handed over is decided on the goroutine
// it was read on, and a batch's on workers (runCall); one per question of
// the server's put to the human (serverElicit), and the timers that
// settle a new host root. Anything may write to the host or the server.
//
// No lock is on the way of the reader's hand-over: heldReader and waiting
// are atomics, and the reader's channel holds the one reader there is, so
// a hand-over never waits.
//
// No lock shared by all calls is on an allowed call's way either, but the
// one that keeps the server's stream whole (its lineWriter's). What a call
// reads of the proxy's state is published for it: the host's session
// (info), the policies (pols), the catalogue's version, the roots' state
// (rs.now) and the server's death (dead) are atomic pointers to values
// never changed once stored; the host's open requests are filed in tables
// of their own (pending and calls, openRequests), which lock no more than
// a node of a hash trie; a call with a host root is counted in rs.sending,
// an atomic. The orders that matter between those steps, each said where
// it is made:
//
//   - a request is filed at the server (pending), then reads dead;
//     serverGone stores dead, then takes what is filed (goneSinceFiled,
//     for forward and forwardCall);
//   - a call is counted in rs.sending, then reads rs.now; the roots are
//     unsettled before the host can answer them, and the answer then
//     waits for the count (sendDecided);
//   - a decided call is filed at the server and marked so under hc.mu,
//     which the host's cancellation reads: cancelled before, it is never
//     sent; after, its entry stays filed, withdrawn, for the server's
//     answer to be dropped (hostCancelled, withdraw);
//   - a call moving into an input-required round is filed in rounds
//     before it is forgotten in calls, so that a cancellation finds it in
//     one of them (hostRound);
//   - a call's context is no child of the proxy's (whose children are
//     filed under its lock): the stop cancels p.ctx, then each call in
//     calls and rounds, and a call filed in calls reads p.ctx after
//     (endCalls, endIfStopped).
//
// What each lock guards:
//
//   - rs.mu (Proxy.roots.mu): the roots state, rootsState's fields (what
//     the server asked, what the host answered, what is settled, the
//     policy sets by host root), and the publishing of rs.now.
//   - p.mu (Proxy.mu): the proxy's own requests to each side
//     (hostPeer.own, srvPeer.own), fromSrv and rounds, the storing of
//     dead, and the changes of info. An answer from the server takes p.mu
//     only when its id is one of the proxy's own (ownAnswered).
//   - hc.mu (hostCall.mu): one decided request's answering state: id,
//     filed, moved, live, extra, byHost, diedWith, sent, atServer; and the
//     filing of the call at the server, with atServer.
//   - cat.mu (catalogue.mu): the server's tools as last listed, and the
//     changes of their version (an atomic every call reads without it).
//   - lineWriter.mu: one stream's writes, so that messages are whole; it is
//     the lock of the writing itself. The upstreams' own mu guard their
//     process state or waiting table.
//
// The one order: rs.mu, then p.mu, then hc.mu, then cat.mu, then a
// lineWriter's or an upstream's mu. A goroutine holding one may take only
// those after it. Today no goroutine holds two of the first four at once:
// each is taken, read or changed, and let go before the next is taken;
// the order says which nesting a change may add. (The tables' own locks,
// a trie node's each, come after all of them: forwardCall files a call
// in pending under hc.mu.)
//
// No lock is held across I/O: nothing is written to the host or the
// server, to stderr or the decision log, and no channel is waited on, with
// rs.mu, p.mu, hc.mu or cat.mu held (a lineWriter's mu is held across
// exactly its one write, and takes nothing after it). Where a write must
// keep its place relative to a change of state, the state is changed first
// under the lock, and the write follows it: a roots/list of the server's
// takes the policy's root away before the host sees it; a host's
// list_changed before the server does. The one ordering that needs more is
// sendDecided's: a decided call is counted in rs.sending from before its
// roots check until it is written, and hostAnswersRoots waits (sync.Cond
// on rs.mu, which lets the lock go while it waits) for that count to fall
// to 0 before it relays an answer that could change the server's root. Replies to the proxy's own requests go through
// channels of one buffered slot, filled once, after the lock is let go.
//
// Before, sendDecided and the roots relaying held rs.mu across their
// writes: a server that stopped reading its stdin until the proxy read
// what it wrote could leave the proxy's server reader waiting on rs.mu
// while a call waited, under rs.mu, on the server
// (TestNoLockAcrossTheServersWrite).
package proxy
