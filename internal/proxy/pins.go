package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/visible"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// Tool pins (*grants.Pins). Each time the proxy learns the server's
// whole catalogue (a tools/list answer, the host's or its own), it has the
// pins store see the definitions: new tools are pinned, and a tool whose
// definition is not its pin is handed to the policy with DefinitionChange
// set, so the policy suspends its allow grants and reads it as a tool it
// knows nothing of. An "always" answer to a question about such a tool
// approves the change the question showed, once the grant is kept.

// pinsWait bounds how long a tools/list waits for the pins store (a lock
// held by another process, a database out of reach): past it, every tool
// of the list is treated as changed, as it is when the store fails.
const pinsWait = 5 * time.Second

// pinState is what the proxy holds of the pins between listings.
type pinState struct {
	mu sync.Mutex
	// changed is, for each tool whose definition is not its pin, the
	// digest of the definition the server offers (what an answer
	// approves), "" when the store could not say.
	changed map[string]string
	said    map[string]bool // the changes stderr was told of, by tool and digest
}

// pinned is tools with each one's DefinitionChange set from the pins
// store; tools as they are when the proxy has no store.
func (p *Proxy) pinned(tools []provider.Tool) []provider.Tool {
	store := p.opt.pins
	if store == nil {
		return tools
	}
	defs := make([]grants.Definition, len(tools))
	for i, t := range tools {
		var ann json.RawMessage
		if t.Annotations != nil {
			ann, _ = json.Marshal(t.Annotations)
		}
		defs[i] = grants.Definition{Name: t.Function.Name, Description: t.Function.Description, InputSchema: t.Function.Parameters, Annotations: ann}
	}
	ctx, cancel := context.WithTimeout(p.ctx, pinsWait)
	defer cancel()
	server := p.pinServer()
	pins, err := store.See(ctx, server, defs, time.Now())
	if err == nil && len(pins) != len(tools) {
		err = errors.New("the store answered for other tools than were listed")
	}
	out := make([]provider.Tool, len(tools))
	changed := map[string]string{}
	var said []string
	ps := &p.pinsState
	ps.mu.Lock()
	for i, t := range tools {
		out[i] = t
		switch {
		case err != nil:
			out[i].DefinitionChange = "its pin could not be checked (" + err.Error() + ")"
			changed[t.Function.Name] = ""
		case pins[i].Changed != nil:
			out[i].DefinitionChange = pins[i].ChangeSummary()
			changed[t.Function.Name] = pins[i].Changed.Digest
			if k := t.Function.Name + "\x00" + pins[i].Changed.Digest; !ps.said[k] {
				if ps.said == nil || len(ps.said) > maxFlaggedSaid {
					ps.said = map[string]bool{}
				}
				ps.said[k] = true
				said = append(said, t.Function.Name)
			}
		}
	}
	ps.changed = changed
	ps.mu.Unlock()
	if err != nil && p.ctx.Err() == nil {
		p.warnf("the tool pins: %v: every tool's allow grants and annotations are suspended until they can be checked", err)
	}
	for _, name := range said {
		p.warnf("the server's tool %s is not the one approved: its allow grants and annotations are suspended until a human approves the change (an \"always\" answer, or mcp-policy pins approve)", visible.Shown(name, maxShown))
	}
	return out
}

// pinServer is the server as its pins name it.
func (p *Proxy) pinServer() string {
	return grants.ServerIdentity(p.session().serverName, p.opt.server)
}

// approvingAsk is ask with an answer that remembers an "always allow" to a
// question about a changed tool approving the change it showed (the
// definition offered when the question was put), once the policy kept
// the grant.
func (p *Proxy) approvingAsk(ask policy.AskFunc) policy.AskFunc {
	if p.opt.pins == nil {
		return ask
	}
	return func(ctx context.Context, q policy.Question) policy.Answer {
		digest := ""
		if q.DefinitionChange != "" {
			p.pinsState.mu.Lock()
			digest = p.pinsState.changed[q.Tool]
			p.pinsState.mu.Unlock()
		}
		a := ask(ctx, q)
		if digest == "" || a.Unanswered != nil || (a.Action != policy.AlwaysAllow && a.Action != policy.AllowForADay) {
			return a
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
// lifts the suspension from the catalogue the policy decides by.
func (p *Proxy) approvePin(tool, digest string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(p.ctx), pinsWait)
	defer cancel()
	if _, err := p.opt.pins.Approve(ctx, p.pinServer(), tool, digest, time.Now()); err != nil {
		p.warnf("approving the change of the tool %s: %v", visible.Shown(tool, maxShown), err)
		return
	}
	p.pinsState.mu.Lock()
	if p.pinsState.changed[tool] == digest {
		delete(p.pinsState.changed, tool)
	}
	p.pinsState.mu.Unlock()
	p.cat.approved(tool)
	p.sayf("the change of the tool %s is approved: it is pinned as the server offers it now", visible.Shown(tool, maxShown))
}
