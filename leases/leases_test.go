package leases_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/leases"
	"github.com/mcp-policy/mcp-policy/provider"
)

// fake records every batch it is handed and answers each call "ok NAME".
type fake struct {
	tools   []provider.Tool
	listErr error
	panics  bool

	mu      sync.Mutex
	batches [][]provider.Call
}

func (f *fake) ToolsForLLM(context.Context) ([]provider.Tool, error) { return f.tools, f.listErr }

func (f *fake) ExecuteToolCalls(_ context.Context, calls []provider.Call) []provider.Result {
	f.mu.Lock()
	f.batches = append(f.batches, append([]provider.Call(nil), calls...))
	f.mu.Unlock()
	if f.panics {
		panic("below blew up")
	}
	out := make([]provider.Result, len(calls))
	for i, c := range calls {
		out[i] = provider.TextResult(c.ID, "ok "+c.Function.Name)
	}
	return out
}

func (f *fake) recorded() [][]provider.Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]provider.Call(nil), f.batches...)
}

func (f *fake) forwarded() int {
	n := 0
	for _, b := range f.recorded() {
		n += len(b)
	}
	return n
}

func call(id, name string) provider.Call {
	return provider.Call{ID: id, Function: provider.CallFunction{Name: name, Arguments: `{}`}}
}

// clock is a settable fake time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func exec(l *leases.Leases, calls ...provider.Call) []provider.Result {
	return l.ExecuteToolCalls(context.Background(), calls)
}

func TestNewRejectsLimitsThatCannotMeanWhatTheySay(t *testing.T) {
	f := &fake{}
	for name, lim := range map[string]leases.Limit{
		"empty tool":         {Count: 1},
		"negative count":     {Tool: "x", Count: -1},
		"negative per-count": {Tool: "x", Per: time.Second, PerCount: -1},
		"negative per":       {Tool: "x", Per: -time.Second, PerCount: 1},
		"per without count":  {Tool: "x", Per: time.Minute},
		"count without per":  {Tool: "x", PerCount: 3},
		"limits nothing":     {Tool: "x"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := leases.New(f, leases.Limit{Tool: "ok", Count: 1}, lim)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "limit 2", "the error says which limit")
		})
	}
	_, err := leases.New(nil, leases.Limit{Tool: "x", Count: 1})
	assert.Error(t, err, "nil provider")
	_, err = leases.New(f, leases.WithClock(nil))
	assert.Error(t, err, "nil clock")
	_, err = leases.New(f, leases.Limit{Tool: "x", Count: 1}, nil)
	assert.Error(t, err, "nil option")

	_, err = leases.New(f, leases.Limit{Tool: "fs_write", Per: time.Minute})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "fs_write", "the error names the limit")
}

func TestTotalCountIsSpentOnlyByForwardedCalls(t *testing.T) {
	f := &fake{}
	l, err := leases.New(f, leases.Limit{Tool: "fs_write", Count: 2})
	require.NoError(t, err)

	res := exec(l, call("1", "fs_write"), call("2", "fs_read"), call("3", "fs_write"), call("4", "fs_write"))
	assert.Equal(t, provider.TextResult("1", "ok fs_write"), res[0])
	assert.Equal(t, provider.TextResult("2", "ok fs_read"), res[1], "a tool no limit matches is not limited")
	assert.Equal(t, provider.TextResult("3", "ok fs_write"), res[2])
	assert.True(t, res[3].IsError)
	assert.Equal(t, "4", res[3].ToolCallID)
	assert.True(t, strings.HasPrefix(res[3].Content, "lease exhausted: 'fs_write'"), res[3].Content)

	require.Len(t, f.recorded(), 1, "the allowed calls of a batch go down as one batch")
	assert.Equal(t, []provider.Call{call("1", "fs_write"), call("2", "fs_read"), call("3", "fs_write")}, f.recorded()[0])

	res = exec(l, call("5", "fs_write"))
	assert.True(t, res[0].IsError, "a total count never comes back")
	assert.Len(t, f.recorded(), 1, "a batch with nothing allowed is not forwarded at all")
}

func TestGlobBudgetIsShared(t *testing.T) {
	f := &fake{}
	l, err := leases.New(f, leases.Limit{Tool: "fs_*", Count: 2})
	require.NoError(t, err)
	res := exec(l, call("1", "fs_read"), call("2", "fs_write"), call("3", "fs_list"), call("4", "web_fetch"))
	assert.False(t, res[0].IsError)
	assert.False(t, res[1].IsError)
	assert.True(t, res[2].IsError, "two calls to fs tools in all")
	assert.Contains(t, res[2].Content, "'fs_list'")
	assert.Contains(t, res[2].Content, "'fs_*'")
	assert.False(t, res[3].IsError)
}

func TestEveryMatchingLimitMustHaveRoomAndARefusalCostsNothing(t *testing.T) {
	f := &fake{}
	l, err := leases.New(f,
		leases.Limit{Tool: "*", Count: 3},
		leases.Limit{Tool: "fs_write", Count: 1},
	)
	require.NoError(t, err)
	res := exec(l, call("1", "fs_write"), call("2", "fs_write"), call("3", "fs_write"), call("4", "a"), call("5", "b"), call("6", "c"))
	got := make([]bool, len(res))
	for i, r := range res {
		got[i] = r.IsError
	}
	// The refused fs_writes must not have used up the "*" budget.
	assert.Equal(t, []bool{false, true, true, false, false, true}, got)
	assert.Equal(t, 3, f.forwarded())
}

func TestSlidingWindow(t *testing.T) {
	c := newClock()
	f := &fake{}
	l, err := leases.New(f, leases.Limit{Tool: "web_fetch", Per: time.Minute, PerCount: 2}, leases.WithClock(c.now))
	require.NoError(t, err)

	assert.False(t, exec(l, call("1", "web_fetch"))[0].IsError)
	c.advance(30 * time.Second)
	assert.False(t, exec(l, call("2", "web_fetch"))[0].IsError)
	c.advance(20 * time.Second)
	res := exec(l, call("3", "web_fetch"))
	require.True(t, res[0].IsError, "third call within one minute")
	assert.Contains(t, res[0].Content, "lease exhausted: 'web_fetch'")
	assert.Contains(t, res[0].Content, "try again in 10s")

	c.advance(10 * time.Second) // the first call is now a minute old
	assert.False(t, exec(l, call("4", "web_fetch"))[0].IsError)
	assert.True(t, exec(l, call("5", "web_fetch"))[0].IsError, "the second and fourth are still in the window")
	c.advance(time.Hour)
	res = exec(l, call("6", "web_fetch"), call("7", "web_fetch"), call("8", "web_fetch"))
	assert.False(t, res[0].IsError)
	assert.False(t, res[1].IsError)
	assert.True(t, res[2].IsError, "the window applies within one batch too")
	assert.Equal(t, 5, f.forwarded())
}

func TestTotalAndWindowTogether(t *testing.T) {
	c := newClock()
	l, err := leases.New(&fake{}, leases.Limit{Tool: "x", Count: 3, Per: time.Second, PerCount: 2}, leases.WithClock(c.now))
	require.NoError(t, err)
	var allowed int
	for range 10 {
		for _, r := range exec(l, call("1", "x"), call("2", "x")) {
			if !r.IsError {
				allowed++
			}
		}
		c.advance(time.Second)
	}
	assert.Equal(t, 3, allowed)
}

func TestCatalogueAndListingErrorsPassThrough(t *testing.T) {
	tools := []provider.Tool{{Type: "function", Function: provider.ToolFunction{Name: "x"}}}
	l, err := leases.New(&fake{tools: tools}, leases.Limit{Tool: "x", Count: 1})
	require.NoError(t, err)
	got, err := l.ToolsForLLM(context.Background())
	require.NoError(t, err)
	assert.Equal(t, tools, got, "an exhausted tool is still listed")

	boom := errors.New("no list")
	l, err = leases.New(&fake{listErr: boom}, leases.Limit{Tool: "x", Count: 1})
	require.NoError(t, err)
	_, err = l.ToolsForLLM(context.Background())
	assert.ErrorIs(t, err, boom)
}

func TestProviderPanicBecomesErrorResults(t *testing.T) {
	l, err := leases.New(&fake{panics: true}, leases.Limit{Tool: "x", Count: 1})
	require.NoError(t, err)
	var res []provider.Result
	require.NotPanics(t, func() { res = exec(l, call("1", "y"), call("2", "x"), call("3", "x")) })
	require.Len(t, res, 3)
	for i, r := range res {
		assert.True(t, r.IsError)
		assert.Equal(t, []string{"1", "2", "3"}[i], r.ToolCallID)
	}
	assert.Contains(t, res[2].Content, "lease exhausted")
}

func TestConcurrentBatchesNeverOverspend(t *testing.T) {
	f := &fake{}
	l, err := leases.New(f, leases.Limit{Tool: "x", Count: 50})
	require.NoError(t, err)
	var ok atomic.Int64
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			for _, r := range exec(l, call("1", "x"), call("2", "x"), call("3", "x"), call("4", "x"), call("5", "x")) {
				if !r.IsError {
					ok.Add(1)
				}
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, 50, ok.Load())
	assert.Equal(t, 50, f.forwarded())
}
