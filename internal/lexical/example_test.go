package lexical_test

import (
	"fmt"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

// Unevaluable says why a path cannot be judged lexically.
func ExampleUnevaluable() {
	for _, p := range []string{"/srv/a.md", "~root/.ssh", "/srv/%2e%2e/etc", " /srv/a.md", "/srv/a\u202eevil", "/srv/${HOME}"} {
		why := lexical.Unevaluable(p)
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
		clean, ok := lexical.AbsClean(p)
		fmt.Printf("%q -> %q %v\n", p, clean, ok)
	}
	// Output:
	// "/srv/./a//b/" -> "/srv/a/b" true
	// "/srv/a/../../../etc" -> "/etc" true
	// "relative/a" -> "" false
	// "/srv/$(x)" -> "" false
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
		if e := lexical.SensitiveFile(lexical.FoldPath(p)); e != nil {
			fmt.Printf("%s: %s (%s)\n", p, e.ID, e.Why)
		} else {
			fmt.Printf("%s: not on the floor's list\n", p)
		}
	}
	fmt.Println("unfolded:", lexical.SensitiveFile("/home/u/.BASHRC") != nil)
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

// CommonDir is the honest scope of an "always" answer: the deepest
// directory holding every path's parent, as wide as "/" if need be.
func ExampleCommonDir() {
	fmt.Println(lexical.CommonDir([]string{"/srv/scratch/notes.md"}))
	fmt.Println(lexical.CommonDir([]string{"/srv/a/x.md", "/srv/ab/y.md"}))
	fmt.Println(lexical.CommonDir([]string{"/srv/x", "/etc/passwd"}))
	// Output:
	// /srv/scratch
	// /srv
	// /
}

// EscapeTool is how a suggestion names exactly one tool, even one called
// "fs_*".
func ExampleEscapeTool() {
	exact := lexical.EscapeTool("fs_*")
	fmt.Println(exact, lexical.MatchTool(exact, "fs_*"), lexical.MatchTool(exact, "fs_write"))
	// Output:
	// fs_\* true false
}
