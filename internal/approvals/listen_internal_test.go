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
// with the timeouts short and three connections allowed: three clients
// that hold theirs (silent, idle, or trickling a body) delay a fourth,
// they do not shut it out.
func TestThePageLetsIdleConnectionsGo(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := newServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, "ok")
	}), 200*time.Millisecond, 300*time.Millisecond, 200*time.Millisecond)
	go func() { _ = srv.Serve(netutil.LimitListener(ln, 3)) }()
	t.Cleanup(func() { _ = srv.Close() })

	silent, err := net.Dial("tcp", ln.Addr().String()) // sends nothing
	require.NoError(t, err)
	defer silent.Close()
	kept, err := net.Dial("tcp", ln.Addr().String()) // one request, then idle
	require.NoError(t, err)
	defer kept.Close()
	_, err = io.WriteString(kept, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	trickle, err := net.Dial("tcp", ln.Addr().String()) // a body that never comes
	require.NoError(t, err)
	defer trickle.Close()
	_, err = io.WriteString(trickle, "POST /answer HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nid=")
	require.NoError(t, err)

	for _, c := range []net.Conn{silent, kept, trickle} {
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
