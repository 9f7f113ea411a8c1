package lexical

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// hostProfile is the UTS #46 mapping browsers apply to a URL's host
// (non-transitional, with the bidi and joiner checks). Hyphen and STD3 checks
// are off, as in browsers; the forbidden-code-point check below replaces
// STD3.
var hostProfile = idna.New(
	idna.MapForLookup(),
	idna.Transitional(false),
	idna.BidiRule(),
	idna.CheckJoiners(true),
	idna.CheckHyphens(false),
	idna.StrictDomainName(false),
	idna.VerifyDNSLength(false),
)

// URLHost extracts the host a browser would connect to for an http(s) URL:
// after the last "@" of the authority, before the port, lower-cased, IDNA to
// ASCII, trailing dot dropped, IPv4 in its canonical dotted form and IPv6 in
// brackets. ok is false for anything else — another scheme, a URL a browser
// would repair before using (backslashes, control characters, missing
// slashes), a percent-encoded host: unknown, so callers fail closed.
func URLHost(raw string) (string, bool) {
	if !utf8.ValidString(raw) {
		return "", false // no browser holds a URL that is not text
	}
	rest, ok := cutScheme(raw)
	if !ok {
		return "", false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; c <= ' ' || c == 0x7f || c == '\\' {
			return "", false
		}
	}
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		authority = authority[i+1:]
	}
	host, err := hostOf(authority, true)
	if err != nil {
		return "", false
	}
	// A second opinion: Go's own URL parser must read the same host. Where
	// two parsers of the same grammar disagree, so might a browser.
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" {
		return "", false
	}
	if other, err := hostOf(u.Host, true); err != nil || other != host {
		return "", false
	}
	return host, true
}

// HostOf normalises a bare host as an argument names one ("docs.raku.org",
// "10.0.0.1:8080", "::1", "[::ffff:127.0.0.1]"): as URLHost would the host
// of a URL. ok is false for anything that is not one host.
func HostOf(s string) (string, bool) {
	if !utf8.ValidString(s) {
		return "", false
	}
	if addr, err := netip.ParseAddr(s); err == nil && addr.Zone() == "" {
		return canonicalIP(addr), true
	}
	h, err := hostOf(s, true)
	if err != nil {
		return "", false
	}
	return h, true
}

// cutScheme strips "http://" or "https://" (any case) and reports whether
// raw had one of them followed by an authority.
func cutScheme(raw string) (string, bool) {
	for _, scheme := range []string{"http://", "https://"} {
		if len(raw) > len(scheme) && strings.EqualFold(raw[:len(scheme)], scheme) {
			rest := raw[len(scheme):]
			// A third slash is something browsers forgive and Go does not
			// read the same way; neither reading is ours to guess.
			return rest, rest[0] != '/'
		}
	}
	return "", false
}

// hostOf normalises "host[:port]". With allowPort false a port is an error.
func hostOf(hostport string, allowPort bool) (string, error) {
	host := hostport
	if strings.HasPrefix(hostport, "[") {
		end := strings.IndexByte(hostport, ']')
		if end < 0 {
			return "", errors.New("unterminated IPv6 literal")
		}
		host = hostport[:end+1]
		if err := checkPort(hostport[end+1:], allowPort); err != nil {
			return "", err
		}
		addr, err := netip.ParseAddr(host[1 : len(host)-1])
		if err != nil || !addr.Is6() || addr.Zone() != "" {
			return "", fmt.Errorf("bad IPv6 literal %q", host)
		}
		return canonicalIP(addr), nil
	}
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 {
		host = hostport[:i]
		if err := checkPort(hostport[i:], allowPort); err != nil {
			return "", err
		}
	}
	return normalizeName(host)
}

func checkPort(s string, allowPort bool) error {
	if s == "" {
		return nil
	}
	if !allowPort && s != "" {
		return errors.New("unexpected text after host")
	}
	if s[0] != ':' {
		return errors.New("unexpected text after host")
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return fmt.Errorf("bad port %q", s[1:])
		}
	}
	if len(s) > 1 {
		if n, err := strconv.Atoi(s[1:]); err != nil || n > 65535 {
			return fmt.Errorf("bad port %q", s[1:])
		}
	}
	return nil
}

// canonicalIP is the one spelling of an IP address every rule and call is
// compared in: an IPv6 address that stands for an IPv4 one — mapped
// (::ffff:a.b.c.d), compatible (::a.b.c.d), NAT64's well-known prefix
// (64:ff9b::a.b.c.d) and its local-use one (64:ff9b:1::/48), 6to4
// (2002:AABB:CCDD::) or Teredo (2001::/32, its client's address) — is that
// IPv4 address, dotted: what the packets reach; any other IPv6 address is
// compressed, in brackets. So a deny on 127.0.0.1 also denies
// [::ffff:127.0.0.1], [::ffff:7f00:1] and [2002:7f00:1::1].
func canonicalIP(addr netip.Addr) string {
	if v4, ok := embeddedIPv4(addr); ok {
		return v4.String()
	}
	if addr.Is4() {
		return addr.String()
	}
	return "[" + addr.String() + "]"
}

// The IPv6 prefixes that carry an IPv4 address: NAT64's well-known one and
// its local-use one (RFC 6052, RFC 8215), 6to4 (RFC 3056) and Teredo (RFC
// 4380).
var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour  = netip.MustParsePrefix("2002::/16")
	teredo     = netip.MustParsePrefix("2001::/32")
	siit       = netip.MustParsePrefix("::ffff:0:0:0/96") // IPv4-translated (RFC 6145)
)

func embeddedIPv4(addr netip.Addr) (netip.Addr, bool) {
	switch {
	case addr.Is4():
		return addr, true
	case addr.Is4In6():
		return addr.Unmap(), true
	case !addr.Is6():
		return netip.Addr{}, false
	}
	b := addr.As16()
	switch {
	case sixToFour.Contains(addr):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	case siit.Contains(addr):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case nat64Local.Contains(addr) && b[6]|b[7]|b[8]|b[9]|b[10]|b[11] == 0:
		// The local-use prefix as a /96: the address in the last 32 bits.
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case teredo.Contains(addr):
		// The client's address, each bit inverted, in the last 32 bits.
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}), true
	case nat64Local.Contains(addr):
		// A /48 prefix: the address in bits 48-63 and 72-87 (RFC 6052
		// 2.2; bits 64-71 are zero).
		return netip.AddrFrom4([4]byte{b[6], b[7], b[9], b[10]}), true
	}
	var v4 [4]byte
	copy(v4[:], b[12:])
	for _, x := range b[:12] {
		if x != 0 {
			if nat64.Contains(addr) {
				return netip.AddrFrom4(v4), true
			}
			return netip.Addr{}, false
		}
	}
	// Compatible, but :: and ::1 are IPv6's own unspecified and loopback.
	if addr == netip.IPv6Unspecified() || addr == netip.IPv6Loopback() {
		return netip.Addr{}, false
	}
	return netip.AddrFrom4(v4), true
}

// forbiddenHostChars are the WHATWG forbidden host code points, plus "%":
// a browser percent-decodes a host before use, which we refuse to guess at.
const forbiddenHostChars = " #%/:<>?@[\\]^|*"

// normalizeName lower-cases and IDNA-maps a domain name or IPv4 address.
func normalizeName(host string) (string, error) {
	if host == "" {
		return "", errors.New("empty host")
	}
	for i := 0; i < len(host); i++ {
		if c := host[i]; c <= ' ' || c == 0x7f || strings.IndexByte(forbiddenHostChars, c) >= 0 {
			return "", fmt.Errorf("forbidden character %q in host", c)
		}
	}
	ascii, err := hostProfile.ToASCII(host)
	if err != nil {
		return "", fmt.Errorf("host %q: %v", host, err)
	}
	// A label that is no name ("xn--", an empty punycode label) may be
	// dropped by the mapping: "docs.example.com.xn--" would read as
	// docs.example.com, which a resolver does not look up. Every label the
	// text has must still be there.
	if labelCount(host) != labelCount(ascii) {
		return "", fmt.Errorf("host %q has a label the IDNA mapping drops", host)
	}
	for _, l := range strings.Split(strings.ToLower(ascii), ".") {
		if l == "xn--" {
			return "", fmt.Errorf("host %q has an empty punycode label", host)
		}
	}
	ascii = strings.ToLower(ascii)
	// Only letters, digits, "-", "_" and "." survive: browsers would try to
	// resolve stranger names, but no rule names them, and the mapping may
	// produce characters the raw text did not have (fullwidth "％" is "%").
	for i := 0; i < len(ascii); i++ {
		if c := ascii[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return "", fmt.Errorf("character %q is not allowed in a host", c)
		}
	}
	ascii = strings.TrimSuffix(ascii, ".")
	labels := strings.Split(ascii, ".")
	for _, l := range labels {
		if l == "" {
			return "", fmt.Errorf("host %q has an empty label", host)
		}
	}
	if last := labels[len(labels)-1]; looksNumeric(last) {
		if decimal, ok := decimalIPv4(labels); ok {
			if octal, err := parseIPv4(labels); err != nil || octal != decimal {
				// "0127.0.0.1": octal to WHATWG and inet_aton
				// (87.0.0.1), decimal to Java (127.0.0.1). Which one
				// the server's client reaches cannot be told
				// (LenientHosts has both).
				return "", fmt.Errorf("host %q has a part with a leading zero, octal to some clients and decimal to others", host)
			}
		}
		ip, err := parseIPv4(labels)
		if err != nil {
			return "", err
		}
		return ip, nil
	}
	return ascii, nil
}

// labelCount is how many labels a host has, split on the dots IDNA maps
// to "." (the ideographic and fullwidth ones too), a trailing dot left
// out.
func labelCount(host string) int {
	n := 1
	for i, r := range host {
		switch r {
		case '.', '\u3002', '\uff0e', '\uff61':
			if i+utf8.RuneLen(r) < len(host) {
				n++
			}
		}
	}
	return n
}

// looksNumeric is the WHATWG "ends in a number" test on the last label.
func looksNumeric(label string) bool {
	if label == "" {
		return false
	}
	if strings.HasPrefix(label, "0x") || strings.HasPrefix(label, "0X") {
		for _, c := range label[2:] {
			if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
				return false
			}
		}
		return true
	}
	for _, c := range label {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// parseIPv4 is the WHATWG IPv4 parser: up to four parts, each decimal,
// octal (leading 0) or hex (0x); the last part fills the remaining bytes.
func parseIPv4(labels []string) (string, error) {
	if len(labels) > 4 {
		return "", errors.New("too many IPv4 parts")
	}
	nums := make([]uint64, len(labels))
	for i, l := range labels {
		base, digits := 10, l
		switch {
		case strings.HasPrefix(l, "0x") || strings.HasPrefix(l, "0X"):
			base, digits = 16, l[2:]
		case len(l) > 1 && l[0] == '0':
			base, digits = 8, l[1:]
		}
		if digits == "" {
			nums[i] = 0
			continue
		}
		n, err := strconv.ParseUint(digits, base, 64)
		if err != nil || n > 0xFFFFFFFF {
			return "", fmt.Errorf("bad IPv4 part %q", l)
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return "", fmt.Errorf("IPv4 part %d out of range", i)
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return "", errors.New("IPv4 address out of range")
	}
	v |= last
	return fmt.Sprintf("%d.%d.%d.%d", v>>24, v>>16&0xff, v>>8&0xff, v&0xff), nil
}

// decimalIPv4 is labels read as Java's InetAddress reads them, every part
// decimal ("0127.0.0.1" is 127.0.0.1), where a part has a leading zero
// that WHATWG's parser reads as octal; ok only then.
func decimalIPv4(labels []string) (string, bool) {
	zero := false
	decimal := make([]string, len(labels))
	for i, l := range labels {
		if strings.HasPrefix(l, "0x") || strings.HasPrefix(l, "0X") {
			return "", false // hex: no Java reading, and WHATWG's is the only one
		}
		trimmed := strings.TrimLeft(l, "0")
		if trimmed != l && l != "0" {
			zero = true
		}
		if trimmed == "" {
			trimmed = "0"
		}
		decimal[i] = trimmed
	}
	if !zero {
		return "", false
	}
	ip, err := parseIPv4(decimal)
	return ip, err == nil
}

// A range holding the loopback address also matches every name the machine
// has (see IsLoopback), 0.0.0.0 and [::] included.

// NormalizeHostPattern validates a rule's host: "docs.raku.org" (exact),
// "*.raku.org" (any subdomain, not the apex), or an IP range in CIDR form
// ("10.0.0.0/8", "fc00::/7"), or "*" (AnyHost); normalised like URLHost's answer (case, IDNA,
// trailing dot, port ignored, IP literals canonical, a range masked). It
// returns the pattern in the form MatchHost expects.
func NormalizeHostPattern(pattern string) (string, error) {
	if pattern == AnyHost {
		return AnyHost, nil
	}
	if prefix, ok, err := ipRange(pattern); ok || err != nil {
		if err != nil {
			return "", fmt.Errorf("host %q: %v", pattern, err)
		}
		return prefix.String(), nil
	}
	wild := strings.HasPrefix(pattern, "*.")
	name := strings.TrimPrefix(pattern, "*.")
	if strings.ContainsAny(name, "/@\\") || strings.Contains(pattern, "://") {
		return "", fmt.Errorf("host %q must be a bare host name, not a URL", pattern)
	}
	if strings.Contains(name, "*") {
		return "", fmt.Errorf("host %q: only a leading \"*.\" wildcard is allowed", pattern)
	}
	if !wild {
		// A bare IPv6 address, as people write it in a rule.
		if addr, err := netip.ParseAddr(name); err == nil && addr.Is6() && addr.Zone() == "" {
			return canonicalIP(addr), nil
		}
	}
	host, err := hostOf(name, true)
	if err != nil {
		return "", fmt.Errorf("host %q: %v", pattern, err)
	}
	if wild {
		if strings.HasPrefix(host, "[") || looksNumeric(host[strings.LastIndexByte(host, '.')+1:]) {
			return "", fmt.Errorf("host %q: a wildcard needs a domain name, not an address", pattern)
		}
		return "*." + host, nil
	}
	return host, nil
}

// ipRange reads a CIDR pattern. ok is false for a pattern with no "/";
// err is set for one that has a "/" but is not a range.
func ipRange(pattern string) (p netip.Prefix, ok bool, err error) {
	if !strings.Contains(pattern, "/") || strings.Contains(pattern, "://") {
		return netip.Prefix{}, false, nil
	}
	text := pattern
	if strings.HasPrefix(text, "[") { // "[fc00::]/7"
		if end := strings.Index(text, "]/"); end > 0 {
			text = text[1:end] + text[end+1:]
		}
	}
	p, err = netip.ParsePrefix(text)
	if err != nil || p.Addr().Zone() != "" {
		return netip.Prefix{}, false, errors.New("not a host name or an IP range (CIDR, as 10.0.0.0/8)")
	}
	if p.Addr().Is4In6() && p.Bits() >= 96 { // ::ffff:10.0.0.0/104 is 10.0.0.0/8
		p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
	}
	return p.Masked(), true, nil
}

// MatchHost reports whether a host from URLHost matches a pattern from
// NormalizeHostPattern: exactly; for "*.S" any subdomain of S (not S); for
// an IP range, an IP address in it, or "localhost" and its subdomains when
// the range holds the loopback address (browsers resolve them there
// without asking DNS). A range matches no other name: a name that DNS
// resolves into a private range is beyond what a lexical rule can see.
func MatchHost(pattern, host string) bool {
	if pattern == AnyHost {
		return host != ""
	}
	if suffix, ok := strings.CutPrefix(pattern, "*."); ok {
		return strings.HasSuffix(host, "."+suffix) && len(host) > len(suffix)+1
	}
	if strings.IndexByte(pattern, '/') >= 0 {
		return inRange(pattern, host)
	}
	if host == pattern {
		return true
	}
	// The machine itself has many names: a rule on one is a rule on all.
	return IsLoopback(pattern) && IsLoopback(host)
}

// AnyHost is the host pattern every host matches: a deny or ask on it
// matches any call that names a host ("ask when it names a host, except
// docs.example.com"); an allow on it, any call whose hosts are all known.
const AnyHost = "*"

var (
	loopback4 = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	// names /etc/hosts and browsers give the machine itself
	loopbackNames = map[string]bool{"localhost": true, "localhost.localdomain": true, "ip6-localhost": true, "ip6-loopback": true}
)

// IsLoopback reports a host that names the machine itself: a loopback name
// (localhost and its subdomains, the names /etc/hosts gives it), any
// address in 127.0.0.0/8 (all of it reaches the machine), [::1], and the
// unspecified addresses 0.0.0.0 and [::], which a connection reaches the
// machine by too.
func IsLoopback(host string) bool {
	if loopbackNames[host] || strings.HasSuffix(host, ".localhost") {
		return true
	}
	if a, ok := NameAddress(host); ok {
		host = a // 127.0.0.1.nip.io, localtest.me
	}
	if strings.HasPrefix(host, "127.") {
		addr, err := netip.ParseAddr(host)
		return err == nil && addr.Is4() && addr.IsLoopback()
	}
	switch host {
	case "127.0.0.1", "[::1]", "0.0.0.0", "[::]":
		return true
	}
	return false
}

func inRange(pattern, host string) bool {
	p, err := netip.ParsePrefix(pattern)
	if err != nil {
		return false
	}
	if IsLoopback(host) && (p.Contains(loopback4) || p.Contains(netip.IPv6Loopback())) {
		return true
	}
	if a, ok := NameAddress(host); ok {
		host = a // metadata.google.internal, 10.0.0.1.nip.io
	}
	addr, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return err == nil && p.Contains(addr)
}

// IsHostRange reports whether a normalised host pattern is an IP range.
func IsHostRange(pattern string) bool { return strings.IndexByte(pattern, '/') >= 0 }

// HostSuffixes returns the wildcard suffixes a host falls under, nearest
// first: "a.b.c" gives "b.c", "c". A pattern "*.S" matches the host exactly
// when S is among them.
func HostSuffixes(host string) []string {
	if strings.HasPrefix(host, "[") {
		return nil
	}
	var out []string
	for i := strings.IndexByte(host, '.'); i >= 0; {
		host = host[i+1:]
		out = append(out, host)
		i = strings.IndexByte(host, '.')
	}
	return out
}

// NameAddress is the address a name exists to point at, where the name
// itself says which (canonical, as HostOf spells it): the cloud metadata
// services' names (metadata.google.internal, instance-data), the names
// public DNS answers with the loopback address for every subdomain
// (localtest.me, lvh.me, vcap.me, localho.st), and the wildcard DNS
// services that answer with the address a name spells (nip.io, sslip.io,
// xip.io, traefik.me: "10.0.0.1.nip.io", "app-10-0-0-1.nip.io",
// "0a000001.nip.io", sslip.io's "--1.sslip.io" for ::1). A range rule
// matches such a name by its address, so a deny on 169.254.0.0/16 holds
// for metadata.google.internal. ok is false for any other name: what DNS
// makes of it is beyond what a lexical rule sees.
func NameAddress(host string) (string, bool) {
	if a, ok := addressNames[host]; ok {
		return a, true
	}
	for _, suffix := range loopbackDomains {
		if host == suffix || strings.HasSuffix(host, "."+suffix) {
			return "127.0.0.1", true
		}
	}
	for _, suffix := range wildcardDNS {
		if rest, ok := strings.CutSuffix(host, "."+suffix); ok {
			return spelledAddress(rest)
		}
	}
	// A cluster's service (x.svc, x.svc.cluster.local) is at an address
	// of its private service range; a cloud's private DNS name spells
	// its address (AWS's ip-10-0-0-1.ec2.internal).
	if strings.HasSuffix(host, ".svc") || strings.HasSuffix(host, ".svc.cluster.local") || strings.HasSuffix(host, ".cluster.local") {
		return "10.96.0.1", true
	}
	if first, rest, ok := strings.Cut(host, "."); ok && strings.HasPrefix(first, "ip-") && strings.HasSuffix(rest, "internal") {
		return spelledAddress(strings.TrimPrefix(first, "ip-"))
	}
	return "", false
}

var (
	// addressNames are the names of the cloud metadata services.
	addressNames = map[string]string{
		"metadata.google.internal": "169.254.169.254", "metadata.goog": "169.254.169.254", "metadata": "169.254.169.254",
		"instance-data": "169.254.169.254", "instance-data.ec2.internal": "169.254.169.254",
		"metadata.ec2.internal": "169.254.169.254", "metadata.tencentyun.com": "169.254.0.23",
		// The container host and the cluster, by the names their
		// platforms give them, read as the default address of each (a
		// private one): a deny on the private ranges holds for them.
		"host.docker.internal": "172.17.0.1", "gateway.docker.internal": "172.17.0.1",
		"host.containers.internal": "10.88.0.1", "host.lima.internal": "192.168.5.2", "host.orb.internal": "172.17.0.1",
		"_gateway": "192.168.0.1", "kubernetes.default": "10.96.0.1", "kubernetes": "10.96.0.1",
		"docker.for.mac.host.internal": "192.168.65.254", "docker.for.win.host.internal": "192.168.65.254",
		"docker.for.mac.localhost": "192.168.65.254", "host.minikube.internal": "192.168.49.1",
		"control-plane.minikube.internal": "192.168.49.2", "host.k3d.internal": "172.18.0.1",
		// The names /etc/hosts gives this machine's loopback addresses.
		"localhost6": "::1", "localhost6.localdomain6": "::1", "ip6-localhost": "::1", "ip6-loopback": "::1",
		"localhost.localdomain": "127.0.0.1", "localhost4": "127.0.0.1", "localhost4.localdomain4": "127.0.0.1",
		"kubernetes.default.svc":               "10.96.0.1",
		"kubernetes.default.svc.cluster.local": "10.96.0.1",
	}
	// loopbackDomains answer with 127.0.0.1 for themselves and every
	// subdomain.
	loopbackDomains = []string{"localtest.me", "lvh.me", "vcap.me", "localho.st", "fuf.me", "lacolhost.com", "readme.localtest.me",
		"local.gd", "localhost.direct"}
	// wildcardDNS answer with the address their subdomain spells.
	wildcardDNS = []string{"nip.io", "sslip.io", "xip.io", "traefik.me", "nip.direct", "backname.io", "local-ip.sh", "local-ip.co",
		"ip.localtest.me", "ip.lvh.me", "ip.addr.tools"}
)

// MetadataAddresses are the cloud metadata services' addresses, which
// hand out the machine's cloud credentials (the floor's metadata_hosts,
// which a test keeps equal to this list).
var MetadataAddresses = []string{"169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200", "169.254.0.23",
	"192.0.0.192", "168.63.129.16"}

// ContinuedHosts are the metadata addresses a host written only in part
// might become when code completes it at run time ("169.254.169." +
// "254"): each address, or name of one (addressNames), whose spelling
// starts with prefix, as the address. None for an empty prefix: a host
// wholly built at run time is any host, which rules see as unknown.
func ContinuedHosts(prefix string) []string {
	prefix = strings.ToLower(strings.TrimPrefix(prefix, "["))
	if prefix == "" {
		return nil
	}
	var out []string
	for _, a := range MetadataAddresses {
		if strings.HasPrefix(a, prefix) {
			out = append(out, a)
		}
	}
	for name, a := range addressNames {
		if strings.HasPrefix(name, prefix) && slices.Contains(MetadataAddresses, a) && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

// spelledAddress is the address the labels before a wildcard DNS domain
// spell: the last four labels dotted ("app.10.0.0.1"), or the last label's
// last four dash-separated parts ("app-10-0-0-1") or its last dash part in
// eight hex digits ("app-0a000001"), or, with "--" in it, an IPv6 address
// written with dashes ("--1", "2a01-4f8--1").
func spelledAddress(rest string) (string, bool) {
	labels := strings.Split(rest, ".")
	if n := len(labels); n >= 4 {
		if a, err := netip.ParseAddr(strings.Join(labels[n-4:], ".")); err == nil && a.Is4() {
			return canonicalIP(a), true
		}
	}
	last := labels[len(labels)-1]
	if strings.Contains(last, "--") {
		if a, err := netip.ParseAddr(strings.ReplaceAll(last, "-", ":")); err == nil {
			return canonicalIP(a), true
		}
	}
	parts := strings.Split(last, "-")
	if n := len(parts); n >= 4 {
		if a, err := netip.ParseAddr(strings.Join(parts[n-4:], ".")); err == nil && a.Is4() {
			return canonicalIP(a), true
		}
	}
	if h := parts[len(parts)-1]; len(h) == 8 {
		if v, err := strconv.ParseUint(h, 16, 32); err == nil {
			return canonicalIP(netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})), true
		}
	}
	return "", false
}

// rebindingDomains answer with addresses their subdomain asks for, and
// change them from one lookup to the next (DNS rebinding services): what
// such a name reaches cannot be told from it.
var rebindingDomains = []string{"rbndr.us", "1u.ms", "rebind.it", "rebind.network", "nip.rebind.it", "lock.cmpxchg8b.com"}

// RebindingName reports a name under a DNS rebinding service: its address
// is whatever the lookup of the moment says, so a range rule can say
// nothing of it, and it is read as an unknown host.
func RebindingName(host string) bool {
	for _, d := range rebindingDomains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// LenientHosts are the hosts a lenient client may make of raw, a URL or a
// host that URLHost and HostOf leave unknown: a browser percent-decodes a
// host and repairs "http:host", "http:/host" and backslashes; a DNS
// rebinding name answers with the addresses written in it (rbndr.us's
// "7f000001.a9fea9fe", an address's labels). Each is canonical, as
// HostOf's; none for what no lenient reading makes a host of. They are
// what the call might reach, never what it does: a caller keeps raw
// unknown beside them.
func LenientHosts(raw string) []string {
	var out []string
	add := func(h string) {
		if h != "" && !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	candidates := []string{raw}
	if d, err := url.PathUnescape(raw); err == nil && d != raw {
		candidates = append(candidates, d)
	}
	for _, c := range candidates {
		c = strings.ReplaceAll(strings.TrimSpace(c), "\\", "/")
		if scheme, rest, ok := strings.Cut(c, ":"); ok && (strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https")) {
			c = scheme + "://" + strings.TrimLeft(rest, "/")
		}
		h, ok := URLHost(c)
		if !ok {
			h, ok = HostOf(c)
		}
		if !ok {
			for _, a := range ambiguousIPv4(c) {
				add(a)
			}
			continue
		}
		if RebindingName(h) {
			for _, a := range addressesIn(h) {
				add(a)
			}
			continue
		}
		add(h)
	}
	return out
}

// ambiguousIPv4 are the two addresses a URL's or host's IPv4 address with
// a leading zero in a part is to one client or another ("0127.0.0.1":
// 87.0.0.1 read as octal, 127.0.0.1 as decimal); none for anything else.
func ambiguousIPv4(raw string) []string {
	host := raw
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		host = u.Hostname()
	}
	labels := strings.Split(strings.TrimSuffix(host, "."), ".")
	if !looksNumeric(labels[len(labels)-1]) {
		return nil
	}
	decimal, ok := decimalIPv4(labels)
	if !ok {
		return nil
	}
	out := []string{decimal}
	if octal, err := parseIPv4(labels); err == nil && octal != decimal {
		out = append(out, octal)
	}
	return out
}

// addressesIn are the IPv4 addresses a rebinding name answers with,
// written in it: eight hex digits in a label (rbndr.us's "a9fea9fe"),
// four decimal labels in a row ("169.254.169.254"), or one label of four
// dashed numbers (1u.ms's "169-254-169-254"). (A wildcard DNS name,
// whose one address it spells, is NameAddress's.)
func addressesIn(host string) []string {
	var out []string
	for _, l := range strings.Split(host, ".") {
		if len(l) == 8 {
			if n, err := strconv.ParseUint(l, 16, 32); err == nil {
				out = append(out, netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}).String())
			}
		}
	}
	for _, m := range writtenIPv4.FindAllString(host, -1) {
		if a, err := netip.ParseAddr(strings.NewReplacer("-", ".").Replace(m)); err == nil && a.Is4() && !slices.Contains(out, a.String()) {
			out = append(out, a.String())
		}
	}
	return out
}

// writtenIPv4 finds an IPv4 address written in a name, dotted or dashed.
var writtenIPv4 = regexp.MustCompile(`\b\d{1,3}[.-]\d{1,3}[.-]\d{1,3}[.-]\d{1,3}\b`)
