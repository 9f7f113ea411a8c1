package approvals

import (
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/netutil"
)

// The page's server lets go of a connection that sends no header and of
// one kept alive with no request: idle connections cannot pile up. Here
// with the timeouts short and two connections allowed: two clients that
// hold theirs idle delay a third, they do not shut it out.
func TestThePageLetsIdleConnectionsGo(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := newServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }),
		200*time.Millisecond, 200*time.Millisecond)
	go func() { _ = srv.Serve(netutil.LimitListener(ln, 2)) }()
	t.Cleanup(func() { _ = srv.Close() })

	silent, err := net.Dial("tcp", ln.Addr().String()) // sends nothing
	require.NoError(t, err)
	defer silent.Close()
	kept, err := net.Dial("tcp", ln.Addr().String()) // one request, then idle
	require.NoError(t, err)
	defer kept.Close()
	_, err = io.WriteString(kept, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)

	for _, c := range []net.Conn{silent, kept} {
		require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
		_, err := io.ReadAll(c) // until the server closes it
		require.NoError(t, err, "the server closed the connection")
	}
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get("http://" + ln.Addr().String() + "/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}
