// Package lexical holds the plain helpers beneath the builtins package:
// whether a path can be evaluated lexically and how it is cleaned and
// resolved, case and Unicode folding, URL and host parsing, tool globs, and
// the danger floor's list of sensitive files. Nothing here follows a
// symlink or asks the file system: every answer comes from the text, and
// text that a shell, a server or a file system could read as something else
// is refused. The tri-state answers built on these are internal/matching's
// (Match); their registration as Rego builtins is the builtins package's.
package lexical

import (
	"fmt"
	"net/url"
	"path"
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxPathBytes is the longest path evaluated: Linux refuses a longer one
// (PATH_MAX is 4096 bytes with the NUL), so a server cannot act on it as
// written, and a longer text is unknown rather than cleaned at length.
const MaxPathBytes = 4095

// Unevaluable reports why p cannot be evaluated lexically, or "" when it
// can. Anything a shell, a Windows API, a URL parser or a server's own
// tidying could turn into a different path than the text says is
// unevaluable: empty or over MaxPathBytes; a leading "~"; "$" expansion;
// backslashes, drive letters and UNC forms; a scheme ("http:", "file:" not
// made a path by FromFileURI); white space or a quote at either end (some
// servers trim); control and bidirectional-control characters (the human
// would be shown another name than the one acted on); percent-encoded ".",
// "/", "\" or NUL (some servers decode); invalid UTF-8; and a start the
// platform's own lookup reads as another place than the text: Linux's
// /proc and /dev links (procLink), macOS's firmlink /System/Volumes/Data,
// its link /Volumes/Macintosh HD to /, and its lookup anchors /.nofollow,
// /.resolve, /.vol and /.file (darwinAnchor).
func Unevaluable(p string) string {
	if cleanAbs(p) {
		return "" // the common case, settled in one pass: a clean absolute path
	}
	return unevaluable(p)
}

// unevaluable is Unevaluable without cleanAbs's shortcut (which itself
// falls back on this for any path it cannot settle).
func unevaluable(p string) string {
	switch {
	case p == "":
		return "empty path"
	case len(p) > MaxPathBytes:
		return fmt.Sprintf("path is longer than %d bytes", MaxPathBytes)
	case p[0] == '~':
		return "path starts with ~"
	case len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0]):
		return "path has a Windows drive"
	case len(p) >= 3 && p[0] == '/' && p[2] == ':' && isASCIILetter(p[1]) && (len(p) == 3 || p[3] == '/'):
		return "path has a Windows drive" // what file:///C:/x names on Windows
	case strings.HasPrefix(p, "//"):
		return "path is a UNC or network path"
	case hasScheme(p):
		return "path looks like a URL"
	case p[0] == '-':
		return "path starts with -, which a command line reads as an option"
	case procLink(p) || p[0] == '/' && throughProcLink(p):
		return "path goes through a link /proc or /dev makes to another place"
	case underFold(p, "/system/volumes/data"):
		return "path goes through macOS's firmlink to /"
	case underFold(p, "/volumes/macintosh hd"):
		return "path goes through macOS's link from the start-up volume's name to /"
	case darwinAnchor(p):
		return "path starts with a name macOS's lookup reads as a way to / or to a file by its number"
	}
	if r, _ := utf8.DecodeRuneInString(p); isEdge(r) {
		return "path starts with white space or a quote"
	}
	if r, _ := utf8.DecodeLastRuneInString(p); isEdge(r) {
		return "path ends with white space or a quote"
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == 0:
			return "path contains NUL"
		case c < 0x20 || c == 0x7f:
			return "path contains a control character"
		case c == '$' && (i == 0 || dollarExpands(p[i+1:]) || segmentBefore(p, i) == ".." || dotDotAfter(p[i:])):
			// A leading "$HOME" makes the path any path, one after ".."
			// climbs ("..$PWD" is "../srv"), and "${x:-/etc}", "$(cmd)" and
			// "$'\x2f'" can put anything anywhere. Any other "$name"
			// ("posts.$slug.tsx", a Remix route; "/srv/$HOME" is
			// /srv//root) only inserts text where it stands: the argument
			// reader reads such a path as written and with the names
			// expanded to nothing.
			return "path contains $ expansion"
		case c == '~' && i > 0 && (p[i-1] == '=' || p[i-1] == ':'):
			// Bash expands a tilde after "=" or ":" in a word ("a=~/x").
			return "path has a ~ a shell expands"
		case c == '`':
			return "path contains a backquote, which a shell runs as a command"
		case c == '*' || c == '?' || c == '{' && braceList(p[i+1:]):
			// A shell's glob or brace expansion names other files than
			// the text: "/srv/secre?/key" is /srv/secret/key to it.
			return "path contains a wildcard or a brace list a shell expands"
		case c == '\\':
			return "path contains a backslash"
		case c == '%' && percentEncoded(p[i+1:]):
			return "path contains a percent-encoded character"
		case c == '~' && shortNames && i+1 < len(p) && p[i+1] >= '0' && p[i+1] <= '9' && (i == 0 || p[i-1] != '/'):
			return "path has a Windows short name (~1)"
		case c >= utf8.RuneSelf:
			r, w := utf8.DecodeRuneInString(p[i:])
			switch {
			case r == utf8.RuneError && w == 1:
				return "path is not valid UTF-8"
			case r >= 0x80 && r <= 0x9f:
				return "path contains a control character"
			case isBidiControl(r):
				return "path contains a bidirectional control character"
			}
			i += w - 1
		}
	}
	return ""
}

// shortNames says the file system may answer to Windows short names
// ("PROGRA~1"): on Windows. Elsewhere "HEAD~3" is a name like any other.
var shortNames = runtime.GOOS == "windows"

// segmentBefore is the part of p's name that holds byte i, before it.
func segmentBefore(p string, i int) string { return p[strings.LastIndexByte(p[:i], '/')+1 : i] }

// braceList reports a brace expansion: a list ("{a,b}") or a sequence
// ("{t..t}", "{1..3}") before the closing brace.
func braceList(rest string) bool {
	end := strings.IndexByte(rest, '}')
	return end > 0 && (strings.IndexByte(rest[:end], ',') >= 0 || strings.Contains(rest[:end], ".."))
}

// dotDotAfter reports a ".." name after a "$name": an expansion with a "/"
// in it ("$HOME" is /root) adds levels, so each ".." after it climbs one
// level less than the text says ("/srv/x$HOME/../../secret").
func dotDotAfter(rest string) bool {
	for i := strings.Index(rest, ".."); i >= 0; {
		if rest[i-1] == '/' && (i+2 == len(rest) || rest[i+2] == '/') {
			return true
		}
		next := strings.Index(rest[i+1:], "..")
		if next < 0 {
			return false
		}
		i += 1 + next
	}
	return false
}

// dollarExpands reports whether a "$" followed by rest is an expansion
// that can put any text, a "/" or a ".." included, where it stands: a
// brace, a command, an arithmetic or a quoted string.
func dollarExpands(rest string) bool {
	return rest != "" && strings.IndexByte("{(['\"", rest[0]) >= 0
}

// evaluableByte reports whether byte c, anywhere in a path, leaves it
// evaluable without looking further (the common case): cleanAbs's shortcut.
func evaluableByte(c byte) bool {
	return c >= 0x20 && c < 0x7f && c != '$' && c != '\\' && c != '%' && c != '"' && c != '\'' && c != ' ' && c != '~' &&
		c != '`' && c != '*' && c != '?' && c != '{'
}

// hasScheme reports a leading URL scheme: a letter, then letters, digits,
// "+", "-" or ".", then ":".
func hasScheme(p string) bool {
	if p == "" || !isASCIILetter(p[0]) {
		return false
	}
	for i := 1; i < len(p); i++ {
		switch c := p[i]; {
		case c == ':':
			return true
		case isASCIILetter(c) || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.':
		default:
			return false
		}
	}
	return false
}

// KnownScheme reports a URL scheme (lower case, without its colon) that
// a client opens whatever follows the colon: "http:host", "file:x",
// "data:,x".
func KnownScheme(s string) bool { return urlSchemes[s] }

// urlSchemes are the schemes a client opens without a "/" after the
// colon.
var urlSchemes = map[string]bool{"http": true, "https": true, "file": true, "ftp": true, "ftps": true, "sftp": true, "scp": true,
	"ssh": true, "git": true, "data": true, "jar": true, "zip": true, "smb": true, "nfs": true, "s3": true, "gs": true, "ws": true,
	"wss": true, "ldap": true, "ldaps": true, "dict": true, "gopher": true, "tftp": true, "telnet": true, "blob": true,
	"javascript": true, "mailto": true, "urn": true, "unix": true, "npipe": true, "docker": true, "vscode": true, "svn": true,
	"rsync": true, "hdfs": true, "webdav": true, "dav": true, "ipfs": true, "magnet": true, "netdoc": true, "phar": true,
	"php": true, "expect": true, "glob": true, "compress.zlib": true, "compress.bzip2": true}

// isEdge is a character a server might trim from either end of a path.
func isEdge(r rune) bool {
	return unicode.IsSpace(r) || r == '"' || r == '\'' || r == '\ufeff' || r == 0x200b
}

func isBidiControl(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// percentEncoded reports whether s starts with two hex digits (after a
// "%"): a server that decodes percent-escapes would read another name.
func percentEncoded(s string) bool {
	return len(s) >= 2 && isHex(s[0]) && isHex(s[1])
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f' }

// procLink reports a path through one of the links Linux's /proc and /dev
// make to other places: /proc/self/root is "/", /proc/1/cwd a directory,
// /dev/fd/3 a file, so a rule on the place itself would not see them.
func procLink(p string) bool {
	if strings.HasPrefix(p, "/dev/fd/") || p == "/dev/fd" || strings.HasPrefix(p, "/dev/std") {
		return true
	}
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return false
	}
	for range 3 { // /proc/PID/..., /proc/PID/task/TID/...
		_, rest, ok = strings.Cut(rest, "/") // the process (or thread)
		if !ok {
			return false
		}
		name, after, _ := strings.Cut(rest, "/")
		switch name {
		case "root", "cwd", "fd", "exe", "map_files", "fdinfo":
			return true
		case "task":
			rest = after
			continue
		}
		return false
	}
	return false
}

// throughProcLink reports an absolute path whose lookup passes through one
// of procLink's links at any step, as the kernel walks it name by name:
// "/proc/self/./cwd/../secret" and "/proc/self/ns/../cwd/x" go through
// /proc/self/cwd (and ".." after it is the link's parent, not /proc/self),
// though cleaning the text makes a harmless-looking /proc/self/secret.
// Each prefix is what the walk has reached: "." and empty names stay,
// ".." goes up (never above /).
func throughProcLink(p string) bool {
	if !strings.Contains(p, "proc") && !strings.Contains(p, "dev") {
		return false // the common case: neither name anywhere
	}
	var stack [6]string // the first names reached; deeper ones cannot make a link
	depth := 0
	for name := range strings.SplitSeq(p[1:], "/") {
		switch name {
		case "", ".":
			continue
		case "..":
			if depth >= 2 && stack[0] == "proc" && (stack[1] == "net" || stack[1] == "thread-self" || stack[1] == "mounts") {
				// /proc/net is self/net and /proc/thread-self
				// self/task/TID: ".." after them is in /proc/self, where
				// root and cwd lead elsewhere.
				return true
			}
			if depth > 0 {
				depth--
			}
			continue
		}
		if depth < len(stack) {
			stack[depth] = name
		}
		depth++
		if depth <= len(stack) && procLink("/"+strings.Join(stack[:depth], "/")) {
			return true
		}
	}
	return false
}

// darwinAnchor reports a path whose first name is one macOS's path lookup
// reads as something other than a directory in /: "/.nofollow/x" and
// "/.resolve/N/x" are /x looked up without following links (N its flags),
// "/.vol/D/I" is the file numbered I on the volume numbered D, and
// "/.file/id=D.I" is that file to Foundation (a file reference URL's path).
// Compared in any case, and whatever follows: bare, the names are no real
// directories, so nothing is lost.
func darwinAnchor(p string) bool {
	if len(p) < 4 || p[0] != '/' || p[1] != '.' {
		return false
	}
	first, _, _ := strings.Cut(p[1:], "/")
	for _, a := range []string{".nofollow", ".resolve", ".vol", ".file"} {
		if strings.EqualFold(first, a) {
			return true
		}
	}
	return false
}

// underFold reports whether p is dir or in it, ASCII case ignored (dir is
// lower case, absolute and clean).
func underFold(p, dir string) bool {
	return len(p) >= len(dir) && strings.EqualFold(p[:len(dir)], dir) && (len(p) == len(dir) || p[len(dir)] == '/')
}

func isASCIILetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// FromFileURI turns a file: URI into its path. ok is false when p is a file
// URI that does not name a local absolute path unambiguously: a host other
// than localhost, a query, a fragment, user information, a path that is
// not absolute, a percent-encoded "/", "\\" or NUL (Go decodes them, Node's
// fileURLToPath refuses them), and any "file:" not followed by "//" (a
// WHATWG parser reads "file:/etc/passwd" as "/etc/passwd", a naive one as a
// relative name). A p that is not a file URI is returned unchanged.
func FromFileURI(p string) (string, bool) {
	if len(p) < 5 || !strings.EqualFold(p[:5], "file:") {
		return p, true
	}
	if !strings.HasPrefix(p[5:], "//") {
		return "", false
	}
	u, err := url.Parse(p)
	if err != nil || u.Opaque != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.User != nil {
		return "", false
	}
	if h := strings.ToLower(u.Host); h != "" && h != "localhost" {
		return "", false
	}
	for i := strings.IndexByte(p, '%'); i >= 0; i = strings.IndexByte(p, '%') {
		p = p[i+1:]
		if len(p) >= 2 && (strings.EqualFold(p[:2], "2f") || strings.EqualFold(p[:2], "5c") || p[:2] == "00") {
			return "", false
		}
	}
	if u.Path == "" || !strings.HasPrefix(u.Path, "/") {
		return "", false
	}
	return u.Path, true
}

// IsFileURI reports whether s is spelt as a file: URI (any case), whether
// or not it names a path FromFileURI accepts.
func IsFileURI(s string) bool { return len(s) >= 5 && strings.EqualFold(s[:5], "file:") }

// Resolve makes p absolute against root and cleans it lexically; symlinks
// are not followed. ok is false when p is unevaluable, or relative with no
// (absolute, evaluable) root.
func Resolve(root, p string) (string, bool) {
	p, ok := FromFileURI(p)
	if !ok {
		return "", false
	}
	if cleanAbs(p) {
		return p, true // what the reader nearly always meets: nothing to resolve
	}
	if unevaluable(p) != "" {
		return "", false
	}
	var r string
	if path.IsAbs(p) {
		r = clean(p)
	} else {
		if root == "" || !path.IsAbs(root) || Unevaluable(root) != "" {
			return "", false
		}
		r = path.Join(path.Clean(root), p)
		if throughProcLink(path.Clean(root) + "/" + p) {
			return "", false // "../../proc/self/cwd/../x" from /srv/app
		}
	}
	// Cleaning can make what the text did not show: "/a /" is "/a ",
	// "/x/../proc/self/root" a link to elsewhere.
	if r != p && Unevaluable(r) != "" {
		return "", false
	}
	return r, true
}

// NormalizeUnder is a rule's "under" as matching uses it: a file URI made a
// path, cleaned; absolute, or relative to the tool's root. An unevaluable
// directory, or a relative one that climbs out of the root (it would mean
// something else per root), is an error.
func NormalizeUnder(under string) (string, error) {
	u, ok := FromFileURI(under)
	if !ok {
		return "", fmt.Errorf("%q is not a local file URI", under)
	}
	if why := Unevaluable(u); why != "" {
		return "", fmt.Errorf("%q cannot be evaluated: %s", under, why)
	}
	u = path.Clean(u)
	if why := Unevaluable(u); why != "" {
		return "", fmt.Errorf("%q cannot be evaluated once cleaned: %s", under, why)
	}
	if u == ".." || strings.HasPrefix(u, "../") {
		return "", fmt.Errorf("%q leaves the root; write the directory as an absolute path", under)
	}
	return u, nil
}

// AbsClean is p cleaned, if it is absolute and evaluable; else "", false.
func AbsClean(p string) (string, bool) {
	if cleanAbs(p) {
		return p, true
	}
	if Unevaluable(p) != "" || !path.IsAbs(p) {
		return "", false
	}
	q := path.Clean(p)
	if Unevaluable(q) != "" { // see Resolve
		return "", false
	}
	return q, true
}

// cleanAbs reports whether p is absolute, evaluable and already clean, in
// one pass over its bytes: the paths a decision compares nearly always are
// (resolution cleaned them), and cleaning a clean path again is most of
// what a comparison would cost. False sends the caller the long way round.
// It runs several times per decision, so each byte costs one table lookup
// (pathBytes) and the prefixes that need the full test are only compared
// when the first name starts with one of their letters.
func cleanAbs(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	if len(p) == 1 {
		return true
	}
	// Rare: too long, a drive, a link to elsewhere, or a dot-name in /.
	if len(p) > MaxPathBytes || len(p) >= 3 && p[2] == ':' || needsFullTest(p) {
		return unevaluable(p) == "" && path.Clean(p) == p
	}
	// Track the current segment from its start: "", "." and ".." segments
	// (and so "//", a trailing "/", "/./", "/../") are what Clean would
	// change.
	seg := 1
	for i := 1; i < len(p); i++ {
		switch pathBytes[p[i]] {
		case pathByte:
			continue
		case pathOther: // rare: let the full test decide
			return unevaluable(p) == "" && path.Clean(p) == p
		}
		if !cleanSegment(p[seg:i]) {
			return false
		}
		seg = i + 1
	}
	return cleanSegment(p[seg:])
}

// needsFullTest reports an absolute path whose start Unevaluable reads
// specially (see procLink, underFold, darwinAnchor): cleanAbs's shortcut
// would not see it. Only a first name starting with one of their letters
// is compared.
func needsFullTest(p string) bool {
	switch p[1] {
	case 'p':
		return strings.HasPrefix(p, "/proc/")
	case 'd':
		return strings.HasPrefix(p, "/dev/")
	case 's', 'S':
		return len(p) >= 8 && strings.EqualFold(p[:8], "/system/")
	case 'v', 'V':
		return len(p) >= 9 && strings.EqualFold(p[:9], "/volumes/")
	case '.':
		return true
	}
	return false
}

// cleanSegment reports whether one name of a path is one Clean keeps.
func cleanSegment(s string) bool { return s != "" && s != "." && s != ".." }

// The classes of pathBytes.
const (
	pathByte  = iota // evaluable anywhere in a name (evaluableByte)
	pathSlash        // "/"
	pathOther        // anything the full test must look at
)

// pathBytes is each byte's class, for cleanAbs.
var pathBytes = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c == '/':
			t[c] = pathSlash
		case !evaluableByte(byte(c)):
			t[c] = pathOther
		}
	}
	return t
}()

// Ancestors returns clean absolute p and every directory above it, nearest
// first, ending with "/".
func Ancestors(p string) []string {
	p = clean(p)
	out := []string{p}
	for p != "/" && p != "." {
		p = Parent(p)
		out = append(out, p)
	}
	return out
}

// clean is path.Clean, skipping the work for a path that already is.
func clean(p string) string {
	if cleanAbs(p) {
		return p
	}
	return path.Clean(p)
}

// Parent is path.Dir of a clean path, without cleaning it again.
func Parent(p string) string {
	switch i := strings.LastIndexByte(p, '/'); i {
	case -1:
		return "."
	case 0:
		return "/"
	default:
		return p[:i]
	}
}

// CommonDir is the deepest directory that contains every path's parent
// directory: the honest scope of an "always" answer. The paths must be clean
// and absolute; the answer can be as wide as "/". It returns "" for no paths.
func CommonDir(paths []string) string { return Scope(paths, nil, "") }

// Scope is CommonDir where a path that is a directory the call acts
// on (dirs[i], or the root itself) counts as its own scope rather than its
// parent's: the suggestion for listing /srv/docs is /srv/docs.
//
// The containment here is lexical only: the directories compared are
// parents of evaluable paths, and a parent need not be evaluable itself
// ("/srv/a /x" is, its parent "/srv/a " is not). The scope found is then
// widened to the nearest directory that is, since it becomes a grant's
// "under". Both steps end at "/" at the latest.
func Scope(paths []string, dirs []bool, root string) string {
	common := ""
	for i, p := range paths {
		p = clean(p)
		dir := Parent(p)
		if i < len(dirs) && dirs[i] || p == root {
			dir = p
		}
		if i == 0 {
			common = dir
			continue
		}
		for !ContainsClean(common, dir) && common != "/" && common != "." {
			common = path.Dir(common)
		}
	}
	for common != "" && common != "/" && common != "." && Unevaluable(common) != "" {
		common = path.Dir(common)
	}
	return common
}

// ContainsClean is the lexical containment test on paths already clean and
// absolute (AbsClean), and for a folded comparison already folded: p is dir
// or below it.
func ContainsClean(dir, p string) bool {
	return dir == "/" || p == dir || len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir
}
