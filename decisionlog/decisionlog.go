// Package decisionlog writes a policy's decisions as JSON lines in the
// shape of OPA's decision log: decision_id, timestamp, path, input and
// result, plus what OPA cannot know — the rule or grant that decided and
// why, the question the human was asked, the answer, what it left as
// grants, and whether the call went on to the server.
//
// Wire it as policy.Options.OnDecision:
//
//	log, err := decisionlog.Open("decisions.jsonl", decisionlog.Options{})
//	…
//	p, err := policy.New(policy.Options{…, OnDecision: log.Log})
//
// Argument values that may hold file contents (content, text, body,
// oldText/newText, …, at any depth) are erased by default, the way OPA's
// mask rules erase input fields, and listed by JSON pointer in "erased";
// Options.FullArguments keeps them.
package decisionlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/argread"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
)

// Path is the "path" of every entry: the Rego rule the engine decides by,
// data.mcp.engine.decision, spelt as OPA's decision log spells it.
const Path = "mcp/engine/decision"

// defaultMaskKeys are the argument names whose values are erased unless
// Options.FullArguments is set. They are compared as the rules compare
// argument names: Unicode case-folded and with "_" and "-" left out, so
// oldText, old_text, OLD-TEXT and oldſtring's long s are one key.
var defaultMaskKeys = []string{
	"content", "contents", "text", "body", "data", "blob",
	"oldText", "newText", "oldString", "newString", "oldStr", "newStr",
	"patch", "diff",
}

// Options configure a Logger.
type Options struct {
	// FullArguments keeps every argument value.
	FullArguments bool
	// MaskKeys replaces the default list of argument names whose values
	// are erased: content, contents, text, body, data, blob, oldText,
	// newText, oldString, newString, oldStr, newStr, patch and diff.
	MaskKeys []string
	// Labels are written as the entry's "labels" (OPA's decision log
	// carries the agent's labels there); the policy's name is added as
	// "policy".
	Labels map[string]string
}

// Logger writes entries to a writer, one line each, whole lines only. It
// is safe for concurrent use.
type Logger struct {
	mu     sync.Mutex
	w      io.Writer
	closer io.Closer
	full   bool
	mask   map[string]bool
	labels map[string]string
	err    error
}

// New returns a Logger writing to w.
func New(w io.Writer, o Options) *Logger {
	keys := o.MaskKeys
	if keys == nil {
		keys = defaultMaskKeys
	}
	mask := make(map[string]bool, len(keys))
	for _, k := range keys {
		mask[normKey(k)] = true
	}
	labels := make(map[string]string, len(o.Labels))
	for k, v := range o.Labels {
		labels[k] = v
	}
	return &Logger{w: w, full: o.FullArguments, mask: mask, labels: labels}
}

// Open returns a Logger appending to file, created (mode 0600) if need be;
// "-" is standard error.
func Open(file string, o Options) (*Logger, error) {
	if file == "-" {
		return New(os.Stderr, o), nil
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("decision log: %w", err)
	}
	l := New(f, o)
	l.closer = f
	return l, nil
}

// Close closes the file Open opened; a Logger from New is left alone.
func (l *Logger) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closer == nil {
		return nil
	}
	err := l.closer.Close()
	l.closer = nil
	return err
}

// Err is the first error writing an entry, if any. A Logger that failed
// keeps trying: a full disk may empty.
func (l *Logger) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Entry is one line of the log.
type Entry struct {
	DecisionID string            `json:"decision_id"`
	Timestamp  string            `json:"timestamp"`
	Path       string            `json:"path"`
	Labels     map[string]string `json:"labels,omitempty"`
	// Bundles name the OPA bundles the rules came from, with the revision
	// each decision was made under, as OPA's decision log does.
	Bundles map[string]Bundle `json:"bundles,omitempty"`
	Input   Input             `json:"input"`
	// Result is the rules' and grants' decision document, before anyone
	// was asked; null when the call could not be decided (see Error).
	Result *rules.Decision `json:"result"`
	// Erased lists, as JSON pointers, the input fields left out.
	Erased     []string     `json:"erased,omitempty"`
	Question   *Question    `json:"question,omitempty"`
	Answer     *Answer      `json:"answer,omitempty"`
	Remembered []rules.Rule `json:"remembered,omitempty"`
	// Allowed says the call was forwarded to the server; Refusal is what
	// the model was told when it was not.
	Allowed bool   `json:"allowed"`
	Refusal string `json:"refusal,omitempty"`
	Error   string `json:"error,omitempty"`
	// Warnings are failures that did not change the call's fate (a
	// panicking OnGrant).
	Warnings []string `json:"warnings,omitempty"`
}

// Bundle is one bundle's part in a decision.
type Bundle struct {
	Revision string `json:"revision"`
}

// Input is the call as the log shows it.
type Input struct {
	Tool   string `json:"tool"`
	CallID string `json:"call_id,omitempty"`
	// Arguments are the parsed arguments, masked; absent when the
	// arguments could not be read (ArgumentsText then holds them, with
	// FullArguments only).
	Arguments     map[string]any `json:"arguments,omitempty"`
	ArgumentsText *string        `json:"arguments_text,omitempty"`
}

// Question is what the human was asked (the arguments are in Input).
type Question struct {
	Kind           policy.Kind  `json:"kind"`
	Reason         rules.Reason `json:"reason"`
	Rule           *rules.Rule  `json:"rule,omitempty"`
	Paths          []string     `json:"paths"`
	Hosts          []string     `json:"hosts"`
	Suggestion     *rules.Rule  `json:"suggestion,omitempty"`
	AllowGrantable bool         `json:"allow_grantable"`
	// DescriptionWarning is policy.Question's: the tool's definition
	// carries text aimed at the model.
	DescriptionWarning string `json:"description_warning,omitempty"`
	// DefinitionChange is policy.Question's: the tool's definition is not
	// the one a human approved, and how it changed.
	DefinitionChange string `json:"definition_change,omitempty"`
}

// Answer is what the human answered.
type Answer struct {
	Action policy.Action `json:"action"`
	Rule   *rules.Rule   `json:"rule,omitempty"`
	Rules  []rules.Rule  `json:"rules,omitempty"`
}

// Log writes rec: the function to give policy.Options.OnDecision.
func (l *Logger) Log(rec policy.Record) {
	line, err := l.Marshal(rec)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err == nil {
		_, err = l.w.Write(line)
	}
	if err != nil && l.err == nil {
		l.err = err
	}
}

// Marshal is the line Log writes for rec, newline included.
func (l *Logger) Marshal(rec policy.Record) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(l.Entry(rec)); err != nil {
		return nil, fmt.Errorf("decision log: %w", err)
	}
	return buf.Bytes(), nil
}

// Entry is rec as the log shows it.
func (l *Logger) Entry(rec policy.Record) Entry {
	e := Entry{
		DecisionID: rec.ID,
		Timestamp:  rec.Time.UTC().Format(time.RFC3339Nano),
		Path:       Path,
		Input:      Input{Tool: rec.Call.Function.Name, CallID: rec.Call.ID},
		Result:     rec.Decision,
		Remembered: rec.Remembered,
		Allowed:    rec.Allowed,
		Refusal:    rec.Refusal,
		Error:      rec.Error,
		Warnings:   rec.Warnings,
	}
	if len(rec.Revisions) > 0 {
		e.Bundles = make(map[string]Bundle, len(rec.Revisions))
		for name, r := range rec.Revisions {
			e.Bundles[name] = Bundle{Revision: r}
		}
	}
	if len(l.labels) > 0 || rec.Policy != "" {
		e.Labels = make(map[string]string, len(l.labels)+1)
		for k, v := range l.labels {
			e.Labels[k] = v
		}
		if rec.Policy != "" {
			e.Labels["policy"] = rec.Policy
		}
	}
	switch {
	case rec.Arguments != nil && l.full:
		e.Input.Arguments = rec.Arguments
	case rec.Arguments != nil:
		args, erased := l.masked(rec.Arguments, "/input/arguments")
		e.Input.Arguments = args.(map[string]any)
		e.Erased = erased
	case l.full:
		text := rec.Call.Function.Arguments
		e.Input.ArgumentsText = &text
	case rec.Call.Function.Arguments != "":
		e.Erased = []string{"/input/arguments_text"}
	}
	if q := rec.Question; q != nil {
		e.Question = &Question{Kind: q.Kind, Reason: q.Reason, Rule: q.Rule, Paths: q.Paths, Hosts: q.Hosts,
			Suggestion: q.Suggestion, AllowGrantable: q.AllowGrantable, DescriptionWarning: q.DescriptionWarning,
			DefinitionChange: q.DefinitionChange}
		if e.Question.Paths == nil {
			e.Question.Paths = []string{}
		}
		if e.Question.Hosts == nil {
			e.Question.Hosts = []string{}
		}
	}
	if a := rec.Answer; a != nil {
		e.Answer = &Answer{Action: a.Action, Rule: a.Rule, Rules: a.Rules}
	}
	return e
}

// masked copies v, leaving out the values of masked keys at any depth, and
// returns the JSON pointers of what it left out, in order.
func (l *Logger) masked(v any, at string) (any, []string) {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		var erased []string
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ptr := at + "/" + pointerToken(k)
			if l.mask[normKey(k)] {
				erased = append(erased, ptr)
				continue
			}
			mv, e := l.masked(t[k], ptr)
			out[k] = mv
			erased = append(erased, e...)
		}
		return out, erased
	case []any:
		out := make([]any, len(t))
		var erased []string
		for i, item := range t {
			mv, e := l.masked(item, at+"/"+strconv.Itoa(i))
			out[i] = mv
			erased = append(erased, e...)
		}
		return out, erased
	default:
		return v, nil
	}
}

// pointerToken escapes k as a JSON pointer (RFC 6901) reference token.
func pointerToken(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// normKey is how argument names are compared: as the rules compare them,
// so a name a server reads as "oldString" is masked however it is spelt.
func normKey(k string) string { return argread.FoldName(k) }
