package matching

import "github.com/mcp-policy/mcp-policy/internal/lexical"

// Contains answers whether path p lies lexically inside directory dir
// (equal counts as inside). Both must be absolute and evaluable, else
// Unknown: anything a shell, a server or a file system could read as
// another path than the text says ("~", "$HOME", a Windows drive, a
// percent-encoded dot, ...) is unknown. Both are cleaned first, so
// "/srv/../etc" is outside "/srv".
func Contains(dir, p string) Match {
	dir, dirOK := lexical.AbsClean(dir)
	p, pOK := lexical.AbsClean(p)
	if !dirOK || !pOK {
		return Unknown
	}
	return yesNo(lexical.ContainsClean(dir, p))
}

// WithinAll is how an allow rule reads a call's paths: Yes when every
// path is inside dir, No when any is outside (or there is no path at all —
// a rule with "under" only matches calls that name a path), else Unknown.
// An unresolvable path is passed as "".
func WithinAll(dir string, paths []string) Match {
	return allOf(paths, func(p string) Match { return Contains(dir, p) })
}

// WithinAny is how a deny or ask rule reads a call's paths: Yes when any
// path is inside dir, No when none is and every path is known (or there is
// no path at all), else Unknown. An unresolvable path is passed as "".
// dir and paths are clean absolute paths, folded (FoldPath): they are
// compared as they are, since folding a clean path keeps it clean in shape
// but may leave what a raw path would be refused for (a name that ends in
// a space once a zero-width joiner is gone).
func WithinAny(dir string, paths []string) Match {
	return anyOf(paths, func(p string) bool { return lexical.ContainsClean(dir, p) })
}

// FoldedContains is Contains with both paths folded: how deny and ask rules
// and the floor compare one path (mcp.path.within_folded).
func FoldedContains(dir, p string) Match {
	dir, dirOK := CleanFolded(dir)
	p, pOK := CleanFolded(p)
	if !dirOK || !pOK {
		return Unknown
	}
	return yesNo(lexical.ContainsClean(dir, p))
}

// MatchAnyHosts is how deny and ask rules read a call's hosts: Yes when
// any host matches the pattern (from NormalizeHostPattern), No when none
// does and every host is known (or there is none), else Unknown. An
// unparseable URL's host is passed as "".
func MatchAnyHosts(pattern string, hosts []string) Match {
	return anyOf(hosts, func(h string) bool { return lexical.MatchHost(pattern, h) })
}

// MatchAllHosts is how an allow rule reads a call's hosts: Yes when every
// host matches the pattern (from NormalizeHostPattern), No when any does
// not (or there is none: a rule with "host" only matches calls that name a
// URL), else Unknown. An unparseable URL's host is passed as "".
func MatchAllHosts(pattern string, hosts []string) Match {
	return allOf(hosts, func(h string) Match { return yesNo(lexical.MatchHost(pattern, h)) })
}

// allOf is how an allow reads a call's paths or hosts: No when there are
// none or test says No of one, else Unknown when an item is "" (it could
// not be read) or test cannot tell, else Yes.
func allOf(items []string, test func(string) Match) Match {
	if len(items) == 0 {
		return No
	}
	all := Yes
	for _, it := range items {
		if it == "" {
			all = Unknown
			continue
		}
		switch test(it) {
		case No:
			return No
		case Unknown:
			all = Unknown
		}
	}
	return all
}

// anyOf is how a deny or ask reads a call's paths or hosts: Yes when test
// holds of one, else Unknown when an item is "" (it could not be read),
// else No (none at all included).
func anyOf(items []string, test func(string) bool) Match {
	any := No
	for _, it := range items {
		if it == "" {
			any = Unknown
			continue
		}
		if test(it) {
			return Yes
		}
	}
	return any
}

func yesNo(b bool) Match {
	if b {
		return Yes
	}
	return No
}

// CleanFolded is p cleaned and folded (FoldPath of AbsClean); "" and false
// when p is not absolute and evaluable.
func CleanFolded(p string) (string, bool) {
	clean, ok := lexical.AbsClean(p)
	if !ok {
		return "", false
	}
	return lexical.FoldPath(clean), true
}
