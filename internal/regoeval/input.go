package regoeval

import "github.com/open-policy-agent/opa/v1/ast"

// Input is a call's input document as Eval reads it. OPA's evaluator
// reads the whole document; a decision left to the engine's builtin alone
// (direct.go) reads only the annotations, which choose the residual, and
// the paths and hosts the outcome shows. So the document is built only
// when the evaluator runs: for a read-only tool's call, most calls, it was
// a fifth of the decision.
type Input interface {
	// Annotations is input.annotations (null for an unknown catalogue).
	Annotations() *ast.Term
	// ShownPaths and ShownHosts are the input's paths and hosts as the
	// outcome shows them: Shown of each.
	ShownPaths() []*ast.Term
	ShownHosts() []*ast.Term
	// Document is the whole input document: the same value on every call,
	// which the engine's builtin recognises (see withSink).
	Document() ast.Value
	// MatchCall is the same call as the Go matchers read it (CallOf of the
	// document, or built beside it from what made the document).
	MatchCall() *Call
}

// DocumentInput is the Input of a document already built; call is the
// call as CallOf reads doc.
func DocumentInput(doc ast.Value, call *Call) Input { return documentInput{doc, call} }

type documentInput struct {
	doc  ast.Value
	call *Call
}

func (d documentInput) Annotations() *ast.Term {
	if obj, ok := d.doc.(ast.Object); ok {
		return obj.Get(keyAnnotations)
	}
	return nil
}

func (d documentInput) ShownPaths() []*ast.Term { return shown(valueAt(d.doc, keyPaths), keyPath) }
func (d documentInput) ShownHosts() []*ast.Term { return shown(valueAt(d.doc, keyHosts), keyHost) }
func (d documentInput) Document() ast.Value     { return d.doc }
func (d documentInput) MatchCall() *Call        { return d.call }
