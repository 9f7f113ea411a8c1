package proxy

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/approvals"
	"github.com/mcp-policy/mcp-policy/internal/visible"
	"github.com/mcp-policy/mcp-policy/policy"
)

// Parked questions (--ask-wait). A host that cannot elicit gives up on a
// held call after its own request timeout (a minute, for many), and the
// question would leave the queue before a human saw it. With --ask-wait
// the host is answered when the wait passes ("make the call again once it
// is answered"), and the question stays, alive, until --ask-timeout. The
// same call made again (the same tool and arguments: the digest the
// approver was shown) takes the answer: an "allow once" lets that one
// call through, an "always" is remembered then, as for a held call. A
// different call never takes another's answer.

type parkedQuestions struct {
	mu       sync.Mutex
	byDigest map[string]*parkedQuestion
}

type parkedQuestion struct {
	aq     approvals.Question
	done   chan struct{} // closed once answer or err is set
	answer approvals.Answer
	err    error
}

// park keeps aq waiting for its answer for up to left, without a call.
func (pq *parkedQuestions) park(p *Proxy, digest string, aq approvals.Question, left time.Duration) {
	q := &parkedQuestion{aq: aq, done: make(chan struct{})}
	pq.mu.Lock()
	if pq.byDigest == nil {
		pq.byDigest = map[string]*parkedQuestion{}
	}
	pq.byDigest[digest] = q
	pq.mu.Unlock()
	p.answering.Add(1)
	go func() {
		defer p.answering.Add(-1)
		ctx, cancel := context.WithTimeoutCause(p.ctx, left, errAskTimeout)
		defer cancel()
		a, err := p.opt.approvals.Await(ctx, aq, func(err error) { p.warnf("question %s: %v (removed)", aq.ID, err) })
		// Taken, and kept here for the call made again: the approver is
		// told so (ErrOnRetry), not that it was carried out.
		if err == nil {
			p.opt.approvals.Settle(aq.ID, approvals.ErrOnRetry)
		} else {
			p.opt.approvals.Withdraw(aq.ID)
		}
		if err == nil {
			p.sayf("question %s answered %s by %s; it applies when the call is made again", aq.ID, a.Action, visible.Shown(a.By, maxShown))
		}
		p.opt.notify.Send(p.questionEnded(aq, a, err))
		q.answer, q.err = a, err
		close(q.done)
	}()
}

// retried is the answer for the call with digest, made again after it
// was parked: its approver's answer, or, still unanswered, a refusal
// saying so (no second question is put). ok is false for a call with no
// parked question, or one whose time ran out: it is asked anew.
func (pq *parkedQuestions) retried(p *Proxy, digest string) (a policy.Answer, ok bool) {
	pq.mu.Lock()
	q := pq.byDigest[digest]
	pq.mu.Unlock()
	if q == nil {
		return policy.Answer{}, false
	}
	select {
	case <-q.done:
	default:
		return policy.Answer{Unanswered: fmt.Errorf("question %s still waits for an approver's answer at `%s` (or `%s`); make the call again once it is answered",
			q.aq.ID, p.approvalsCommand("approvals"), p.approvalsCommand("approve"))}, true
	}
	pq.mu.Lock()
	if pq.byDigest[digest] == q {
		delete(pq.byDigest, digest) // an answer is taken once
	}
	pq.mu.Unlock()
	switch {
	case errors.Is(q.err, errAskTimeout), errors.Is(q.err, context.Canceled):
		return policy.Answer{}, false
	case q.err != nil:
		return policy.Answer{Unanswered: q.err}, true
	}
	return policy.Answer{Action: policy.Action(q.answer.Action)}, true
}
