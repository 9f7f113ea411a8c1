package approvals

import (
	"crypto/rand"
	"fmt"
	"net"
)

// Listen listens for the page on a loopback address of its own, chosen at
// random in 127.0.0.0/8 (port chosen by the system): a browser keeps
// cookies apart by host name, not by port, so on 127.0.0.1 the page's
// cookie would also go to every other local service on any port (a dev
// server, another user's program), and one of them could answer with it.
// Linux answers on all of 127.0.0.0/8; where only 127.0.0.1 can be
// listened on (macOS, unless lo0 has an alias), Listen falls back to it
// and says so in note.
func Listen() (ln net.Listener, note string, err error) {
	var lastErr error
	for range 3 {
		var b [3]byte
		_, _ = rand.Read(b[:])
		ip := net.IPv4(127, b[0], b[1], b[2]%253+1) // no .0, no .255
		if ip.Equal(net.IPv4(127, 0, 0, 1)) {
			continue
		}
		ln, lastErr = net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
		if lastErr == nil {
			return ln, "", nil
		}
	}
	ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	return ln, fmt.Sprintf("this system lets the page listen only on 127.0.0.1 (%v), where its cookie also reaches every other local service: open the link only in a browser profile that visits no local dev server, or give the loopback interface an alias (macOS: sudo ifconfig lo0 alias 127.0.0.2) and pass --listen 127.0.0.2:0", lastErr), nil
}
