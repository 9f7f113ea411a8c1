package lexical_test

import (
	"fmt"
	"net/netip"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

func TestFoldPath(t *testing.T) {
	for in, want := range map[string]string{
		"/srv/scratch":          "/srv/scratch",
		"/SRV/Secret":           "/srv/secret",
		"/srv/cafe\u0301":       "/srv/caf\u00e9",
		"/srv/CAF\u00c9":        "/srv/caf\u00e9",
		"/srv/sec\u200cret":     "/srv/secret",
		"/srv/\u212ait":         "/srv/kit",
		"/srv/stra\u00dfe":      "/srv/strasse",
		"/srv/\u200c/x":         "/srv/\u200c/x", // a name that would fold to nothing is kept
		"/srv/\u200c\u200c../x": "/srv/\u200c\u200c../x",
		"/a/\u0130":             "/a/i\u0307",
		"relative/MiXed":        "relative/mixed",
	} {
		assert.Equal(t, want, lexical.FoldPath(in), in)
	}
}

// FuzzFoldPath: folding keeps a path's shape (the same "/"s, no name made
// "", "." or ".."), is its own fixed point, and never takes a path out of a
// directory it is in: so a folded deny catches at least what an exact one
// does.
func FuzzFoldPath(f *testing.F) {
	for _, s := range [][2]string{{"/srv/Secret", "/srv/SECRET/key"}, {"/srv/cafe\u0301", "/srv/caf\u00e9/x"},
		{"/a", "/a/\u200c.."}, {"/\u0130", "/\u0130/x"}, {"/srv", "/srv/\u00df"}, {"/", "/x"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, dir, p string) {
		fp := lexical.FoldPath(p)
		if strings.Count(fp, "/") != strings.Count(p, "/") {
			t.Fatalf("FoldPath(%q) = %q: another number of names", p, fp)
		}
		for i, name := range strings.Split(fp, "/") {
			orig := strings.Split(p, "/")[i]
			if (name == "" || name == "." || name == "..") && name != orig {
				t.Fatalf("FoldPath(%q) = %q: name %q became %q", p, fp, orig, name)
			}
		}
		if again := lexical.FoldPath(fp); again != fp {
			t.Fatalf("FoldPath is not its own fixed point: %q, then %q", fp, again)
		}
		if !path.IsAbs(dir) || !path.IsAbs(p) || lexical.Unevaluable(dir) != "" || lexical.Unevaluable(p) != "" {
			return
		}
		dir, dirOK := lexical.AbsClean(dir)
		p, pOK := lexical.AbsClean(p)
		if dirOK && pOK && lexical.ContainsClean(dir, p) {
			// As the engine compares them: folded paths are not judged
			// evaluable again (folding may leave a quote at the end).
			if !lexical.ContainsClean(lexical.FoldPath(dir), lexical.FoldPath(p)) {
				t.Fatalf("%q is inside %q, but folded it is not", p, dir)
			}
		}
	})
}

// FuzzIPSpellings: every way of writing an IPv4 address in a URL (dotted,
// one number, mapped or compatible IPv6, NAT64) is one host, so a rule on
// it catches them all.
func FuzzIPSpellings(f *testing.F) {
	f.Add(uint32(0x7f000001))
	f.Add(uint32(0xa9fea9fe))
	f.Add(uint32(0x0a000001))
	f.Add(uint32(0))
	f.Add(uint32(1))
	f.Fuzz(func(t *testing.T, v uint32) {
		a := netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
		want := a.String()
		spellings := []string{
			"http://" + want + "/",
			fmt.Sprintf("http://%d/", v),
			fmt.Sprintf("http://[::ffff:%x:%x]/", v>>16, v&0xffff),
			"http://[::ffff:" + want + "]/",
			"http://[64:ff9b::" + want + "]/",
		}
		if v > 0xffff { // below, ::a.b.c.d is :: or ::1 or too close to them to be IPv4
			spellings = append(spellings, "http://[::"+want+"]/")
		}
		for _, s := range spellings {
			got, ok := lexical.URLHost(s)
			if !ok || got != want {
				t.Fatalf("URLHost(%q) = %q, %v; want %q", s, got, ok, want)
			}
			pattern, err := lexical.NormalizeHostPattern(strings.TrimSuffix(strings.TrimPrefix(s, "http://"), "/"))
			if err != nil || !lexical.MatchHost(pattern, want) {
				t.Fatalf("the rule host %q (%q, %v) does not match %q", s, pattern, err, want)
			}
		}
	})
}
