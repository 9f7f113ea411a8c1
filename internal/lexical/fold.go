package lexical

import (
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// FoldPath is p as a file system that ignores case and Unicode
// normalisation compares it (macOS, Windows): each name case-folded,
// composed (NFC), stripped of the code points HFS+ ignores (the zero
// widths and joiners, the directional marks and embeddings, the BOM: git's
// CVE-2014-9390 list), of the dots and spaces NTFS drops from a name's
// end (".git." is ".git" there), and of an NTFS stream's name after a
// colon (".git::$INDEX_ALLOCATION" is the directory .git, ".bashrc:x" a
// stream of .bashrc). Deny and ask rules, deny grants and the floor
// compare folded paths, so that "/srv/SECRET/key", the NFD spelling of a
// name and ".g\u200cit" are caught; allow compares exactly, so folding can
// only ever ask or deny more.
//
// Folding keeps the structure of the path: it never adds or removes a "/",
// and a name that would fold to "", "." or ".." is kept as it is, so a
// folded path is inside a folded directory whenever the path is inside the
// directory.
func FoldPath(p string) string {
	if folded, ok := foldASCII(p); ok {
		return folded
	}
	var b strings.Builder
	b.Grow(len(p))
	for i, seg := range strings.Split(p, "/") {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(foldName(seg))
	}
	return b.String()
}

// Fold is a name (a tool's, one name of a path) folded as FoldPath folds
// each name of a path. Deny and ask rules match tool names folded too.
func Fold(s string) string {
	if folded, ok := foldASCII(s); ok {
		return folded
	}
	return foldName(s)
}

// foldASCII folds s if it is ASCII (lower-casing is all there is to it),
// without allocating when it is already lower case: the common case.
func foldASCII(s string) (string, bool) {
	lower := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			return "", false
		case 'A' <= c && c <= 'Z':
			lower = false
		case (c == '.' || c == ' ') && (i+1 == len(s) || s[i+1] == '/') && i > 0 && s[i-1] != '/':
			return "", false // a name ending in a dot or space: the long way
		case c == ':':
			return "", false // an NTFS stream: the long way
		}
	}
	if lower {
		return s, true
	}
	return strings.ToLower(s), true
}

// folders holds pointers, so that putting one back does not allocate.
var folders = sync.Pool{New: func() any { c := cases.Fold(); return &c }}

// foldName folds one name of a path (see FoldPath).
func foldName(name string) string {
	c := folders.Get().(*cases.Caser)
	defer folders.Put(c)
	// Canonical caseless matching: NFD, fold, NFD; composed at the end so
	// the result is the form most names are written in.
	f := norm.NFC.String(c.String(norm.NFD.String(name)))
	f = strings.Map(func(r rune) rune {
		if hfsIgnorable(r) {
			return -1
		}
		return cherokeeUpper(r)
	}, f)
	if i := strings.IndexByte(f, ':'); i > 0 {
		// An NTFS stream of the file or directory before the colon:
		// ".gitconfig::$DATA" is .gitconfig's contents, ".github::$INDEX_ALLOCATION"
		// the directory .github, ".bashrc:x" a stream of .bashrc.
		f = f[:i]
	}
	f = strings.TrimRight(f, ". ") // what NTFS drops
	switch f {
	case "", ".", "..":
		if name != f {
			return name // folding must not make or remove a level
		}
	}
	return f
}

// hfsIgnorable are the code points HFS+ drops when it compares names.
func hfsIgnorable(r rune) bool {
	return r >= 0x200c && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x206a && r <= 0x206f || r == 0xfeff
}

// cherokeeUpper is r with Cherokee's small letters as their capitals, the
// way Unicode's case folding writes them. x/text's caser turns capitals
// into small letters and small letters into capitals, so without this a
// Cherokee name would fold to two spellings, and a deny written in one
// would miss a path written in the other (TestFoldEveryRune).
func cherokeeUpper(r rune) rune {
	switch {
	case r >= 0xab70 && r <= 0xabbf:
		return r - 0xab70 + 0x13a0
	case r >= 0x13f8 && r <= 0x13fd:
		return r - 8
	}
	return r
}
