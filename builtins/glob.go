package builtins

import "unicode/utf8"

// MatchTool reports whether a tool name matches a rule's tool glob: "*"
// matches any run of characters (none included), "?" exactly one character
// (rune), and nothing else is special.
func MatchTool(pattern, name string) bool {
	// Iterative matching with single-star backtracking, over byte offsets
	// and without allocating: linear in practice and never exponential,
	// whatever a rule file contains. It runs once per grant per decision.
	if pattern == name {
		return true // the commonest case: a rule found under its own tool's name
	}
	pi, ni := 0, 0
	star, mark := -1, 0
	for ni < len(name) {
		if pi < len(pattern) {
			pr, pw := utf8.DecodeRuneInString(pattern[pi:])
			nr, nw := utf8.DecodeRuneInString(name[ni:])
			switch {
			case pr == '*':
				star, mark = pi+pw, ni
				pi += pw
				continue
			case pr == '?' || pr == nr && pw == nw && pattern[pi:pi+pw] == name[ni:ni+nw]:
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

// IsGlob reports whether pattern has any wildcard, i.e. whether it can match
// more than the one name it spells.
func IsGlob(pattern string) bool {
	for _, r := range pattern {
		if r == '*' || r == '?' {
			return true
		}
	}
	return false
}
