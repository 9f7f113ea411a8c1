// Package leases puts call budgets on tools: at most so many calls in all,
// at most so many in any window of time, or both.
//
// Leases belongs below a policy — Policy(Reasons(Leases(Registry))) — so
// that permission is resolved before a lease is consumed: a call the policy
// refuses never reaches Leases and costs nothing, and a call the human is
// asked about again cannot walk around a lease, because the lease is spent
// only by calls that are really on their way to the tool.
package leases

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/provider"
)

// Limit is one budget.
//
// Tool is a glob over tool names as Leases sees them (below a registry the
// prefix is gone), with "*" and "?" as in rules. The budget is shared by all
// the tools the glob matches: {Tool: "fs_*", Count: 100} is 100 calls to fs
// tools in all, not 100 each; name a tool exactly for a budget of its own.
//
// Count is the total number of calls the lease allows over the life of the
// Leases; 0 means no total. PerCount calls are allowed in any sliding window
// of length Per (a call at time t counts until t+Per); both or neither must
// be set. At least one of Count and PerCount must be set: a Limit that
// limits nothing is a mistake, not a no-op.
type Limit struct {
	Tool     string
	Count    int
	Per      time.Duration
	PerCount int
}

func (l Limit) validate() error {
	switch {
	case l.Tool == "":
		return errors.New("tool must be a non-empty tool name or glob")
	case l.Count < 0:
		return fmt.Errorf("count %d is negative", l.Count)
	case l.PerCount < 0:
		return fmt.Errorf("per-count %d is negative", l.PerCount)
	case l.Per < 0:
		return fmt.Errorf("per %v is negative", l.Per)
	case l.Per > 0 && l.PerCount == 0:
		return fmt.Errorf("per %v needs a per-count: how many calls per %v?", l.Per, l.Per)
	case l.PerCount > 0 && l.Per == 0:
		return fmt.Errorf("per-count %d needs a per: %d calls per how long?", l.PerCount, l.PerCount)
	case l.Count == 0 && l.PerCount == 0:
		return errors.New("limits nothing: set count, or per and per-count")
	}
	return nil
}

// Option configures Leases. A Limit is an Option, so limits and settings go
// in one list: New(p, Limit{...}, Limit{...}, WithClock(now)).
type Option interface{ apply(*Leases) error }

func (l Limit) apply(ls *Leases) error {
	if err := l.validate(); err != nil {
		return fmt.Errorf("leases: limit %d (%q): %w", len(ls.leases)+1, l.Tool, err)
	}
	ls.leases = append(ls.leases, &lease{Limit: l})
	return nil
}

type optionFunc func(*Leases) error

func (f optionFunc) apply(l *Leases) error { return f(l) }

// WithClock replaces time.Now, so tests can move time instead of waiting.
func WithClock(now func() time.Time) Option {
	return optionFunc(func(l *Leases) error {
		if now == nil {
			return errors.New("leases: WithClock(nil)")
		}
		l.now = now
		return nil
	})
}

// Leases is a Provider that forwards a call only while every Limit matching
// its tool has budget left. It is safe for concurrent use; concurrent
// batches draw on the same budgets.
type Leases struct {
	p      provider.Provider
	now    func() time.Time
	leases []*lease

	mu sync.Mutex // guards the counters of every lease
}

type lease struct {
	Limit
	used   int         // calls consumed in all
	recent []time.Time // consumption times still inside the window, oldest first
}

// New wraps p with the given limits and options. Invalid limits are errors
// here, not surprises at the first call.
func New(p provider.Provider, opts ...Option) (*Leases, error) {
	if p == nil {
		return nil, errors.New("leases: provider is nil")
	}
	l := &Leases{p: p, now: time.Now}
	for _, o := range opts {
		if o == nil {
			return nil, errors.New("leases: nil option")
		}
		if err := o.apply(l); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// ToolsForLLM passes the catalogue through: a budget limits calls, not what
// the model may know exists.
func (l *Leases) ToolsForLLM(ctx context.Context) ([]provider.Tool, error) {
	return l.p.ToolsForLLM(ctx)
}

// ExecuteToolCalls spends the budgets of a batch in order, then forwards the
// calls that fit in one batch. A call that does not fit gets an is_error
// result starting "lease exhausted: 'TOOL'" and costs nothing; it is never
// forwarded. A call spends its budget once it is forwarded, whatever the
// tool then answers.
func (l *Leases) ExecuteToolCalls(ctx context.Context, calls []provider.Call) []provider.Result {
	out := make([]provider.Result, len(calls))
	var fwd []provider.Call
	var index []int

	l.mu.Lock()
	now := l.now()
	for i, c := range calls {
		if msg := l.take(c.Function.Name, now); msg != "" {
			out[i] = provider.ErrorResult(c.ID, msg)
			continue
		}
		fwd = append(fwd, c)
		index = append(index, i)
	}
	l.mu.Unlock()

	for j, res := range provider.Forward(ctx, l.p, fwd) {
		out[index[j]] = res
	}
	return out
}

// take spends one call of every lease matching tool, or, if any of them has
// nothing left, spends nothing and says why. l.mu must be held.
func (l *Leases) take(tool string, now time.Time) string {
	var matched []*lease
	for _, ls := range l.leases {
		if !lexical.MatchTool(ls.Tool, tool) {
			continue
		}
		if ls.Per > 0 {
			ls.expire(now)
		}
		if ls.Count > 0 && ls.used >= ls.Count {
			return fmt.Sprintf("lease exhausted: '%s' has used all %d calls of its lease (limit '%s'); no more calls to it will be made",
				tool, ls.Count, ls.Tool)
		}
		if ls.PerCount > 0 && len(ls.recent) >= ls.PerCount {
			wait := ls.recent[0].Add(ls.Per).Sub(now)
			return fmt.Sprintf("lease exhausted: '%s' may make at most %d calls per %v (limit '%s'); try again in %v",
				tool, ls.PerCount, ls.Per, ls.Tool, wait.Round(time.Millisecond))
		}
		matched = append(matched, ls)
	}
	for _, ls := range matched {
		ls.used++
		if ls.PerCount > 0 {
			ls.recent = append(ls.recent, now)
		}
	}
	return ""
}

// expire drops the calls that have left the window ending at now.
func (ls *lease) expire(now time.Time) {
	cut := now.Add(-ls.Per)
	n := 0
	for n < len(ls.recent) && !ls.recent[n].After(cut) {
		n++
	}
	ls.recent = append(ls.recent[:0], ls.recent[n:]...)
}
