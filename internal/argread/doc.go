// Package argread reads a tool call's arguments as the server that acts on
// them would: it finds every local path, URL and host the call names, each
// with the argument it came from, so that rules, grants, the danger floor
// and the human's question all see what the server will reach. A value it
// cannot tell for sure is unknown ("" resolved), and unknown is never
// allowed. docs/arguments.md is the user's reference; this is the order in
// which the code decides, file by file.
//
// # Classes (class.go)
//
// Every string is read under the Class of the argument it is under (the
// nearest object key; an array's elements are under the array's name): a
// Kind (path, directory, URL, path or URL, host, content, text, ignore,
// label, or none), the Evidence for it, and whether the argument is an
// object whose values are of that kind. The strongest evidence decides:
// a Spec beats the schema's Format, a Format beats the Name, a Name beats
// a Weak name or a Word in it, and those beat the value's Shape.
//
// # Argument specs (spec.go)
//
// A Spec is what a person says of a tool's arguments: paths, directories,
// URLs, text (nothing read), ignored (only options read), and paths
// relative to another argument. compileTool merges the specs that match a
// tool's name with its schema into one table per tool, which a Reader keeps
// for as long as the tool's schema is the same.
//
// # The schema (schema.go)
//
// parseSchemaKeys walks a tool's input schema (properties, items,
// combinators, conditionals, local $refs and anchors) for the properties a
// format marks as paths, directories, URLs or hosts, and those it declares
// strings (JSON in them is text).
//
// # Names (names.go)
//
// nameTable is the one table of what argument names mean in any tool,
// compared folded (FoldName): listed names, then endings, then path words
// anywhere in a name, with stop words read as not there.
//
// # Values (values.go)
//
// The value recognisers are pure functions of a string: whether it reads
// as a path (looksLikePath), an option naming one (looksLikeOption), a URL
// (readsAsURL, urlHost), an IP address (readsAsIP, readsAsAddress), a
// local file's name (readsAsLocalName), as a server that trims its
// arguments reads it (trimReading). Each has a table test.
//
// # Remote paths (remote.go)
//
// ssh's, scp's, rsync's and git's destinations ("user@host:path",
// "host:path") name a host; where ssh and a URL parser would read
// different hosts, the host is unknown (weakHostValue, remoteHost).
//
// # The walk (walk.go)
//
// The walker visits every value with one site (argument, class, place,
// depth): strings by their class, object keys as paths under a path's name
// and by their shape elsewhere, JSON documents inside strings in their own
// right, relative paths against their base arguments, paths under a root's
// other spellings under the root. It refuses a call past MaxDepth or
// MaxValues.
//
// # Commands (shell.go, shellcommand.go, shellprograms.go)
//
// A shell command line is parsed with mvdan.cc/sh as bash parses it and
// read statement by statement (shell.go), tracking the working directory
// through cd; each simple command is read by its program's row in a table
// (shellprograms.go) — wrappers, shells, interpreters, network programs,
// git, containers, programs that take data — or by default, each operand
// a path (shellcommand.go). A word the shell changes is unknown.
//
// # Patches (patch.go)
//
// A patch (Codex's "*** Begin Patch" format, or a unified or git diff
// parsed with go-gitdiff) names every file it changes.
//
// # Reading a call (reader.go)
//
// Reader.Read is the entry point: it sets the model's reason argument
// aside, compiles (or finds) the tool's table, and walks each top-level
// argument. testdata/readings.json holds the exact readings of several
// hundred calls; a change to a reading is a change there.
package argread
