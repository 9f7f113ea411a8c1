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
	// Paths and Hosts are input.paths and input.hosts.
	Paths() ast.Value
	Hosts() ast.Value
	// Document is the whole input document: the same value on every call,
	// which the engine's builtin recognises (see withSink).
	Document() ast.Value
}

// DocumentInput is the Input of a document already built.
func DocumentInput(doc ast.Value) Input { return documentInput{doc} }

type documentInput struct{ doc ast.Value }

func (d documentInput) Annotations() *ast.Term {
	if obj, ok := d.doc.(ast.Object); ok {
		return obj.Get(keyAnnotations)
	}
	return nil
}

func (d documentInput) Paths() ast.Value    { return valueAt(d.doc, keyPaths) }
func (d documentInput) Hosts() ast.Value    { return valueAt(d.doc, keyHosts) }
func (d documentInput) Document() ast.Value { return d.doc }
