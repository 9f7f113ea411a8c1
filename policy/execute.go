package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"path"
	"strings"
	"time"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/toolflags"
	"github.com/mcp-policy/mcp-policy/provider"
)

// ExecuteToolCalls decides every call of the batch first — asking where
// the rules say ask — then forwards every allowed call, untouched, in one
// ExecuteToolCalls of the provider. Results come back in the caller's
// order; a refused or malformed call is an is_error result of its own.
func (p *Policy) ExecuteToolCalls(ctx context.Context, calls []provider.Call) []provider.Result {
	results := make([]provider.Result, len(calls))
	var forward []provider.Call
	var slots []int
	set := p.current.Load() // one rule set for the whole batch, whatever SetRules does meanwhile
	for i, call := range calls {
		var rec *Record // nil without a decision log: an allowed call builds nothing for it
		if p.opts.OnDecision != nil {
			rec = &Record{Call: call, Revisions: set.revisions, Started: time.Now()}
		}
		if !set.loaded {
			results[i] = provider.ErrorResult(call.ID, p.notLoaded(call, rec))
		} else if allowed, refusal := p.resolve(ctx, set.engine, call, rec); allowed {
			forward = append(forward, call)
			slots = append(slots, i)
		} else {
			results[i] = provider.ErrorResult(call.ID, refusal)
		}
		p.record(rec)
	}
	if len(forward) > 0 {
		if p.opts.ClaimElicits && claimant(ctx) == nil {
			ctx = context.WithValue(ctx, claimKey{}, p) // the outermost claim wins
		}
		for j, r := range provider.Forward(ctx, p.provider(), forward) {
			results[slots[j]] = r
		}
	}
	return results
}

// resolve decides one call: allowed, or the refusal to show the model. rec
// is filled in with how. Nothing that goes wrong here escapes as a panic.
func (p *Policy) resolve(ctx context.Context, engine *rules.Engine, call provider.Call, rec *Record) (allowed bool, refusal string) {
	defer func() {
		if v := recover(); v != nil {
			allowed, refusal = false, fmt.Sprintf("%s could not decide '%s' (internal error: %v); the call was not run.", p.name, call.Function.Name, v)
		}
		if rec != nil {
			rec.Allowed = allowed
			if !allowed {
				rec.Refusal = refusal
			}
		}
	}()
	d, in, err := p.decide(ctx, engine, call)
	if rec != nil {
		rec.Deciding = time.Since(rec.Started)
	}
	if err != nil {
		if rec != nil {
			rec.Error = err.Error()
		}
		return false, fmt.Sprintf("%s refused the call: %v", p.name, err)
	}
	if rec != nil {
		dc := d
		rec.Decision, rec.Arguments = &dc, in.Arguments()
	}
	switch d.Decision {
	case Allow:
		return true, ""
	case Deny:
		return false, p.denial(call.Function.Name, d)
	}
	if p.onAsk() == nil {
		return false, fmt.Sprintf("Permission required: '%s' needs approval, but no one is available to approve it "+
			"(%s is running without anyone to ask). The call was not run; do not retry it, and tell the user it needs their approval.",
			call.Function.Name, p.name)
	}
	return p.ask(ctx, call, in, d, rec)
}

func (p *Policy) denial(tool string, d Decision) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Denied by %s: '%s' is not allowed", p.name, tool)
	switch {
	case d.Reason == ReasonGrant && d.Grant != nil:
		fmt.Fprintf(&b, " (the user chose to always deny %s)", describe(*d.Grant))
	case d.Rule != nil:
		fmt.Fprintf(&b, " by rule %s", describe(*d.Rule))
		if d.Rule.Message != "" {
			fmt.Fprintf(&b, ": %s", d.Rule.Message)
		}
	}
	b.WriteString(". The call was not run; do not retry it unchanged.")
	return b.String()
}

func describe(r Rule) string {
	r.Message = ""
	b, _ := json.Marshal(r)
	return string(b)
}

// ask puts the question to the human under the ask lock. The grants are
// read again once the lock is held: the answer to the question this call
// waited behind may have decided it already.
func (p *Policy) ask(ctx context.Context, call provider.Call, in *rules.Input, d Decision, rec *Record) (bool, string) {
	tool := call.Function.Name
	release, err := p.lock(ctx)
	if err != nil {
		return false, fmt.Sprintf("%s did not ask about '%s': %v. The call was not run.", p.name, tool, err)
	}
	defer release()
	d = grants.Apply(d, in, p.grantSets()...)
	if rec != nil {
		dc := d
		rec.Decision = &dc
	}
	switch d.Decision {
	case Allow:
		return true, ""
	case Deny:
		return false, p.denial(tool, d)
	}
	q := Question{
		Kind: KindPermission, Tool: tool, Arguments: in.Arguments(), Call: call,
		Rule: cloneRule(d.Rule), Reason: d.Reason, Paths: d.Paths, Hosts: d.Hosts, Suggestion: cloneRule(d.Suggestion),
		AllowGrantable: grants.AllowMayAnswer(d), DescriptionWarning: toolflags.Sentence(in.ToolFlags),
		DefinitionChange: in.DefinitionChange,
	}
	if q.AllowGrantable {
		// Where a grant could have answered, one that did not is worth
		// showing; under an ask rule or the floor no grant answers anyway.
		q.Near = p.near(tool)
	}
	if rec != nil {
		rec.Question, rec.Asked = &q, time.Now()
	}
	a, err := p.callOnAsk(ctx, q)
	if rec != nil {
		rec.Waited = time.Since(rec.Asked)
	}
	if err == nil && a.Unanswered != nil {
		err = a.Unanswered
	}
	if err != nil {
		if rec != nil {
			rec.Error = err.Error()
		}
		return false, fmt.Sprintf("%s could not get an answer about '%s': %v. The call was not run; tell the user.", p.name, tool, err)
	}
	if rec != nil {
		rec.Answer = &a
	}
	ok, message, failed := p.apply(tool, in.Root, d, a, rec)
	p.tellApplied(a, failed)
	return ok, message
}

// grantsOffered are the grants an "always" answer a asks to remember,
// each with decision, validated and absolute (relative, a grant would name
// another directory under another root: a shared store's other policies',
// or this one's once its roots change); or why there are none.
func grantsOffered(tool, root string, d Decision, a Answer, decision Verdict) ([]Rule, string) {
	var offered []Rule
	switch {
	case a.Rule != nil && a.Rules != nil:
		return nil, "it carries both rule and rules"
	case a.Rules != nil && len(a.Rules) == 0:
		return nil, "its rules list is empty"
	case a.Rules != nil:
		offered = rules.CloneAll(a.Rules)
	case a.Rule != nil:
		offered = []Rule{a.Rule.Clone()}
	case d.Suggestion != nil:
		offered = []Rule{d.Suggestion.Clone()}
	default:
		return nil, "there is no rule to remember"
	}
	for i := range offered {
		offered[i].Decision = decision // the action decides, not the rule
		v, err := rules.Validate(offered[i], fmt.Sprintf("answer rule %d", i+1))
		if err != nil {
			return nil, err.Error()
		}
		if v.Under != "" && !path.IsAbs(v.Under) {
			abs, ok := lexical.Resolve(root, v.Under)
			if !ok {
				return nil, fmt.Sprintf("answer rule %d: under %q is relative, and '%s' has no root to resolve it against", i+1, v.Under, tool)
			}
			v.Under = abs
		}
		offered[i] = v
	}
	return offered, ""
}

// tellApplied tells the answer's Applied what came of it. A panic there
// is contained: the answer is carried out already.
func (p *Policy) tellApplied(a Answer, failed error) {
	if a.Applied == nil {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			log.Printf("%s: Answer.Applied panicked: %v", p.name, v)
		}
	}()
	a.Applied(failed)
}

// apply turns an answer into the call's fate, remembering what an always-
// answer covers; failed says why the answer could not be carried out.
func (p *Policy) apply(tool, root string, d Decision, a Answer, rec *Record) (ok bool, message string, failed error) {
	refuse := func(why string) (bool, string, error) {
		return false, fmt.Sprintf("%s could not use the answer about '%s': %s. The call was not run and nothing was remembered; "+
			"ask the user to answer again.", p.name, tool, why), errors.New(why)
	}
	var decision Verdict
	var ttl time.Duration // 0: the store's
	switch a.Action {
	case AllowOnce:
		return true, "", nil
	case DenyOnce:
		return false, fmt.Sprintf("The user declined '%s' this time (%s). The call was not run; do not retry it unchanged.", tool, p.name), nil
	case AlwaysAllow, AllowForADay:
		if !grants.AllowMayAnswer(d) {
			// A grant that would never answer is not worth keeping, and
			// would widen silently if the rule asking were ever removed.
			return true, "", nil
		}
		decision = Allow
		if a.Action == AllowForADay {
			ttl = ADay
		}
	case AlwaysDeny:
		decision = Deny
	default:
		return refuse(fmt.Sprintf("unknown action %q (want %s, %s, %s, %s or %s)", a.Action, AllowOnce, DenyOnce, AlwaysAllow, AllowForADay, AlwaysDeny))
	}
	offered, why := grantsOffered(tool, root, d, a, decision)
	if why != "" {
		return refuse(why)
	}
	q := &grants.Question{Tool: tool, Paths: d.Paths, Hosts: d.Hosts, Reason: string(d.Reason)}
	if err := p.remember(q, ttl, offered); errors.Is(err, grants.ErrQueued) {
		// Kept by this process until the database answers: the call goes
		// on as answered, and the one who answered is told it is not
		// written yet.
		failed = err
	} else if err != nil {
		return refuse(err.Error())
	}
	if rec != nil {
		rec.Remembered = offered
	}
	if w := p.notifyGrant(); w != "" {
		if rec != nil {
			rec.Warnings = append(rec.Warnings, w)
		} else {
			// No decision log to carry it: the standard logger, as
			// net/http reports a handler's panic.
			log.Printf("%s: %s", p.name, w)
		}
	}
	if decision == Allow {
		return true, "", failed
	}
	return false, fmt.Sprintf("The user chose to always deny %s (%s). The call was not run; do not retry it.", describe(offered[0]), p.name), failed
}

// notifyGrant hands OnGrant the whole effective list. A panic there is
// contained, and returned as a warning: the grant is already made and the
// call goes on.
func (p *Policy) notifyGrant() (warning string) {
	if p.opts.OnGrant == nil {
		return ""
	}
	defer func() {
		if v := recover(); v != nil {
			warning = fmt.Sprintf("OnGrant panicked: %v (the grant is kept)", v)
		}
	}()
	p.opts.OnGrant(p.Grants())
	return ""
}

// callOnAsk runs the callback with a ctx that marks this policy's lock (and
// so its fleet's) as held, so a re-entrant call is refused instead of
// deadlocking.
func (p *Policy) callOnAsk(ctx context.Context, q Question) (a Answer, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the question callback panicked: %v", v)
		}
	}()
	return p.onAsk()(context.WithValue(ctx, holdingKey{p.askLock}, true), q), nil
}

// holdingKey marks a ctx handed to an OnAsk while the ask lock l is held.
type holdingKey struct{ l chan struct{} }

// lock takes the ask lock, or fails when ctx ends first or when ctx is the
// one an OnAsk holding this same lock was handed (waiting would deadlock).
func (p *Policy) lock(ctx context.Context) (func(), error) {
	if ctx.Value(holdingKey{p.askLock}) != nil {
		return nil, fmt.Errorf("a call made from inside a question callback needs %s to ask the human, "+
			"who is busy with that very question (re-entrant call refused instead of deadlocking)", p.name)
	}
	// A batch already cancelled is not put to the human: select would pick
	// a free lock over a closed Done at random.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("stopped waiting for the human's attention: %w", err)
	}
	select {
	case p.askLock <- struct{}{}:
		return func() { <-p.askLock }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("stopped waiting for the human's attention: %w", ctx.Err())
	}
}

func cloneRule(r *Rule) *Rule {
	if r == nil {
		return nil
	}
	c := r.Clone()
	return &c
}
