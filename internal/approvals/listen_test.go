package approvals_test

import (
	"net"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/approvals"
)

// TestListenOnAnAddressOfItsOwn: on Linux the page gets a loopback
// address no other local service shares (their cookies are per host), a
// new one each time.
func TestListenOnAnAddressOfItsOwn(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux listens on all of 127.0.0.0/8 without configuration")
	}
	seen := map[string]bool{}
	for range 3 {
		ln, note, err := approvals.Listen()
		require.NoError(t, err)
		defer ln.Close()
		assert.Empty(t, note)
		ip := ln.Addr().(*net.TCPAddr).IP
		assert.True(t, ip.IsLoopback(), "%s", ip)
		assert.False(t, ip.Equal(net.IPv4(127, 0, 0, 1)), "not the address every local service shares")
		seen[ip.String()] = true
	}
	assert.Greater(t, len(seen), 1, "chosen at random")
}
