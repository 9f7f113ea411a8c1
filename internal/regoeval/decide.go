package regoeval

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcp-policy/mcp-policy/internal/lexical"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/mcp-policy/mcp-policy/verdict"
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
	module   string
	decision verdict.Decision
	reason   string
}{
	{"floor", verdict.Deny, "floor"},
	{"floor", verdict.Ask, "floor"},
	{"custom", verdict.Deny, "rule"},
	{"custom", verdict.Ask, "rule"},
	{"custom", verdict.Allow, "rule"},
}

var engineBuiltins = []builtin{
	defDyn(fn(NameEngineDecide,
		`The decision document for a call: input, data.mcp_data (with "rules"), then the sets of entries of floor deny, floor ask, custom deny, custom ask and custom allow.`,
		types.Args(types.A, types.A, setOfAny, setOfAny, setOfAny, setOfAny, setOfAny), types.A),
		engineDecide),
}

// entry is one thing that matched: its decision, the reason it is reported
// with, and whether it only might match. The rule it is shown as is a data
// rule's position, or (position -1) a module's message.
type entry struct {
	decision verdict.Decision
	reason   string
	position int
	message  *ast.Term
	maybe    bool
}

// Outcome is a decision as the builtin reaches it, before it is a
// document. Rule is nil when no rule decided; Paths and Hosts are each
// path and URL as shown to the human (see shown); Under and Host are the
// suggestion's, "" when it has none.
type Outcome struct {
	Decision     verdict.Decision
	Reason       string
	Rule         *OutcomeRule
	Paths, Hosts []*ast.Term
	Under, Host  string
	Floor        bool
	// Might is the decision in the world where every unknown matches
	// (verdict.Tally.Might): an allow grant answers no ask whose Might is
	// deny or ask.
	Might verdict.Decision
}

// OutcomeRule is the rule a decision reports: the data rule at Position;
// when Position is -1, a module's entry with its decision and message; when
// it is -2 (the plain path, which reads the document), the data rule as
// Data holds it.
type OutcomeRule struct {
	Position int
	Decision verdict.Decision
	Message  string // Message is "" for a message that is not a string
	Data     *RuleData
	message  *ast.Term
}

// RuleData is a data rule as the decision document shows it.
type RuleData struct {
	Tool                 string
	Decision             verdict.Decision
	Under, Host, Message string
	Annotations          map[string]bool
	Arguments            map[string]string
}

// outcomeOf reads a decision document back into an Outcome: what the plain
// path decides by, and what the fast path's outcome is held to.
func outcomeOf(doc ast.Object) (Outcome, error) {
	o := Outcome{Decision: verdict.Decision(stringAt(doc, keyDecision)), Reason: stringAt(doc, keyReason)}
	switch o.Decision {
	case verdict.Allow, verdict.Ask, verdict.Deny:
	default:
		return Outcome{}, fmt.Errorf("rego: the decision document has decision %q", o.Decision)
	}
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
	o.Under, o.Host = stringAt(sugg, keyUnder), stringAt(sugg, keyHost)
	if rule, ok := valueAt(doc, keyRule).(ast.Object); ok {
		r := &OutcomeRule{Position: -1, Decision: verdict.Decision(stringAt(rule, keyDecision)), Message: stringAt(rule, keyMessage)}
		if rule.Get(keyUnder) != nil { // a data rule: every field is there
			r.Position = -2
			r.Data = &RuleData{Tool: stringAt(rule, keyTool), Decision: r.Decision, Under: stringAt(rule, keyUnder),
				Host: stringAt(rule, keyHost), Message: r.Message}
			if args, ok := valueAt(rule, keyArguments).(ast.Object); ok && args.Len() > 0 {
				r.Data.Arguments = map[string]string{}
				args.Foreach(func(k, v *ast.Term) { r.Data.Arguments[stringOf(k.Value)] = stringOf(v.Value) })
			}
			if ann, ok := valueAt(rule, keyAnnotations).(ast.Object); ok && ann.Len() > 0 {
				r.Data.Annotations = map[string]bool{}
				ann.Foreach(func(k, v *ast.Term) {
					if b, ok := v.Value.(ast.Boolean); ok {
						r.Data.Annotations[stringOf(k.Value)] = bool(b)
					}
				})
			}
		}
		o.Rule = r
	}
	return o, nil
}

func stringOf(v ast.Value) string { s, _ := v.(ast.String); return string(s) }

// A sink lets the engine's Go caller take the Outcome instead of the
// document. Building the document and reading it back was a tenth of a
// decision, for a value only the caller reads; and the caller has the call
// as Go already, so the builtin need not read it out of the input. A sink
// is for the one input document it was made for: a call of the builtin
// with any other input (a Rego test's) returns the document as always.
type sink struct {
	input   ast.Value
	call    *Call
	rules   *RuleSet // nil: read the rules from data
	outcome *Outcome
}

type sinkKey struct{}

// WithSink returns a context under which the engine builtin, called with
// input (the very value, not an equal one) and c (what CallOf(input)
// reads), matches the call against rules (when not nil, in place of the
// rules in data), stores its outcome in o and returns true instead of the
// document. Only the engine's own query may be evaluated under it: modules
// cannot call the builtin (the engine refuses them), so its one call is
// the decision's.
func WithSink(ctx context.Context, input ast.Value, c *Call, rules *RuleSet, o *Outcome) context.Context {
	return context.WithValue(ctx, sinkKey{}, &sink{input: input, call: c, rules: rules, outcome: o})
}

func sinkFor(ctx context.Context, input ast.Value) *sink {
	if ctx == nil {
		return nil
	}
	s, _ := ctx.Value(sinkKey{}).(*sink)
	if s == nil || s.input != input {
		return nil
	}
	return s
}

func engineDecide(bctx rego.BuiltinContext, args []*ast.Term) (*ast.Term, error) {
	in, data, sets := args[0], args[1], args[2:]
	sink := sinkFor(bctx.Context, in.Value)
	var call Call
	if sink != nil {
		call = *sink.call
	} else {
		call = CallOf(in.Value)
	}
	var rules *RuleSet
	if sink != nil && sink.rules != nil {
		rules = sink.rules
	} else {
		var err error
		if rules, err = dataRuleSet(bctx.Context, valueAt(data.Value, keyRules)); err != nil {
			return nil, err
		}
	}
	o, err := decide(&call, in.Value, rules, sets)
	if err != nil {
		return nil, err
	}
	if sink != nil {
		*sink.outcome = o
		return ast.InternedTerm(true), nil
	}
	return o.document(call.Tool, rules), nil
}

func decide(call *Call, in ast.Value, rules *ruleSet, sets []*ast.Term) (Outcome, error) {
	var entries []entry
	floor := false
	for i, s := range moduleSets {
		set, ok := sets[i].Value.(ast.Set)
		if !ok {
			return Outcome{}, fmt.Errorf("%s %s: expected a set of entries, got %v", s.module, s.decision, ast.ValueName(sets[i].Value))
		}
		if set.Len() == 0 {
			continue // most sets, on most calls: no copy to sort
		}
		sorted := set.Sorted()
		for j := range sorted.Len() {
			e := sorted.Elem(j)
			message, maybe, counts, err := moduleEntry(e)
			if err != nil {
				return Outcome{}, fmt.Errorf("%s %s entry %v: %v", s.module, s.decision, e, err)
			}
			if !counts {
				continue
			}
			floor = floor || s.module == "floor"
			entries = append(entries, entry{s.decision, s.reason, -1, message, maybe})
		}
	}
	matched, err := rules.matching(call)
	if err != nil {
		return Outcome{}, err
	}
	entries = append(entries, matched...)

	var t verdict.Tally
	for _, e := range entries {
		t.Add(e.decision, e.maybe)
	}
	o := Outcome{Decision: verdict.Ask, Floor: floor, Might: t.Might(),
		Paths: shown(valueAt(in, keyPaths), keyPath), Hosts: shown(valueAt(in, keyHosts), keyHost)}
	o.Under, o.Host = Suggest(call)
	switch outcome, i := t.Result(); outcome {
	case verdict.Decided:
		win := entries[i]
		o.Decision, o.Reason = win.decision, win.reason
		o.Rule = &OutcomeRule{Position: win.position, Decision: win.decision, message: win.message}
		if win.position < 0 {
			o.Rule.Message, _ = str(win.message)
		}
	case verdict.Unevaluable:
		o.Reason = "unevaluable-path"
	default:
		o.Reason = "no-match"
	}
	return o, nil
}

// document is the decision document: decision, reason, rule (the data rule
// as it is in data, or a module's entry as {tool, decision, message}),
// paths, hosts, suggestion and floor.
func (o *Outcome) document(tool string, rules *ruleSet) *ast.Term {
	rule := ast.NullTerm()
	if r := o.Rule; r != nil && r.Position >= 0 {
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
	return ast.ObjectTerm(
		ast.Item(keyDecision, Key(string(o.Decision))),
		ast.Item(keyReason, Key(o.Reason)),
		ast.Item(keyRule, rule),
		ast.Item(keyPaths, ast.ArrayTerm(o.Paths...)),
		ast.Item(keyHosts, ast.ArrayTerm(o.Hosts...)),
		ast.Item(keySuggestion, ast.ObjectTerm(suggestion...)),
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

// shown is how each path or URL is shown to the human: resolved if it could
// be, else as written.
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
		if t := obj.Get(field); t != nil && isString(t) {
			out = append(out, t) // terms are immutable: shared, not copied
			continue
		}
		rawTerm := obj.Get(keyRaw)
		switch {
		case rawTerm == nil:
			out = append(out, keyNull)
		case isString(rawTerm):
			out = append(out, rawTerm)
		default:
			out = append(out, ast.StringTerm(marshal(rawTerm.Value)))
		}
	}
	return out
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
