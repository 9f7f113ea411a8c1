package lexical

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// MatchTool reports whether a tool name matches a rule's tool glob: "*"
// matches any run of characters (none included), "?" exactly one character
// (rune), and "\" makes the character after it literal ("\*" is a star,
// "\\" a backslash); nothing else is special. A pattern that ends in a lone
// "\" matches nothing (ValidateToolGlob refuses it).
func MatchTool(pattern, name string) bool {
	// Iterative matching with single-star backtracking, over byte offsets
	// and without allocating: linear in practice and never exponential,
	// whatever a rule file contains.
	if pattern == name && strings.IndexByte(pattern, '\\') < 0 {
		return true // the commonest case: a rule found under its own tool's name
	}
	switch literalEnds(pattern, name) {
	case noMatch:
		return false // the next commonest: a glob tested against every call ("*_user_ask")
	case match:
		return true
	}
	pi, ni := 0, 0
	star, mark := -1, 0
	for ni < len(name) {
		if pi < len(pattern) {
			pr, pw := utf8.DecodeRuneInString(pattern[pi:])
			literal := false
			if pr == '\\' {
				if pi+pw == len(pattern) {
					return false
				}
				literal = true
				pi += pw
				pr, pw = utf8.DecodeRuneInString(pattern[pi:])
			}
			nr, nw := utf8.DecodeRuneInString(name[ni:])
			switch {
			case pr == '*' && !literal:
				star, mark = pi+pw, ni
				pi += pw
				continue
			case pr == '?' && !literal || pr == nr && pw == nw && pattern[pi:pi+pw] == name[ni:ni+nw]:
				pi += pw
				ni += nw
				continue
			}
		}
		if star < 0 {
			return false
		}
		// Let the last star swallow one more character and retry.
		_, w := utf8.DecodeRuneInString(name[mark:])
		mark += w
		pi, ni = star, mark
	}
	for pi < len(pattern) && pattern[pi] == '*' {
		pi++
	}
	return pi == len(pattern)
}

// literalEnds answers for a pattern whose only wildcard is "*" from the
// text before its first star and after its last, without the backtracking
// walk: noMatch when name does not start and end with them (a match
// consumes them byte for byte), match when the pattern is ASCII with one
// star and name does (the star takes what is between, whole characters,
// since an ASCII byte always starts one), else undecided (any "?" or "\\",
// more stars, or non-ASCII text): the walk decides.
func literalEnds(pattern, name string) globAnswer {
	first := strings.IndexByte(pattern, '*')
	if first < 0 || strings.IndexByte(pattern, '?') >= 0 || strings.IndexByte(pattern, '\\') >= 0 {
		return undecided
	}
	last := strings.LastIndexByte(pattern, '*')
	prefix, suffix := pattern[:first], pattern[last+1:]
	if len(name) < len(prefix)+len(suffix) || !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, suffix) {
		return noMatch
	}
	if first == last && isASCII(pattern) {
		return match
	}
	return undecided
}

type globAnswer uint8

const (
	undecided globAnswer = iota
	noMatch
	match
)

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// IsGlob reports whether pattern has any wildcard that is not escaped, i.e.
// whether it can match more than the one name it spells.
func IsGlob(pattern string) bool {
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++ // the next byte is literal (a multi-byte rune's bytes are never special)
		case '*', '?':
			return true
		}
	}
	return false
}

// EscapeTool is the glob that matches exactly the tool named name: "*",
// "?" and "\" escaped. Suggestions and grants name a tool this way, so that
// "always allow" on a tool called "fs_*" allows that tool and no other.
func EscapeTool(name string) string {
	if !strings.ContainsAny(name, `*?\`) {
		return name
	}
	var b strings.Builder
	b.Grow(len(name) + 2)
	for _, r := range name {
		if r == '*' || r == '?' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// UnescapeTool is the name a glob without wildcards (IsGlob false) spells:
// its escapes removed.
func UnescapeTool(pattern string) string {
	if strings.IndexByte(pattern, '\\') < 0 {
		return pattern
	}
	var b strings.Builder
	escaped := false
	for _, r := range pattern {
		if r == '\\' && !escaped {
			escaped = true
			continue
		}
		escaped = false
		b.WriteRune(r)
	}
	return b.String()
}

// ValidateToolGlob refuses a glob that cannot mean what it says: one that
// ends in a lone "\".
func ValidateToolGlob(pattern string) error {
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == '\\' {
			if i+1 == len(pattern) {
				return errors.New(`ends in a lone "\": write "\\" for a backslash`)
			}
			i++
		}
	}
	return nil
}

// treeVerbs are the words of a tool's name that say it deletes, moves or
// empties what it names. reset, restore and checkout are not among them:
// they change files in a tree, and the tree stays.
var treeVerbs = map[string]bool{
	"delete": true, "del": true, "remove": true, "rm": true, "rmdir": true, "rmtree": true, "unlink": true, "erase": true,
	"wipe": true, "purge": true, "destroy": true, "shred": true, "trash": true, "move": true, "mv": true, "rename": true,
	"clean": true, "cleanup": true, "clear": true, "empty": true, "truncate": true, "overwrite": true, "format": true,
}

// writeVerbs are the words of a tool's name that say it writes, makes,
// changes or removes the files it names (a database's insert or upsert is
// none: its rows are no files).
var writeVerbs = map[string]bool{
	"write": true, "edit": true, "create": true, "save": true, "put": true, "append": true, "patch": true,
	"replace": true, "overwrite": true, "modify": true, "copy": true, "cp": true, "mkdir": true, "touch": true,
	"download": true, "extract": true, "unzip": true, "untar": true, "unpack": true, "install": true, "apply": true,
	"scaffold": true, "generate": true, "symlink": true, "link": true, "chmod": true, "chown": true, "store": true,
}

// ToolDestroys reports a tool name with a word in treeVerbs: its words
// split at anything not a letter or digit and where camel case starts one
// ("deleteFile", "RMDir", "fs_rm"), compared in lower case.
func ToolDestroys(name string) bool { return nameHasWord(name, treeVerbs) }

// ToolWrites reports a tool name with a word that writes, makes, changes
// or removes what it names (writeVerbs or treeVerbs), its words split as
// ToolDestroys splits them: "write_file", "editNote", "fs_put".
func ToolWrites(name string) bool {
	return nameHasWord(name, writeVerbs) || nameHasWord(name, treeVerbs)
}

// nameHasWord reports a tool name with a word in words.
func nameHasWord(name string, words map[string]bool) bool {
	var word []rune
	rs := []rune(name)
	check := func() bool {
		w := strings.ToLower(string(word))
		word = word[:0]
		return words[w]
	}
	for i, r := range rs {
		isAlnum := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !isAlnum {
			if check() {
				return true
			}
			continue
		}
		if r >= 'A' && r <= 'Z' && len(word) > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && rs[i+1] >= 'a' && rs[i+1] <= 'z'
			if prev >= 'a' && prev <= 'z' || prev >= '0' && prev <= '9' || prev >= 'A' && prev <= 'Z' && nextLower {
				if check() {
					return true
				}
			}
		}
		word = append(word, r)
	}
	return check()
}
