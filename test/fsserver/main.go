// Command fsserver is a small filesystem MCP server over stdio, for tests.
//
//	fsserver DIR
//
// Every tool works inside DIR and nowhere else: the sandbox is an os.Root, so
// "..", absolute symlinks and symlinks that leave DIR are refused by the
// kernel-facing layer, not by string checks that a policy could also get wrong.
// Paths are relative to DIR; an absolute path is accepted only when it lies
// inside DIR (as given on the command line).
//
// Tools: fs_read, fs_list, fs_write, fs_edit, fs_mkdir, fs_move, fs_delete,
// with honest annotations. Deleting a non-empty directory asks the user by
// elicitation (a boolean "confirm" field) and is refused when the client cannot
// be asked or does not confirm.
//
// Knobs for tests, all environment variables:
//
//	FSSERVER_SLOW_MS=N        fs_read sleeps N ms first (timeouts, concurrency)
//	FSSERVER_DIE_ON=TOOL      the process exits with status 3 when TOOL is called
//	FSSERVER_LEGACY_ELICIT=1  refuse server/discover, so an mcp-go client falls
//	                          back to the initialize handshake (protocol
//	                          2025-11-25) and elicitation arrives as a
//	                          server-initiated elicitation/create instead of an
//	                          input-required round inside tools/call
//
// Each tool call is logged to stderr as "fsserver: call TOOL (in flight: N)",
// N counting the calls running at that moment: tests read it to prove that a
// batch really ran concurrently.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("fsserver: ")
	if len(os.Args) != 2 {
		log.Fatal("usage: fsserver DIR")
	}
	fs, err := newSandbox(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	defer fs.root.Close()

	if err := server.ServeStdio(newServer(fs),
		// mcp-go's default of 5 workers would cap a batch's concurrency.
		server.WithWorkerPoolSize(32),
		server.WithErrorLogger(log.Default()),
	); err != nil {
		log.Fatal(err)
	}
}

// sandbox is the directory the server may touch.
type sandbox struct {
	root *os.Root
	// dirs are the absolute spellings of the root accepted in absolute paths:
	// as given (cleaned) and with symlinks resolved.
	dirs []string
	slow time.Duration
}

func newSandbox(dir string) (*sandbox, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	s := &sandbox{root: root, dirs: []string{abs}}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		s.dirs = append(s.dirs, real)
	}
	if ms := os.Getenv("FSSERVER_SLOW_MS"); ms != "" {
		n, err := strconv.Atoi(ms)
		if err != nil {
			return nil, fmt.Errorf("FSSERVER_SLOW_MS: %w", err)
		}
		s.slow = time.Duration(n) * time.Millisecond
	}
	return s, nil
}

// rel turns a path argument into a name for the os.Root. Escapes through ".."
// or symlinks are left for os.Root to refuse.
func (s *sandbox) rel(p string) (string, error) {
	if p == "" {
		return "", errors.New("path is empty")
	}
	if strings.ContainsRune(p, 0) {
		return "", errors.New("path contains NUL")
	}
	if !filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	for _, dir := range s.dirs {
		r, err := filepath.Rel(dir, filepath.Clean(p))
		if err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return r, nil
		}
	}
	return "", fmt.Errorf("%s is outside the sandbox %s", p, s.dirs[0])
}

// confirmKey names the elicitation in the input-required round; the client
// echoes it back as the key of its answer.
const confirmKey = "confirm"

func newServer(fs *sandbox) *server.MCPServer {
	var inFlight atomic.Int64
	hooks := &server.Hooks{}
	if os.Getenv("FSSERVER_LEGACY_ELICIT") == "1" {
		// Refusing the 2026-07-28 probe is all it takes: the client then
		// negotiates through initialize, and mcp-go's server turns the
		// handlers' input requests into server-initiated elicitation/create.
		hooks.AddOnRequestInitialization(func(_ context.Context, _ any, message any) error {
			raw, _ := message.(json.RawMessage)
			var m struct{ Method string }
			if json.Unmarshal(raw, &m) == nil && m.Method == string(mcp.MethodServerDiscover) {
				return errors.New("server/discover not supported (FSSERVER_LEGACY_ELICIT=1)")
			}
			return nil
		})
	}
	dieOn := os.Getenv("FSSERVER_DIE_ON")
	middleware := func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if dieOn != "" && req.Params.Name == dieOn {
				log.Printf("dying on %s (FSSERVER_DIE_ON)", dieOn)
				os.Exit(3)
			}
			n := inFlight.Add(1)
			defer inFlight.Add(-1)
			log.Printf("call %s (in flight: %d)", req.Params.Name, n)
			return next(ctx, req)
		}
	}

	srv := server.NewMCPServer("fsserver", "1.0.0",
		server.WithToolCapabilities(false),
		server.WithHooks(hooks),
		server.WithToolHandlerMiddleware(middleware),
		server.WithRecovery(),
	)

	pathArg := func(desc string) mcp.ToolOption {
		return mcp.WithString("path", mcp.Required(), mcp.Description(desc))
	}
	hints := func(readOnly, destructive, idempotent bool) []mcp.ToolOption {
		return []mcp.ToolOption{
			mcp.WithReadOnlyHintAnnotation(readOnly),
			mcp.WithDestructiveHintAnnotation(destructive),
			mcp.WithIdempotentHintAnnotation(idempotent),
			mcp.WithOpenWorldHintAnnotation(false),
		}
	}
	// FSSERVER_DESCRIBE=TOOL=TEXT adds TEXT to a tool's description: a
	// server whose definitions carry text aimed at the model, for tests.
	extra, extraText, _ := strings.Cut(os.Getenv("FSSERVER_DESCRIBE"), "=")
	tool := func(name, desc string, h []mcp.ToolOption, opts ...mcp.ToolOption) mcp.Tool {
		if name == extra {
			desc += " " + extraText
		}
		return mcp.NewTool(name, append(append([]mcp.ToolOption{mcp.WithDescription(desc)}, opts...), h...)...)
	}

	srv.AddTool(tool("fs_read", "Read a text file.", hints(true, false, true),
		pathArg("file to read, relative to the sandbox root")), fs.read)
	srv.AddTool(tool("fs_list", "List a directory: one entry a line, directories end in /.", hints(true, false, true),
		pathArg("directory to list; . for the sandbox root")), fs.list)
	srv.AddTool(tool("fs_write", "Create or overwrite a file (parent directories are created).", hints(false, true, true),
		pathArg("file to write"),
		mcp.WithString("content", mcp.Required(), mcp.Description("the whole new content"))), fs.write)
	srv.AddTool(tool("fs_edit", "Replace exactly one occurrence of old with new in a file.", hints(false, true, false),
		pathArg("file to edit"),
		mcp.WithString("old", mcp.Required(), mcp.Description("text to replace; must occur exactly once")),
		mcp.WithString("new", mcp.Required(), mcp.Description("replacement text"))), fs.edit)
	srv.AddTool(tool("fs_mkdir", "Create a directory and any missing parents.", hints(false, false, true),
		pathArg("directory to create")), fs.mkdir)
	srv.AddTool(tool("fs_move", "Move or rename a file or directory; the destination must not exist.", hints(false, true, false),
		mcp.WithString("source", mcp.Required(), mcp.Description("path to move")),
		mcp.WithString("destination", mcp.Required(), mcp.Description("new path"))), fs.move)
	srv.AddTool(tool("fs_delete", "Delete a file or directory; a non-empty directory needs the user's confirmation.", hints(false, true, true),
		pathArg("path to delete")), fs.delete)
	return srv
}

// args fetches the named string arguments, in order.
func args(req mcp.CallToolRequest, names ...string) ([]string, error) {
	out := make([]string, len(names))
	for i, n := range names {
		v, err := req.RequireString(n)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// paths fetches string arguments and maps each into the sandbox.
func (s *sandbox) paths(req mcp.CallToolRequest, names ...string) ([]string, error) {
	vals, err := args(req, names...)
	if err != nil {
		return nil, err
	}
	for i, v := range vals {
		if vals[i], err = s.rel(v); err != nil {
			return nil, err
		}
	}
	return vals, nil
}

// fail is the tool-level error: an MCP result with isError, not a JSON-RPC error.
func fail(err error) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultError(err.Error()), nil
}

func (s *sandbox) read(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if s.slow > 0 {
		select {
		case <-time.After(s.slow):
		case <-ctx.Done(): // a cancelled call should not hold a worker
			return fail(ctx.Err())
		}
	}
	p, err := s.paths(req, "path")
	if err != nil {
		return fail(err)
	}
	data, err := s.root.ReadFile(p[0])
	if err != nil {
		return fail(err)
	}
	return mcp.NewToolResultText(string(data)), nil
}

func (s *sandbox) list(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p, err := s.paths(req, "path")
	if err != nil {
		return fail(err)
	}
	f, err := s.root.Open(p[0])
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return fail(err)
	}
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(e.Name())
		if e.IsDir() {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	return mcp.NewToolResultText(b.String()), nil
}

func (s *sandbox) write(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p, err := s.paths(req, "path")
	if err != nil {
		return fail(err)
	}
	a, err := args(req, "content")
	if err != nil {
		return fail(err)
	}
	if dir := filepath.Dir(p[0]); dir != "." {
		if err := s.root.MkdirAll(dir, 0o755); err != nil {
			return fail(err)
		}
	}
	if err := s.root.WriteFile(p[0], []byte(a[0]), 0o644); err != nil {
		return fail(err)
	}
	return mcp.NewToolResultText(fmt.Sprintf("wrote %d bytes to %s", len(a[0]), p[0])), nil
}

func (s *sandbox) edit(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p, err := s.paths(req, "path")
	if err != nil {
		return fail(err)
	}
	a, err := args(req, "old", "new")
	if err != nil {
		return fail(err)
	}
	if a[0] == "" {
		return fail(errors.New("old is empty"))
	}
	data, err := s.root.ReadFile(p[0])
	if err != nil {
		return fail(err)
	}
	if n := strings.Count(string(data), a[0]); n != 1 {
		return fail(fmt.Errorf("old occurs %d times in %s, expected exactly once", n, p[0]))
	}
	if err := s.root.WriteFile(p[0], []byte(strings.Replace(string(data), a[0], a[1], 1)), 0o644); err != nil {
		return fail(err)
	}
	return mcp.NewToolResultText("edited " + p[0]), nil
}

func (s *sandbox) mkdir(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p, err := s.paths(req, "path")
	if err != nil {
		return fail(err)
	}
	if err := s.root.MkdirAll(p[0], 0o755); err != nil {
		return fail(err)
	}
	return mcp.NewToolResultText("created " + p[0]), nil
}

func (s *sandbox) move(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p, err := s.paths(req, "source", "destination")
	if err != nil {
		return fail(err)
	}
	if p[0] == "." {
		return fail(errors.New("refusing to move the sandbox root"))
	}
	// rename(2) silently replaces a file; the tool promises not to.
	if _, err := s.root.Lstat(p[1]); err == nil {
		return fail(fmt.Errorf("%s already exists", p[1]))
	}
	if err := s.root.Rename(p[0], p[1]); err != nil {
		return fail(err)
	}
	return mcp.NewToolResultText(fmt.Sprintf("moved %s to %s", p[0], p[1])), nil
}

func (s *sandbox) delete(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p, err := s.paths(req, "path")
	if err != nil {
		return fail(err)
	}
	name := p[0]
	if name == "." {
		return fail(errors.New("refusing to delete the sandbox root"))
	}
	info, err := s.root.Lstat(name)
	if err != nil {
		return fail(err)
	}
	if !info.IsDir() || s.emptyDir(name) {
		if err := s.root.Remove(name); err != nil {
			return fail(err)
		}
		return mcp.NewToolResultText("deleted " + name), nil
	}

	// A non-empty directory. On the retry the client's answer is waiting under
	// confirmKey; the request state binds it to this path, so an answer given
	// for one directory never deletes another.
	if answer := server.ElicitationResponse(req.Params.InputResponses, confirmKey); answer != nil {
		if req.Params.RequestState != name {
			return fail(errors.New("confirmation does not match this path"))
		}
		content, _ := answer.Content.(map[string]any)
		if confirmed, _ := content["confirm"].(bool); answer.Action != mcp.ElicitationResponseActionAccept || !confirmed {
			return fail(fmt.Errorf("not deleted: the user did not confirm deleting the non-empty directory %s (%s)", name, answer.Action))
		}
		if err := s.root.RemoveAll(name); err != nil {
			return fail(err)
		}
		return mcp.NewToolResultText("deleted " + name + " and everything in it"), nil
	}
	if !clientCanElicit(ctx) {
		return fail(fmt.Errorf("not deleted: %s is a non-empty directory and the client cannot ask the user to confirm (no elicitation capability)", name))
	}
	// One handler for both protocol eras: a 2026-07-28 client gets an
	// input-required result and retries; for an older client mcp-go sends
	// elicitation/create itself and calls this handler again with the answer.
	return server.NewInputRequestBuilder(name).
		Elicit(confirmKey, mcp.ElicitationParams{
			Mode:    mcp.ElicitationModeForm,
			Message: fmt.Sprintf("Delete the directory %s and everything in it?", name),
			RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"confirm": map[string]any{"type": "boolean", "description": "true to delete recursively"},
				},
				"required": []string{"confirm"},
			},
		}).
		ToolResult(), nil
}

func (s *sandbox) emptyDir(name string) bool {
	f, err := s.root.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = f.ReadDir(1)
	return errors.Is(err, io.EOF)
}

// clientCanElicit reports whether the client declared the elicitation
// capability: per request on 2026-07-28, at initialize before that.
func clientCanElicit(ctx context.Context) bool {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		return info.ClientCapabilities != nil && info.ClientCapabilities.Elicitation != nil
	}
	if session, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		return session.GetClientCapabilities().Elicitation != nil
	}
	return false
}
