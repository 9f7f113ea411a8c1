package rules

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/builtins"
	"github.com/mcp-policy/mcp-policy/provider"
)

// The engine's decisions are read from its builtin's outcome, through a
// sink, on a partially evaluated query; a Rego test reads the decision
// document of the whole modules. Both must be one answer: here each call is
// decided both ways.
func TestOutcomeIsTheDecisionDocument(t *testing.T) {
	ctx := context.Background()
	cfg := Config{
		Rules: []Rule{
			{Tool: "*", Decision: Allow, Annotations: map[string]bool{"readOnlyHint": true}, Under: "/"},
			{Tool: "fs_*", Decision: Deny, Under: "/srv/live", Message: "not live"},
			{Tool: "fs_write", Decision: Allow, Under: "/srv/projects"},
			{Tool: "web_*", Decision: Allow, Host: "*.example.org"},
			{Tool: "web_fetch", Decision: Ask, Host: "docs.example.org", Annotations: map[string]bool{}},
		},
		Roots:     map[string]string{"fs": "/srv"},
		Protected: []string{"/srv/policy/rules.json"},
		Modules: []Module{{Name: "team.rego", Source: `package mcp.custom
deny contains "no tmp" if { some p in input.paths; mcp.path.within("/tmp", p.path) == "inside" }
ask contains {"message": 7, "status": mcp.path.within("/srv/projects/p1", p.path)} if { some p in input.paths }
allow contains {"message": "maybe", "status": mcp.path.within("/srv/maybe", p.path)} if { some p in input.paths }
ask contains {"message": {"why": "web"}, "status": mcp.host.match("*.example.org", h.host)} if { some h in input.hosts }
allow contains {"message": "tool", "status": s} if { s := ["no", "match"][count(input.paths) % 2]; input.tool == "user_ask" }
`}},
	}
	e, err := NewEngine(ctx, cfg)
	require.NoError(t, err)
	full := fullQuery(ctx, t, e, cfg)
	catalogue := []*provider.Tool{nil, nil,
		{Annotations: &provider.Annotations{ReadOnlyHint: ptr(true)}},
		{Annotations: &provider.Annotations{}},
		{Annotations: &provider.Annotations{DestructiveHint: ptr(false)}}}
	paths := []string{`"/srv/projects/p1/a"`, `"projects/p2/b"`, `"/srv/live/db"`, `"/tmp/x"`, `"~/x"`, `7`, `null`,
		`"/srv/.git/config"`, `"/srv/policy/rules.json"`, `"/srv"`, `"/"`, `"/srv/maybe/m"`, `"file:///srv/x"`}
	urls := []string{`"https://docs.example.org/a"`, `"http://a.example.org:8080"`, `"https://other.test"`, `"mailto:x"`, `{}`}
	tools := []string{"fs_write", "fs_read", "fs_delete", "web_fetch", "user_ask"}
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range 400 {
		var args []string
		if n := rnd.IntN(3); n > 0 {
			var ps []string
			for range n {
				ps = append(ps, paths[rnd.IntN(len(paths))])
			}
			args = append(args, `"paths":[`+strings.Join(ps, ",")+`]`)
		}
		if rnd.IntN(2) == 0 {
			args = append(args, `"url":`+urls[rnd.IntN(len(urls))])
		}
		c := provider.Call{ID: fmt.Sprint(i), Function: provider.CallFunction{Name: tools[rnd.IntN(len(tools))],
			Arguments: "{" + strings.Join(args, ",") + "}"}}
		tool := catalogue[rnd.IntN(len(catalogue))]
		got, in, err := e.Decide(ctx, c, tool)
		require.NoError(t, err, c.Function.Arguments)
		want, err := documentDecision(ctx, full, in)
		require.NoError(t, err, c.Function.Arguments)
		require.Equal(t, want, got, "%s %s", c.Function.Name, c.Function.Arguments)
	}
}

func ptr[T any](v T) *T { return &v }

// fullQuery is the engine's modules and data as a Rego test evaluates them:
// the whole decision document, no partial evaluation, no sink.
func fullQuery(ctx context.Context, t *testing.T, e *Engine, cfg Config) rego.PreparedEvalQuery {
	modules, err := parseModules(cfg.Modules)
	require.NoError(t, err)
	compiler := ast.NewCompiler()
	compiler.Compile(modules)
	require.Empty(t, compiler.Errors)
	pq, err := rego.New(rego.Query("data.mcp.engine.decision"), rego.Compiler(compiler), rego.Store(e.store(true)),
		rego.StrictBuiltinErrors(true)).PrepareForEval(ctx)
	require.NoError(t, err)
	return pq
}

func documentDecision(ctx context.Context, full rego.PreparedEvalQuery, in *Input) (Decision, error) {
	rs, err := full.Eval(ctx, rego.EvalParsedInput(in.Value()))
	if err != nil {
		return Decision{}, err
	}
	if len(rs) != 1 {
		return Decision{}, errors.New("the decision is undefined")
	}
	doc, err := ast.InterfaceToValue(rs[0].Expressions[0].Value)
	if err != nil {
		return Decision{}, err
	}
	return decodeDecision(doc.(ast.Object))
}

// The decision document's keys, beside the input's (input.go).
var (
	keyDecision   = builtins.Key("decision")
	keyFloor      = builtins.Key("floor")
	keyMessage    = builtins.Key("message")
	keyMight      = builtins.Key("might")
	keyReason     = builtins.Key("reason")
	keyRule       = builtins.Key("rule")
	keySuggestion = builtins.Key("suggestion")
	keyUnder      = builtins.Key("under")
)

// decodeDecision reads the engine's decision document as a Rego test sees
// it: the reading of the document that the engine's decisionOf, which reads
// the outcome instead, is held to.
func decodeDecision(doc ast.Object) (Decision, error) {
	d := Decision{Decision: str(valueOf(doc, keyDecision))}
	switch d.Decision {
	case Allow, Deny, Ask:
	case "":
		return d, errors.New("rego: the decision has no decision")
	default:
		return d, fmt.Errorf("rego: unknown decision %q", d.Decision)
	}
	d.Reason = str(valueOf(doc, keyReason))
	floor, _ := valueOf(doc, keyFloor).(ast.Boolean)
	d.Floor = bool(floor)
	d.Might = str(valueOf(doc, keyMight))
	d.Rule = ruleOf(valueOf(doc, keyRule))
	d.Suggestion = ruleOf(valueOf(doc, keySuggestion))
	d.Paths = arrayStrings(valueOf(doc, keyPaths))
	d.Hosts = arrayStrings(valueOf(doc, keyHosts))
	return d, nil
}

func valueOf(o ast.Object, key *ast.Term) ast.Value {
	if t := o.Get(key); t != nil {
		return t.Value
	}
	return nil
}

func str(v ast.Value) string { s, _ := v.(ast.String); return string(s) }

// ruleOf reads a rule object; anything else is no rule.
func ruleOf(v ast.Value) *Rule {
	o, ok := v.(ast.Object)
	if !ok {
		return nil
	}
	r := Rule{Tool: str(valueOf(o, keyTool)), Decision: str(valueOf(o, keyDecision)), Under: str(valueOf(o, keyUnder)),
		Host: str(valueOf(o, keyHost)), Message: str(valueOf(o, keyMessage))}
	if a, ok := valueOf(o, keyAnnotations).(ast.Object); ok && a.Len() > 0 {
		r.Annotations = map[string]bool{}
		a.Foreach(func(k, v *ast.Term) {
			if b, ok := v.Value.(ast.Boolean); ok {
				r.Annotations[str(k.Value)] = bool(b)
			}
		})
	}
	return &r
}

func arrayStrings(v ast.Value) []string {
	arr, _ := v.(*ast.Array)
	var terms []*ast.Term
	if arr != nil {
		for i := range arr.Len() {
			terms = append(terms, arr.Elem(i))
		}
	}
	return stringsOf(terms)
}
