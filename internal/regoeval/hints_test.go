package regoeval

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mcprego "github.com/mcp-policy/mcp-policy/rego"
)

// hintsCall is a call's input with the given annotations (a Rego term) and
// one path, and what CallOf reads of it.
func hintsCall(t *testing.T, tool, annotations, path string) (ast.Value, *Call) {
	t.Helper()
	in := ast.MustParseTerm(fmt.Sprintf(`{"tool": %q, "root": "/srv", "annotations": %s, "hosts": [], "arguments": {"path": %q},
		"paths": [{"arg": "path", "raw": %q, "path": %s}]}`, tool, annotations, path, path, pathTerm(path))).Value
	c := CallOf(in)
	return in, &c
}

func pathTerm(p string) string {
	if p == "" {
		return "null"
	}
	return fmt.Sprintf("%q", p)
}

// A residual made for a tool's hints decides every call as the generic
// residual does: the floor's sensitive files, whole trees and unknown
// paths, for tools that read, write and destroy, and for an unknown
// catalogue.
func TestHintedResidualsDecideAsTheGenericOne(t *testing.T) {
	ctx := context.Background()
	team := mcprego.Module{Name: "team.rego", Source: `package mcp.custom

deny contains "idempotent tmp" if {
	input.annotations.idempotentHint == true
	some p in input.paths
	startswith(p.path, "/tmp")
}
`}
	hinted := guardDecider(t, Spec{Modules: []mcprego.Module{team}})
	require.NotNil(t, hinted.hinted, "rules not in data: residuals are made per hints")
	generic := guardDecider(t, Spec{Modules: []mcprego.Module{team}})
	generic.hinted = nil
	set := readRuleSet(ast.MustParseTerm(mustJSON(t, guardRules)).Value.(*ast.Array))
	hints := []string{"null", "{}", `{"readOnlyHint": true}`, `{"readOnlyHint": false}`, `{"destructiveHint": false}`,
		`{"readOnlyHint": false, "destructiveHint": true}`, `{"idempotentHint": true}`, `{"openWorldHint": false, "readOnlyHint": true}`}
	paths := []string{"/srv/a", "/srv/secret/k", "/srv", "/", "/home/u/.ssh/authorized_keys", "/srv/.git/config", "/tmp/x", ""}
	for _, tool := range []string{"fs_write", "fs_delete", "fs_read"} {
		for _, ann := range hints {
			for _, p := range paths {
				in, c := hintsCall(t, tool, ann, p)
				want, werr := generic.Eval(ctx, DocumentInput(in, c), set, 0)
				got, gerr := hinted.Eval(ctx, DocumentInput(in, c), set, 0)
				require.Equal(t, werr, gerr, "%s %s %q", tool, ann, p)
				require.Equal(t, want, got, "%s %s %q", tool, ann, p)
			}
		}
	}
	kept := hinted.hinted.kept.Load()
	require.NotNil(t, kept)
	n := 0
	for _, es := range *kept {
		for _, e := range es {
			n++
			assert.NotNil(t, e.query, "no residual was made for %v", e.annotations)
		}
	}
	assert.Equal(t, len(hints), n, "one residual per hints value")
}

// A read-only tool's residual has no floor left: partial evaluation with
// input.annotations known drops the floor's hint tests and every rule
// behind them, so a read costs no floor rule at all. If OPA stopped
// evaluating the known part of a partially unknown input, every call
// would still pay for them.
func TestGuardReadOnlyResidualKeepsOnlyTheReadFloor(t *testing.T) {
	d := guardDecider(t, Spec{})
	ctx := context.Background()
	r := d.hinted.residual(ctx, ast.MustParseTerm(`{"readOnlyHint": true}`))
	w := d.hinted.residual(ctx, ast.MustParseTerm(`{"readOnlyHint": false}`))
	require.NotNil(t, r)
	require.NotNil(t, w)
	require.NotNil(t, r.direct, "the read-only residual is the builtin's call on the floor's read rules: %v", r.body)
	require.NotNil(t, w.direct)
	require.Len(t, r.direct.refutable, 1, "the floor's ask set, read on a read: %v", r.body)
	require.Len(t, w.direct.refutable, 1)
	// A read keeps the secrets rule and the policy's own files, read
	// (with no protected files, that rule is gone); a write keeps every
	// rule of the floor's but those two's read-only halves.
	assert.GreaterOrEqual(t, len(r.direct.refutable[0].bodies), 2, "a read's floor keeps the secrets rules and the command rules: %v", r.body)
	assert.Greater(t, len(w.direct.refutable[0].bodies), len(r.direct.refutable[0].bodies), "a write's floor has more rules than a read's")
}

// Past maxHinted values (annotations no provider gives), calls are decided
// by the generic residual, and decided right.
func TestHintedResidualsAreBounded(t *testing.T) {
	ctx := context.Background()
	d := guardDecider(t, Spec{})
	set := readRuleSet(ast.MustParseTerm(mustJSON(t, guardRules)).Value.(*ast.Array))
	for i := range maxHinted + 3 {
		in, c := hintsCall(t, "fs_write", fmt.Sprintf(`{"x%d": true}`, i), "/srv/.git/config")
		o, err := d.Eval(ctx, DocumentInput(in, c), set, 0)
		require.NoError(t, err)
		assert.Equal(t, ReasonFloor, o.Reason, "call %d: the floor asks about .git/config: %+v", i, o)
	}
	_, ok := d.hinted.find(ast.MustParseTerm(fmt.Sprintf(`{"x%d": true}`, maxHinted+1)))
	assert.False(t, ok, "a value past the bound was kept")
}

// A read-only tool's residual, under the embedded modules alone, is the
// builtin's call and nothing else, and is decided without the evaluator
// (direct.go). A writing tool's keeps the floor's ask rules, and a team's
// module that tests a read's input keeps its own: each is a set the
// direct call reads on the call (refute.go), and hands to the evaluator
// when a rule of it may hold — here the module's deny, whose startswith
// is no builtin the direct call reads. Each decides as the generic
// residual does (TestHintedResidualsDecideAsTheGenericOne, and
// internal/rules' TestFastPathIsThePlainPath against OPA's own prepared
// query).
func TestGuardReadOnlyResidualIsDirect(t *testing.T) {
	ctx := context.Background()
	readOnly := ast.MustParseTerm(`{"readOnlyHint": true}`)
	d := guardDecider(t, Spec{})
	q := d.hinted.residual(ctx, readOnly)
	require.NotNil(t, q)
	require.NotNil(t, q.direct, "the read-only residual is the builtin's call on the floor's read rules: %v", q.body)
	assert.Len(t, q.direct.refutable, 1, "the floor's ask set, read on a read (the secrets): %v", q.body)
	w := d.hinted.residual(ctx, ast.MustParseTerm(`{"readOnlyHint": false}`))
	require.NotNil(t, w)
	require.NotNil(t, w.direct, "a writing tool's residual is the builtin's call on the floor's ask set: %v", w.body)
	assert.Len(t, w.direct.refutable, 1, "the floor's ask set, read on the call: %v", w.body)

	team := mcprego.Module{Name: "team.rego", Source: "package mcp.custom\n\ndeny contains \"no tmp\" if {\n\tsome p in input.paths\n\tstartswith(p.path, \"/tmp\")\n}\n"}
	m := guardDecider(t, Spec{Modules: []mcprego.Module{team}})
	r := m.hinted.residual(ctx, readOnly)
	require.NotNil(t, r)
	require.NotNil(t, r.direct, "the module's set is read on the call: %v", r.body)
	in, c := hintsCall(t, "fs_read", `{"readOnlyHint": true}`, "/tmp/x")
	_, err := r.direct.decide(withSink(ctx, DocumentInput(in, c), nil))
	assert.ErrorIs(t, err, errNotDirect, "startswith is not read: the evaluator decides")
	o, err := m.Eval(ctx, DocumentInput(in, c), readRuleSet(ast.MustParseTerm(mustJSON(t, guardRules)).Value.(*ast.Array)), 0)
	require.NoError(t, err)
	require.NotNil(t, o.Rule, "the module's deny decided the read: %+v", o)
	assert.Equal(t, "no tmp", o.Rule.Message, "the module's deny decided the read: %+v", o)
}

// A writing tool's call on an ordinary path is decided without OPA's
// evaluator: each of the floor's ask rules fails at its first test of
// the path. A sensitive file, "/" and a path that cannot be checked each
// make a rule hold, and the evaluator decides those.
func TestGuardWriteOnAnOrdinaryPathIsDirect(t *testing.T) {
	ctx := context.Background()
	d := guardDecider(t, Spec{})
	set := readRuleSet(ast.MustParseTerm(mustJSON(t, guardRules)).Value.(*ast.Array))
	w := d.hinted.residual(ctx, ast.MustParseTerm(`{"readOnlyHint": false}`))
	require.NotNil(t, w.direct)
	for _, tc := range []struct {
		path          string
		direct, floor bool
	}{
		{"/srv/a/notes.md", true, false},
		{"/srv/secret/x", true, false},
		{"/srv/.git/config", false, true},
		{"/", false, true},
		{"", false, true},
		// A root: the whole-tree rules test the tool's name with a
		// builtin read here (mcp.tool.destroys) and the path with a
		// membership; fs_write is no tree verb, so the floor does not ask,
		// and the call is decided directly (a command line names its
		// root as where it runs on every call).
		{"/srv", true, false},
	} {
		in, c := hintsCall(t, "fs_write", `{"readOnlyHint": false}`, tc.path)
		_, err := w.direct.decide(withSink(ctx, DocumentInput(in, c), set))
		if tc.direct {
			assert.NoError(t, err, "%q: decided directly", tc.path)
		} else {
			assert.ErrorIs(t, err, errNotDirect, "%q: a floor rule may hold, the evaluator decides", tc.path)
		}
		o, err := d.Eval(ctx, DocumentInput(in, c), set, 0)
		require.NoError(t, err, tc.path)
		assert.Equal(t, tc.floor, o.Floor, "%q: the floor asks: %+v", tc.path, o)
	}
}

// A call decided without the evaluator builds no input document: the
// direct call reads the annotations, paths and hosts alone. The evaluator
// is given the document, once.
func TestGuardDirectCallBuildsNoDocument(t *testing.T) {
	ctx := context.Background()
	d := guardDecider(t, Spec{})
	set := readRuleSet(ast.MustParseTerm(mustJSON(t, guardRules)).Value.(*ast.Array))
	// A team's floor that asks nothing of a read leaves a read-only
	// tool's residual the builtin's call alone: no rule to read, so no
	// document.
	writesOnly := mcprego.Module{Name: "floor.rego", Source: "package mcp.floor\n\nask contains \"unknown\" if {\n\tnot input.annotations.readOnlyHint\n\tsome p in input.paths\n\tp.path == null\n}\n"}
	team := guardDecider(t, Spec{Modules: []mcprego.Module{writesOnly}})
	doc, c := hintsCall(t, "fs_read", `{"readOnlyHint": true}`, "/srv/a")
	read := &countedInput{Input: DocumentInput(doc, c)}
	o, err := team.Eval(ctx, read, set, 0)
	require.NoError(t, err)
	assert.Zero(t, read.documents, "a read-only tool's call, decided directly")
	require.Len(t, o.Paths, 1)
	assert.Equal(t, ast.String("/srv/a"), o.Paths[0].Value, "the path it shows")

	// The shipped floor reads every read's paths for secrets.
	doc, c = hintsCall(t, "fs_read", `{"readOnlyHint": true}`, "/srv/a")
	read = &countedInput{Input: DocumentInput(doc, c)}
	_, err = d.Eval(ctx, read, set, 0)
	require.NoError(t, err)
	assert.Equal(t, 1, read.documents, "a read-only tool's call, which the floor's secrets rule reads")

	doc, c = hintsCall(t, "fs_write", `{"readOnlyHint": false}`, "/srv/a")
	write := &countedInput{Input: DocumentInput(doc, c)}
	_, err = d.Eval(ctx, write, set, 0)
	require.NoError(t, err)
	assert.Equal(t, 1, write.documents, "a writing tool's call, which the floor's rules evaluate")
}

// countedInput counts the documents asked of it.
type countedInput struct {
	Input
	documents int
}

func (c *countedInput) Document() ast.Value {
	c.documents++
	return c.Input.Document()
}

// A call decided without the evaluator is still bounded by the decision's
// timeout: nothing can stop it midway, but past its bound it fails closed
// as the evaluator's would, never as an allow.
func TestDirectCallKeepsTheTimeout(t *testing.T) {
	ctx := context.Background()
	d := guardDecider(t, Spec{})
	set := readRuleSet(ast.MustParseTerm(mustJSON(t, guardRules)).Value.(*ast.Array))
	in, c := hintsCall(t, "fs_read", `{"readOnlyHint": true}`, "/srv/a")
	_, err := d.Eval(ctx, DocumentInput(in, c), set, time.Hour)
	require.NoError(t, err)
	require.NotNil(t, d.hinted.residual(ctx, ast.MustParseTerm(`{"readOnlyHint": true}`)).direct, "decided directly")
	_, err = d.Eval(ctx, DocumentInput(in, c), set, time.Nanosecond)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not decided: the decision took longer than 1ns")
}

// An ordinary command line (programs that read, a written file in the
// project, commands of every common kind) is decided without OPA's
// evaluator too: each of the floor's rules on commands fails at a test
// the refuter reads. A rule that starts with what the refuter cannot read
// (a pair built from the command, a negation) would hand every command
// line to the evaluator, at three times the cost.
func TestGuardOrdinaryCommandLineIsDirect(t *testing.T) {
	ctx := context.Background()
	d := guardDecider(t, Spec{})
	set := readRuleSet(ast.MustParseTerm(mustJSON(t, guardRules)).Value.(*ast.Array))
	w := d.hinted.residual(ctx, ast.MustParseTerm(`{}`))
	require.NotNil(t, w.direct)
	command := func(words ...string) string {
		b, err := json.Marshal(map[string]any{"arg": "command", "words": words, "program": words[0], "unknown": false,
			"known": len(words), "paths": []string{"/srv/app"}, "credentials": false})
		require.NoError(t, err)
		return string(b)
	}
	in := ast.MustParseTerm(fmt.Sprintf(`{"tool": "run_command", "root": "/srv/app", "annotations": {}, "hosts": [], "arguments": {},
		"paths": [{"arg": "command", "raw": "/srv/app", "path": "/srv/app", "dir": true},
			{"arg": "command", "raw": "todo.txt", "path": "/srv/app/todo.txt", "written": true}],
		"commands": [%s, %s, %s, %s, %s]}`,
		command("npm", "run", "build"), command("git", "status", "--short"), command("grep", "-rn", "TODO", "src"),
		command("kubectl", "get", "pods"), command("pip", "install", "-r", "requirements.txt"))).Value
	c := CallOf(in)
	_, err := w.direct.decide(withSink(ctx, DocumentInput(in, &c), set))
	assert.NoError(t, err, "an ordinary command line is decided directly")
}
