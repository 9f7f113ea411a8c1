package proxy

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoLockAcrossTheServersWrite: a decided call, allowed with the host's
// root, is being written to a server that reads nothing until the proxy
// has read what it writes — a roots/list, then a notification. Before, the
// call was written under rs.mu (sendDecided) and the server's roots/list
// was relayed under rs.mu too: the proxy's server reader waited on the
// lock, the call under the lock waited on the server, and the server on
// the proxy's reader, for ever. Now no lock is held across the writing.
func TestNoLockAcrossTheServersWrite(t *testing.T) {
	rt := newRelayTest(t, testRules, false)
	rt.initialize(`{"roots":{}}`)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	rt.giveRoot("r1", dir)

	rt.fromHost(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"path":"a.txt"}}}`)
	testkit.Eventually(t, 5*time.Second, "the call is being written to the server", func() bool { return rt.srv.writing.Load() == 1 })

	// The server writes, and reads only once its writes are read.
	served := make(chan map[string]any, 1)
	go func() {
		rt.fromServer(`{"jsonrpc":"2.0","id":"r2","method":"roots/list"}`)
		rt.fromServer(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
		served <- rt.atServer("the call at the server")
	}()
	select {
	case m := <-served:
		assert.Equal(t, "tools/call", m["method"])
		assert.EqualValues(t, 1, m["id"])
	case <-time.After(5 * time.Second):
		t.Fatal("deadlock: the server's messages are not read while a call is written to it")
	}
	assert.Equal(t, "roots/list", next(t, rt.host, "the server's roots/list at the host")["method"])
	assert.Equal(t, "notifications/message", next(t, rt.host, "the notification at the host")["method"])
	_, _, sending := rt.rootsNow()
	assert.Zero(t, sending)

	rt.fromServer(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}`)
	m := next(t, rt.host, "the call's answer")
	assert.EqualValues(t, 1, m["id"])
	assert.NotNil(t, m["result"])
}
