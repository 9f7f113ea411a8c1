package proxy

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/approvals"
)

// Progress while a call is held. A call whose request carries a progress
// token hears notifications/progress every approvals.Heartbeat while it is
// held before the server: waiting its turn behind another question (the
// ask lock), or for the human's or an approver's answer. A host that
// resets its timeout on progress then waits as long as the human does.
// The notifications stop before the call is sent on: from then on the
// token is the server's to use.

// heldFirst is how long a call is held before the host hears of it: a
// call decided at once hears nothing.
const heldFirst = approvals.Heartbeat

// progressWhileHeld arranges hc's progress notifications, if its request
// asked for them, and returns what stops them (at once, waiting for the
// last to be written: none may follow the call's result or its forward).
// Nothing is read or started for a call decided within heldFirst, as
// nearly all are: a timer, which looks for the request's progress token
// only when it fires.
func (p *Proxy) progressWhileHeld(hc *hostCall) (stop func()) {
	done, exited := make(chan struct{}), make(chan struct{})
	timer := time.AfterFunc(heldFirst, func() {
		defer close(exited)
		token := member(member(hc.params, "_meta"), "progressToken")
		if token == nil {
			return
		}
		t := time.NewTicker(heldFirst)
		defer t.Stop()
		for n := 1; ; n++ {
			select {
			case <-done:
				return
			default:
			}
			why := "waiting for the human's attention: another question is being asked"
			if w := hc.waitsFor.Load(); w != nil {
				why = *w
			}
			p.toHost(notification("notifications/progress", map[string]any{
				"progressToken": json.RawMessage(token), "progress": n, "message": why,
			}))
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			if !timer.Stop() {
				<-exited // it fired: wait for its last notification
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
