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

// progressWhileHeld starts hc's progress notifications, if its request
// asked for them, and returns what stops them (at once, waiting for the
// last to be written: none may follow the call's result or its forward).
func (p *Proxy) progressWhileHeld(hc *hostCall) (stop func()) {
	var params struct {
		Meta struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(hc.params, &params) != nil || len(params.Meta.Token) == 0 {
		return func() {}
	}
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(heldFirst)
		defer t.Stop()
		for n := 1; ; n++ {
			select {
			case <-done:
				return
			case <-t.C:
				why := "waiting for the human's attention: another question is being asked"
				if w := hc.waitsFor.Load(); w != nil {
					why = *w
				}
				p.toHost(notification("notifications/progress", map[string]any{
					"progressToken": params.Meta.Token, "progress": n, "message": why,
				}))
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			<-exited
		})
	}
}

func ptr[T any](v T) *T { return &v }
