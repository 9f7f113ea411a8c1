package policy

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/provider"
)

// RuleSource feeds a policy rule sets while it runs (Options.Source): a
// bundle service's, or files watched for edits.
type RuleSource interface {
	// Current is the set in force, and false before the source has one.
	// New compiles it with the policy's own rules, once.
	Current() (RuleSet, bool)
	// Watch calls activate with the source's current set, if it has one,
	// and then with each set the source activates, one call at a time,
	// until stop is called. An error from activate means the set was
	// refused (it did not validate or compile): the policy keeps deciding
	// by the set before, and the source should say so where its operator
	// looks.
	Watch(activate func(RuleSet) error) (stop func())
}

// RuleSet is one set of rules and Rego modules a RuleSource activated.
type RuleSet struct {
	Rules   []Rule
	Modules []Module
	// Revisions name where the set came from: bundle name to revision.
	// Every decision made under the set is recorded with them
	// (Record.Revisions).
	Revisions map[string]string
}

// ErrNotLoaded is why a policy with a Source refuses every call until the
// source's first set is active. It refuses rather than asks: without the
// team's rules every call, harmless reads included, would be a question,
// and a human asked everything learns to answer yes.
var ErrNotLoaded = errors.New("the policy has not loaded yet: no rule set from its source is active")

// ruleState is what a batch is decided by.
type ruleState struct {
	engine    *rules.Engine
	revisions map[string]string
	// loaded is false while a Source has given no set yet: every call is
	// refused.
	loaded bool
}

// activate is the Source's callback: set replaces the one before, unless
// it does not validate or compile.
func (p *Policy) activate(set RuleSet) error {
	p.reload.Lock()
	defer p.reload.Unlock()
	if p.fed != nil && sameSet(*p.fed, set) {
		// The set New compiled, handed over again by Watch: compiling it
		// again would cost a second at 100,000 rules, for the same engine.
		return nil
	}
	set.Revisions = cloneMap(set.Revisions)
	if err := p.swap(p.base, &set); err != nil {
		return err
	}
	p.fed = &set
	return nil
}

// swap builds the engine for base followed by fed and makes it current;
// an error leaves the current one. p.reload is held.
func (p *Policy) swap(base RuleSet, fed *RuleSet) error {
	o := p.opts
	o.Rules, o.Modules = base.Rules, base.Modules
	var revisions map[string]string
	if fed != nil {
		o = withSet(o, *fed)
		revisions = fed.Revisions
	}
	engine, err := p.current.Load().engine.Reload(context.Background(), engineConfig(o))
	if err != nil {
		return err
	}
	p.base = base
	p.current.Store(&ruleState{engine: engine, revisions: revisions, loaded: p.opts.Source == nil || fed != nil})
	return nil
}

// sameSet says a and b are one set, handed over twice: the same rules and
// modules (the same slices, not equal ones: a source never changes a set
// it handed over) and revisions.
func sameSet(a, b RuleSet) bool {
	same := func(x, y int, first func() bool) bool { return x == y && (x == 0 || first()) }
	return same(len(a.Rules), len(b.Rules), func() bool { return &a.Rules[0] == &b.Rules[0] }) &&
		same(len(a.Modules), len(b.Modules), func() bool { return &a.Modules[0] == &b.Modules[0] }) &&
		maps.Equal(a.Revisions, b.Revisions)
}

// withSet is o with set's rules and modules after its own.
func withSet(o Options, set RuleSet) Options {
	o.Rules = append(slices.Clone(o.Rules), set.Rules...)
	o.Modules = append(slices.Clone(o.Modules), set.Modules...)
	return o
}

// notLoaded is the refusal of a call made before the Source's first set.
func (p *Policy) notLoaded(call provider.Call, rec *Record) string {
	refusal := fmt.Sprintf("%s refused '%s': %v. The call was not run; try again shortly, "+
		"and tell the user if this persists (the rule bundle may not be reachable).", p.name, call.Function.Name, ErrNotLoaded)
	if rec != nil {
		rec.Error, rec.Refusal = ErrNotLoaded.Error(), refusal
	}
	return refusal
}

// Close stops listening to Options.Source; the rules in force stay. It is
// safe to call more than once, and a no-op without a Source.
func (p *Policy) Close() error {
	p.reload.Lock()
	stop := p.stopWatch
	p.stopWatch = nil
	p.reload.Unlock()
	if stop != nil {
		stop()
	}
	return nil
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
