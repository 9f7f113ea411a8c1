package approvals

import (
	"crypto/rand"
	"fmt"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
)

// ListenAt listens for the page where --listen says, or, with listen
// empty, where Listen chooses. warn receives what the human should know
// about the address: a cookie shared with every local service on
// 127.0.0.1, or a page other machines can reach over plain HTTP. host is
// the one Host header the page answers to ("" when it listens on every
// address: then any).
func ListenAt(listen string, warn func(string)) (ln net.Listener, host string, err error) {
	if listen == "" {
		var note string
		if ln, note, err = Listen(); note != "" {
			warn(note)
		}
	} else {
		ln, err = net.Listen("tcp", listen)
	}
	if err != nil {
		return nil, "", err
	}
	// A human's browser needs a few connections; a client holding many
	// waits for one of them to close (an idle one does, see NewServer)
	// rather than the page running out of descriptors.
	ln = netutil.LimitListener(ln, maxPageConns)
	addr := ln.Addr().(*net.TCPAddr)
	if listen != "" && (addr.IP.Equal(net.IPv4(127, 0, 0, 1)) || addr.IP.Equal(net.IPv6loopback)) {
		warn(fmt.Sprintf("on %s, which every local service shares, the page's cookie also reaches them all (browsers keep cookies apart by host, not port); without --listen the page gets an address of its own", addr.IP))
	}
	if !addr.IP.IsLoopback() {
		warn(fmt.Sprintf("listening on %s, which other machines can reach; the page is plain HTTP, so its link and cookie cross the network readable", addr))
	}
	if addr.IP.IsUnspecified() {
		return ln, "", nil
	}
	return ln, addr.String(), nil
}

// maxPageConns bounds the page's open connections (ListenAt).
const maxPageConns = 64

// NewServer is the HTTP server for a page: a slow or idle client is let
// go rather than held (a header must arrive within 10 s, a whole request
// within 30 s, and a kept-alive connection closes after a minute without
// a request), so slow or idle connections cannot take the page's few.
func NewServer(page http.Handler) *http.Server {
	return newServer(page, 10*time.Second, 30*time.Second, time.Minute)
}

func newServer(page http.Handler, readHeader, read, idle time.Duration) *http.Server {
	return &http.Server{Handler: page, ReadHeaderTimeout: readHeader, ReadTimeout: read, IdleTimeout: idle}
}

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
