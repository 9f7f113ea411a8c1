// Command tour shows mcp-policy proxy deciding the calls of a real MCP
// server, as a newcomer's first run: README.md's main command.
//
//	go run ./test/tour
//
// It builds mcp-policy and the small filesystem server in test/fsserver,
// starts the proxy in front of the server exactly as an MCP host would (the
// proxy's flags, then -- and the server's command line), and plays the host
// over the proxy's stdin and stdout: it sends the calls an agent might make
// and answers each question the proxy asks the way a human might, with each
// of the four answers once. It prints what the human is asked and what each
// answer does, and checks every outcome: a call decided otherwise than the
// tour expects makes it fail (exit status 1), so the tour is also a test that
// a fresh checkout works end to end. Only the standard library is used, so
// the host is plain JSON-RPC lines anyone can read.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "\ntour: FAILED: %v\n", err)
		os.Exit(1)
	}
}

// step is one call the agent makes, what the human answers if asked, and
// what the tour expects.
type step struct {
	why       string
	tool      string
	arguments map[string]any
	answer    string // the human's choice when asked; "" expects no question
	wantError bool   // the call is refused
	noAlways  bool   // the question must not offer "Always allow" (nor "Allow for a day")
}

func run() error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "mcp-policy-tour-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// The server reports and compares real paths: on macOS /tmp is a link.
	if tmp, err = filepath.EvalSymlinks(tmp); err != nil {
		return err
	}
	tourDir = tmp

	bin, project, err := setUp(root, tmp)
	if err != nil {
		return err
	}
	grantsFile := filepath.Join(tmp, "config", "grants.json")
	logFile := filepath.Join(tmp, "config", "decisions.jsonl")
	args := []string{"proxy", "--grants", grantsFile, "--log", logFile,
		"--", filepath.Join(bin, "fsserver"), project}
	fmt.Printf("\n$TOUR is a new temporary directory (%s), removed at the end.\n", tourDir)
	fmt.Printf("The host runs:  mcp-policy %s\n", short(strings.Join(args, " ")))

	h, err := startHost(filepath.Join(bin, "mcp-policy"), args)
	if err != nil {
		return err
	}
	defer h.stop()
	if err := h.initialize(); err != nil {
		return fmt.Errorf("%w\nthe proxy's stderr:\n%s", err, h.stderr.String())
	}
	// The proxy's start-up line says what is in force. It was written
	// before the server started; exec copies it over in its own time.
	for i := 0; i < 50 && !strings.Contains(h.stderr.String(), "\n"); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	fmt.Printf("The proxy says: %s\n", short(firstLine(h.stderr.String())))

	in := func(rel string) string { return filepath.Join(project, rel) }
	steps := []step{
		{why: "a read-only tool reads inside the project: the default rules allow it",
			tool: "fs_read", arguments: map[string]any{"path": in("README.md")}},
		{why: "a write no rule covers: the human is asked",
			tool: "fs_write", arguments: map[string]any{"path": in("docs/plan.md"), "content": "# Plan\n", "reason": "saving the plan we agreed on"},
			answer: "Always allow"},
		{why: "another write in docs/: the grant \"Always allow\" left answers, no question",
			tool: "fs_write", arguments: map[string]any{"path": in("docs/notes.md"), "content": "notes\n"}},
		{why: "a write to .git/config would change what git runs: the danger floor asks every time, and offers no \"Always allow\"",
			tool: "fs_write", arguments: map[string]any{"path": in(".git/config"), "content": "[core]\n\thooksPath = /tmp/x\n"},
			answer: "Deny once", wantError: true, noAlways: true},
		{why: "a write outside docs/: asked again, allowed this once",
			tool: "fs_write", arguments: map[string]any{"path": in("todo.md"), "content": "- ship\n"},
			answer: "Allow once"},
		{why: "a delete: the human says never",
			tool: "fs_delete", arguments: map[string]any{"path": in("docs/notes.md")},
			answer: "Always deny", wantError: true},
		{why: "another delete in docs/: refused by the deny grant, no question",
			tool: "fs_delete", arguments: map[string]any{"path": in("docs/plan.md")}, wantError: true},
	}
	for i, s := range steps {
		if err := h.play(i+1, s); err != nil {
			return fmt.Errorf("call %d (%s): %w\nthe proxy's stderr:\n%s", i+1, s.tool, err, h.stderr.String())
		}
	}

	// Closing stdin is how a host ends the session: the proxy stops the
	// server and exits.
	if err := h.stop(); err != nil {
		return fmt.Errorf("the proxy did not exit cleanly: %w\n%s", err, h.stderr.String())
	}
	return summary(grantsFile, logFile, len(steps), project)
}

// setUp builds the proxy and the server into tmp/bin and makes the
// project the server serves: a README and a git config.
func setUp(root, tmp string) (bin, project string, err error) {
	fmt.Println("Building mcp-policy and test/fsserver (the first build takes a few minutes)...")
	bin = filepath.Join(tmp, "bin")
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./cmd/mcp-policy", "./test/fsserver")
	build.Dir, build.Stdout, build.Stderr = root, os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		return "", "", fmt.Errorf("go build: %w", err)
	}

	project = filepath.Join(tmp, "project")
	for name, content := range map[string]string{
		"README.md":   "hello from the project\n",
		".git/config": "[core]\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(project, name)), 0o755); err != nil {
			return "", "", err
		}
		if err := os.WriteFile(filepath.Join(project, name), []byte(content), 0o644); err != nil {
			return "", "", err
		}
	}
	return bin, project, nil
}

// summary shows what the answers left behind, and checks it.
func summary(grantsFile, logFile string, calls int, project string) error {
	g, err := os.ReadFile(grantsFile)
	if err != nil {
		return fmt.Errorf("the grants file: %w", err)
	}
	var kept []map[string]any
	if err := json.Unmarshal(g, &kept); err != nil {
		return fmt.Errorf("the grants file %s: %w\n%s", grantsFile, err, g)
	}
	fmt.Printf("\nThe grants file (--grants) keeps the two \"always\" answers for the next session:\n")
	for _, gr := range kept {
		line, _ := json.Marshal(gr)
		fmt.Printf("  %s\n", short(string(line)))
	}
	if len(kept) != 2 {
		return fmt.Errorf("the grants file holds %d grants, want 2:\n%s", len(kept), g)
	}
	l, err := os.ReadFile(logFile)
	if err != nil {
		return fmt.Errorf("the decision log: %w", err)
	}
	lines := bytes.Count(l, []byte("\n"))
	fmt.Printf("The decision log (--log) has one JSON line per decision, in OPA's decision-log shape: %d lines.\n", lines)
	if lines != calls {
		return fmt.Errorf("the decision log has %d lines, want %d", lines, calls)
	}
	for _, f := range []struct {
		name string
		want bool
	}{{"docs/plan.md", true}, {"todo.md", true}, {"docs/notes.md", true}} {
		if _, err := os.Stat(filepath.Join(project, f.name)); (err == nil) != f.want {
			return fmt.Errorf("%s: exists %v, want %v", f.name, err == nil, f.want)
		}
	}
	if c, _ := os.ReadFile(filepath.Join(project, ".git/config")); string(c) != "[core]\n" {
		return fmt.Errorf(".git/config was changed: %q", c)
	}
	fmt.Printf("\ntour: all %d calls decided as expected.\n", calls)
	return nil
}

// host is the tour's MCP host: the proxy's stdin and stdout, one JSON-RPC
// message a line.
type host struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	stderr *lockedBuffer
	nextID int
	done   bool
	// questions counts the questions shown so far.
	questions int
}

func startHost(program string, args []string) (*host, error) {
	cmd := exec.Command(program, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	h := &host{cmd: cmd, stdin: stdin, lines: make(chan []byte, 16), stderr: &lockedBuffer{}}
	cmd.Stderr = h.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			h.lines <- bytes.Clone(sc.Bytes())
		}
		close(h.lines)
	}()
	return h, nil
}

func (h *host) stop() error {
	if h.done {
		return nil
	}
	h.done = true
	h.stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- h.cmd.Wait() }()
	select {
	case err := <-exited:
		return err
	case <-time.After(30 * time.Second):
		h.cmd.Process.Kill()
		return errors.New("still running 30 s after its stdin closed")
	}
}

func (h *host) send(msg map[string]any) error {
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = h.stdin.Write(append(b, '\n'))
	return err
}

// message is any JSON-RPC message from the proxy.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (h *host) next() (message, error) {
	select {
	case line, ok := <-h.lines:
		if !ok {
			return message{}, errors.New("the proxy closed its stdout")
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			return message{}, fmt.Errorf("the proxy wrote %q: %w", line, err)
		}
		return m, nil
	case <-time.After(60 * time.Second):
		return message{}, errors.New("no message from the proxy for 60 s")
	}
}

// request sends a request and returns its result, handing every request
// the proxy makes meanwhile (its questions) to ask.
func (h *host) request(method string, params any, ask func(message) (any, error)) (json.RawMessage, error) {
	h.nextID++
	id := fmt.Sprint(h.nextID)
	if err := h.send(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		m, err := h.next()
		if err != nil {
			return nil, err
		}
		switch {
		case m.Method != "" && m.ID != nil: // the proxy asks the host
			if ask == nil {
				return nil, fmt.Errorf("unexpected request %s from the proxy: %s", m.Method, m.Params)
			}
			result, err := ask(m)
			if err != nil {
				return nil, err
			}
			if err := h.send(map[string]any{"id": m.ID, "result": result}); err != nil {
				return nil, err
			}
		case m.Method != "": // a notification: nothing to do
		case string(m.ID) == `"`+id+`"`:
			if m.Error != nil {
				return nil, fmt.Errorf("%s: error %s", method, m.Error)
			}
			return m.Result, nil
		}
	}
}

func (h *host) initialize() error {
	// A host that can elicit: the proxy asks the human through it.
	_, err := h.request("initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{"elicitation": map[string]any{}},
		"clientInfo":      map[string]any{"name": "tour", "version": "1"},
	}, nil)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	return h.send(map[string]any{"method": "notifications/initialized"})
}

// play makes one call, answers the question if one comes, and checks the
// outcome.
func (h *host) play(n int, s step) error {
	shown, _ := json.Marshal(s.arguments)
	fmt.Printf("\n%d. The agent calls %s %s\n   (%s)\n", n, s.tool, short(string(shown)), s.why)
	asked := false
	ask := func(m message) (any, error) {
		if m.Method != "elicitation/create" {
			return nil, fmt.Errorf("unexpected request %s", m.Method)
		}
		if asked {
			return nil, errors.New("asked twice about one call")
		}
		asked = true
		return h.answer(m, s)
	}
	raw, err := h.request("tools/call", map[string]any{"name": s.tool, "arguments": s.arguments}, ask)
	if err != nil {
		return err
	}
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return err
	}
	var text []string
	for _, c := range res.Content {
		text = append(text, strings.TrimSpace(c.Text))
	}
	verdict := "The server ran it"
	if res.IsError {
		verdict = "Refused; the model reads"
	} else if !asked {
		verdict = "Allowed without a question; the server ran it"
	}
	fmt.Printf("   %s: %s\n", verdict, short(strings.Join(text, " ")))
	switch {
	case asked != (s.answer != ""):
		return fmt.Errorf("asked: %v, want %v", asked, s.answer != "")
	case res.IsError != s.wantError:
		return fmt.Errorf("refused: %v, want %v: %s", res.IsError, s.wantError, strings.Join(text, " "))
	}
	return nil
}

// answer fills in the proxy's form m as step s says the human answers,
// printing the question and its choices; it fails when the choices are not
// what s expects.
func (h *host) answer(m message, s step) (any, error) {
	var form struct {
		Message         string `json:"message"`
		RequestedSchema struct {
			Properties map[string]struct {
				OneOf []struct {
					Const string `json:"const"`
					Title string `json:"title"`
				} `json:"oneOf"`
			} `json:"properties"`
		} `json:"requestedSchema"`
	}
	if err := json.Unmarshal(m.Params, &form); err != nil {
		return nil, err
	}
	fmt.Println("   The proxy asks the human (through the host's elicitation form):")
	for _, line := range strings.Split(form.Message, "\n") {
		// The whole question once; after that, why it is asked.
		if h.questions == 0 || strings.HasPrefix(line, "Asked because") {
			fmt.Printf("   | %s\n", short(line))
		}
	}
	h.questions++
	choice, titles := "", []string{}
	for _, o := range form.RequestedSchema.Properties["answer"].OneOf {
		titles = append(titles, o.Title)
		if strings.HasPrefix(o.Title, s.answer) && s.answer != "" {
			choice = o.Const
		}
		if s.noAlways && (strings.HasPrefix(o.Title, "Always allow") || strings.HasPrefix(o.Title, "Allow for a day")) {
			return nil, fmt.Errorf("offered %q", o.Title)
		}
	}
	fmt.Printf("   | choices: %s\n", short(strings.Join(titles, " / ")))
	if choice == "" {
		return nil, fmt.Errorf("the human meant to answer %q, but the choices are %q", s.answer, titles)
	}
	fmt.Printf("   The human answers: %s\n", s.answer)
	return map[string]any{"action": "accept", "content": map[string]any{"answer": choice}}, nil
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("run the tour from inside a checkout of mcp-policy")
	}
	return filepath.Dir(gomod), nil
}

// tourDir is the tour's temporary directory, shown as $TOUR.
var tourDir string

// short writes tourDir as $TOUR, so the output reads the same on every run.
func short(s string) string {
	if tourDir == "" {
		return s
	}
	return strings.ReplaceAll(s, tourDir, "$TOUR")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimPrefix(line, "mcp-policy proxy: ")
}

// lockedBuffer holds the proxy's stderr, written by exec's copying
// goroutine while the tour reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
