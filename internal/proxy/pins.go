package proxy

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/toolslist"
	"github.com/mcp-policy/mcp-policy/internal/visible"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// Tool pins (*grants.Pins). Every tools/list page the server answers —
// the host's, each of its pages, and the proxy's own — is seen by the
// pins, so no definition the model is shown escapes them, and a change
// once seen stays marked until a human approves it (a server cannot clear
// it by answering the proxy's own listing with the pinned definition).
// The catalogue the policy decides by carries each changed tool's
// DefinitionChange, so the policy suspends its allow grants and reads it
// as a tool it knows nothing of; a tool the catalogue does not list once
// is treated the same (policy.Options.PinnedCatalogue). A listing the
// proxy cannot read as a host reads it (toolslist.Decode) leaves the
// catalogue empty: every tool unapproved. An "always" answer to a
// question about a changed tool approves the change that question showed,
// once the grant is kept.

// pinsWait bounds how long a tools/list waits for the pins store (a lock
// held by another process, a database out of reach): past it, every tool
// of the list is treated as changed, as it is when the store fails.
const pinsWait = 5 * time.Second

// pinState is what the proxy holds of the pins between listings.
type pinState struct {
	mu sync.Mutex
	// shown is, for each change summary a question may show (by tool and
	// summary), the digest of the definition it describes: what an answer
	// to that question approves. Bounded, as said is.
	shown map[[2]string]string
	said  map[string]bool // the tools stderr was told are changed
}

// pinned is the page's tools with each one's DefinitionChange set from the
// pins store; the tools as they are when the proxy has no store.
func (p *Proxy) pinned(page toolslist.Page) []provider.Tool {
	store := p.opt.pins
	if store == nil {
		return page.Tools
	}
	ctx, cancel := context.WithTimeout(p.ctx, pinsWait)
	defer cancel()
	pins, err := store.See(ctx, p.opt.pinServer, page.Definitions, time.Now())
	if err == nil && len(pins) != len(page.Tools) {
		err = errors.New("the store answered for other tools than were listed")
	}
	out := make([]provider.Tool, len(page.Tools))
	var said []string
	ps := &p.pinsState
	ps.mu.Lock()
	if ps.shown == nil || len(ps.shown) > maxFlaggedSaid {
		ps.shown = map[[2]string]string{}
	}
	if ps.said == nil || len(ps.said) > maxFlaggedSaid {
		ps.said = map[string]bool{}
	}
	for i, t := range page.Tools {
		out[i] = t
		switch {
		case err != nil:
			out[i].DefinitionChange = "its pin could not be checked (" + err.Error() + ")"
		case pins[i].Changed != nil:
			summary := pins[i].ChangeSummary()
			out[i].DefinitionChange = summary
			ps.shown[[2]string{t.Function.Name, summary}] = pins[i].Changed.Digest
			// Said once per tool until its change is approved: a server
			// that changes a definition on every listing is not a line
			// each time.
			if name := t.Function.Name; !ps.said[name] {
				ps.said[name] = true
				said = append(said, t.Function.Name)
			}
		}
	}
	ps.mu.Unlock()
	if err != nil && p.ctx.Err() == nil {
		p.cat.retryAfter(pinsRetry)
		p.warnf("the tool pins: %v: every tool's allow grants and annotations are suspended until they can be checked", err)
	}
	for _, name := range said {
		p.warnf("the server's tool %s is not the one approved: its allow grants and annotations are suspended until a human approves the change (an \"always\" answer, or mcp-policy pins approve)", visible.Shown(name, maxShown))
	}
	return out
}

// listFailed is a listing of the proxy's own that failed: with pins, the
// policy then decides by no catalogue (every tool unapproved), and the
// tools are listed again after pinsRetry.
func (p *Proxy) listFailed() {
	if p.opt.pins != nil {
		p.cat.retryAfter(pinsRetry)
	}
}

// unreadableList is a host's tools/list page the proxy cannot read as a
// host reads it: the model may be shown definitions no pin saw, so with
// pins the catalogue is left empty (every tool unapproved) until the
// server lists its tools plainly.
func (p *Proxy) unreadableList(err error) {
	if p.opt.pins == nil {
		return
	}
	p.cat.set(nil)
	if p.unreadableSaid.CompareAndSwap(false, true) {
		p.warnf("the server's tools/list answer cannot be read as a host reads it (%v): every tool's allow grants and annotations are suspended until it lists its tools plainly", err)
	}
}

// approvingAsk is ask with an answer that remembers an "always allow" to a
// question about a changed tool approving the definition the question's
// change summary described, once the policy kept the grant.
func (p *Proxy) approvingAsk(ask policy.AskFunc) policy.AskFunc {
	if p.opt.pins == nil {
		return ask
	}
	return func(ctx context.Context, q policy.Question) policy.Answer {
		a := ask(ctx, q)
		if q.DefinitionChange == "" || a.Unanswered != nil || (a.Action != policy.AlwaysAllow && a.Action != policy.AllowForADay) {
			return a
		}
		p.pinsState.mu.Lock()
		digest := p.pinsState.shown[[2]string{q.Tool, q.DefinitionChange}]
		p.pinsState.mu.Unlock()
		if digest == "" {
			return a // a change the pins did not describe (unlisted, unreadable): nothing to approve
		}
		applied := a.Applied
		a.Applied = func(failed error) {
			if failed == nil || errors.Is(failed, grants.ErrQueued) {
				p.approvePin(q.Tool, digest)
			}
			if applied != nil {
				applied(failed)
			}
		}
		return a
	}
}

// approvePin makes the offered definition of tool (digest) its pin, and
// has the catalogue listed again, without the suspension.
func (p *Proxy) approvePin(tool, digest string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(p.ctx), pinsWait)
	defer cancel()
	if _, err := p.opt.pins.Approve(ctx, p.opt.pinServer, tool, digest, time.Now()); err != nil {
		p.warnf("approving the change of the tool %s: %v", visible.Shown(tool, maxShown), err)
		return
	}
	p.pinsState.mu.Lock()
	delete(p.pinsState.said, tool)
	p.pinsState.mu.Unlock()
	p.cat.invalidate()
	// The host lists its tools again: the model may hold another
	// definition than the one approved, which the pins then see.
	p.toHost(notification(notifyToolsChange, map[string]any{}))
	p.sayf("the change of the tool %s is approved: it is pinned as the question showed it", visible.Shown(tool, maxShown))
}
