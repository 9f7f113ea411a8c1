package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/mcp-policy/mcp-policy/internal/strictjson"
	"github.com/mcp-policy/mcp-policy/provider"
)

// The host's requests a model can reach a server through are decided as
// calls: tools/call, and the requests that read a server's resources,
// prompts and completions (hosts hand those to the model too). The policy
// sees one of the latter as a call to a tool named by its method, its
// arguments the request's params: rules name them "resources/read",
// "prompts/get" and "completion/complete". An MCP tool name has no "/", so
// no server's tool is named so (a tools/call naming one is refused).
// Listings, subscriptions and notifications pass through undecided: they
// read what the server offers, not what it holds.
const (
	methodResourcesRead = "resources/read"
	methodPromptsGet    = "prompts/get"
	methodComplete      = "completion/complete"

	// errRefused is the JSON-RPC error code of a refused request whose
	// result has no isError (all but tools/call): in the range JSON-RPC
	// leaves to implementations, below the part MCP reserves (-32020 to
	// -32099), and none an MCP SDK or revision gives a meaning (-32000 is
	// the TypeScript SDK's connection closed, -32001 its timeout, -32002
	// resource not found, -32003 and -32004 drafts' capability and
	// version errors).
	errRefused = -32010
)

// decidedMethod is how the params of a request the policy decides are read.
type decidedMethod struct {
	// members are the params' members the protocol defines: one spelt in
	// another case is refused (the one-reading rule).
	members memberSet
	// rounds: on protocol 2026-07-28 an input-required round may answer
	// the request (tools/call, prompts/get and resources/read), so the
	// proxy can put its question in one.
	rounds bool
}

// decidedMethods are the host's requests the policy decides.
var decidedMethods = map[string]decidedMethod{
	methodToolsCall:     {members: callMembers, rounds: true},
	methodResourcesRead: {members: members("uri", "_meta", "requestState", "inputResponses"), rounds: true},
	methodPromptsGet:    {members: members("name", "arguments", "_meta", "requestState", "inputResponses"), rounds: true},
	methodComplete:      {members: members("ref", "argument", "context", "_meta")},
}

// requestTools are the catalogue entries of the requests decided as calls
// to a tool named by their method. Each is a read by the protocol's
// definition, whatever the server says, so each is marked read-only: the
// default rule that lets read-only tools read local paths lets
// resources/read read a file: URI, and a rule on read-only tools covers
// them too. Nothing else is claimed of them.
var requestTools = []string{methodResourcesRead, methodPromptsGet, methodComplete}

// withRequestTools is the server's catalogue as the policy decides by it:
// the server's tools, but none named as a decided request (no MCP tool
// name has a "/"; a server listing one cannot set the annotations of
// resources/read), and the entries of requestTools.
func withRequestTools(tools []provider.Tool) []provider.Tool {
	out := make([]provider.Tool, 0, len(tools)+len(requestTools))
	for _, t := range tools {
		if !isRequestTool(t.Function.Name) {
			out = append(out, t)
		}
	}
	for _, name := range requestTools {
		readOnly := true
		out = append(out, provider.Tool{Type: "function", Annotations: &provider.Annotations{ReadOnlyHint: &readOnly},
			Function: provider.ToolFunction{Name: name, Description: "the MCP request " + name + ", decided as a call"}})
	}
	return out
}

func isRequestTool(name string) bool {
	for _, n := range requestTools {
		if n == name {
			return true
		}
	}
	return false
}

// callRequest is what the proxy reads of the params of a request it
// decides: the call the policy sees, and the members that are the
// request's own (its _meta, and an input-required retry's answers).
type callRequest struct {
	name, arguments string
	meta            []byte
	requestState    string
	inputResponses  []byte
}

// literalString is a JSON string literal's text, as encoding/json decodes
// it; ok is false for any other value, and for a string that is not valid
// UTF-8 as written (left to encoding/json, which replaces what is not).
func literalString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	s, err := stringValue(raw)
	if err != nil || !utf8.ValidString(s) {
		return "", false
	}
	return s, true
}

// unpairedSurrogate says the JSON string literal raw has a \u escape of
// a UTF-16 surrogate that is not half of a pair (a high one followed by a
// low one).
func unpairedSurrogate(raw []byte) bool {
	return len(raw) >= 2 && raw[0] == '"' && strictjson.LoneSurrogate(raw[1:len(raw)-1])
}

// callOf makes r the call of a tools/call naming tool with arguments.
func (r *callRequest) callOf(tool string, arguments json.RawMessage) error {
	if isRequestTool(tool) {
		return fmt.Errorf("no MCP tool is named %q: rules name the host's %s requests so", tool, tool)
	}
	r.name, r.arguments = tool, string(arguments)
	if provider.NoArguments(r.arguments) || r.arguments == "null" {
		r.arguments = "{}"
	}
	return nil
}

// readCallRequest reads params of a request of one of decidedMethods, held
// to the one reading the proxy holds every message to: an object, no
// member twice (exactly, escaped or in another case), none the protocol
// defines spelt in another case, and at any depth no duplicate the
// policy's reading refuses. A tools/call is the call to the tool it names
// with its arguments; another method is the call to the tool named by the
// method, its arguments the params but for _meta, requestState and
// inputResponses (what an argument of a tools/call never holds).
func readCallRequest(method string, params []byte) (callRequest, error) {
	var r callRequest
	var name, arguments, meta, state, responses []byte // a tools/call's members, as written
	err := unambiguousEach(params, decidedMethods[method].members, func(key, val []byte) {
		switch string(key) { // exact: unambiguous refuses these spelt otherwise
		case "name":
			name = val
		case "arguments":
			arguments = val
		case "_meta":
			meta = val
		case "requestState":
			state = val
		case "inputResponses":
			responses = val
		}
	})
	if err != nil {
		if errors.Is(err, errNotObject) {
			return r, errors.New("must be an object")
		}
		return r, err
	}
	if method == methodToolsCall && unpairedSurrogate(name) {
		// encoding/json reads it as U+FFFD, JavaScript keeps it: the
		// proxy would decide one tool and the server run another.
		return r, errors.New("the tool's name has an unpaired surrogate escape (\\uD800 to \\uDFFF), which readers read differently")
	}
	if method == methodToolsCall && json.Valid(params) {
		// The common case, from the members taken in that one pass: a
		// name that is a string, a requestState that is one or null.
		// Read so, they are what encoding/json reads of them; anything
		// else is read again the long way, below, for the message that
		// names it.
		tool, ok := literalString(name)
		stateValue, stateOK := literalString(state)
		if ok && tool != "" && (stateOK || state == nil || string(state) == "null") {
			r.meta, r.inputResponses, r.requestState = bytes.Clone(meta), bytes.Clone(responses), stateValue
			return r, r.callOf(tool, arguments)
		}
	}
	return readParams(method, params)
}

// readParams is readCallRequest the long way, each member read by
// encoding/json, for params already held unambiguous.
func readParams(method string, params []byte) (callRequest, error) {
	var r callRequest
	if !json.Valid(params) {
		return r, errors.New("not valid JSON")
	}
	var own struct {
		Meta           json.RawMessage `json:"_meta"`
		RequestState   *string         `json:"requestState"`
		InputResponses json.RawMessage `json:"inputResponses"`
	}
	if err := json.Unmarshal(params, &own); err != nil {
		return r, fmt.Errorf("requestState must be a string")
	}
	r.meta, r.inputResponses = own.Meta, own.InputResponses
	if own.RequestState != nil {
		r.requestState = *own.RequestState
	}
	if method == methodToolsCall {
		var call struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(params, &call); err != nil || call.Name == "" {
			return r, errors.New("must name the tool")
		}
		return r, r.callOf(call.Name, call.Arguments)
	}
	var args bytes.Buffer
	args.WriteByte('{')
	err := eachMember(params, func(key, val []byte) error {
		switch string(key) {
		case "_meta", "requestState", "inputResponses":
			return nil
		}
		if args.Len() > 1 {
			args.WriteByte(',')
		}
		k, err := json.Marshal(string(key))
		if err != nil {
			return err
		}
		args.Write(k)
		args.WriteByte(':')
		args.Write(val)
		return nil
	})
	if err != nil {
		return r, err
	}
	args.WriteByte('}')
	r.name, r.arguments = method, args.String()
	return r, nil
}
