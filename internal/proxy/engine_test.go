package proxy

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The proxy's own requests, to either side, go through one engine: sent
// with an id of the proxy's, answered by the response on that id, and
// withdrawn with notifications/cancelled when their context ends; a late
// answer is dropped, not relayed.
func TestOwnRequestsBothWays(t *testing.T) {
	rt := newRelayTest(t, testRules, true)
	rt.initialize(`{"elicitation":{}}`)
	for _, c := range []struct {
		to     *peer
		sent   chan map[string]any
		answer func(string)
		other  chan map[string]any
	}{
		{&rt.p.srvPeer, rt.server, rt.fromServer, rt.host},
		{&rt.p.hostPeer, rt.host, rt.fromHost, rt.server},
	} {
		type result struct {
			r   reply
			err error
		}
		done := make(chan result, 1)
		go func() {
			r, err := rt.p.request(context.Background(), c.to, "ping", nil)
			done <- result{r, err}
		}()
		m := next(t, c.sent, "the proxy's request at "+c.to.name)
		id, _ := m["id"].(string)
		require.True(t, strings.HasPrefix(id, rt.p.prefix), "%v", m)
		c.answer(`{"jsonrpc":"2.0","id":"` + id + `","result":{"ok":true}}`)
		got := <-done
		require.NoError(t, got.err)
		assert.JSONEq(t, `{"ok":true}`, string(got.r.result))
		nothing(t, c.other, "the answer is the proxy's, not relayed")

		ctx, cancel := context.WithCancelCause(context.Background())
		go func() {
			r, err := rt.p.request(ctx, c.to, "ping", nil)
			done <- result{r, err}
		}()
		id, _ = next(t, c.sent, "the second request at "+c.to.name)["id"].(string)
		cancel(errors.New("no longer needed"))
		got = <-done
		assert.EqualError(t, got.err, "no longer needed")
		m = next(t, c.sent, "the withdrawal at "+c.to.name)
		assert.Equal(t, "notifications/cancelled", m["method"])
		assert.Equal(t, id, m["params"].(map[string]any)["requestId"])
		c.answer(`{"jsonrpc":"2.0","id":"` + id + `","result":{}}`)
		nothing(t, c.other, "a late answer is dropped")
		rt.p.mu.Lock()
		assert.Empty(t, c.to.own, "nothing is left waiting")
		rt.p.mu.Unlock()
	}
}

// The server's going fails the proxy's requests to it, waiting or new.
func TestOwnRequestFailsWhenTheServerGoes(t *testing.T) {
	rt := newRelayTest(t, testRules, true)
	rt.initialize(`{}`)
	done := make(chan error, 1)
	go func() {
		_, err := rt.p.request(context.Background(), &rt.p.srvPeer, "ping", nil)
		done <- err
	}()
	next(t, rt.server, "the request at the server")
	rt.srv.stop()
	err := <-done
	assert.EqualError(t, err, "the test's server ended")
	_, err = rt.p.request(context.Background(), &rt.p.srvPeer, "ping", nil)
	assert.EqualError(t, err, "the test's server ended")
}
