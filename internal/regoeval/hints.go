package regoeval

// Residuals made for one tool's hints. The floor asks most of its questions
// only of a tool that is not read-only, or is destructive (rego/floor.rego):
// tests of input.annotations that the generic residual evaluates, negated,
// on every call, each a child evaluation. A tool's hints are known as soon
// as its catalogue is, and there are few combinations of them (each of the
// four MCP hints absent, false or true, or no catalogue: 82, of which a
// server's tools use a few), so the decision is also partially evaluated
// with input.annotations known, once per combination a call brings (up to
// maxHinted of them): a read-only tool's residual has no floor
// left at all, and a writing tool's has no hint tests.

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
)

// maxHinted bounds the residuals a Decider keeps. Each holds a compiler of
// its own (about 300 KB, and 4 ms to make), and a server's tools use a few
// of the 82 combinations: the first sixteen a Decider meets get theirs, and
// any later one is decided by the generic residual.
const maxHinted = 16

// hintedResiduals makes and keeps the residuals for each tool's hints. A
// decision reads the kept ones without a lock (an immutable map, replaced
// whole when one is added), so concurrent decisions share no lock.
type hintedResiduals struct {
	// What prepareResidual is given, for the residuals made later.
	compiler    *ast.Compiler
	modules     map[string]*ast.Module
	store       storage.Store
	evalOptions []func(*rego.Rego)

	mu   sync.Mutex // serialises making residuals
	kept atomic.Pointer[map[int][]hinted]
}

// hinted is the residual for one annotations value.
type hinted struct {
	annotations *ast.Term
	query       *residualQuery // nil: the generic one (this value's could not be made)
}

// find is the kept residual for annotations: ok is false when none is
// kept, and query nil when the generic one stands for it.
func (h *hintedResiduals) find(annotations *ast.Term) (query *residualQuery, ok bool) {
	kept := h.kept.Load()
	if kept == nil {
		return nil, false
	}
	for _, e := range (*kept)[annotations.Hash()] {
		if e.annotations == annotations || e.annotations.Equal(annotations) {
			return e.query, true
		}
	}
	return nil, false
}

// residual is the residual for a call whose input.annotations is
// annotations, made the first time; nil for the generic one, which stands
// for any value past maxHinted and any that partial evaluation could not
// specialise (the generic residual decides the same, only slower).
func (h *hintedResiduals) residual(ctx context.Context, annotations *ast.Term) *residualQuery {
	if q, ok := h.find(annotations); ok {
		return q
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if q, ok := h.find(annotations); ok {
		return q
	}
	old, n := h.kept.Load(), 0
	if old != nil {
		for _, es := range *old {
			n += len(es)
		}
	}
	if n >= maxHinted {
		return nil
	}
	// Made without the caller's deadline: the residual outlives the call.
	q, err := prepareResidual(context.WithoutCancel(ctx), h.compiler, h.modules, h.store, h.evalOptions, annotations)
	if err != nil {
		q = nil
	}
	kept := make(map[int][]hinted, n+1)
	if old != nil {
		for k, es := range *old {
			kept[k] = es
		}
	}
	k := annotations.Hash()
	kept[k] = append(kept[k][:len(kept[k]):len(kept[k])], hinted{annotations, q})
	h.kept.Store(&kept)
	return q
}
