package regoeval

import (
	"context"
	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/verdict"
)

// A sink answers only the call for the very input it was made for: an
// equal input (a Rego test's, a copy) gets the decision document.
func TestSinkIsForOneInput(t *testing.T) {
	input := ast.MustParseTerm(`{"tool": "fs_write", "root": null, "annotations": null, "paths": [{"arg": "path", "raw": "/srv/x", "path": "/srv/x"}], "hosts": [], "arguments": {"path": "/srv/x"}}`)
	data := ast.MustParseTerm(`{"rules": [{"tool": "fs_write", "decision": "allow", "under": "/srv", "host": "", "annotations": {}, "message": ""}]}`)
	args := func(in *ast.Term) []*ast.Term {
		return []*ast.Term{in, data, ast.SetTerm(), ast.SetTerm(), ast.SetTerm(), ast.SetTerm(), ast.SetTerm()}
	}
	call := CallOf(input.Value)
	ctx := withSink(context.Background(), DocumentInput(input.Value, &call), nil)
	ctx.document()
	o := &ctx.outcome

	doc, err := engineDecide(rego.BuiltinContext{Context: ctx}, args(input.Copy()))
	require.NoError(t, err)
	obj, ok := doc.Value.(ast.Object)
	require.True(t, ok, "an equal input got %v, want the decision document", doc)
	require.Empty(t, o.Decision, "an equal input filled the sink (%+v)", o)
	got := obj.Get(keyDecision)
	require.True(t, Key("allow").Equal(got), "the document decides %v, want allow", got)

	res, err := engineDecide(rego.BuiltinContext{Context: ctx}, args(input))
	require.NoError(t, err)
	require.True(t, ast.InternedTerm(true).Equal(res), "the input itself got %v, want true (outcome %+v)", res, o)
	require.Equal(t, verdict.Allow, o.Decision, "the input itself: outcome %+v", o)
	require.NotNil(t, o.Rule, "the input itself: outcome %+v", o)
	require.Equal(t, RuleRef{Kind: DataRule, Position: 0, Decision: verdict.Allow}, *o.Rule, "the input itself: outcome %+v", o)
	require.Equal(t, ReasonRule, o.Reason, "the input itself: outcome %+v", o)
}

// Each path of the call is folded once: under the decision's sink the
// floor's path builtins take the call's folded path instead of folding
// the path again. (The folded path planted here is not what folding
// gives, to show which one is used; a real call's always is.)
func TestPathsAreFoldedOnce(t *testing.T) {
	input := ast.MustParseTerm(`{"tool": "fs_write", "root": null, "annotations": null, "paths": [{"arg": "path", "raw": "/SRV/X", "path": "/SRV/X"}], "hosts": [], "arguments": {"path": "/SRV/X"}}`)
	call := CallOf(input.Value)
	require.Equal(t, []string{"/srv/x"}, call.Folded)
	call.Folded = []string{"/planted"}
	ctx := withSink(context.Background(), DocumentInput(input.Value, &call), nil)
	fp, ok := ctx.Value(lexical.FoldedPathsKey{}).(lexical.FoldedPaths)
	require.True(t, ok, "the sink gives the path builtins the call's folded paths")
	got, ok := fp.FoldedPath("/SRV/X")
	require.True(t, ok)
	require.Equal(t, "/planted", got, "the path was folded again")
	_, ok = fp.FoldedPath("/SRV/Y")
	require.False(t, ok, "a path the call does not name is the builtin's to fold")
	_, ok = context.Background().Value(lexical.FoldedPathsKey{}).(lexical.FoldedPaths)
	require.False(t, ok)

	// Through the builtin, as the floor calls it.
	pq, err := rego.New(rego.Query(`mcp.path.fold("/SRV/X")`)).PrepareForEval(ctx)
	require.NoError(t, err)
	rs, err := pq.Eval(ctx)
	require.NoError(t, err)
	require.Equal(t, "/planted", rs[0].Expressions[0].Value, "mcp.path.fold under the sink")
	rs, err = pq.Eval(context.Background())
	require.NoError(t, err)
	require.Equal(t, "/srv/x", rs[0].Expressions[0].Value, "mcp.path.fold without a sink")
}
