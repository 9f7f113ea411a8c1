package proxy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-policy/mcp-policy/internal/testkit"
)

// Within a window, a kind of warning is written warnBurst times and then
// counted; the first written after says how many were left out; another
// kind is not held back by the first.
func TestWarningsOfOneKindAreCountedPastABurst(t *testing.T) {
	var l warnLimiter
	t0 := time.Now()
	for i := range warnBurst {
		_, ok := l.allow("a", t0.Add(time.Duration(i)*time.Millisecond))
		assert.True(t, ok, "warning %d of the burst", i)
	}
	for i := range 5 {
		_, ok := l.allow("a", t0.Add(time.Second))
		assert.False(t, ok, "warning %d past the burst", i)
	}
	_, ok := l.allow("b", t0.Add(time.Second))
	assert.True(t, ok, "another kind")
	assert.Equal(t, 5, l.pending(), "what is said at the end if no later line says it")
	dropped, ok := l.allow("a", t0.Add(warnWindow+time.Second))
	assert.True(t, ok, "the next window")
	assert.Equal(t, 5, dropped)
	dropped, ok = l.allow("a", t0.Add(warnWindow+2*time.Second))
	assert.True(t, ok)
	assert.Zero(t, dropped, "counted once")
}

// A host flooding the proxy with answers to nothing gets them dropped,
// and stderr a few lines, not one per answer.
func TestAFloodOfWarningsDoesNotFloodStderr(t *testing.T) {
	var stderr testkit.SyncBuffer
	rt := newRelayTestWith(t, testRules, true, relayLimits{stderr: &stderr})
	rt.initialize(`{}`)
	for i := range 500 {
		rt.fromHost(fmt.Sprintf(`{"jsonrpc":"2.0","id":"nothing-%d","result":{}}`, i))
	}
	rt.fromHost(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	next(t, rt.server, "the ping, after the flood")
	assert.Equal(t, warnBurst, strings.Count(stderr.String(), "which is no request of the MCP server's"), "%s", stderr.String())
}
