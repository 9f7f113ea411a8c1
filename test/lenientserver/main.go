// Command lenientserver is an MCP server over stdio for the proxy's tests
// that reads its input as the most lenient real readers do, and can answer
// with lines a host could read more than one way.
//
//	lenientserver DIR
//
// It ends a line at a carriage return as well as at a line feed (Python's,
// Java's and .NET's line readers do), and reads one JSON value after
// another within a line (a stream decoder does, as the Go SDK reads): every
// message a lenient server could find in the proxy's output, it runs. It
// drops bytes that are not UTF-8, as a decoder told to ignore errors does.
//
// Tools, inside DIR or anywhere (it enforces nothing; the proxy must):
// write_file {path, content} writes a file, with no annotations;
// read_text_file {path} reads one, marked read-only; slow_read {path} is
// read_text_file after a second.
//
// LENIENTSERVER_ANSWER=FILE: read_text_file answers with the bytes of FILE
// instead, each "@ID@" in them replaced by the request's id: the lines a
// hostile server writes. LENIENTSERVER_PING=FILE does the same for ping,
// so that a host can have the server write what it likes when it likes.
//
// Every response it is sent (to a request of its own, or not) goes to
// stderr as "lenientserver: response ID RESULT-OR-ERROR".
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

var out = struct {
	sync.Mutex
	w *bufio.Writer
}{w: bufio.NewWriter(os.Stdout)}

func send(line []byte) {
	out.Lock()
	defer out.Unlock()
	out.w.Write(line)
	out.w.WriteByte('\n')
	out.w.Flush()
}

func reply(id json.RawMessage, result any) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	send(b)
}

func text(s string, isError bool) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}, "isError": isError}
}

func main() {
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		for _, piece := range bytes.FieldsFunc(line, func(r rune) bool { return r == '\n' || r == '\r' }) {
			dec := json.NewDecoder(bytes.NewReader(bytes.ToValidUTF8(piece, nil)))
			for {
				var m message
				if dec.Decode(&m) != nil {
					break
				}
				handle(m)
			}
		}
		if err == io.EOF {
			return
		}
	}
}

func handle(m message) {
	if m.ID == nil {
		return // a notification
	}
	if m.Method == "" {
		answer := m.Result
		if answer == nil {
			answer = m.Error
		}
		fmt.Fprintf(os.Stderr, "lenientserver: response %s %s\n", m.ID, answer)
		return
	}
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(m.Params, &p)
		reply(m.ID, map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "lenientserver", "version": "1"}})
	case "ping":
		if f := os.Getenv("LENIENTSERVER_PING"); f != "" {
			writeFile(f, m.ID)
			return
		}
		reply(m.ID, map[string]any{})
	case "tools/list":
		schema := func(props ...string) map[string]any {
			ps := map[string]any{}
			for _, p := range props {
				ps[p] = map[string]any{"type": "string"}
			}
			return map[string]any{"type": "object", "properties": ps}
		}
		reply(m.ID, map[string]any{"tools": []any{
			map[string]any{"name": "write_file", "inputSchema": schema("path", "content")},
			map[string]any{"name": "read_text_file", "inputSchema": schema("path"), "annotations": map[string]any{"readOnlyHint": true}},
			map[string]any{"name": "slow_read", "inputSchema": schema("path"), "annotations": map[string]any{"readOnlyHint": true}},
		}})
	case "tools/call":
		go call(m)
	default:
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "no method " + m.Method}})
		send(b)
	}
}

func call(m message) {
	var p struct {
		Name      string `json:"name"`
		Arguments struct {
			Path    string `json:"path"`
			Content string `json:"content"`
		} `json:"arguments"`
	}
	json.Unmarshal(m.Params, &p)
	fmt.Fprintf(os.Stderr, "lenientserver: call %s %s\n", p.Name, p.Arguments.Path)
	switch p.Name {
	case "write_file":
		if err := os.WriteFile(p.Arguments.Path, []byte(p.Arguments.Content), 0o644); err != nil {
			reply(m.ID, text(err.Error(), true))
			return
		}
		reply(m.ID, text("wrote "+p.Arguments.Path, false))
	case "slow_read":
		time.Sleep(time.Second)
		fallthrough
	case "read_text_file":
		if f := os.Getenv("LENIENTSERVER_ANSWER"); f != "" && p.Name == "read_text_file" {
			writeFile(f, m.ID)
			return
		}
		data, err := os.ReadFile(p.Arguments.Path)
		if err != nil {
			reply(m.ID, text(err.Error(), true))
			return
		}
		reply(m.ID, text(string(data), false))
	default:
		reply(m.ID, text("no tool "+p.Name, true))
	}
}

// writeFile writes the bytes of file as they are, each "@ID@" replaced by
// id; a file that cannot be read is an error answer to id.
func writeFile(file string, id json.RawMessage) {
	answer, err := os.ReadFile(file)
	if err != nil {
		reply(id, text(err.Error(), true))
		return
	}
	out.Lock()
	out.w.Write(bytes.ReplaceAll(answer, []byte("@ID@"), id))
	out.w.Flush()
	out.Unlock()
}
