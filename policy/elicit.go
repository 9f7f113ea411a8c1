package policy

import (
	"context"
	"fmt"

	"github.com/mcp-policy/mcp-policy/provider"
)

// claimKey carries the policy whose batch is being forwarded, when it
// claims elicitations.
type claimKey struct{}

func claimant(ctx context.Context) *Policy {
	p, _ := ctx.Value(claimKey{}).(*Policy)
	return p
}

// ElicitHook returns the function to wire as an MCP client's elicitation
// hook. A server's question goes to the policy whose batch provoked it when
// that policy claims elicitations and has someone to ask, else to this
// policy; either way as a server-elicit question under that policy's ask
// lock. With no one to ask, the answer is decline.
func (p *Policy) ElicitHook() provider.ElicitFunc {
	return func(ctx context.Context, req provider.ElicitRequest) (provider.ElicitResult, error) {
		target := p
		if c := claimant(ctx); c != nil && c.onAsk() != nil {
			target = c
		}
		return target.elicit(ctx, req)
	}
}

func (p *Policy) elicit(ctx context.Context, req provider.ElicitRequest) (provider.ElicitResult, error) {
	if p.onAsk() == nil {
		return provider.ElicitResult{Action: provider.ElicitDecline}, nil
	}
	release, err := p.lock(ctx)
	if err != nil {
		return provider.ElicitResult{}, err
	}
	defer release()
	r := req
	q := Question{Kind: KindServerElicit, Request: &r}
	if c, ok := provider.CallFrom(ctx); ok { // the call that provoked it, where the provider knows
		q.Tool, q.Call = c.Function.Name, c
	}
	a, err := p.callOnAsk(ctx, q)
	if err != nil {
		return provider.ElicitResult{}, err
	}
	switch a.Action {
	case Accept:
		return provider.ElicitResult{Action: provider.ElicitAccept, Content: a.Content}, nil
	case Decline, Cancel:
		return provider.ElicitResult{Action: provider.ElicitAction(a.Action)}, nil
	}
	return provider.ElicitResult{}, fmt.Errorf("%s: the answer to a server's question must be accept, decline or cancel, not %q", p.name, a.Action)
}
