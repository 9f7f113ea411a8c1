// Package rules is the static half of mcp-policy: the rule schema and its
// validation, the translation of a tool call into the engine's input (what
// internal/argread read of it, resolved against the roots), the Engine that
// has internal/regoeval compile and evaluate the embedded Rego, and the
// mapping of its outcome to a Decision. It never asks anyone and holds no
// state beyond what it was built with.
package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/mcp-policy/mcp-policy/internal/argread"
	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/internal/regoeval"
	"github.com/mcp-policy/mcp-policy/internal/strictjson"
	"github.com/mcp-policy/mcp-policy/internal/verdict"
)

// The three decisions.
const (
	Allow = verdict.Allow
	Deny  = verdict.Deny
	Ask   = verdict.Ask
)

// Reason says why a call got its decision.
type Reason string

// Reasons a decision can carry.
const (
	ReasonRule        Reason = "rule"             // a data rule or a module's entry decided
	ReasonNoMatch     Reason = "no-match"         // nothing matched: asked
	ReasonUnevaluable Reason = "unevaluable-path" // a path or URL could not be evaluated, and it mattered: asked
	ReasonFloor       Reason = "floor"            // the danger floor decided
	ReasonGrant       Reason = "grant"            // a grant (a remembered answer) decided an ask
)

// hintNames are the MCP tool annotations a rule may test, MCP's four tool
// hints: the one list of them (a rule's validation and the input's
// annotations both read it).
var hintNames = [...]string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}

// Rule is one static rule, grant or remembered answer. The same schema
// serves all three; in answers Decision is ignored (the action decides).
type Rule struct {
	Tool        string           `json:"tool"`
	Decision    verdict.Decision `json:"decision,omitempty"`
	Under       string           `json:"under,omitempty"`
	Host        string           `json:"host,omitempty"`
	Annotations map[string]bool  `json:"annotations,omitempty"`
	// Arguments name top-level arguments, each with a glob over its value
	// (the tool glob's syntax): see docs/rules.md, "Rules".
	Arguments map[string]string `json:"arguments,omitempty"`
	// Command are globs over a shell command's words, joined by one space
	// ("git status", "npm run test*"), one or a list: an allow needs every
	// command of the call's command lines to match one of them, a deny or
	// ask any (see docs/rules.md, "Commands").
	Command CommandGlobs `json:"command,omitempty"`
	// Data marks where the tool's arguments hold the server's data, by
	// name (at any depth) or JSON Pointer ("/rows/*/cells"): nothing there
	// is read as a path, URL, host or command, for every call of the
	// tools the rule's tool matches, but a file the floor guards. Only an
	// allow rule carries marks (see docs/rules.md, "Data").
	Data []string `json:"data,omitempty"`
	// Except is what a deny or ask rule leaves out: the calls an allow
	// with its under, host, arguments and command would match ("ask
	// read_file except under the project"). Only those four fields.
	Except  *Rule  `json:"except,omitempty"`
	Message string `json:"message,omitempty"`
}

// CommandGlobs are a rule's command globs. In JSON, one is a string
// ("git status*") and more are a list (["cat *", "jq *"]): a rule that
// allows a pipeline's programs together ("cat package.json | jq .x").
type CommandGlobs []string

// MarshalJSON writes one glob as a string, more as a list.
func (g CommandGlobs) MarshalJSON() ([]byte, error) {
	if len(g) == 1 {
		return json.Marshal(g[0])
	}
	return json.Marshal([]string(g))
}

// UnmarshalJSON reads a string or a list of strings.
func (g *CommandGlobs) UnmarshalJSON(data []byte) error {
	var one string
	if err := json.Unmarshal(data, &one); err == nil {
		*g = CommandGlobs{one}
		return nil
	}
	var list []string
	if err := json.Unmarshal(data, &list); err != nil || list == nil {
		return &ValidationError{Field: "command", Msg: "must be a glob or a list of globs"}
	}
	*g = list
	return nil
}

// value is the globs as the rules' data holds them: a string for one.
func (g CommandGlobs) value() any {
	if len(g) == 1 {
		return g[0]
	}
	return []string(g)
}

// ruleKeys are the JSON keys a rule may have; anything else is a typo that
// would otherwise silently widen or narrow a rule.
var ruleKeys = map[string]bool{"tool": true, "decision": true, "under": true, "host": true, "annotations": true, "arguments": true,
	"command": true, "data": true, "except": true, "message": true}

// ValidationError names the rule and the field that is wrong.
type ValidationError struct {
	Rule  string // "rule 3" or "grant 1"; set by the caller's context
	Field string
	Msg   string
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("%s: field %q: %s", e.Rule, e.Field, e.Msg)
}

// Validate checks a rule or grant and returns it normalised (under
// cleaned, host in its canonical form); its decision is required. name says
// which rule this is in error messages, e.g. "rule 2".
func Validate(r Rule, name string) (Rule, error) {
	fail := func(field, format string, a ...any) (Rule, error) {
		return Rule{}, &ValidationError{Rule: name, Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	if r.Tool == "" {
		return fail("tool", "must be a non-empty tool name or glob")
	}
	if err := lexical.ValidateToolGlob(r.Tool); err != nil {
		return fail("tool", "%v", err)
	}
	switch r.Decision {
	case Allow, Deny, Ask:
	case "":
		return fail("decision", `is required: "allow", "deny" or "ask"`)
	default:
		return fail("decision", `%q is not "allow", "deny" or "ask"`, r.Decision)
	}
	if r.Under != "" {
		u, err := lexical.NormalizeUnder(r.Under)
		if err != nil {
			return fail("under", "%v", err)
		}
		r.Under = u
	}
	if r.Host != "" {
		h, err := lexical.NormalizeHostPattern(r.Host)
		if err != nil {
			return fail("host", "%v", err)
		}
		r.Host = h
	}
	if r.Command != nil && len(r.Command) == 0 {
		return fail("command", "names no command: give a glob, or leave the field out")
	}
	for _, g := range r.Command {
		if g == "" {
			return fail("command", "an empty glob matches no command")
		}
		if err := lexical.ValidateToolGlob(g); err != nil {
			return fail("command", "%v", err)
		}
		if strings.TrimSpace(g) != g || strings.Contains(g, "  ") {
			return fail("command", "words are joined by one space, with none at either end: %q", g)
		}
	}
	if len(r.Data) > 0 && r.Decision != Allow {
		return fail("data", "marks the data of a tool the user allows: it goes on an allow rule (a deny or ask reads everything)")
	}
	for _, loc := range r.Data {
		if err := argread.ValidateDataLocation(loc); err != nil {
			return fail("data", "%v", err)
		}
	}
	for k := range r.Annotations {
		if !knownHint(k) {
			return fail("annotations", "unknown hint %q (known: %s)", k, strings.Join(hintNames[:], ", "))
		}
	}
	for k := range r.Arguments {
		if argread.FoldName(k) == argread.FoldName(argread.ReasonArgument) {
			return fail("arguments", "%q is the model's reason, which no rule sees", k)
		}
	}
	// Names, globs and names that fold together are read by the matcher
	// itself, so a rule and the engine agree on what is valid.
	if len(r.Arguments) == 0 {
		r.Arguments = nil // {} names no argument
	} else if _, err := regoeval.ArgumentGlobs(r.Arguments); err != nil {
		return fail("arguments", "%v", strings.TrimPrefix(err.Error(), "arguments: "))
	}
	if r.Except != nil {
		x, err := validateException(r, name)
		if err != nil {
			return Rule{}, err
		}
		r.Except = x
	}
	return r, nil
}

// validateException checks a deny's or ask's exception, and returns it
// normalised as Validate normalises an allow's fields.
func validateException(r Rule, name string) (*Rule, error) {
	fail := func(format string, a ...any) (*Rule, error) {
		return nil, &ValidationError{Rule: name, Field: "except", Msg: fmt.Sprintf(format, a...)}
	}
	x := *r.Except
	switch {
	case r.Decision == Allow:
		return fail("leaves calls out of a deny or ask: an allow is narrowed by its own fields")
	case x.Tool != "" || x.Decision != "" || x.Annotations != nil || x.Data != nil || x.Except != nil || x.Message != "":
		return fail("names only under, host, arguments or command")
	case x.Under == "" && x.Host == "" && len(x.Arguments) == 0 && x.Command == nil:
		return fail("names nothing to leave out: give under, host, arguments or command")
	}
	x.Tool, x.Decision = "*", Allow
	v, err := Validate(x, name)
	if err != nil {
		var ve *ValidationError
		if errors.As(err, &ve) {
			ve.Field = "except." + ve.Field
		}
		return nil, err
	}
	v.Tool, v.Decision = "", ""
	return &v, nil
}

func knownHint(h string) bool {
	for _, k := range hintNames {
		if k == h {
			return true
		}
	}
	return false
}

// UnmarshalJSON decodes a rule strictly: unknown keys, duplicate keys and
// wrong types are errors, and an explicitly empty "under" is kept visible to
// Validate as an error rather than read as "no under".
func (r *Rule) UnmarshalJSON(data []byte) error {
	if err := strictjson.Check(data); err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("a rule must be a JSON object, not %s", jsonKind(err))
	}
	if raw == nil {
		return fmt.Errorf("a rule must be a JSON object, not null")
	}
	for k := range raw {
		if !ruleKeys[k] {
			return &ValidationError{Field: k, Msg: "unknown field (allowed: tool, decision, under, host, annotations, arguments, command, data, except, message)"}
		}
	}
	if v, ok := raw["arguments"]; ok {
		var args map[string]json.RawMessage
		if err := json.Unmarshal(v, &args); err != nil || args == nil {
			return &ValidationError{Field: "arguments", Msg: "must be an object mapping argument names to globs"}
		}
		for k, g := range args {
			var glob string
			if err := json.Unmarshal(g, &glob); err != nil || string(g) == "null" {
				return &ValidationError{Field: "arguments", Msg: fmt.Sprintf("%q: the glob must be a string, not %s", k, g)}
			}
		}
	}
	if v, ok := raw["except"]; ok && !bytes.HasPrefix(bytes.TrimSpace(v), []byte("{")) {
		return &ValidationError{Field: "except", Msg: "must be an object naming under, host, arguments or command"}
	}
	type plain Rule
	var p plain
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&p); err != nil {
		var ve *ValidationError
		if errors.As(err, &ve) { // from the exception, the one rule inside a rule
			ve.Field = "except." + ve.Field
			return ve
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			field, _, _ := strings.Cut(te.Field, ".")
			return &ValidationError{Field: field, Msg: fmt.Sprintf("must be %s, not %s", jsonWant(te.Type), jsonKind(err))}
		}
		return fmt.Errorf("bad rule: %v", err)
	}
	for _, f := range []string{"under", "host"} {
		if v, ok := raw[f]; ok && (string(v) == `""` || string(v) == "null") {
			return &ValidationError{Field: f, Msg: "must not be empty"}
		}
	}
	*r = Rule(p)
	return nil
}

// ParseRules decodes a JSON array of rules and validates each; what names
// the source ("rules.json", "grants") in errors. Each rule needs its
// decision.
func ParseRules(data []byte, what string) ([]Rule, error) {
	if err := strictjson.Check(data); err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, fmt.Errorf("%s: must be a JSON array of rules, not %s", what, jsonKind(err))
	}
	out := make([]Rule, 0, len(raws))
	for i, raw := range raws {
		name := fmt.Sprintf("%s: rule %d", what, i+1)
		var r Rule
		if err := json.Unmarshal(raw, &r); err != nil {
			if ve, ok := err.(*ValidationError); ok {
				ve.Rule = name
				return nil, ve
			}
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		v, err := Validate(r, name)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// ValidateAll validates a list of rules or grants, naming each entry
// "<what> N".
func ValidateAll(rs []Rule, what string) ([]Rule, error) {
	out := make([]Rule, len(rs))
	for i, r := range rs {
		v, err := Validate(r, fmt.Sprintf("%s %d", what, i+1))
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// Clone returns a deep copy of r.
func (r Rule) Clone() Rule {
	if r.Annotations != nil {
		a := make(map[string]bool, len(r.Annotations))
		for k, v := range r.Annotations {
			a[k] = v
		}
		r.Annotations = a
	}
	if r.Arguments != nil {
		a := make(map[string]string, len(r.Arguments))
		for k, v := range r.Arguments {
			a[k] = v
		}
		r.Arguments = a
	}
	r.Data = slices.Clone(r.Data)
	r.Command = slices.Clone(r.Command)
	if r.Except != nil {
		x := r.Except.Clone()
		r.Except = &x
	}
	return r
}

// CloneAll deep-copies a list (nil stays nil).
func CloneAll(rs []Rule) []Rule {
	if rs == nil {
		return nil
	}
	out := make([]Rule, len(rs))
	for i, r := range rs {
		out[i] = r.Clone()
	}
	return out
}

// Matcher is the part of r that decides whether it applies to a call: for
// a deny or ask rule, any path or host (folded); for allow, every one. The
// engine indexes its data rules by it, and the grants theirs.
func (r Rule) Matcher() regoeval.Matcher {
	m := regoeval.MatcherFor(r.Decision, r.Tool, r.Under, r.Host, r.Annotations)
	m.Arguments, _ = regoeval.ArgumentGlobs(r.Arguments) // valid: Validate read them
	m.Command = slices.Clone([]string(r.Command))
	if r.Except != nil {
		x := *r.Except // matcher copies what it keeps
		x.Tool, x.Decision = "*", Allow
		e := x.Matcher()
		m.Except = &e
	}
	return m
}

// jsonKind names the JSON value a decoding error found where another was
// wanted ("an object"), in words and without Go's types.
func jsonKind(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return "valid JSON"
	}
	switch v := te.Value; {
	case v == "object", v == "array":
		return "an " + v
	case v == "bool":
		return "true or false"
	case strings.HasPrefix(v, "number"):
		return "a number"
	default:
		return "a " + v
	}
}

// jsonWant names the JSON a Go type is read from.
func jsonWant(t reflect.Type) string {
	if t == nil {
		return "another JSON value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return "a number"
	}
}
