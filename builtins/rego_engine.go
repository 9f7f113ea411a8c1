package builtins

import (
	"encoding/json"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
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
var moduleSets = []struct{ module, decision, reason string }{
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
// with, the rule shown, and whether it only might match.
type entry struct {
	decision, reason string
	rule             *ast.Term
	maybe            bool
}

func engineDecide(args []*ast.Term) (*ast.Term, error) {
	in, data, sets := args[0], args[1], args[2:]
	call := CallOf(in.Value)
	var entries []entry
	floor := false
	for i, s := range moduleSets {
		set, ok := sets[i].Value.(ast.Set)
		if !ok {
			return nil, fmt.Errorf("%s %s: expected a set of entries, got %v", s.module, s.decision, ast.ValueName(sets[i].Value))
		}
		if set.Len() == 0 {
			continue // most sets, on most calls: no copy to sort
		}
		sorted := set.Sorted()
		for j := range sorted.Len() {
			e := sorted.Elem(j)
			message, maybe, counts, err := moduleEntry(e)
			if err != nil {
				return nil, fmt.Errorf("%s %s entry %v: %v", s.module, s.decision, e, err)
			}
			if !counts {
				continue
			}
			floor = floor || s.module == "floor"
			rule := ast.ObjectTerm(
				ast.Item(keyTool, ast.StringTerm(call.Tool)),
				ast.Item(keyDecision, Key(s.decision)),
				ast.Item(keyMessage, message))
			entries = append(entries, entry{s.decision, s.reason, rule, maybe})
		}
	}
	rules, err := ruleSetOf(valueAt(data.Value, keyRules))
	if err != nil {
		return nil, err
	}
	matched, err := rules.matching(&call)
	if err != nil {
		return nil, err
	}
	entries = append(entries, matched...)

	var t verdict.Tally
	for _, e := range entries {
		t.Add(e.decision, e.maybe)
	}
	decision, reason, rule := verdict.Ask, "", ast.NullTerm()
	switch outcome, i := t.Result(); outcome {
	case verdict.Decided:
		decision, reason, rule = entries[i].decision, entries[i].reason, entries[i].rule
	case verdict.Unevaluable:
		reason = "unevaluable-path"
	default:
		reason = "no-match"
	}
	return ast.ObjectTerm(
		ast.Item(keyDecision, Key(decision)),
		ast.Item(keyReason, Key(reason)),
		ast.Item(keyRule, rule),
		ast.Item(keyPaths, shown(valueAt(in.Value, keyPaths), keyPath)),
		ast.Item(keyHosts, shown(valueAt(in.Value, keyHosts), keyHost)),
		ast.Item(keySuggestion, suggestion(&call)),
		ast.Item(keyFloor, ast.BooleanTerm(floor)),
	), nil
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
		switch word {
		case Matches.String(), Inside.String():
			return message, false, true, nil
		case Unknown.String():
			return message, true, true, nil
		case NoMatch.String(), Outside.String(), HostMismatch.String():
			return nil, false, false, nil
		}
		return nil, false, false, fmt.Errorf("status %v is none of match, inside, unknown, outside, mismatch, no", status)
	}
	return nil, false, false, fmt.Errorf("an entry is a message or an object with message and status, not %v", ast.ValueName(e.Value))
}

// shown is how each path or URL is shown to the human: resolved if it could
// be, else as written.
func shown(values ast.Value, field *ast.Term) *ast.Term {
	arr, _ := values.(*ast.Array)
	if arr == nil {
		return ast.ArrayTerm()
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
	return ast.ArrayTerm(out...)
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

func suggestion(c *Call) *ast.Term {
	items := [][2]*ast.Term{ast.Item(keyTool, ast.StringTerm(c.Tool))}
	switch under, host := Suggest(c); {
	case under != "":
		items = append(items, ast.Item(keyUnder, ast.StringTerm(under)))
	case host != "":
		items = append(items, ast.Item(keyHost, ast.StringTerm(host)))
	}
	return ast.ObjectTerm(items...)
}
