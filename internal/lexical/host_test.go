package lexical_test

import (
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/idna"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

func TestURLHost(t *testing.T) {
	cases := []struct{ url, host string }{
		{"https://docs.raku.org/language", "docs.raku.org"},
		{"HTTP://Docs.Raku.ORG:8080/x", "docs.raku.org"},
		{"https://docs.raku.org./", "docs.raku.org"},           // trailing dot
		{"http://good.example@evil.example/", "evil.example"},  // userinfo
		{"http://a@b@evil.example/", "evil.example"},           // the last @ counts
		{"http://evil.example#@good.example/", "evil.example"}, // fragment first
		{"http://evil.example?@good.example/", "evil.example"}, // query first
		{"https://bücher.de/", "xn--bcher-kva.de"},             // IDNA
		{"https://evil。example/", "evil.example"},              // ideographic full stop maps to "."
		{"http://0x7f.1/", "127.0.0.1"},                        // browser IPv4 forms
		{"http://2130706433/", "127.0.0.1"},
		{"http://[::FFFF:127.0.0.1]:80/", "127.0.0.1"},
	}
	for _, c := range cases {
		h, ok := lexical.URLHost(c.url)
		assert.True(t, ok, c.url)
		assert.Equal(t, c.host, h, c.url)
	}
	for _, bad := range []string{
		"ftp://example.com/", "file:///etc/passwd", "example.com", "//example.com/",
		`http://evil.example\@good.example/`, // browsers read \ as /
		"http:evil.example", "http:///evil.example", "http://",
		"http://%65vil.example/", "http://ev\til.example/", " http://example.com",
		"http://1.2.3.256/", "http://example.com:99999/", "http://[::1/", "http://a..b/",
		// An empty punycode label, dropped by the IDNA mapping, would read
		// as the name without it (outside round on hosts).
		"http://docs.example.com.xn--/", "http://docs.example.com.XN--/", "http://docs.example.com\u3002xn--/",
		"http://docs.example.com.xn--:443/", "http://xn--.docs.example.com/",
	} {
		h, ok := lexical.URLHost(bad)
		assert.False(t, ok, "%q gave %q", bad, h)
	}
}

func TestHostPatterns(t *testing.T) {
	p, err := lexical.NormalizeHostPattern("*.Raku.ORG.")
	assert.NoError(t, err)
	assert.Equal(t, "*.raku.org", p)
	assert.True(t, lexical.MatchHost(p, "docs.raku.org"))
	assert.True(t, lexical.MatchHost(p, "a.b.raku.org"))
	assert.False(t, lexical.MatchHost(p, "raku.org"), "a wildcard is not the apex")
	assert.False(t, lexical.MatchHost(p, "evilraku.org"))

	p, err = lexical.NormalizeHostPattern("docs.raku.org:443")
	assert.NoError(t, err)
	assert.True(t, lexical.MatchHost(p, "docs.raku.org"))
	assert.False(t, lexical.MatchHost(p, "x.docs.raku.org"))

	p, err = lexical.NormalizeHostPattern("*")
	assert.NoError(t, err)
	assert.True(t, lexical.MatchHost(p, "docs.raku.org"))
	assert.True(t, lexical.MatchHost(p, "10.0.0.1"))
	assert.False(t, lexical.MatchHost(p, ""), "a host that cannot be told matches nothing for sure")

	for _, bad := range []string{"", "**", "*x", "a.*.org", "https://raku.org", "raku.org/x", "*.1.2.3.4", "user@raku.org", "ra ku.org"} {
		_, err := lexical.NormalizeHostPattern(bad)
		assert.Error(t, err, bad)
	}
}

// FuzzURLHost: whenever URLHost names a host, it is the host a browser
// would connect to. Checked against Go's net/url, an independent parser of
// the same grammar: the host is what follows the last "@" of the authority,
// before any port, case-folded, IDNA-mapped and without a trailing dot.
// What a lenient client makes of a URL the strict reading leaves unknown:
// the metadata address behind a percent-encoded host, a repaired URL, or
// a rebinding name; nothing for a URL the strict reading knows.
func TestLenientHosts(t *testing.T) {
	for raw, want := range map[string][]string{
		"http://%31%36%39.254.169.254/latest/meta-data/":                  {"169.254.169.254"},
		"http:169.254.169.254/latest/meta-data/":                          {"169.254.169.254"},
		"http:/169.254.169.254/":                                          {"169.254.169.254"},
		"http:\\\\169.254.169.254\\x":                                     {"169.254.169.254"},
		"http://%6d%65%74%61%64%61%74%61.google.internal/computeMetadata": {"metadata.google.internal"},
		"http://7f000001.a9fea9fe.rbndr.us/latest/meta-data/":             {"127.0.0.1", "169.254.169.254"},
		"http://make-1.2.3.4-rebind-169-254-169-254-rr.1u.ms/":            {"1.2.3.4", "169.254.169.254"},
		"http://%31%30.0.0.5.nip.io/admin":                                {"10.0.0.5.nip.io"},
		"not a url at all":                                                nil,
		// A leading zero: decimal to Java, octal to WHATWG and inet_aton.
		"http://0127.0.0.1/": {"127.0.0.1", "87.0.0.1"},
		"010.0.0.1":          {"10.0.0.1", "8.0.0.1"},
		"http://08.0.0.1/":   {"8.0.0.1"}, // no octal reading at all
	} {
		assert.Equal(t, want, lexical.LenientHosts(raw), raw)
	}
}

// A host code completes at run time might be a metadata service when
// what is written could begin one's address or name; nothing is known of
// a host written not at all.
func TestContinuedHosts(t *testing.T) {
	for prefix, want := range map[string][]string{
		"169.254.169.":    {"169.254.169.254"},
		"169.254.":        {"169.254.0.23", "169.254.169.254", "169.254.170.2"},
		"metadata.google": {"169.254.169.254"},
		"[fd00:":          {"fd00:ec2::254"},
		"localhost:":      nil,
		"api.example.":    nil,
		"":                nil,
	} {
		assert.Equal(t, want, lexical.ContinuedHosts(prefix), prefix)
	}
}

// The floor's metadata_hosts and MetadataAddresses are one list: the
// floor asks on the addresses the reader completes partial hosts to.
func TestMetadataAddressesAreTheFloors(t *testing.T) {
	src, err := os.ReadFile("../../rego/floor.rego")
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(src), "metadata_hosts := [")
	require.True(t, ok)
	block, _, _ = strings.Cut(block, "]\n")
	var floor []string
	for _, m := range regexp.MustCompile(`"\[?([^"\]/]+)\]?/\d+"`).FindAllStringSubmatch(block, -1) {
		floor = append(floor, m[1])
	}
	assert.ElementsMatch(t, floor, lexical.MetadataAddresses)
}

// Every host LenientHosts gives is one HostOf keeps as it is.
func FuzzLenientHosts(f *testing.F) {
	for _, s := range []string{"http://%31%36%39.254.169.254/", "http:169.254.169.254/x", "http://7f000001.a9fea9fe.rbndr.us/",
		"http://10.0.0.5.nip.io/", "http://10-0-0-5.sslip.io/", "http:\\\\a.example\\x", "http://%zz/", "https://docs.raku.org/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, h := range lexical.LenientHosts(raw) {
			if got, ok := lexical.HostOf(h); !ok || got != h {
				t.Fatalf("LenientHosts(%q) gave %q, which HostOf reads as %q, %v", raw, h, got, ok)
			}
		}
	})
}

func FuzzURLHost(f *testing.F) {
	for _, s := range []string{"https://docs.raku.org/x", "http://a@b.example", "http://b.example#@c", "http://b\\@c",
		"http://bücher.de", "http://x.example.:80", "http://0x7f.1", "http://[::1]:8/", "http://a%2eb",
		"http://䦴_", "http://[::ffff:7f00:1]/", "http://[::127.0.0.1]/", "http://[64:ff9b::a9fe:a9fe]/", "http://[::1]/",
		"http://[::]/", "http://[2001:db8::1]/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		host, ok := lexical.URLHost(raw)
		if !ok {
			return
		}
		if host == "" || host != strings.ToLower(host) || strings.HasSuffix(host, ".") ||
			strings.ContainsAny(host, "@#\\/?%: \t") && !strings.HasPrefix(host, "[") {
			t.Fatalf("URLHost(%q) = %q: not a normalised host", raw, host)
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("URLHost(%q) = %q, but net/url rejects it: %v", raw, host, err)
		}
		if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
			t.Fatalf("URLHost(%q) = %q for scheme %q", raw, host, u.Scheme)
		}
		want := u.Hostname()
		if ip, err := netip.ParseAddr(want); err == nil && ip.Is6() {
			// One spelling per address: IPv6 compressed in brackets, or
			// the IPv4 address an IPv6 one stands for (mapped, compatible
			// but not :: or ::1, NAT64's 64:ff9b::/96), dotted.
			b := ip.As16()
			expect := "[" + ip.String() + "]"
			zero := [12]byte{}
			nat64 := [12]byte{0, 0x64, 0xff, 0x9b}
			if ip.Is4In6() || [12]byte(b[:12]) == zero && !ip.IsLoopback() && !ip.IsUnspecified() || [12]byte(b[:12]) == nat64 {
				expect = netip.AddrFrom4([4]byte(b[12:])).String()
			}
			if host != expect {
				t.Fatalf("URLHost(%q) = %q, want %q", raw, host, expect)
			}
			return
		}
		mapped, err := whatwgDomainToASCII.ToASCII(strings.TrimSuffix(want, "."))
		if err != nil {
			t.Fatalf("URLHost(%q) = %q, but the WHATWG mapping of %q fails: %v", raw, host, want, err)
		}
		mapped = strings.TrimSuffix(strings.ToLower(mapped), ".")
		if mapped != host && !numericHost(host) {
			t.Fatalf("URLHost(%q) = %q, net/url says %q (%q)", raw, host, want, mapped)
		}
	})
}

// whatwgDomainToASCII is the WHATWG URL standard's "domain to ASCII", with
// its options as the standard lists them: UseSTD3ASCIIRules, CheckHyphens
// and VerifyDnsLength false, so "_" stays and "䦴_" is "xn--_-4u4a", which
// idna.Lookup (STD3) would refuse.
var whatwgDomainToASCII = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.BidiRule(),
	idna.CheckJoiners(true), idna.CheckHyphens(false), idna.StrictDomainName(false), idna.VerifyDNSLength(false))

// numericHost: browsers canonicalise IPv4 forms net/url leaves alone.
func numericHost(h string) bool {
	return strings.Trim(h, "0123456789.") == ""
}

// Every name the machine has for itself is loopback, spelt any way a URL
// may spell it, and nothing that merely looks like one is.
func TestIsLoopback(t *testing.T) {
	for _, h := range []string{"localhost", "LOCALHOST", "a.localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback",
		"127.0.0.1", "127.1.2.3", "[::1]", "0.0.0.0", "[::]", "[::ffff:127.0.0.1]"} {
		t.Run(h, func(t *testing.T) {
			n, err := lexical.NormalizeHostPattern(h)
			require.NoError(t, err)
			assert.True(t, lexical.IsLoopback(n), "%s (normalised %s) names the machine itself", h, n)
		})
	}
	for _, h := range []string{"localhost.example.com", "ip6-loopback.example", "128.0.0.1", "[::2]", "example.com", "mylocalhost"} {
		t.Run(h, func(t *testing.T) {
			n, err := lexical.NormalizeHostPattern(h)
			require.NoError(t, err)
			assert.False(t, lexical.IsLoopback(n), "%s (normalised %s) is another host", h, n)
		})
	}
}

// Every IPv6 form that carries an IPv4 address is that address: a range
// deny on the IPv4 side holds for the packets' real destination (outside
// round on hosts: 6to4, Teredo and NAT64's local-use prefix got past
// 169.254.0.0/16).
func TestIPv6ThatCarriesIPv4(t *testing.T) {
	for in, want := range map[string]string{
		"[2002:a9fe:a9fe::1]":                    "169.254.169.254", // 6to4
		"[2002:0a00:0001:1::]":                   "10.0.0.1",
		"[2001:0:4136:e378:8000:63bf:3fff:fdd2]": "192.0.2.45", // Teredo (RFC 4380's example): the client, bits inverted
		"[2001:0:4136:e378:8000:63bf:5601:5601]": "169.254.169.254",
		"[64:ff9b::a9fe:a9fe]":                   "169.254.169.254", // NAT64, well-known
		"[64:ff9b:1:a9fe:a9:fe00::]":             "169.254.169.254", // NAT64, local use (/48)
		"[::ffff:169.254.169.254]":               "169.254.169.254",
		"[2001:db8::1]":                          "[2001:db8::1]",
		"[2003::1]":                              "[2003::1]",
	} {
		got, ok := lexical.HostOf(in)
		require.True(t, ok, in)
		assert.Equal(t, want, got, in)
		assert.Equal(t, want == "169.254.169.254", lexical.MatchHost("169.254.0.0/16", got), in)
	}
}

// Names that exist to point at an address match a range by it: the cloud
// metadata services' names, wildcard DNS that answers with the address the
// name spells, and domains that answer with the loopback address (outside
// round on hosts).
func TestNamesThatSpellAnAddress(t *testing.T) {
	for host, rng := range map[string]string{
		"metadata.google.internal": "169.254.0.0/16", "metadata": "169.254.169.254/32", "instance-data.ec2.internal": "169.254.0.0/16",
		"10.0.0.1.nip.io": "10.0.0.0/8", "app.10.0.0.1.nip.io": "10.0.0.0/8", "app-10-0-0-1.nip.io": "10.0.0.0/8",
		"10-0-0-1.sslip.io": "10.0.0.0/8", "magic-0a000001.nip.io": "10.0.0.0/8", "169.254.169.254.xip.io": "169.254.0.0/16",
		"--1.sslip.io": "::1/128", "localtest.me": "127.0.0.0/8", "a.lvh.me": "127.0.0.0/8", "127.0.0.1.nip.io": "127.0.0.0/8",
		"x.local.gd": "127.0.0.0/8", "localhost.direct": "127.0.0.0/8",
	} {
		assert.True(t, lexical.MatchHost(rng, host), "%s in %s", host, rng)
	}
	for _, host := range []string{"a.lvh.me", "127.0.0.1.nip.io", "x.localtest.me"} {
		assert.True(t, lexical.IsLoopback(host), host)
		assert.True(t, lexical.MatchHost("localhost", host), "a rule on the machine is a rule on all its names: %s", host)
	}
	for host, rng := range map[string]string{
		"nip.io": "10.0.0.0/8", "example.nip.io": "10.0.0.0/8", "10.0.0.1.example.com": "10.0.0.0/8", "metadata.example.com": "169.254.0.0/16",
		"8.8.8.8.nip.io": "10.0.0.0/8", "notlvh.me": "127.0.0.0/8",
	} {
		assert.False(t, lexical.MatchHost(rng, host), "%s not in %s", host, rng)
	}
}

// A DNS rebinding service's name answers with any address, from lookup to
// lookup: no range rule can say what it reaches.
func TestRebindingNames(t *testing.T) {
	for _, h := range []string{"7f000001.a9fea9fe.rbndr.us", "make-169.254.169.254-rebind-127.0.0.1-rr.1u.ms", "rbndr.us"} {
		assert.True(t, lexical.RebindingName(h), h)
	}
	for _, h := range []string{"rbndr.us.example.com", "docs.example.com", "10.0.0.1.nip.io"} {
		assert.False(t, lexical.RebindingName(h), h)
	}
}
