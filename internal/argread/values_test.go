package argread

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLooksLikePathAndURL(t *testing.T) {
	for _, s := range []string{"/etc/passwd", "/", "~", "~/x", "~root", "file:///x", "FILE:/x", `C:\x`, "c:/x", `\\srv\share`,
		"..", "../x", "a/../b", "a/..", `a\..\b`} {
		assert.True(t, looksLikePath(s), s)
	}
	for _, s := range []string{"", "x", "a/b", "...", "a..b", "..a", "a..", "C:", "http://x", "hello world"} {
		assert.False(t, looksLikePath(s), s)
	}
	for _, s := range []string{"http://x", "HTTPS://x/y", "ftp://x", "git+ssh://x", "s3://bucket/k"} {
		assert.True(t, looksLikeURL(s), s)
	}
	for _, s := range []string{"x://", "://x", "1http://x", "see http://x", "mailto:a@b", "urn:x"} {
		assert.False(t, looksLikeURL(s) && s[0] != 'x', s)
	}
}

// An option a command line would read as naming a path (red team 4: a
// relative one too, when it has a "/" or is a dot-name).
func TestLooksLikeOption(t *testing.T) {
	for _, s := range []string{"--output=/x", "-o/x", "--config=~/c", "--output=.git/config", "--output=.bashrc", "-o.git/config",
		"-osecret/key", "--output=secret/key", "--output= /etc/x", "--output='/etc/x'", "--url=https:/x", "-Dx=a/b", "--o=C:\\x"} {
		assert.True(t, looksLikeOption(s), s)
	}
	for _, s := range []string{"--verbose", "-v", "-rf", "--format=json", "-n5", "-1.5", "-1.5e3", "--output", "--output=x", "-", "--", "x=/y", "-o"} {
		assert.False(t, looksLikeOption(s), s)
	}
}

// An IP address under any name is a host; a number is not (red team 4).
func TestReadsAsIP(t *testing.T) {
	for _, s := range []string{"169.254.169.254", "169.254.169.254.", "169.254.169.254:80", "0251.0376.0251.0376", "0xa9.0xfe.0xa9.0xfe",
		"::1", "::", "fe80::1%eth0", "[::ffff:a9fe:a9fe]", "[::1]:8080", "::ffff:127.0.0.1", "1.2.3.4", "999.1.1.1", "a::b"} {
		assert.True(t, readsAsIP(s), s)
	}
	for _, s := range []string{"", "12345", "1.5", "1.2.3", "0x0", "0x7f.1", "2130706433", "std::vector", "12:30:45", "1.2.3.4.5",
		"[::1", "[::1]x", "1.2.3.4:x", "1.2.3.4:1234567", "localhost", "host.example", "1.2.3.a"} {
		assert.False(t, readsAsIP(s), s)
	}
	for _, s := range []string{"localhost", "evil.example", "10.0.0.1", "0x7f.1", "::1", "[::1]:80", "a.b:8080"} {
		assert.True(t, readsAsHost(s), s)
	}
	for _, s := range []string{"12345", "1.5", "1.2.3", "a b", "a@b.example", "0x742d35Cc6634C0532925a3b844Bc454e4438f44e", "aa:bb:cc:dd:ee:ff", ""} {
		assert.False(t, readsAsHost(s), s)
	}
	// Red team 5: short forms a person rarely writes for anything else.
	for _, s := range []string{"127.1", "2130706433", "0177.1", "0x7f000001", "169.254.43518", "10.1:80", "127.0.1"} {
		assert.True(t, isNumericHost(s), s)
	}
	for _, s := range []string{"1", "0", "12345", "90210", "1.5", "1.2.3", "3.11", "x.1", "", "1.2.3.4.5"} {
		assert.False(t, isNumericHost(s), s)
	}
}

// A value is read as a server that trims it reads it (red team 4).
func TestTrimReading(t *testing.T) {
	for in, want := range map[string]string{
		"/etc/passwd": "/etc/passwd", " /etc/passwd": "/etc/passwd", "\t/x\n": "/x", "\u00a0/x": "/x", "\ufeff/x": "/x",
		"\u200b/x\u200e": "/x", "'/x'": "/x", "\"~/.bashrc\"": "~/.bashrc", "` /x `": "/x", "<https://x/>": "https://x/",
		"\u201c/x\u201d": "/x", "''/x''": "/x", "'/x\"": "/x", "'": "", "": "", "hello": "hello", " \u3000 ": "",
		"\"/x": "/x", "/x'": "/x", "\u201e/x\u201c": "/x", "\u300c/x\u300d": "/x", "\u2039 '/x' \u203a": "/x", "\u00ab\u00ab/x": "/x",
		"\uff02/x\uff02": "/x", "it's": "it's", "'a' and 'b'": "a' and 'b",
	} {
		assert.Equal(t, want, trimReading(in), "%q", in)
	}
	for _, s := range []string{"https:/x", "HTTPS:\\\\x", "http:x", "ws:x", "wss:///x", "ftp:x", "ht\ttp://x", "h\nttps:x", "//host/x", `\\host\x`,
		"s3://bucket/k", "git+ssh://x"} {
		assert.True(t, readsAsURL(s), "%q", s)
	}
	for _, s := range []string{"http:", "http:/", "https:\\\\", "file:///x", "FILE:x", "mailto:a@b", "note: see", "///x", "/x", "x", "httpx:y", ""} {
		assert.False(t, readsAsURL(s), "%q", s)
	}
	for _, s := range []string{"https:", "mailto:x", "s3:x", "c:", "git+ssh:"} {
		assert.True(t, startsWithScheme(s), s)
	}
	for _, s := range []string{" https:", ":x", "1a:x", "a b:x", "abc"} {
		assert.False(t, startsWithScheme(s), s)
	}
}
