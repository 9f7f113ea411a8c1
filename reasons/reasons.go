// Package reasons gives every tool an optional "reason" argument, so the
// model can say in one sentence why it is making a call, and removes it again
// before the call reaches the tool.
//
// It belongs directly under a policy — Policy(Reasons(Leases(Registry))) —
// so that a permission question still carries the model's sentence for a UI
// to show beside the arguments, while the server never sees an argument it
// did not declare. The policy itself never lets a rule, the floor or a
// classifier read it: a reason is something to show a human, not evidence.
package reasons

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/mcp-policy/mcp-policy/provider"
)

// Argument is the name of the added argument.
const Argument = "reason"

// Description is what the model is told the argument is for.
const Description = "Why you are making this call, in one sentence, for the human reviewing it."

// Reasons is a Provider that adds the reason argument to the tools of the
// provider below it and strips it from calls on the way down.
//
// A tool whose schema already declares its own "reason" property is left
// alone, and so are its calls: that reason is the tool's argument, not ours,
// and stripping it would break the tool. The same holds for a tool whose
// schema is not an object schema Reasons can extend. Which tools those are is
// learnt from the most recent ToolsForLLM; before the first listing, and for
// tools no listing showed, every call is stripped.
//
// Reasons is safe for concurrent use.
type Reasons struct {
	p provider.Provider

	mu   sync.RWMutex
	keep map[string]bool // tools whose calls keep their reason key
}

// New wraps p, which must not be nil.
func New(p provider.Provider) *Reasons { return &Reasons{p: p} }

// reasonSchema is the property added to each tool's input schema. It is
// never added to "required": a call without a reason is a good call.
var reasonSchema = json.RawMessage(`{"type":"string","description":` + mustJSON(Description) + `}`)

// ToolsForLLM lists the provider below and returns copies of its tools with
// the reason property added to each parameters schema. Empty or null
// parameters become {"type":"object","properties":{"reason":...}}; the order
// and text of everything else in a schema is kept.
func (r *Reasons) ToolsForLLM(ctx context.Context) ([]provider.Tool, error) {
	tools, err := r.p.ToolsForLLM(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]provider.Tool, len(tools))
	keep := make(map[string]bool)
	for i, t := range tools {
		params, ok := addReason(t.Function.Parameters)
		if ok {
			t.Function.Parameters = params
		} else {
			keep[t.Function.Name] = true
		}
		out[i] = t
	}
	r.mu.Lock()
	r.keep = keep
	r.mu.Unlock()
	return out, nil
}

// ExecuteToolCalls strips the reason from each call's arguments and forwards
// the whole batch as one. Arguments without a reason key, and arguments that
// are not a JSON object, are forwarded byte for byte: the provider below is
// the one to report a malformed call.
func (r *Reasons) ExecuteToolCalls(ctx context.Context, calls []provider.Call) []provider.Result {
	r.mu.RLock()
	keep := r.keep
	r.mu.RUnlock()
	fwd := make([]provider.Call, len(calls))
	for i, c := range calls {
		if !keep[c.Function.Name] {
			if args, _, ok := Strip(c.Function.Arguments); ok {
				c.Function.Arguments = args
			}
		}
		fwd[i] = c
	}
	return provider.Forward(ctx, r.p, fwd)
}

// Strip removes every top-level "reason" key from a JSON object's text.
//
// It returns the remaining object, the reason (the string's value, or the
// raw JSON text if the model sent something other than a string) and whether
// a reason key was found. The other members are kept in order, with their
// values' text unchanged. When ok is false, arguments is returned as it came:
// no reason key, or not a single JSON object.
func Strip(arguments string) (rest, reason string, ok bool) {
	if !utf8.ValidString(arguments) {
		return arguments, "", false // re-encoding would silently repair it
	}
	members, err := decodeObject([]byte(arguments))
	if err != nil {
		return arguments, "", false
	}
	var kept []member
	for _, m := range members {
		if m.key != Argument {
			kept = append(kept, m)
			continue
		}
		ok = true
		var s string
		if json.Unmarshal(m.value, &s) == nil {
			reason = s
		} else {
			reason = string(m.value)
		}
	}
	if !ok {
		return arguments, "", false
	}
	return string(encodeObject(kept)), reason, true
}

// addReason adds the reason property to a parameters schema, or reports
// false when the schema already has one or is not an object schema.
func addReason(params json.RawMessage) (json.RawMessage, bool) {
	if t := bytes.TrimSpace(params); len(t) == 0 || string(t) == "null" {
		return encodeObject([]member{
			{"type", json.RawMessage(`"object"`)},
			{"properties", encodeObject([]member{{Argument, reasonSchema}})},
		}), true
	}
	schema, err := decodeObject(params)
	if err != nil {
		return nil, false
	}
	propsAt, typed := -1, false
	for i, m := range schema {
		switch m.key {
		case "type":
			var s string
			if json.Unmarshal(m.value, &s) != nil || s != "object" {
				return nil, false
			}
			typed = true
		case "properties":
			propsAt = i
		}
	}
	if !typed {
		schema = append([]member{{"type", json.RawMessage(`"object"`)}}, schema...)
		if propsAt >= 0 {
			propsAt++
		}
	}
	if propsAt < 0 || string(bytes.TrimSpace(schema[propsAt].value)) == "null" {
		props := encodeObject([]member{{Argument, reasonSchema}})
		if propsAt < 0 {
			schema = append(schema, member{"properties", props})
		} else {
			schema[propsAt].value = props
		}
		return encodeObject(schema), true
	}
	props, err := decodeObject(schema[propsAt].value)
	if err != nil {
		return nil, false
	}
	for _, p := range props {
		if p.key == Argument {
			return nil, false
		}
	}
	schema[propsAt].value = encodeObject(append(props, member{Argument, reasonSchema}))
	return encodeObject(schema), true
}

// member is one key of a JSON object with its value's text, so an object
// can be edited without reordering or re-spelling the rest of it.
type member struct {
	key   string
	value json.RawMessage
}

var errNotObject = errors.New("not a JSON object")

// decodeObject splits one JSON object into its members, in order,
// duplicates included. Anything else — another JSON value, trailing data,
// malformed text — is an error.
func decodeObject(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errNotObject
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errNotObject
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key, v})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, errNotObject
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errNotObject
	}
	return out, nil
}

func encodeObject(ms []member) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(mustJSON(m.key))
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// mustJSON encodes a string without HTML escaping, so keys and text read as
// they were written.
func mustJSON(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
