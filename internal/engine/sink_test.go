package engine

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
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
	var o Outcome
	ctx := WithSink(context.Background(), input.Value, &call, nil, &o)

	doc, err := engineDecide(rego.BuiltinContext{Context: ctx}, args(input.Copy()))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Value.(ast.Object); !ok || o.Decision != "" {
		t.Fatalf("an equal input got %v and filled the sink (%+v)", doc, o)
	}
	if got := doc.Value.(ast.Object).Get(keyDecision); !Key("allow").Equal(got) {
		t.Fatalf("the document decides %v, want allow", got)
	}

	res, err := engineDecide(rego.BuiltinContext{Context: ctx}, args(input))
	if err != nil {
		t.Fatal(err)
	}
	if !ast.InternedTerm(true).Equal(res) || o.Decision != "allow" || o.Rule == nil || o.Rule.Position != 0 {
		t.Fatalf("the input itself got %v, outcome %+v", res, o)
	}
}
