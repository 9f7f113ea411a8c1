package regoeval

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mcp-policy/mcp-policy/internal/lexical"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/mcp-policy/mcp-policy/internal/verdict"
)

// NameEngineDecide is the builtin rego/engine.rego decides with. It takes
// the input document, data.mcp_data (whose "rules" are the data rules) and
// the entry sets the floor and security teams' modules produced, one
// argument each in moduleSets' order, and returns the whole decision
// document. The combining is Go because in Rego it is a dozen rule and
// function evaluations per call, each costing microseconds; the rules
// themselves (floor, modules, defaults) stay Rego. The sets are arguments
// of their own, not fields of one object, because building that object
// anew on every call cost a twentieth of a decision.
const NameEngineDecide = "mcp.engine.decide"

// A module's entry sets, in the order they take part (the floor first, then
// security teams' modules; the data rules follow them) and are passed.
var moduleSets = []struct {
	kind     RuleKind
	decision verdict.Decision
}{
	{FloorEntry, verdict.Deny},
	{FloorEntry, verdict.Ask},
	{ModuleEntry, verdict.Deny},
	{ModuleEntry, verdict.Ask},
	{ModuleEntry, verdict.Allow},
}

var engineBuiltins = []builtin{
	defDyn(fn(NameEngineDecide,
		`The decision document for a call: input, data.mcp_data (with "rules"), then the sets of entries of floor deny, floor ask, custom deny, custom ask and custom allow.`,
		types.Args(types.A, types.A, setOfAny, setOfAny, setOfAny, setOfAny, setOfAny), types.A),
		engineDecide),
}

// entry is one thing that matched: the rule it is shown as (which says
// its decision) and whether it only might match.
type entry struct {
	rule  RuleRef
	maybe bool
}

// Outcome is a decision as the builtin reaches it, before it is a
// document. Rule is nil when no rule decided; Paths and Hosts are each
// path and URL as shown to the human (see shown); Under and Host are the
// suggestion's, "" when it has none.
type Outcome struct {
	Decision     verdict.Decision
	Reason       Reason
	Rule         *RuleRef
	Paths, Hosts []*ast.Term
	Under, Host  string
	// Command is the suggestion's command globs; NoSuggestion says the
	// call's commands have no one scope an "always" answer can name.
	Command      []string
	NoSuggestion bool
	Floor        bool
	// Might is the decision in the world where every unknown matches
	// (verdict.Tally.Might): an allow grant answers no ask whose Might is
	// deny or ask.
	Might verdict.Decision
}

// Reason says why a decision was reached. Its words (String) are the
// decision document's "reason"; in Go it stays this type from the tally
// to the caller.
type Reason uint8

// The reasons. The zero value is none: an outcome always has one of the
// others.
const (
	_                 Reason = iota
	ReasonRule               // a data rule or a team's module entry decided
	ReasonFloor              // an entry of the danger floor decided
	ReasonNoMatch            // nothing matched in either world: asked
	ReasonUnevaluable        // the worlds disagree, or agree only by a maybe: asked
)

// reasonWords are the reasons as the decision document spells them.
var reasonWords = [...]string{ReasonRule: "rule", ReasonFloor: "floor", ReasonNoMatch: "no-match", ReasonUnevaluable: "unevaluable-path"}

func (r Reason) String() string {
	if int(r) < len(reasonWords) && reasonWords[r] != "" {
		return reasonWords[r]
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}

// reasonNamed is the reason a decision document spells word; false for
// none.
func reasonNamed(word string) (Reason, bool) {
	for r, w := range reasonWords {
		if w != "" && w == word {
			return Reason(r), true
		}
	}
	return 0, false
}

// RuleKind is what a RuleRef names.
type RuleKind uint8

// The kinds of rule a decision can name.
const (
	_           RuleKind = iota
	DataRule             // a data rule, by its position in the rule list
	FloorEntry           // an entry of the danger floor's deny or ask set
	ModuleEntry          // an entry of a team's module (package mcp.custom)
)

// ruleKindWords name the kinds in errors: the module a set of entries is
// from, or the rules.
var ruleKindWords = [...]string{DataRule: "rules", FloorEntry: "floor", ModuleEntry: "custom"}

func (k RuleKind) String() string {
	if int(k) < len(ruleKindWords) && ruleKindWords[k] != "" {
		return ruleKindWords[k]
	}
	return "RuleKind(" + strconv.Itoa(int(k)) + ")"
}

// RuleRef is the rule an outcome names: a data rule by its Position in the
// list the Decider was given, or a module's entry by its Decision and
// Message. Decision is set for every kind.
type RuleRef struct {
	Kind     RuleKind
	Position int // DataRule: the rule's index
	Decision verdict.Decision
	Message  string // a module entry's message; "" for a message that is not a string
	message  *ast.Term
}

// reason is why a decision this rule won was reached.
func (r *RuleRef) reason() Reason {
	if r.Kind == FloorEntry {
		return ReasonFloor
	}
	return ReasonRule
}

// outcomeOf reads a decision document back into an Outcome: what the plain
// path decides by, and what the fast path's outcome is held to. position
// finds a data rule, as the document shows it, in the rule list.
func outcomeOf(doc ast.Object, position func(rule ast.Value) (int, bool)) (Outcome, error) {
	o := Outcome{Decision: verdict.Decision(stringAt(doc, keyDecision))}
	switch o.Decision {
	case verdict.Allow, verdict.Ask, verdict.Deny:
	default:
		return Outcome{}, fmt.Errorf("rego: the decision document has decision %q", o.Decision)
	}
	reason, ok := reasonNamed(stringAt(doc, keyReason))
	if !ok {
		return Outcome{}, fmt.Errorf("rego: the decision document has reason %v", valueAt(doc, keyReason))
	}
	o.Reason = reason
	if b, ok := valueAt(doc, keyFloor).(ast.Boolean); ok {
		o.Floor = bool(b)
	}
	if m, ok := valueAt(doc, keyMight).(ast.String); ok {
		o.Might = verdict.Decision(m)
	} else {
		o.Might = ""
	}
	for _, f := range []struct {
		key *ast.Term
		out *[]*ast.Term
	}{{keyPaths, &o.Paths}, {keyHosts, &o.Hosts}} {
		if arr, ok := valueAt(doc, f.key).(*ast.Array); ok {
			for i := range arr.Len() {
				*f.out = append(*f.out, arr.Elem(i))
			}
		}
	}
	sugg := valueAt(doc, keySuggestion)
	o.Under, o.Host, o.Command = stringAt(sugg, keyUnder), stringAt(sugg, keyHost), stringsAt(sugg, keyCommand)
	if _, null := sugg.(ast.Null); null {
		o.NoSuggestion = true
	}
	if rule, ok := valueAt(doc, keyRule).(ast.Object); ok {
		r := &RuleRef{Decision: verdict.Decision(stringAt(rule, keyDecision))}
		switch {
		case rule.Get(keyUnder) != nil: // a data rule: every field is there
			if r.Position, ok = position(rule); !ok {
				return Outcome{}, fmt.Errorf("rego: the decision names a rule that is not in the list: %v", rule)
			}
			r.Kind = DataRule
		case o.Reason == ReasonFloor:
			r.Kind, r.Message = FloorEntry, stringAt(rule, keyMessage)
		default:
			r.Kind, r.Message = ModuleEntry, stringAt(rule, keyMessage)
		}
		o.Rule = r
	}
	return o, nil
}

// A sink lets the engine's Go caller take the Outcome instead of the
// document. Building the document and reading it back was a tenth of a
// decision, for a value only the caller reads; and the caller has the call
// as Go already, so the builtin need not read it out of the input. A sink
// is for the one input document it was made for: a call of the builtin
// with any other input (a Rego test's) returns the document as always.
//
// A sink is itself the context the query is evaluated under (it answers
// for sinkKey and defers every other key to the caller's context), and it
// holds the outcome: one allocation per decision, not a context value, a
// sink and an outcome apart.
type sink struct {
	context.Context
	input Input
	// doc is input's document once the evaluator is given it: the value
	// the builtin recognises. nil for a direct call, which needs none.
	doc     ast.Value
	call    *Call
	rules   *RuleSet // nil: read the rules from data
	outcome Outcome
}

type sinkKey struct{}

// Value is the sink for sinkKey and for lexical.FoldedPathsKey (the path
// builtins read the call's folded paths from it), else the caller's
// context's value.
func (s *sink) Value(key any) any {
	switch key.(type) {
	case sinkKey, lexical.FoldedPathsKey:
		return s
	}
	return s.Context.Value(key)
}

// FoldedPath is the folded spelling of p when p is one of the call's
// paths, as matching folded it (Call.Folded).
func (s *sink) FoldedPath(p string) (string, bool) {
	for i, cp := range s.call.Paths {
		if cp == p && s.call.Folded[i] != "" {
			return s.call.Folded[i], true
		}
	}
	return "", false
}

// withSink returns a sink: a context under which the engine builtin, called
// with input's document (the very value sink.doc, not an equal one) and c
// (what CallOf reads of it), matches the call against rules (when not nil,
// in place of the rules in data), stores its outcome in the sink and
// returns true instead of the document. Only the engine's own query may
// be evaluated under it: modules cannot call the builtin (the engine
// refuses them), so its one call is the decision's.
func withSink(ctx context.Context, input Input, rules *RuleSet) *sink {
	return &sink{Context: ctx, input: input, call: input.MatchCall(), rules: rules}
}

// document is the input document the evaluator is given, which the
// builtin then recognises as the sink's.
func (s *sink) document() ast.Value {
	if s.doc == nil {
		s.doc = s.input.Document()
	}
	return s.doc
}

func sinkFor(ctx context.Context, input ast.Value) *sink {
	if ctx == nil {
		return nil
	}
	s, _ := ctx.Value(sinkKey{}).(*sink)
	if s == nil || s.doc == nil || s.doc != input {
		return nil
	}
	return s
}

func engineDecide(bctx rego.BuiltinContext, args []*ast.Term) (*ast.Term, error) {
	in, data, sets := args[0], args[1], args[2:]
	if sink := sinkFor(bctx.Context, in.Value); sink != nil {
		o, err := sink.decide(data, sets)
		if err != nil {
			return nil, err
		}
		sink.outcome = o
		return ast.InternedTerm(true), nil
	}
	call := CallOf(in.Value)
	rules, err := dataRuleSet(bctx.Context, valueAt(data.Value, keyRules))
	if err != nil {
		return nil, err
	}
	o, err := decide(&call, DocumentInput(in.Value, &call), rules, sets)
	if err != nil {
		return nil, err
	}
	return o.document(call.Tool, rules), nil
}

// decide is the builtin's outcome for the sink's call, given the builtin's
// data and entry sets: matched against the sink's rules, or data's when
// it has none.
func (s *sink) decide(data *ast.Term, sets []*ast.Term) (Outcome, error) {
	rules := s.rules
	if rules == nil {
		var err error
		if rules, err = dataRuleSet(s, valueAt(data.Value, keyRules)); err != nil {
			return Outcome{}, err
		}
	}
	call := *s.call
	return decide(&call, s.input, rules, sets)
}

func decide(call *Call, in Input, rules *ruleSet, sets []*ast.Term) (Outcome, error) {
	var buf [8]entry // most calls match a few entries: no allocation for them
	entries := buf[:0]
	floor := false
	for i, s := range moduleSets {
		set, ok := sets[i].Value.(ast.Set)
		if !ok {
			return Outcome{}, fmt.Errorf("%s %s: expected a set of entries, got %v", s.kind, s.decision, ast.ValueName(sets[i].Value))
		}
		if set.Len() == 0 {
			continue // most sets, on most calls: no copy to sort
		}
		sorted := set.Sorted()
		for j := range sorted.Len() {
			e := sorted.Elem(j)
			message, maybe, counts, err := moduleEntry(e)
			if err != nil {
				return Outcome{}, fmt.Errorf("%s %s entry %v: %v", s.kind, s.decision, e, err)
			}
			if !counts {
				continue
			}
			floor = floor || s.kind == FloorEntry
			rule := RuleRef{Kind: s.kind, Decision: s.decision, message: message}
			rule.Message, _ = str(message)
			entries = append(entries, entry{rule, maybe})
		}
	}
	entries, err := rules.matching(call, entries)
	if err != nil {
		return Outcome{}, err
	}

	var t verdict.Tally
	for _, e := range entries {
		t.Add(e.rule.Decision, e.maybe)
	}
	o := Outcome{Decision: verdict.Ask, Floor: floor, Might: t.Might(),
		Paths: in.ShownPaths(), Hosts: in.ShownHosts()}
	o.Under, o.Host = Suggest(call)
	o.Command, o.NoSuggestion = SuggestCommand(call)
	switch outcome, i := t.Result(); outcome {
	case verdict.Decided:
		win := entries[i].rule
		o.Decision, o.Reason, o.Rule = win.Decision, win.reason(), &win
	case verdict.Unevaluable:
		o.Reason = ReasonUnevaluable
	default:
		o.Reason = ReasonNoMatch
	}
	return o, nil
}

// document is the decision document: decision, reason, rule (the data rule
// as it is in data, or a module's entry as {tool, decision, message}),
// paths, hosts, suggestion and floor.
func (o *Outcome) document(tool string, rules *ruleSet) *ast.Term {
	rule := ast.NullTerm()
	if r := o.Rule; r != nil && r.Kind == DataRule {
		rule = rules.terms[r.Position]
	} else if r != nil {
		rule = ast.ObjectTerm(
			ast.Item(keyTool, ast.StringTerm(lexical.EscapeTool(tool))),
			ast.Item(keyDecision, Key(string(r.Decision))),
			ast.Item(keyMessage, r.message))
	}
	// The suggestion names exactly this tool: "always" on a tool called
	// "fs_*" must not allow every fs_ tool.
	suggestion := [][2]*ast.Term{ast.Item(keyTool, ast.StringTerm(lexical.EscapeTool(tool)))}
	if o.Under != "" {
		suggestion = append(suggestion, ast.Item(keyUnder, ast.StringTerm(o.Under)))
	}
	if o.Host != "" {
		suggestion = append(suggestion, ast.Item(keyHost, ast.StringTerm(o.Host)))
	}
	switch len(o.Command) {
	case 0:
	case 1:
		suggestion = append(suggestion, ast.Item(keyCommand, ast.StringTerm(o.Command[0])))
	default:
		globs := make([]*ast.Term, len(o.Command))
		for i, g := range o.Command {
			globs[i] = ast.StringTerm(g)
		}
		suggestion = append(suggestion, ast.Item(keyCommand, ast.ArrayTerm(globs...)))
	}
	suggested := ast.ObjectTerm(suggestion...)
	if o.NoSuggestion {
		suggested = ast.NullTerm()
	}
	return ast.ObjectTerm(
		ast.Item(keyDecision, Key(string(o.Decision))),
		ast.Item(keyReason, Key(o.Reason.String())),
		ast.Item(keyRule, rule),
		ast.Item(keyPaths, ast.ArrayTerm(o.Paths...)),
		ast.Item(keyHosts, ast.ArrayTerm(o.Hosts...)),
		ast.Item(keySuggestion, suggested),
		ast.Item(keyFloor, ast.BooleanTerm(o.Floor)),
		ast.Item(keyMight, mightTerm(o.Might)),
	)
}

// moduleEntry reads a module's entry: a message, or an object with
// "message" and "status". The status may be any tri-state word the builtins
// give: a sure word matches, "unknown" might, and a word for "no" drops the
// entry. Anything else is the module's mistake and an error, so that a
// misspelt status never silently drops a deny.
func moduleEntry(e *ast.Term) (message *ast.Term, maybe, counts bool, err error) {
	switch v := e.Value.(type) {
	case ast.String:
		return e, false, true, nil
	case ast.Object:
		message = v.Get(keyMessage)
		if message == nil {
			message = ast.StringTerm("")
		}
		status := v.Get(keyStatus)
		if status == nil {
			return message, false, true, nil
		}
		word, _ := str(status)
		switch word { // the words the path and host builtins answer with
		case "match", "inside":
			return message, false, true, nil
		case "unknown":
			return message, true, true, nil
		case "no", "outside", "mismatch":
			return nil, false, false, nil
		}
		return nil, false, false, fmt.Errorf("status %v is none of match, inside, unknown, outside, mismatch, no", status)
	}
	return nil, false, false, fmt.Errorf("an entry is a message or an object with message and status, not %v", ast.ValueName(e.Value))
}

// shown is Shown for each of the input's paths (field "path") or hosts
// ("host").
func shown(values ast.Value, field *ast.Term) []*ast.Term {
	arr, _ := values.(*ast.Array)
	if arr == nil {
		return nil
	}
	out := make([]*ast.Term, 0, arr.Len())
	for i := 0; i < arr.Len(); i++ {
		obj, _ := arr.Elem(i).Value.(ast.Object)
		if obj == nil {
			out = append(out, keyNull)
			continue
		}
		out = append(out, Shown(obj.Get(field), obj.Get(keyRaw)))
	}
	return out
}

// Shown is how a path or URL is shown to the human: resolved if it could
// be (a string), else raw, as the model wrote it (a string as it is,
// anything else as its JSON). Either may be nil.
func Shown(resolved, raw *ast.Term) *ast.Term {
	switch {
	case resolved != nil && isString(resolved):
		return resolved // terms are immutable: shared, not copied
	case raw == nil:
		return keyNull
	case isString(raw):
		return raw
	}
	return ast.StringTerm(marshal(raw.Value))
}

func mightTerm(might verdict.Decision) *ast.Term {
	if might == "" {
		return ast.InternedNullTerm
	}
	return Key(string(might))
}

func isString(t *ast.Term) bool { _, ok := t.Value.(ast.String); return ok }

// marshal is JSON text for a value, as Rego's json.marshal writes it.
func marshal(v ast.Value) string {
	j, err := ast.JSON(v)
	if err != nil {
		return v.String()
	}
	b, err := json.Marshal(j)
	if err != nil {
		return v.String()
	}
	return string(b)
}
