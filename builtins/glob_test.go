package builtins_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-policy/mcp-policy/builtins"
)

// FuzzMatchTool checks the glob against an independent reading: the
// pattern as a regular expression with "*" as ".*", "?" as "." and
// everything else quoted.
func FuzzMatchTool(f *testing.F) {
	for _, s := range [][2]string{{"fs_*", "fs_write"}, {"*_user_ask", "a_user_ask"}, {"a*b*c", "abxbc"}, {"?ü*", "xüyy"}, {"**", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if !utf8Valid(pattern) || !utf8Valid(name) || len(pattern) > 64 {
			return
		}
		var re strings.Builder
		re.WriteString("^(?s:")
		for _, r := range pattern {
			switch r {
			case '*':
				re.WriteString(".*")
			case '?':
				re.WriteString(".")
			default:
				re.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
		re.WriteString(")$")
		want := regexp.MustCompile(re.String()).MatchString(name)
		if got := builtins.MatchTool(pattern, name); got != want {
			t.Fatalf("MatchTool(%q, %q) = %v, regexp says %v", pattern, name, got, want)
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
