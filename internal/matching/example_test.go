package matching_test

import (
	"fmt"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/internal/matching"
)

// Contains answers with the tri-state Match. Unknown is not No: a caller
// must fail closed on it (ask, never allow), because the path may be
// anywhere once a shell, a server or a file system has read it.
func ExampleContains() {
	for _, p := range []string{
		"/srv/scratch/notes.md",
		"/srv/scratch/../../etc/passwd", // cleaned before it is compared
		"/srv/scratchpad",               // a prefix is not a parent
		"~/notes.md",                    // whose home?
		"/srv/scratch/${HOME}",          // expanded by whom?
		`C:\srv\scratch`,                // a Windows path
		"scratch/notes.md",              // relative: resolve it first
	} {
		fmt.Printf("%-32q %v\n", p, matching.Contains("/srv/scratch", p))
	}
	// Output:
	// "/srv/scratch/notes.md"          yes
	// "/srv/scratch/../../etc/passwd"  no
	// "/srv/scratchpad"                no
	// "~/notes.md"                     unknown
	// "/srv/scratch/${HOME}"           unknown
	// "C:\\srv\\scratch"               unknown
	// "scratch/notes.md"               unknown
}

// Resolve puts a tool's relative path under its root; it does not keep it
// there. "../etc/passwd" resolves to /etc/passwd, which Contains then finds
// outside the root.
func ExampleResolve() {
	for _, p := range []string{"scratch/notes.md", "../etc/passwd", "file:///etc/hosts", "file://evil.example/share", "~/x"} {
		abs, ok := lexical.Resolve("/srv", p)
		fmt.Printf("%q -> %q %v\n", p, abs, ok)
	}
	// Output:
	// "scratch/notes.md" -> "/srv/scratch/notes.md" true
	// "../etc/passwd" -> "/etc/passwd" true
	// "file:///etc/hosts" -> "/etc/hosts" true
	// "file://evil.example/share" -> "" false
	// "~/x" -> "" false
}

// Deny and ask rules compare folded paths, so a deny on /srv/secret is not
// dodged by another case, the NFD spelling of a name, or a zero-width
// character a folding file system ignores. Allow compares exactly: an allow
// on /srv/Scratch does not allow /srv/scratch.
func ExampleFoldPath() {
	for _, c := range []struct{ deny, path string }{
		{"/srv/secret", "/srv/SECRET/key"},
		{"/srv/secret", "/srv/sec\u200cret/key"},   // a zero-width non-joiner
		{"/srv/caf\u00e9", "/srv/cafe\u0301/menu"}, // NFD
		{"/srv/app/.git", "/srv/app/.Git./config"}, // NTFS drops the trailing dot
	} {
		fp := lexical.FoldPath(c.path)
		fmt.Printf("%+q folds to %+q: in deny %+q: %v\n", c.path, fp, c.deny, matching.WithinAny(lexical.FoldPath(c.deny), []string{fp}))
	}
	fmt.Println("allow /srv/Scratch, exact:", matching.Contains("/srv/Scratch", "/srv/scratch/a"))
	// Output:
	// "/srv/SECRET/key" folds to "/srv/secret/key": in deny "/srv/secret": yes
	// "/srv/sec\u200cret/key" folds to "/srv/secret/key": in deny "/srv/secret": yes
	// "/srv/cafe\u0301/menu" folds to "/srv/caf\u00e9/menu": in deny "/srv/caf\u00e9": yes
	// "/srv/app/.Git./config" folds to "/srv/app/.git/config": in deny "/srv/app/.git": yes
	// allow /srv/Scratch, exact: no
}

// WithinAll is how an allow rule reads a call's paths, WithinAny how a deny
// or ask rule does: one harmless path does not dodge a deny, and one path
// that cannot be evaluated ("") keeps an allow from matching.
func ExampleWithinAny() {
	paths := []string{"/srv/scratch/a.md", "/srv/secret/key"}
	fmt.Println("allow under /srv/scratch:", matching.WithinAll("/srv/scratch", paths))
	fmt.Println("deny under /srv/secret:  ", matching.WithinAny("/srv/secret", paths))

	withUnknown := []string{"/srv/scratch/a.md", ""}
	fmt.Println("allow, one path unknown: ", matching.WithinAll("/srv/scratch", withUnknown))
	fmt.Println("deny, one path unknown:  ", matching.WithinAny("/srv/secret", withUnknown))
	fmt.Println("allow, no path at all:   ", matching.WithinAll("/srv/scratch", nil))
	// Output:
	// allow under /srv/scratch: no
	// deny under /srv/secret:   yes
	// allow, one path unknown:  unknown
	// deny, one path unknown:   unknown
	// allow, no path at all:    no
}

// URLHost is the host a browser would connect to, in one spelling; false
// for anything it cannot be sure of, which a caller treats as unknown.
func ExampleURLHost() {
	for _, u := range []string{
		"https://Docs.Raku.ORG.:443/language",
		"http://good.example@evil.example/",
		"http://2130706433/",
		"http://[::ffff:127.0.0.1]/",
		"https://bücher.de/",
		`http://evil.example\@good.example/`,
		"ftp://example.com/",
	} {
		host, ok := lexical.URLHost(u)
		fmt.Printf("%-38s %q %v\n", u, host, ok)
	}
	// Output:
	// https://Docs.Raku.ORG.:443/language    "docs.raku.org" true
	// http://good.example@evil.example/      "evil.example" true
	// http://2130706433/                     "127.0.0.1" true
	// http://[::ffff:127.0.0.1]/             "127.0.0.1" true
	// https://bücher.de/                     "xn--bcher-kva.de" true
	// http://evil.example\@good.example/     "" false
	// ftp://example.com/                     "" false
}

// A rule's host is normalised once, by NormalizeHostPattern, and matched
// against URLHost's answers. "*.S" is any subdomain but not S itself; an IP
// range matches IP literals, and the machine's own names when it holds a
// loopback address.
func ExampleMatchAnyHosts() {
	wild, _ := lexical.NormalizeHostPattern("*.Raku.org")
	loop, _ := lexical.NormalizeHostPattern("127.0.0.0/8")
	for _, c := range []struct{ pattern, host string }{
		{wild, "docs.raku.org"},
		{wild, "raku.org"},
		{wild, "evilraku.org"},
		{loop, "127.0.0.1"},
		{loop, "localhost"},
		{loop, "example.com"}, // may resolve into the range: a lexical rule cannot see it
	} {
		fmt.Printf("%s matches %s: %v\n", c.pattern, c.host, matching.MatchAnyHosts(c.pattern, []string{c.host}))
	}
	_, err := lexical.NormalizeHostPattern("https://raku.org")
	fmt.Println(err)
	// Output:
	// *.raku.org matches docs.raku.org: yes
	// *.raku.org matches raku.org: no
	// *.raku.org matches evilraku.org: no
	// 127.0.0.0/8 matches 127.0.0.1: yes
	// 127.0.0.0/8 matches localhost: yes
	// 127.0.0.0/8 matches example.com: no
	// host "https://raku.org" must be a bare host name, not a URL
}

// Tool globs: "*" any run, "?" one character, "\" makes the next literal,
// so "fs_\*" names exactly the tool called "fs_*".
func ExampleMatchTool() {
	fmt.Println(lexical.MatchTool("fs_*", "fs_write"), lexical.MatchTool("fs_*", "web_fetch"))
	fmt.Println(lexical.MatchTool(`fs_\*`, "fs_*"), lexical.MatchTool(`fs_\*`, "fs_write"))
	// Output:
	// true false
	// true false
}
