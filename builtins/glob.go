package builtins

// MatchTool reports whether a tool name matches a rule's tool glob: "*"
// matches any run of characters (none included), "?" exactly one character
// (rune), and nothing else is special.
func MatchTool(pattern, name string) bool {
	p, n := []rune(pattern), []rune(name)
	// Iterative wildcard matching with single-star backtracking: linear in
	// practice and never exponential, whatever a rule file contains.
	pi, ni, star, mark := 0, 0, -1, 0
	for ni < len(n) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == n[ni]):
			pi++
			ni++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ni
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			ni = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
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
