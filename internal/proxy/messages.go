package proxy

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/mcp-policy/mcp-policy/provider"
)

// The JSON-RPC messages the proxy writes itself, and the two streams it writes them to.

// toUpstream sends msg to the server. A server that cannot be written to is
// stopped; its going answers whatever waits on it.
func (p *Proxy) toUpstream(msg []byte) {
	if err := p.up.send(msg); err != nil && p.deadReason() == "" {
		go p.up.stop()
	}
}

func (p *Proxy) toHost(msg []byte) { _ = p.host.write(msg) }

// rawID is id for a message of the proxy's own: as it came, or null when it
// is not one JSON value (a line the proxy refuses can carry anything there;
// JSON-RPC answers an id it cannot read with null).
func rawID(id []byte) json.RawMessage {
	// json.Valid takes invalid UTF-8 inside a string; a strict host does
	// not, and would drop the whole answer.
	if !json.Valid(id) || !utf8.Valid(id) {
		return json.RawMessage("null")
	}
	return json.RawMessage(id)
}

func requestMessage(id []byte, method string, params any) []byte {
	m := map[string]any{"jsonrpc": "2.0", "id": rawID(id), "method": method}
	if params != nil {
		m["params"] = params
	}
	return marshalLine(m)
}

func notification(method string, params any) []byte {
	return marshalLine(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func errorMessage(id []byte, code int, msg string) []byte {
	return marshalLine(map[string]any{"jsonrpc": "2.0", "id": rawID(id),
		"error": map[string]any{"code": code, "message": msg}})
}

func responseMessage(id []byte, result any) []byte {
	return marshalLine(map[string]any{"jsonrpc": "2.0", "id": rawID(id), "result": result})
}

// resultMessage answers a tools/call with r: the MCP result it carries, or
// its text as one text block.
func resultMessage(id []byte, r provider.Result) []byte {
	if len(r.MCP) > 0 {
		return responseMessage(id, r.MCP)
	}
	res := map[string]any{"content": []any{map[string]any{"type": "text", "text": r.Content}}}
	if r.IsError {
		res["isError"] = true
	}
	return responseMessage(id, res)
}

func errorResult(text string) provider.Result { return provider.ErrorResult("", text) }

func marshalLine(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only our own maps of JSON values are marshalled
	}
	return buf.Bytes()
}
