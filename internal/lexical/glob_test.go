package lexical_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

// FuzzMatchTool checks the glob against an independent reading: the
// pattern as a regular expression with "*" as ".*", "?" as ".", the
// character after a "\" and everything else quoted, and a lone "\" at the
// end matching nothing.
func FuzzMatchTool(f *testing.F) {
	for _, s := range [][2]string{{"fs_*", "fs_write"}, {"*_user_ask", "a_user_ask"}, {"a*b*c", "abxbc"}, {"?ü*", "xüyy"}, {"**", ""}, {`fs_\*`, "fs_*"}, {`fs_\*`, "fs_x"}, {`a\\b`, `a\b`}, {`x\`, `x\`}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if !utf8Valid(pattern) || !utf8Valid(name) || len(pattern) > 64 {
			return
		}
		var re strings.Builder
		re.WriteString("^(?s:")
		escaped, lone := false, false
		for _, r := range pattern {
			switch {
			case escaped:
				re.WriteString(regexp.QuoteMeta(string(r)))
				escaped = false
			case r == '\\':
				escaped = true
			case r == '*':
				re.WriteString(".*")
			case r == '?':
				re.WriteString(".")
			default:
				re.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
		lone = escaped
		re.WriteString(")$")
		want := !lone && regexp.MustCompile(re.String()).MatchString(name)
		require.Equal(t, want, lexical.MatchTool(pattern, name), "MatchTool(%q, %q) against the regexp %s", pattern, name, re.String())
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// A tool's name says it destroys what it names by a word of it, however
// the name is cased or joined; a word inside another is no such word.
func TestToolDestroys(t *testing.T) {
	for _, name := range []string{"delete_file", "deleteFile", "RMDir", "fs_rm", "move-file", "git_clean", "CleanUp", "wipeDisk", "trash"} {
		assert.True(t, lexical.ToolDestroys(name), name)
	}
	for _, name := range []string{"write_file", "git_reset", "checkout", "remover_info", "formatted_date", "rmfoo", "moved", "", "fs_read"} {
		assert.False(t, lexical.ToolDestroys(name), name)
	}
}
