package builtins_test

import (
	"fmt"

	"github.com/mcp-policy/mcp-policy/builtins"
)

// Containment is a tri-state. Unknown is not Outside: a caller must fail
// closed on it (ask, never allow), because the path may be anywhere once a
// shell, a server or a file system has read it.
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
		fmt.Printf("%-32q %v\n", p, builtins.Contains("/srv/scratch", p))
	}
	// Output:
	// "/srv/scratch/notes.md"          inside
	// "/srv/scratch/../../etc/passwd"  outside
	// "/srv/scratchpad"                outside
	// "~/notes.md"                     unknown
	// "/srv/scratch/${HOME}"           unknown
	// "C:\\srv\\scratch"               unknown
	// "scratch/notes.md"               unknown
}

// Unevaluable says why a path cannot be judged lexically.
func ExampleUnevaluable() {
	for _, p := range []string{"/srv/a.md", "~root/.ssh", "/srv/%2e%2e/etc", " /srv/a.md", "/srv/a\u202eevil", "/srv/${HOME}"} {
		why := builtins.Unevaluable(p)
		if why == "" {
			why = "evaluable"
		}
		fmt.Printf("%q: %s\n", p, why)
	}
	// Output:
	// "/srv/a.md": evaluable
	// "~root/.ssh": path starts with ~
	// "/srv/%2e%2e/etc": path contains a percent-encoded character
	// " /srv/a.md": path starts with white space or a quote
	// "/srv/a\u202eevil": path contains a bidirectional control character
	// "/srv/${HOME}": path contains $ expansion
}

// AbsClean is the path a rule compares, or false when there is none.
func ExampleAbsClean() {
	for _, p := range []string{"/srv/./a//b/", "/srv/a/../../../etc", "relative/a", "/srv/$(x)"} {
		clean, ok := builtins.AbsClean(p)
		fmt.Printf("%q -> %q %v\n", p, clean, ok)
	}
	// Output:
	// "/srv/./a//b/" -> "/srv/a/b" true
	// "/srv/a/../../../etc" -> "/etc" true
	// "relative/a" -> "" false
	// "/srv/$(x)" -> "" false
}

// Resolve puts a tool's relative path under its root; it does not keep it
// there. "../etc/passwd" resolves to /etc/passwd, which Contains then finds
// outside the root.
func ExampleResolve() {
	for _, p := range []string{"scratch/notes.md", "../etc/passwd", "file:///etc/hosts", "file://evil.example/share", "~/x"} {
		abs, ok := builtins.Resolve("/srv", p)
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
		fp := builtins.FoldPath(c.path)
		fmt.Printf("%+q folds to %+q: in deny %+q: %v\n", c.path, fp, c.deny, builtins.ContainsFolded(builtins.FoldPath(c.deny), fp))
	}
	fmt.Println("allow /srv/Scratch, exact:", builtins.Contains("/srv/Scratch", "/srv/scratch/a"))
	// Output:
	// "/srv/SECRET/key" folds to "/srv/secret/key": in deny "/srv/secret": true
	// "/srv/sec\u200cret/key" folds to "/srv/secret/key": in deny "/srv/secret": true
	// "/srv/cafe\u0301/menu" folds to "/srv/caf\u00e9/menu": in deny "/srv/caf\u00e9": true
	// "/srv/app/.Git./config" folds to "/srv/app/.git/config": in deny "/srv/app/.git": true
	// allow /srv/Scratch, exact: outside
}

// WithinAll is how an allow rule reads a call's paths, WithinAny how a deny
// or ask rule does: one harmless path does not dodge a deny, and one path
// that cannot be evaluated ("") keeps an allow from matching.
func ExampleWithinAny() {
	paths := []string{"/srv/scratch/a.md", "/srv/secret/key"}
	fmt.Println("allow under /srv/scratch:", builtins.WithinAll("/srv/scratch", paths))
	fmt.Println("deny under /srv/secret:  ", builtins.WithinAny("/srv/secret", paths))

	withUnknown := []string{"/srv/scratch/a.md", ""}
	fmt.Println("allow, one path unknown: ", builtins.WithinAll("/srv/scratch", withUnknown))
	fmt.Println("deny, one path unknown:  ", builtins.WithinAny("/srv/secret", withUnknown))
	fmt.Println("allow, no path at all:   ", builtins.WithinAll("/srv/scratch", nil))
	// Output:
	// allow under /srv/scratch: outside
	// deny under /srv/secret:   inside
	// allow, one path unknown:  unknown
	// deny, one path unknown:   unknown
	// allow, no path at all:    outside
}

// SensitiveFile is the danger floor's lookup: which entry of Sensitive a
// path falls under. The path must be clean, absolute and folded; anything
// else matches nothing, so fold it first.
func ExampleSensitiveFile() {
	for _, p := range []string{
		"/home/u/.bashrc",
		"/srv/app/.GIT/hooks/pre-commit",
		"/home/u/.ssh/authorized_keys",
		"/srv/app/.env.production",
		"/home/u/bin/tool", // bin is on PATH only in a home directory
		"/srv/app/bin/tool",
		"/srv/app/README.md",
	} {
		if e := builtins.SensitiveFile(builtins.FoldPath(p)); e != nil {
			fmt.Printf("%s: %s (%s)\n", p, e.ID, e.Why)
		} else {
			fmt.Printf("%s: not on the floor's list\n", p)
		}
	}
	fmt.Println("unfolded:", builtins.SensitiveFile("/home/u/.BASHRC") != nil)
	// Output:
	// /home/u/.bashrc: SH1 (a shell start-up file)
	// /srv/app/.GIT/hooks/pre-commit: GI1 (version control configuration)
	// /home/u/.ssh/authorized_keys: SS1 (SSH access)
	// /srv/app/.env.production: DE1 (an environment file)
	// /home/u/bin/tool: PA2 (a directory on the user's PATH)
	// /srv/app/bin/tool: not on the floor's list
	// /srv/app/README.md: not on the floor's list
	// unfolded: false
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
		host, ok := builtins.URLHost(u)
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
// against URLHost's answer. "*.S" is any subdomain but not S itself; an IP
// range matches IP literals, and the machine's own names when it holds a
// loopback address.
func ExampleMatchHost() {
	wild, _ := builtins.NormalizeHostPattern("*.Raku.org")
	loop, _ := builtins.NormalizeHostPattern("127.0.0.0/8")
	for _, c := range []struct{ pattern, host string }{
		{wild, "docs.raku.org"},
		{wild, "raku.org"},
		{wild, "evilraku.org"},
		{loop, "127.0.0.1"},
		{loop, "localhost"},
		{loop, "example.com"}, // may resolve into the range: a lexical rule cannot see it
	} {
		fmt.Printf("%s matches %s: %v\n", c.pattern, c.host, builtins.MatchHost(c.pattern, c.host))
	}
	_, err := builtins.NormalizeHostPattern("https://raku.org")
	fmt.Println(err)
	// Output:
	// *.raku.org matches docs.raku.org: true
	// *.raku.org matches raku.org: false
	// *.raku.org matches evilraku.org: false
	// 127.0.0.0/8 matches 127.0.0.1: true
	// 127.0.0.0/8 matches localhost: true
	// 127.0.0.0/8 matches example.com: false
	// host "https://raku.org" must be a bare host name, not a URL
}

// Tool globs: "*" any run, "?" one character, "\" makes the next literal.
// EscapeTool is how a suggestion names exactly one tool, even one called
// "fs_*".
func ExampleMatchTool() {
	fmt.Println(builtins.MatchTool("fs_*", "fs_write"), builtins.MatchTool("fs_*", "web_fetch"))
	exact := builtins.EscapeTool("fs_*")
	fmt.Println(exact, builtins.MatchTool(exact, "fs_*"), builtins.MatchTool(exact, "fs_write"))
	// Output:
	// true false
	// fs_\* true false
}

// CommonDir is the honest scope of an "always" answer: the deepest
// directory holding every path's parent, as wide as "/" if need be.
func ExampleCommonDir() {
	fmt.Println(builtins.CommonDir([]string{"/srv/scratch/notes.md"}))
	fmt.Println(builtins.CommonDir([]string{"/srv/a/x.md", "/srv/ab/y.md"}))
	fmt.Println(builtins.CommonDir([]string{"/srv/x", "/etc/passwd"}))
	// Output:
	// /srv/scratch
	// /srv
	// /
}
