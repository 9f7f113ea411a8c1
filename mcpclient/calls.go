package mcpclient

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/mcp-policy/mcp-policy/provider"
)

// errCallTimeout is the cancellation cause of a call whose timeout ran out.
var errCallTimeout = errors.New("mcp tool call timed out")

// callKey marks a call's ctx, so an elicitation arriving on a ctx derived
// from it (the 2026-07-28 input-required round) finds its call.
type callKey struct{}

// call is one tool call in flight. Its timeout is a timer rather than a
// context deadline so that it can be paused while the elicitation hook waits
// on a human.
type call struct {
	pc     provider.Call
	ctx    context.Context
	cancel context.CancelCauseFunc

	mu        sync.Mutex
	timer     *time.Timer // nil without a timeout
	deadline  time.Time
	remaining time.Duration // while stopped
	paused    int           // elicitations of this call being answered
	stopped   bool          // the timer was stopped by pause
	ended     bool
}

// begin registers a call in flight on c.
func (c *Client) begin(parent context.Context, pc provider.Call) *call {
	ctx, cancel := context.WithCancelCause(parent)
	cl := &call{pc: pc, cancel: cancel}
	cl.ctx = context.WithValue(ctx, callKey{}, cl)
	if d := c.cfg.callTimeout; d > 0 {
		cl.deadline = time.Now().Add(d)
		cl.timer = time.AfterFunc(d, func() { cancel(errCallTimeout) })
	}
	c.mu.Lock()
	c.inFlight[cl] = struct{}{}
	c.mu.Unlock()
	return cl
}

// end removes a finished call and releases its timer and ctx.
func (c *Client) end(cl *call) {
	c.mu.Lock()
	delete(c.inFlight, cl)
	c.mu.Unlock()
	cl.mu.Lock()
	cl.ended = true
	if cl.timer != nil {
		cl.timer.Stop()
	}
	cl.mu.Unlock()
	cl.cancel(context.Canceled)
}

// attribute finds the call an elicitation belongs to and the ctx to hand the
// hook. A ctx derived from a call's ctx names its call. Otherwise (legacy
// elicitation/create, handled on the client's own ctx) the only call in
// flight is taken to be the one that asked; with none or several, nothing can
// be said and the elicitation stays uncorrelated.
func (c *Client) attribute(ctx context.Context) (context.Context, *call) {
	if cl, ok := ctx.Value(callKey{}).(*call); ok {
		return ctx, cl
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.inFlight) == 1 {
		for cl := range c.inFlight {
			return cl.ctx, cl
		}
	}
	return ctx, nil
}

// pause stops the call's timeout while an elicitation of it is answered.
func (cl *call) pause() {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	cl.paused++
	if cl.paused == 1 && cl.timer != nil && !cl.ended && cl.timer.Stop() {
		cl.remaining = time.Until(cl.deadline)
		cl.stopped = true
	}
}

// resume restarts the timeout with what was left of it.
func (cl *call) resume() {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	cl.paused--
	if cl.paused == 0 && cl.stopped && !cl.ended {
		cl.stopped = false
		rem := max(cl.remaining, 0)
		cl.deadline = time.Now().Add(rem)
		cl.timer.Reset(rem)
	}
}
