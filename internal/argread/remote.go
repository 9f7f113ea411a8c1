package argread

import (
	"net/url"
	"strings"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

// Remote specs: the host in what ssh, scp, rsync and git take for a
// destination ("user@host", "host:path", "user@host:path").

// weakHostValue reads a (trimmed) value under a name that holds a host as
// often as something else: ok when it reads as a host, host "" when the
// host is unknown. It is a host when it is
//   - a URL, its host;
//   - a name or address the host reader accepts, but not a number, and
//     under an "ip" name (dotOnly) not a name of one label other than
//     localhost ("membership": "gold");
//   - an address written short ("127.1", "2130706433", "0177.1"): an
//     address to a resolver and a ZIP code or a count to a person, so
//     unknown, and a host rule asks rather than deny "90210" or allow
//     127.0.0.1;
//   - "user@host", as ssh, scp and git take a destination, the host;
//   - a host followed by a path ("evil.example/x", "169.254.169.254/x")
//     or, as scp and git write it, by ":" and a path
//     ("evil.example:repo.git"): a URL without its scheme, its host;
//   - percent-encoded, what its decoding reads as (a WHATWG URL parser
//     decodes "evil%2eexample"), unknown.
func weakHostValue(r string, dotOnly bool) (string, bool) {
	switch {
	case r == "":
		return "", false
	case readsAsURL(r):
		h, _ := urlHost(r)
		return h, true
	case readsAsHost(r):
		h, _ := lexical.HostOf(r) // canonical: "evil。example" has its dot
		if dotOnly && !strings.ContainsAny(h, ".:[") && h != "localhost" {
			return "", false
		}
		return h, true
	case isNumericHost(r):
		return "", true
	case isZeros(r):
		return "0.0.0.0", true // "0", "0.0": this machine
	}
	if strings.Contains(r, "@") {
		// The user goes up to the last "@" of the authority: before the
		// first "/" to a URL parser ("user:pw@host/x"), before the first
		// ":" to ssh and scp ("user@host:p@th"). Where the two readings
		// name different hosts, the host is unknown.
		byURL, urlOK := afterUser(r, "/\\?#")
		bySSH, sshOK := afterUser(r, ":[")
		if h, _, ok := splitRemote(bySSH); ok && sshOK {
			// With a user, ssh, scp and git connect to whatever host comes
			// before the ":" ("root@prod:x@evil.example" is prod, of one
			// label or not), whatever the path after it holds.
			bySSH = h
		}
		switch {
		case urlOK && sshOK && byURL != bySSH:
			hu, oku := weakHostValue(byURL, dotOnly)
			hs, oks := weakHostValue(bySSH, dotOnly)
			if !oku && !oks {
				return "", false
			}
			if oku && oks && hu == hs {
				return hu, true
			}
			return "", true
		case urlOK:
			return weakHostValue(byURL, dotOnly)
		case sshOK:
			return weakHostValue(bySSH, dotOnly)
		}
	}
	if h, ok := schemelessHost(r); ok {
		return weakHostValue(h, dotOnly)
	}
	if h, ok := scpHost(r); ok {
		return weakHostValue(h, dotOnly)
	}
	if strings.Contains(r, "%") {
		// Decoded once: a server decodes once, and each further layer
		// would cost the whole string again.
		if d, err := url.PathUnescape(r); err == nil && d != r && !strings.Contains(d, "%") {
			if _, ok := weakHostValue(d, dotOnly); ok {
				return "", true
			}
		}
	}
	return "", false
}

// afterUser is r after its user, "user@": the last "@" before the first
// of ends (or in all of r, if none), with no "/", "\\" or white space
// before it.
func afterUser(r, ends string) (string, bool) {
	prefix := r
	if end := strings.IndexAny(r, ends); end >= 0 {
		prefix = r[:end]
	}
	i := strings.LastIndexByte(prefix, '@')
	if i <= 0 || strings.ContainsAny(r[:i], "/\\ \t") {
		return "", false
	}
	return r[i+1:], true
}

// splitRemote splits scp's and git's "host:path" ("[::1]:/x",
// "evil.example:repo.git") at the first ":" after the host (after the
// brackets of an IPv6 address): a host with no "/", "\\" or white space,
// and a path that is no URL's "//".
func splitRemote(r string) (host, path string, ok bool) {
	end := strings.IndexByte(r, ':')
	if strings.HasPrefix(r, "[") {
		b := strings.IndexByte(r, ']')
		if b < 0 || b+1 >= len(r) || r[b+1] != ':' {
			return "", "", false
		}
		end = b + 1
	}
	if end <= 0 || strings.ContainsAny(r[:end], "/\\ \t") || strings.HasPrefix(r[end+1:], "//") {
		return "", "", false
	}
	return r[:end], r[end+1:], true
}

// scpHost is the host of a "host:path" where a path, not a port, follows
// the host, and the host has a dot, brackets or is localhost (a name of
// one label is a drive, a time, a MAC address's first part).
func scpHost(r string) (string, bool) {
	h, path, ok := splitRemote(r)
	if !ok || path == "" || isPort(":"+path) || !strings.ContainsAny(h, ".[") && !strings.EqualFold(h, "localhost") {
		return "", false
	}
	return h, true
}

// remoteHost is the host of a remote path as ssh, scp, rsync and git
// take one: "user@host:path" (any host, any path, none included: scp
// reads "user@host:22" as the file 22), an IP address, ":" and a path
// ("127.0.0.1:/tmp/x", "[::1]:x"), or a host with a dot (or localhost)
// and ":/" or rsync's "::" ("evil.example:/etc/x"). host is "" when it
// cannot be read as the host reader reads one ("root@127.1:x", whose
// 127.1 ssh resolves, "root@[127.0.0.1]:x"), and when ssh and a URL
// parser read different hosts in it (sshURLDisagree).
func remoteHost(r string) (string, bool) {
	host, ok := sshRemoteHost(r)
	byURL, urlUser := afterUser(r, "/\\?#") // a URL parser's user ends at the last "@" before the path
	if !urlUser {
		return host, ok
	}
	h, _, split := splitRemote(byURL)
	if !split {
		if !ok {
			return "", false // "alice@example.com": no destination to either
		}
		h = byURL
	}
	if !readsAsHost(h) {
		if ok {
			return "", true // two readings, one of them no host: unknown
		}
		return "", false
	}
	urlHost, _ := lexical.HostOf(h)
	switch {
	case !ok:
		return urlHost, true // "user:pw@10.0.0.1:x": no ssh destination, a URL's host
	case urlHost != host:
		return "", true // "root@8.8.8.8:x@10.0.0.1": ssh reads one host, a URL parser another
	}
	return host, true
}

// sshRemoteHost is the host of a remote path as ssh reads one: its user
// ends at the last "@" before the first ":".
func sshRemoteHost(r string) (string, bool) {
	rest, user := r, false
	if after, ok := afterUser(r, ":["); ok { // ssh's user ends at the last "@" before the host
		rest, user = after, true
	}
	h, path, ok := splitRemote(rest)
	if !ok {
		return "", false
	}
	switch {
	case user, readsAsIP(h), isNumericHost(h):
	case (strings.Contains(h, ".") || strings.EqualFold(h, "localhost")) && (strings.HasPrefix(path, "/") || strings.HasPrefix(path, ":")):
	default:
		return "", false
	}
	if !readsAsHost(h) {
		return "", true // a host all the same, that cannot be read
	}
	host, _ := lexical.HostOf(h)
	return host, true
}

// schemelessHost is what comes before the first "/", "\\", "?" or "#" of a
// (trimmed) value that has one of them after something: the host of a URL
// written without its scheme, if it is one.
func schemelessHost(r string) (string, bool) {
	i := strings.IndexAny(r, "/\\?#")
	if i <= 0 {
		return "", false
	}
	return r[:i], true
}
