package argread

import (
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

// The value recognisers: what a string reads as by its shape alone, each a
// pure function of the string with a table test (values_test.go).

// looksLikePath reports a string that reads as a local path wherever it
// is: absolute, a "~" path, a file: URI, a Windows drive or UNC path, or
// one with a ".." name in it. A block comment ("/* ... */ SELECT 1") is
// none: it starts as a glob would, and no server opens it.
// readsAsXPath reports an XPath expression (a browser tool's locator,
// "//button[@type='submit']", "//a/@href", "//div[contains(., 'x')]"):
// an attribute test, an axis or a function, which no file's path has, and
// a first step that names an element ("button", "*"), not a host. One
// that, read as a glob, names a floor file ("//etc/shado[@w]") is not.
func readsAsXPath(s string) bool {
	if !xpathStep.MatchString(s) {
		return false
	}
	first := strings.TrimLeft(s, "/")
	if end := strings.IndexAny(first, "/["); end >= 0 {
		first = first[:end]
	}
	return !strings.ContainsAny(first, ".:@") && !globNamesFloor(s)
}

// xpathStep finds what only XPath has: an attribute test ("[@type=",
// "[@disabled]"), an attribute step ("/@href"), an axis ("::"), a
// function in a predicate.
var xpathStep = regexp.MustCompile(`\[@[A-Za-z_][\w.-]*\s*(=|\])|/@[A-Za-z_]|::|\[(contains|starts-with|normalize-space|text|position|last)\(`)

func looksLikePath(s string) bool {
	if s == "" {
		return false
	}
	switch c := s[0]; {
	case strings.HasPrefix(s, "/*") && strings.Contains(s[2:], "*/"):
		return false
	case c == '/' && readsAsXPath(s):
		return false
	case c == '~' && len(s) > 1 && s[1] >= '0' && s[1] <= '9' && !strings.ContainsAny(s, "/\\"):
		return false // an estimate ("~3h", "~2.5k"): no user's name starts with a digit
	case c == '/' || c == '~' || c == '\\':
		return true
	case fileInScheme(s):
		return true
	case lexical.IsFileURI(s):
		return true
	case len(s) >= 3 && s[1] == ':' && (s[2] == '/' || s[2] == '\\') && (c|0x20 >= 'a' && c|0x20 <= 'z'):
		return true
	}
	for i := strings.Index(s, ".."); i >= 0; {
		before := i == 0 || s[i-1] == '/' || s[i-1] == '\\'
		after := i+2 == len(s) || s[i+2] == '/' || s[i+2] == '\\'
		if before && after {
			return true
		}
		next := strings.Index(s[i+1:], "..")
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

// looksLikeOption reports a string a command line would read as an option
// naming a path: "--output=/home/u/.bashrc", "-o/x", "--config=~/c", and
// with a relative value that has a "/" in it or is a dot-name,
// "--output=.git/config", "-o.bashrc". A server that passes an argument
// to a program (git's refs, a target name) turns it into a write where the
// policy saw a name. The value is read trimmed, as a shell would unquote
// it; "--verbose", "-v" and "--format=json" are no paths.
func looksLikeOption(s string) bool {
	if len(s) < 3 || s[0] != '-' {
		return false
	}
	var value string
	relative := true // a relative value counts: "--x=v", or "-xv" with a letter x
	switch i := strings.IndexByte(s, '='); {
	case i > 0:
		value = s[i+1:]
	case s[1] != '-':
		value, relative = s[2:], isASCIILetter(s[1])
	default:
		return false
	}
	value = trimReading(value)
	if looksLikePath(value) || looksLikeURL(value) || readsAsURL(value) {
		return true
	}
	return relative && (strings.ContainsAny(value, "/\\") || strings.HasPrefix(value, "."))
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// trimReading is s as a server that trims its arguments might read it:
// without the white space, control characters, format characters (the
// BOM, zero widths, direction marks) and quotes at its ends, as many as
// there are and each end on its own. A server may strip one pair of
// quotes, or every quote character at each end, or only the ones at its
// start; taking all of them off reads what the most eager of them reads
// ("'/x\"", "”/x”" and "„/x" are all /x).
func trimReading(s string) string {
	if s == "" || !edgeByte(s[0]) && !edgeByte(s[len(s)-1]) {
		return s // the common case: nothing a server would trim
	}
	return strings.TrimFunc(s, func(r rune) bool { return trimmable(r) || quoteRunes[r] })
}

// quoteRunes are the quotes trimReading takes off: ASCII's, the angle
// brackets around a URL, and the typographic, CJK and full-width quotes.
var quoteRunes = func() map[rune]bool {
	m := map[rune]bool{}
	for _, r := range "\"'`<>\u201c\u201d\u201e\u201f\u2018\u2019\u201a\u201b\u00ab\u00bb\u2039\u203a" +
		"\u300c\u300d\u300e\u300f\u301d\u301e\u301f\uff02\uff07\u275b\u275c\u275d\u275e" {
		m[r] = true
	}
	return m
}()

// edgeByte is a first or last byte that may start something trimReading
// trims.
func edgeByte(c byte) bool {
	return c <= ' ' || c >= 0x7f || c == '"' || c == '\'' || c == '`' || c == '<' || c == '>'
}

func trimmable(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}

// readsAsURL reports a (trimmed) string that reads as a URL other than a
// file URI (a path): a scheme and "://", a special scheme's URL however
// many slashes or backslashes follow its colon ("https:/x", "http:\\x",
// "ws:x", each of which a WHATWG parser repairs to "scheme://x"), or a
// URL without its scheme ("//host/x").
func readsAsURL(s string) bool {
	if lexical.IsFileURI(s) {
		return false
	}
	if len(s) > 5 && strings.EqualFold(s[:5], "jdbc:") {
		return true // a driver's connection string: "jdbc:oracle:thin:@10.0.0.5:1521:orcl"
	}
	if looksLikeURL(s) || specialSchemeURL(s) {
		return true
	}
	// A scheme-relative URL ("//host/x", a share's "\\host"), but not an XPath
	// expression ("//button[@type='submit']").
	return len(s) > 2 && (s[0] == '/' || s[0] == '\\') && (s[1] == '/' || s[1] == '\\') && s[2] != '/' && s[2] != '\\' && !readsAsXPath(s)
}

// specialSchemeURL reports a string that starts with http:, https:, ws:,
// wss: or ftp: (any case; the tabs and newlines a WHATWG parser removes
// from anywhere ignored) and names something after the slashes.
func specialSchemeURL(s string) bool {
	var scheme [5]byte
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\t' || c == '\n' || c == '\r':
		case c == ':':
			switch string(scheme[:n]) {
			case "http", "https", "ws", "wss", "ftp":
			default:
				return false
			}
			for i++; i < len(s); i++ {
				if c := s[i]; c != '/' && c != '\\' && c != '\t' && c != '\n' && c != '\r' {
					return true
				}
			}
			return false
		case (c|0x20 >= 'a' && c|0x20 <= 'z') && n < len(scheme):
			scheme[n] = c | 0x20
			n++
		default:
			return false
		}
	}
	return false
}

// webURL reports a value that starts as an http(s) URL does, its scheme
// and "//" as written.
func webURL(s string) bool {
	return hasPrefixFold(s, "http://") || hasPrefixFold(s, "https://")
}

// startsWithScheme reports a string that starts with a URL scheme and its
// colon ("https:", "mailto:", "s3:").
func startsWithScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c|0x20 >= 'a' && c|0x20 <= 'z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return true
		default:
			return false
		}
	}
	return false
}

// looksLikeURL reports a string that starts with a scheme, or a chain of
// them ("jdbc:mysql", "jar:http"), and "//".
func looksLikeURL(s string) bool {
	_, _, ok := cutSchemes(s)
	return ok
}

// cutSchemes splits a URL whose scheme is one or a chain of them, as
// drivers and archives nest URLs ("https://x", "git+ssh://x",
// "jdbc:mysql://x", "jar:http://x!/y"): last is the scheme just before
// "://", rest what follows it.
func cutSchemes(s string) (last, rest string, ok bool) {
	start := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isASCIILetter(c):
		case i > start && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > start && c == ':':
			if strings.HasPrefix(s[i:], "://") {
				return strings.ToLower(s[start:i]), s[i+3:], true
			}
			start = i + 1 // another scheme follows: "jdbc:mysql://"
		default:
			return "", "", false
		}
	}
	return "", "", false
}

// fileInScheme reports a URL that names a local file whatever wraps it: a
// chain of schemes with file in it ("jar:file:///x", "jar:file:/x",
// "git+file:///x"), or a database driver's that opens a file
// ("sqlite:////srv/x.db", "jdbc:sqlite:/x", "jdbc:h2:file:/x").
func fileInScheme(s string) bool {
	if lexical.IsFileURI(s) {
		return false // a path in its own right
	}
	if i := strings.Index(s, "::"); i > 0 && i+2 < len(s) && (lexical.IsFileURI(s[i+2:]) || fileInScheme(s[i+2:])) {
		return true // fsspec's chain: "zip://x::file:///srv/a.zip"
	}
	// The schemes are what comes before the last ":" of the run of scheme
	// characters that starts s ("jdbc:sqlite:secret/app.db" is jdbc and
	// sqlite, its file secret/app.db).
	end := 0
	for end < len(s) && end < 64 {
		c := s[end]
		if !(isASCIILetter(c) || end > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.' || c == ':')) {
			break
		}
		end++
	}
	last := strings.LastIndexByte(s[:end], ':')
	if last <= 0 {
		return false
	}
	for _, part := range strings.FieldsFunc(strings.ToLower(s[:last]), func(r rune) bool { return r == ':' || r == '+' }) {
		if localSchemes[part] {
			return true
		}
	}
	return false
}

// localSchemes are the schemes whose URLs name a local file: file itself,
// and file-backed databases' drivers.
var localSchemes = map[string]bool{"file": true, "sqlite": true, "sqlite3": true, "duckdb": true, "h2": true, "hsqldb": true,
	"derby": true, "ucanaccess": true, "relique": true, "calcite": true,
	// fsspec's and PyFilesystem's local and archive file systems.
	"local": true, "zip": true, "tar": true, "osfs": true}

// urlHost is the host of a URL as the client that fetches it reads it: an
// http or https URL as lexical.URLHost reads it (WHATWG and Go's parser
// agreeing), any other scheme, or chain of them, by its authority after
// "//" ("jdbc:mysql://10.0.0.5/db" is 10.0.0.5, "jar:http://h/x!/y" is h).
// ok is false when the host cannot be read: an authority with white
// space, a backslash or a list of hosts, or an http URL URLHost refuses.
func urlHost(v string) (string, bool) {
	if _, ok := unixSocketPath(v); ok {
		return "", false // a local socket: the path is read (addHost), no host is
	}
	if h, ok := lexical.URLHost(v); ok {
		return h, true
	}
	last, rest, ok := cutSchemes(v)
	if !ok {
		return "", false
	}
	if scheme := strings.ToLower(v[:len(v)-len(rest)-3]); last == "file" || scheme == "http" || scheme == "https" {
		return "", false // an http URL URLHost refused: no second reading here
	}
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	if strings.ContainsFunc(authority, func(r rune) bool { return r == '\\' || trimmable(r) }) {
		return "", false
	}
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		authority = authority[i+1:]
	}
	return lexical.HostOf(authority)
}

// unixSocketPath is the local socket a URL connects to, in the forms HTTP
// libraries take one: npm's request and got "http://unix:/var/run/docker.sock:/path",
// requests-unixsocket's "http+unix://%2Fvar%2Frun%2Fdocker.sock/path", and
// Docker's "unix:///var/run/docker.sock" or "unix:/path". "" with ok when
// the socket's path cannot be told.
func unixSocketPath(v string) (string, bool) {
	r := trimReading(v)
	for _, prefix := range []string{"http://unix:", "https://unix:"} {
		if hasPrefixFold(r, prefix) {
			rest := r[len(prefix):]
			sock, _, _ := strings.Cut(rest, ":")
			return sock, true
		}
	}
	scheme, rest, ok := strings.Cut(r, ":")
	if !ok || !slices.Contains(strings.Split(strings.ToLower(scheme), "+"), "unix") {
		return "", false
	}
	if after, ok := strings.CutPrefix(rest, "//"); ok {
		rest = after
		if !strings.HasPrefix(rest, "/") {
			// The socket's path percent-encoded as the authority.
			enc, _, _ := strings.Cut(rest, "/")
			sock, err := url.PathUnescape(enc)
			if err != nil || !strings.HasPrefix(sock, "/") {
				return "", true
			}
			return sock, true
		}
	}
	return rest, true
}

// readsAsLocalName reports a (trimmed) value that reads as a local file or
// directory's name where a name holds one as often as something else
// ("destination", "target"): a path by its shape, an option, anything
// with a "/" or "\", a name with a file's extension, or one word. Prose
// ("Munich Airport", "Marienplatz, Munich") and numbers ("48.13,11.58")
// are not.
func readsAsLocalName(r string) bool {
	switch {
	case r == "":
		return false
	case looksLikePath(r) || looksLikeOption(r) || strings.ContainsAny(r, "/\\"):
		return true
	case strings.Contains(r, "@") && isUserAtHost(r):
		return false // an e-mail address or ssh's destination, not a file's name
	case hasExtension(r):
		return true
	case strings.ContainsFunc(r, unicode.IsSpace) || strings.ContainsRune(r, ','):
		return false
	case isNumber(r):
		return false
	}
	return true
}

// isNumber reports a decimal number ("12", "-1.5", "1e5").
func isNumber(r string) bool {
	if r == "" || !(r[0] >= '0' && r[0] <= '9' || r[0] == '-' || r[0] == '+' || r[0] == '.') {
		return false
	}
	_, err := strconv.ParseFloat(r, 64)
	return err == nil
}

// hasExtension reports a name that ends in a file's extension: a "." after
// something, then one to ten letters or digits, a letter among them
// ("report final.pdf", "a.tar.gz"; not "1.5", "Dr. Smith").
func hasExtension(r string) bool {
	i := strings.LastIndexByte(r, '.')
	if i <= 0 || len(r)-i-1 < 1 || len(r)-i-1 > 10 {
		return false
	}
	letter := false
	for _, c := range []byte(r[i+1:]) {
		switch {
		case isASCIILetter(c):
			letter = true
		case c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letter
}

// readsAsAddress reports a (trimmed) value under a path's name that a
// client would connect to rather than open: an IP address in any spelling
// ("169.254.169.254", "0251.0376.0251.0376", "::ffff:a9fe:a9fe"), one
// written short ("127.1"), localhost, or an address with a path after it
// ("169.254.169.254/latest"). The host, "" when it cannot be read.
func readsAsAddress(r string) (string, bool) { return readAddress(r, true) }

// readsAsIPAddress is readsAsAddress for a value no name says anything of:
// an address written in full, localhost, or 0.0.0.0 written short with a
// path after it; a number or a short form alone is a number there.
func readsAsIPAddress(r string) (string, bool) { return readAddress(r, false) }

func readAddress(r string, short bool) (string, bool) {
	r = asciiAddress(r)
	authority, withPath := schemelessHost(r)
	if !withPath {
		authority = r
	}
	if len(authority) >= 9 && strings.EqualFold(authority[:9], "localhost") {
		if h, ok := lexical.HostOf(authority); ok && h == "localhost" {
			return h, true // "localhost", "localhost:8080", "localhost:5000/x"
		}
		return "", false
	}
	if authority == "" || !mayBeAddress(authority[0]) {
		return "", false // the common case: a name, read without parsing it
	}
	switch {
	case readsAsIP(authority):
		h, _ := lexical.HostOf(authority) // "" for one the host reader refuses
		return h, true
	case isZeros(authority) && (short || withPath):
		return "0.0.0.0", true // "0", "0:8080": this machine, to ping and connect
	case isNumericHost(authority) && withPath:
		h, _ := lexical.HostOf(authority) // "127.1/x": a URL without its scheme, read as a URL's host is
		return h, true
	case isNumericHost(authority) && short:
		return "", true // "127.1" alone: an address to a resolver, a number to a person
	}
	return "", false
}

// isZeros reports 0.0.0.0 written short ("0", "0.0", "0.0.0", "0:8080"),
// which resolvers, ping and connect read as this machine.
func isZeros(r string) bool {
	if i := strings.LastIndexByte(r, ':'); i > 0 && isPort(r[i:]) {
		r = r[:i]
	}
	return r != "" && strings.Trim(r, "0.") == "" && r[0] == '0' && !strings.Contains(r, "..") && strings.Count(r, ".") <= 3
}

// readsAsIPOrLocal reports a host (canonical) that is an IP address or
// localhost.
func readsAsIPOrLocal(h string) bool {
	return h == "localhost" || readsAsIP(strings.Trim(h, "[]"))
}

// userHost is the host of ssh's destination "user@host" (no path, no
// port): the name after the last "@", with no "/", "\", ":" or white
// space in it and a user before it.
func userHost(r string) (string, bool) {
	i := strings.LastIndexByte(r, '@')
	if i <= 0 || strings.ContainsAny(r[:i], "/\\ \t") || strings.ContainsAny(r[i+1:], "/\\:@ \t") {
		return "", false
	}
	if !readsAsHost(r[i+1:]) {
		return "", false
	}
	return lexical.HostOf(r[i+1:])
}

// mayBeAddress reports a first byte an IP address may start with, in any
// of its spellings: a digit, a hex letter, a bracket or a colon.
func mayBeAddress(c byte) bool {
	return c >= '0' && c <= '9' || c == '[' || c == ':' || c|0x20 >= 'a' && c|0x20 <= 'f'
}

// isNumericHost reports a (trimmed) value the host reader accepts as an
// IPv4 address written short or as one number, in a form a person rarely
// writes for anything else: one number from 2^24 up ("2130706433"), a
// part in octal or hex ("0177.1", "0x7f.1"), or two or three parts the
// first of which is 10 or more ("127.1", "169.254.43518"). "1", "12345",
// "1.5" and "1.2.3" (an index, a ZIP code, versions) are no such form.
func isNumericHost(r string) bool {
	if r == "" {
		return false
	}
	if _, ok := lexical.HostOf(r); !ok && lexical.LenientHosts(r) == nil {
		return false // no host ("0177.1", which is two, is one: unknown)
	}
	h := r
	if i := strings.LastIndexByte(h, ':'); i >= 0 && isPort(h[i:]) {
		h = h[:i]
	}
	parts := strings.Split(strings.TrimSuffix(h, "."), ".")
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789abcdefxABCDEFX") != "" {
			return false // a name, not a number
		}
		if len(p) > 1 && p[0] == '0' {
			return true // octal or hex
		}
	}
	first, err := strconv.ParseUint(parts[0], 10, 64)
	if err != nil {
		return false
	}
	if len(parts) == 1 {
		return first >= 1<<24
	}
	return first >= 10
}

// readsAsIP reports a (trimmed) value that is an IP address as people
// write one: four dotted parts, each decimal, octal or hex (the spellings
// a URL's host may have), or an IPv6 address (bare, with a zone, or in
// brackets), with a port or without. A number or a shorter dotted form
// ("12345", "1.5", "0x0") is not: ZIP codes, versions and amounts are no
// addresses here.
func readsAsIP(s string) bool {
	if s == "" {
		return false
	}
	if c := s[0]; !(c >= '0' && c <= '9' || c == '[' || c == ':' || c|0x20 >= 'a' && c|0x20 <= 'f') {
		return false // the common case: a word
	}
	h := s
	if h[0] == '[' {
		end := strings.IndexByte(h, ']')
		if end < 0 || !isPort(h[end+1:]) {
			return false
		}
		return isIPv6(h[1:end])
	}
	if strings.Count(h, ":") >= 2 {
		return isIPv6(h)
	}
	if i := strings.LastIndexByte(h, ':'); i >= 0 {
		if !isPort(h[i:]) {
			return false
		}
		h = h[:i]
	}
	h = strings.TrimSuffix(h, ".")
	parts := 0
	for part := range strings.SplitSeq(h, ".") {
		parts++
		digits := part
		if len(part) > 1 && part[0] == '0' && part[1]|0x20 == 'x' {
			digits = part[2:]
			for i := 0; i < len(digits); i++ {
				if !isHexDigit(digits[i]) {
					return false
				}
			}
			continue
		}
		if digits == "" || strings.Trim(digits, "0123456789") != "" {
			return false
		}
	}
	return parts == 4
}

func isHexDigit(c byte) bool { return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f' }

// isPort reports "" or ":" and a port's digits.
func isPort(s string) bool {
	if s == "" {
		return true
	}
	return len(s) >= 2 && len(s) <= 6 && s[0] == ':' && strings.Trim(s[1:], "0123456789") == ""
}

// isIPv6 reports an IPv6 address, a zone ("%eth0") allowed.
func isIPv6(s string) bool {
	if i := strings.IndexByte(s, '%'); i >= 0 {
		s = s[:i]
	}
	addr, err := netip.ParseAddr(s)
	return err == nil && addr.Is6()
}

// readsAsHost reports a value that reads as one host: a name or address
// HostOf accepts that is not a number ("12345", a ZIP code, is not the
// address 0.0.48.57 here, nor "1.5", a version, 1.0.0.5), unless it is an
// address in four parts.
func readsAsHost(s string) bool {
	if _, ok := lexical.HostOf(s); !ok {
		return false
	}
	if strings.Trim(s, "0123456789.") != "" {
		return true
	}
	return strings.Count(strings.TrimSuffix(s, "."), ".") == 3
}

// unsetNames is s with each "$name" a shell would expand (a name, a digit
// or one of its special parameters) taken out, as it reads when they are
// unset: "posts.$slug.tsx" is "posts..tsx", "/srv/secret$x/key" is
// "/srv/secret/key". A "$" that starts s, or opens "${", "$(" and the like,
// makes a path unknown (lexical.Unevaluable) and is left as it is.
func unsetNames(s string) string {
	i := strings.IndexByte(s, '$')
	if i <= 0 {
		return s
	}
	var b strings.Builder
	for i >= 0 {
		b.WriteString(s[:i])
		rest := s[i+1:]
		n := 0
		switch {
		case rest == "":
		case rest[0] == '_' || isASCIILetter(rest[0]):
			for n < len(rest) && (rest[n] == '_' || isASCIILetter(rest[n]) || rest[n] >= '0' && rest[n] <= '9') {
				n++
			}
		case strings.IndexByte("0123456789#@*?-$!", rest[0]) >= 0:
			n = 1
		}
		if n == 0 {
			b.WriteByte('$') // a "$" no shell expands: itself
		}
		s = rest[n:]
		i = strings.IndexByte(s, '$')
	}
	b.WriteString(s)
	return b.String()
}

// schemelessURL is the host of a URL written without its scheme, as an
// address bar completes one: a host with a dot, localhost or an address,
// a port or not, then a path, query or fragment or nothing
// ("example.com/pricing", "localhost:3000/login"); "" for anything else.
func schemelessURL(v string) string {
	if strings.Contains(v, "://") || v != trimReading(v) || looksLikePath(v) {
		return ""
	}
	authority := v
	if i := strings.IndexAny(v, "/?#"); i >= 0 {
		authority = v[:i]
	}
	h, ok := lexical.HostOf(authority)
	if !ok || !strings.ContainsAny(h, ".[") && h != "localhost" || strings.Contains(authority, "@") {
		return ""
	}
	host, ok := urlHost("http://" + v)
	if !ok {
		return ""
	}
	return host
}

func isUserAtHost(r string) bool { _, ok := userHost(r); return ok }

// maxShellReadings bounds the other spellings shellReadings makes of one
// path: past it the path is unknown.
const maxShellReadings = 64

// shellReadings are the other paths a shell makes of v, for a server that
// hands a path to one: its "$name"s expanded to nothing (unsetNames), its
// quotes removed (".bash”rc" is .bashrc), and each bracket expression one
// of the characters it matches ("secre[st]" is secres or secret; a
// Next.js route's "[id].tsx" is i.tsx or d.tsx, in the same directory). ok
// is false for what it cannot list: a range or a negation in brackets, or
// more than maxShellReadings spellings.
func shellReadings(v string) (out []string, ok bool) {
	if !strings.ContainsAny(v, "$'\"[") {
		return nil, true // the common case
	}
	spellings := []string{v}
	add := func(f func(string) []string) bool {
		var next []string
		for _, sp := range spellings {
			next = append(next, f(sp)...)
			if len(next) > maxShellReadings {
				return false
			}
		}
		spellings = next
		return true
	}
	add(func(sp string) []string { return []string{unsetNames(sp)} })
	add(func(sp string) []string { return []string{strings.NewReplacer("'", "", "\"", "").Replace(sp)} })
	okBrackets := true
	if !add(func(sp string) []string {
		list, ok := bracketSpellings(sp)
		okBrackets = okBrackets && ok
		return list
	}) || !okBrackets {
		return nil, false
	}
	for _, sp := range spellings {
		if sp != v && !slices.Contains(out, sp) {
			out = append(out, sp)
		}
	}
	return out, true
}

// bracketSpellings are s with each bracket expression replaced by each
// character it lists; ok is false for a range ("[a-z]"), a negation
// ("[!x]", "[^x]") or an expression with nothing in it, and for more than
// maxShellReadings spellings.
func bracketSpellings(s string) ([]string, bool) {
	i := strings.IndexByte(s, '[')
	if i < 0 {
		return []string{s}, true
	}
	end := strings.IndexByte(s[i+1:], ']')
	if end < 0 {
		return []string{s}, true // no expression: a "[" is itself
	}
	set := s[i+1 : i+1+end]
	if set == "" || set[0] == '!' || set[0] == '^' || strings.Contains(set, "-") && len(set) > 1 {
		return nil, false
	}
	rest, ok := bracketSpellings(s[i+2+end:])
	if !ok {
		return nil, false
	}
	var out []string
	for _, r := range set {
		for _, tail := range rest {
			out = append(out, s[:i]+string(r)+tail)
			if len(out) > maxShellReadings {
				return nil, false
			}
		}
	}
	return out, true
}

// sqlFiles are the files a SQL statement may open or write by name: when
// it has a word that opens a file (ATTACH, VACUUM INTO, INTO OUTFILE or
// DUMPFILE, INFILE, COPY, LOAD, INSTALL, EXPORT DATABASE, a TABLESPACE's
// LOCATION, a foreign table's filename, DuckDB's FROM 'file.csv', and the
// file functions of SQLite, MySQL, DuckDB and PostgreSQL: load_extension,
// load_file, readfile, zipfile, read_csv, glob, pg_read_file,
// pg_file_write, lo_export...), every literal in it, however it is
// written ('...', "...", `...`, [...], E'...', x'2f...', 0x2f...,
// $tag$...$tag$). A statement that runs a program (COPY ... PROGRAM) names
// an unknown one (""). A statement with none of those words names no file
// ("WHERE path = '/etc'" is data).
//
// A statement without those words that hands a literal to a function or
// puts one where a table goes (another dialect's file function: ClickHouse's
// url() and file(), SQLite's fsdir(), SQL Server's OPENROWSET, DuckDB's
// "FROM t, 'x.csv'") names the literals that read as files or URLs: a
// path, a URL, a name with a "/" or a file's extension. "date_trunc('day',
// x)" names none.
func sqlFiles(s string) []string {
	if len(s) > maxSQLText || !strings.ContainsAny(s, "'\"`[$xX") {
		return nil // a literal needs one of those: most text is read without the expression
	}
	// PostgreSQL's U&"..." identifiers decoded (U&"pg_read\\005ffile" is
	// pg_read_file), so that the function words are seen.
	bare := unicodeIdentifiers(stripSQLComments(s))
	every := sqlFileWords.MatchString(bare)
	hands, lists := sqlHandsLiteral(bare)
	if !every && !hands && !lists {
		return nil
	}
	if !every && !hands {
		// Only rows and lists: their literals are data, but for one that
		// names a floor file, which data never hides (namesFloorInData).
		var out []string
		for _, lit := range sqlLiterals(s) {
			if r := trimReading(lit); namesFloorInData(r) && len(out) < maxShellReadings {
				out = append(out, lit)
			}
		}
		return out
	}
	var out []string
	if sqlProgram.MatchString(bare) {
		out = append(out, "")
	}
	for _, lit := range sqlLiterals(s) {
		if len(out) >= maxShellReadings {
			break
		}
		if every || readsAsSQLFile(lit) {
			out = append(out, lit)
		}
	}
	return out
}

// sqlHandsLiteral reports SQL that hands a literal to a function, or puts
// one where a table would be (sqlLiteralArgument): hands; and lists, that
// it has literals in a row of VALUES or an IN list, which are data, not a
// function's argument ('image/png' in an INSERT).
func sqlHandsLiteral(bare string) (hands, lists bool) {
	for _, m := range sqlLiteralArgument.FindAllStringIndex(bare, maxShellReadings) {
		head := bare[:m[0]+1]
		if open := strings.IndexByte(bare[m[0]:m[1]], '('); open >= 0 {
			head = bare[:m[0]+open]
		}
		head = strings.TrimRight(head, " \t\r\n")
		word := head[strings.LastIndexFunc(head, func(r rune) bool { return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) })+1:]
		if w := strings.ToLower(word); w != "values" && w != "in" && w != "row" {
			return true, lists
		}
		lists = true
	}
	return false, lists
}

// unicodeIdent finds PostgreSQL's Unicode-escaped identifiers.
var unicodeIdent = regexp.MustCompile(`(?i)U&"((?:[^"]|"")*)"`)

// unicodeIdentifiers is s with each U&"..." identifier written as the
// word it spells (\XXXX and \+XXXXXX escapes decoded; a UESCAPE clause's
// other escape character is not known here, so such an identifier is left
// as it is, and reads as no word).
func unicodeIdentifiers(s string) string {
	if !strings.Contains(s, "&\"") {
		return s
	}
	return unicodeIdent.ReplaceAllStringFunc(s, func(m string) string {
		body := m[3 : len(m)-1] // between U&" and the closing "
		var b strings.Builder
		for i := 0; i < len(body); i++ {
			switch {
			case body[i] == '\\' && i+5 <= len(body) && isHex(body[i+1:i+5]):
				n, _ := strconv.ParseUint(body[i+1:i+5], 16, 32)
				b.WriteRune(rune(n))
				i += 4
			case body[i] == '\\' && i+8 <= len(body) && body[i+1] == '+' && isHex(body[i+2:i+8]):
				n, _ := strconv.ParseUint(body[i+2:i+8], 16, 32)
				b.WriteRune(rune(n))
				i += 7
			default:
				b.WriteByte(body[i])
			}
		}
		return " " + b.String() + " "
	})
}

func isHex(s string) bool {
	for i := range len(s) {
		if !isHexDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// readsAsSQLFile reports a literal that reads as a file or a URL.
func readsAsSQLFile(lit string) bool {
	r := trimReading(lit)
	return r != "" && (looksLikePath(r) || readsAsURL(r) || strings.ContainsAny(r, "/\\") ||
		hasExtension(r) && !strings.ContainsFunc(r, unicode.IsSpace))
}

// stripSQLComments is s with its comments ("-- ..." to the line's end,
// "/* ... */") made spaces, its literals left as they are: "FROM /* x */
// 'f.csv'" reads as "FROM 'f.csv'".
func stripSQLComments(s string) string {
	if !strings.Contains(s, "--") && !strings.Contains(s, "/*") {
		return s
	}
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\'' || c == '"' || c == '`':
			if end := strings.IndexByte(s[i+1:], c); end >= 0 {
				i += end + 1
			} else {
				i = len(b)
			}
		case c == '-' && i+1 < len(b) && b[i+1] == '-':
			for i < len(b) && b[i] != '\n' {
				b[i] = ' '
				i++
			}
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			stop := len(b)
			if end >= 0 {
				stop = i + 2 + end + 2
			}
			for ; i < stop; i++ {
				b[i] = ' '
			}
			i--
		}
	}
	return string(b)
}

// sqlNames are the argument names (folded) that hold SQL whatever it
// starts with.
var sqlNames = keySet("sql", "sqlquery", "sqlstatement", "sqlstatements", "statement", "statements", "stmt", "query",
	"queries", "sqltext", "sqlcommand", "rawsql", "querytext", "querystring", "rawquery", "sqlscript")

// isSQLName reports a name (folded) that holds SQL: a listed one, or one
// ending in "sql", "statement" or "stmt" ("duckdb_sql", "insertStatement").
func isSQLName(name string) bool {
	return sqlNames[name] || strings.HasSuffix(name, "sql") || strings.HasSuffix(name, "statement") ||
		strings.HasSuffix(name, "statements") || strings.HasSuffix(name, "stmt")
}

// readsAsSQL reports text that starts as a SQL statement does, after white
// space, comments ("-- ...", "/* ... */") and opening parentheses: with a
// statement's first keyword. Text that starts otherwise is not run as SQL
// by any database (its first statement fails to parse, and the script
// with it), so its quoted strings open no file.
func readsAsSQL(s string) bool {
	for {
		s = strings.TrimLeft(s, " \t\r\n\f(;")
		switch {
		case strings.HasPrefix(s, "--"):
			_, rest, ok := strings.Cut(s, "\n")
			if !ok {
				return false
			}
			s = rest
			continue
		case strings.HasPrefix(s, "/*"):
			_, rest, ok := strings.Cut(s[2:], "*/")
			if !ok {
				return false
			}
			s = rest
			continue
		}
		break
	}
	end := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && r != '_' })
	if end < 0 {
		end = len(s)
	}
	return sqlStatementWords[strings.ToLower(s[:end])] || sqlQualifiedStart.MatchString(s)
}

// sqlStatementWords are the keywords that start a SQL statement that may
// open a file, or run one that does (SQLite, PostgreSQL, MySQL, DuckDB,
// SQL Server's BACKUP and RESTORE). Words prose and code start with more
// often than SQL does ("Show", "Get", "Set", "Call") are left out; IMPORT
// and EXPORT count before DATABASE only, and DuckDB's FROM-first form
// before a quote, a parenthesis or a function: "import x from 'y'" and
// Python's "from os import path" are code.
var sqlStatementWords = keySet("select", "with", "insert", "update", "delete", "replace", "merge", "upsert", "create", "drop",
	"alter", "attach", "copy", "load", "install", "vacuum", "pragma", "explain", "analyze", "begin", "execute", "exec",
	"prepare", "backup", "restore", "pivot", "unpivot", "summarize", "describe")

var sqlQualifiedStart = regexp.MustCompile(`(?i)^(?:(?:import|export)\s+database\b|from\s*(?:['"(]|\w+\s*\()|set\s+\w+\s*(?:=|to\b))`)

// maxSQLText bounds the text read as SQL: a statement, not a file's
// contents.
const maxSQLText = 64 << 10

var (
	sqlFileWords = regexp.MustCompile(`(?i)\b(?:attach|vacuum|outfile|dumpfile|infile|copy|load|install|export\s+database|` +
		`tablespace|filename|load_extension|load_file|readfile|writefile|zipfile|read_\w+|parquet_scan|glob|sniff_csv|` +
		`sqlite_scan|st_read|pg_read_file|pg_read_binary_file|pg_stat_file|pg_ls_dir|pg_file_write|lo_import|lo_export|` +
		`\w+_scan|\w+_metadata|import\s+database|openrowset|bulk|fsdir|httpfs|\w+_file|secure_file_priv|datadir|plugin_dir|` +
		`create\s+directory|syscs_util\.syscs_\w+)\b|` +
		`\b(?:from|join)\s*[('"]|\b(?:url|file|remote|s3|hdfs|gcs|azureblobstorage|input)\s*\(|\b(?:summarize|describe|show|pivot|unpivot)\s*['"(]`)
	// sqlLiteralArgument: a literal handed to a function, or where a
	// table goes in a FROM list.
	sqlLiteralArgument = regexp.MustCompile(`(?i)\w\s*\(\s*(?:[ex]\s*)?['"$]|\bfrom\b[^;]*,\s*['"]`)
	sqlProgram         = regexp.MustCompile(`(?i)\bprogram\s*(?:[eEbBxXnN]|[uU]&)?['"$:]`)
)

// sqlLiterals are the string literals of a SQL text, decoded: quoted with
// ' (doubled to escape, E” and U&” alike), " or ` or [ ] (identifiers
// that SQLite also takes for strings), written in hex (x'2f...',
// 0x2f...), or dollar-quoted ($$...$$, $tag$...$tag$).
func sqlLiterals(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'' || c == '"' || c == '`':
			end := i + 1
			var b strings.Builder
			escaped := c == '\'' && prefixedLiteral(s, i, "e")
			for end < len(s) {
				if escaped && s[end] == '\\' && end+1 < len(s) {
					b.WriteString(s[end : end+2]) // E'\'': the quote is the text's
					end += 2
					continue
				}
				if s[end] == c {
					if end+1 < len(s) && s[end+1] == c {
						b.WriteByte(c)
						end += 2
						continue
					}
					break
				}
				b.WriteByte(s[end])
				end++
			}
			lit := b.String()
			switch {
			case c == '\'' && prefixedLiteral(s, i, "x"):
				lit = hexText(lit)
			case escaped:
				lit = cEscapes(lit) // E'\x2fetc': PostgreSQL's escapes
			case c == '\'' && prefixedLiteral(s, i, "u&"):
				lit = unicodeEscapes(lit) // U&'\002fetc'
			}
			if c == '\'' && len(out) > 0 && continuesLiteral(s, i) {
				// 'a'<newline>'b' is one literal 'ab' (SQL's, PostgreSQL's):
				// the part after the newline joins the one before.
				out[len(out)-1] += lit
				i = end
				continue
			}
			out = append(out, lit)
			i = end
		case c == '[':
			if end := strings.IndexByte(s[i+1:], ']'); end >= 0 && !strings.ContainsAny(s[i+1:i+1+end], "'\"") {
				out = append(out, s[i+1:i+1+end])
				i += 1 + end
			}
		case c == '0' && i+1 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X') && (i == 0 || !isWordByte(s[i-1])):
			end := i + 2
			for end < len(s) && isHexDigit(s[end]) {
				end++
			}
			if end > i+2 {
				out = append(out, hexText(s[i+2:end]))
			}
			i = end - 1
		case c == '$':
			end := strings.IndexByte(s[i+1:], '$')
			if end < 0 || strings.ContainsFunc(s[i+1:i+1+end], func(r rune) bool { return !unicode.IsLetter(r) && r != '_' }) {
				continue
			}
			tag := s[i : i+2+end]
			body := s[i+len(tag):]
			if close := strings.Index(body, tag); close >= 0 {
				out = append(out, body[:close])
				i += len(tag) + close + len(tag) - 1
			}
		}
	}
	return out
}

// prefixedLiteral reports a quote at i written after prefix (lower case),
// itself a word of its own: x'2f', E'\n', U&'\002f'.
func prefixedLiteral(s string, i int, prefix string) bool {
	start := i - len(prefix)
	return start >= 0 && strings.EqualFold(s[start:i], prefix) && (start == 0 || !isWordByte(s[start-1]))
}

// cEscapes decodes a PostgreSQL E-quoted literal's backslash escapes: \b \f \n
// \r \t, octal \ooo, hex \xHH, \uXXXX and \UXXXXXXXX; any other escaped
// character is itself.
func cEscapes(lit string) string {
	if !strings.Contains(lit, `\`) {
		return lit
	}
	var b strings.Builder
	for i := 0; i < len(lit); i++ {
		if lit[i] != '\\' || i+1 == len(lit) {
			b.WriteByte(lit[i])
			continue
		}
		i++
		switch c := lit[i]; c {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'x', 'u', 'U':
			digits := 2
			if c == 'u' {
				digits = 4
			} else if c == 'U' {
				digits = 8
			}
			end := i + 1
			for end < len(lit) && end <= i+digits && isHexDigit(lit[end]) {
				end++
			}
			if end == i+1 {
				b.WriteByte(c)
				continue
			}
			v, _ := strconv.ParseUint(lit[i+1:end], 16, 32)
			if c == 'x' {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(rune(v))
			}
			i = end - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			end := i
			for end < len(lit) && end < i+3 && lit[end] >= '0' && lit[end] <= '7' {
				end++
			}
			v, _ := strconv.ParseUint(lit[i:end], 8, 16)
			b.WriteByte(byte(v))
			i = end - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// unicodeEscapes decodes a U&-quoted literal's escapes: \XXXX, \+XXXXXX and \\.
// (A UESCAPE clause's other escape character is not decoded: the literal
// keeps its escapes as written.)
func unicodeEscapes(lit string) string {
	if !strings.Contains(lit, `\`) {
		return lit
	}
	var b strings.Builder
	for i := 0; i < len(lit); i++ {
		if lit[i] != '\\' || i+1 == len(lit) {
			b.WriteByte(lit[i])
			continue
		}
		n, at := 4, i+1
		switch lit[at] {
		case '\\':
			b.WriteByte('\\')
			i++
			continue
		case '+':
			n, at = 6, at+1
		}
		if at+n > len(lit) {
			b.WriteByte(lit[i])
			continue
		}
		v, err := strconv.ParseUint(lit[at:at+n], 16, 32)
		if err != nil {
			b.WriteByte(lit[i])
			continue
		}
		b.WriteRune(rune(v))
		i = at + n - 1
	}
	return b.String()
}

// sqlUnread finds what a SQL statement does that no literal in it says:
// native code loaded or the server's settings changed (load_extension,
// LOAD 'lib', ALTER SYSTEM, a function in C or an untrusted language), the
// environment read (DuckDB's getenv), another server reached by the
// database itself (dblink, a foreign server), the password hashes read
// (pg_authid, mysql.user), and a file function handed a
// name it computes (pg_read_file(chr(47)||'etc/shadow')). Each is the span
// that says so, read as an unknown path.
func sqlUnread(bare string) []string {
	out := sqlRunsCode.FindAllString(bare, maxShellReadings)
	for _, loc := range sqlFileCall.FindAllStringSubmatchIndex(bare, maxShellReadings) {
		name := strings.ToLower(bare[loc[2]:loc[3]])
		at := loc[1]
		if name == "lo_export" {
			comma := strings.IndexByte(bare[at:], ',')
			if comma < 0 {
				continue
			}
			at += comma + 1 // lo_export(oid, 'file')
		}
		if !literalArgument(bare[at:]) {
			end := min(len(bare), at+32)
			out = append(out, bare[loc[0]:end])
		}
	}
	return out
}

// literalArgument reports an argument list's text that starts with one
// literal, written whole: a quote, its text, its close, then "," or ")".
func literalArgument(s string) bool {
	s = strings.TrimLeft(s, " \t\r\n")
	escaped := false
	switch {
	case len(s) > 1 && (s[0] == 'e' || s[0] == 'E') && s[1] == '\'':
		s, escaped = s[1:], true
	case len(s) > 1 && (s[0] == 'x' || s[0] == 'X') && s[1] == '\'':
		s = s[1:]
	case len(s) > 2 && (s[0] == 'u' || s[0] == 'U') && s[1] == '&' && s[2] == '\'':
		s = s[2:]
	}
	if strings.HasPrefix(s, "[") {
		return literalList(s[1:]) // DuckDB's list: ['a.csv', 'b.csv']
	}
	if s == "" || s[0] != '\'' && s[0] != '"' {
		return false
	}
	q := s[0]
	i := 1
	for ; i < len(s); i++ {
		if escaped && s[i] == '\\' {
			i++
			continue
		}
		if s[i] == q {
			if i+1 < len(s) && s[i+1] == q {
				i++
				continue
			}
			break
		}
	}
	if i >= len(s) {
		return false
	}
	rest := strings.TrimLeft(s[i+1:], " \t\r\n")
	return rest != "" && (rest[0] == ',' || rest[0] == ')')
}

// literalList reports a list's text after its "[": literals, commas and
// white space up to its "]", then "," or ")".
func literalList(s string) bool {
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		if s == "" || s[0] != '\'' && s[0] != '"' {
			return false
		}
		end := strings.IndexByte(s[1:], s[0])
		if end < 0 {
			return false
		}
		s = strings.TrimLeft(s[end+2:], " \t\r\n")
		switch {
		case strings.HasPrefix(s, ","):
			s = s[1:]
		case strings.HasPrefix(s, "]"):
			rest := strings.TrimLeft(s[1:], " \t\r\n")
			return rest != "" && (rest[0] == ',' || rest[0] == ')')
		default:
			return false
		}
	}
}

var (
	// sqlRunsCode: code loaded or run by the database, its settings
	// changed, the environment read, another server reached, the password
	// hashes read.
	sqlRunsCode = regexp.MustCompile(`(?i)\bload_extension\s*\(|\bload\s+['"]|\balter\s+system\b|` +
		// a program or a shell run by the server: COPY's and file_fdw's
		// program, SQL Server's xp_cmdshell, MySQL's sys_exec UDFs,
		// ClickHouse's executable(), DuckDB's shellfs
		`\bprogram\s*['"$]|\bxp_cmdshell\b|\bsys_(?:exec|eval)\s*\(|\bexecutable\s*\(|\bshellfs\b|` +
		// code that builds the statement it runs: an anonymous block,
		// dynamic SQL
		`\bdo\s*(?:\$|'|language\b)|\bexecute\s+immediate\b|\bsp_executesql\b|\bexec(?:ute)?\s*\(|` +
		// libraries loaded by a setting, extensions installed from afar
		`\w*preload_libraries\b|\bdynamic_library_path\b|\binstall\s+\w+\s+from\b|` +
		// DuckDB's extensions fetched from a repository a setting names,
		// unsigned ones allowed, and the machine's cloud credentials
		// loaded into the session (for a COPY to an S3 bucket after)
		`\bcustom_extension_repository\b|\ballow_unsigned_extensions\b|\bload_aws_credentials\s*\(|\bcredential_chain\b|` +
		// the server reaching other hosts: a subscription, SQL Server's
		// file procedures on a share, ClickHouse's table functions
		`\bcreate\s+subscription\b|\bxp_(?:dirtree|fileexist|subdirs)\b|\bopenrowset\s*\(\s*'|\bopendatasource\b|` +
		`\b(?:postgresql|mysql|mongodb|redis|remote|remotesecure|cluster|jdbc|odbc|azureblobstorage|deltalake|iceberg|hudi)\s*\(|` +
		// DuckDB's scanners of other databases, and its secrets
		`\b(?:postgres|mysql|sqlite)_(?:scan|attach|query|execute)\w*\s*\(|\bduckdb_secrets\s*\(|\bcurrent_setting\s*\(\s*'[^']*(?:secret|key|token|password)|` +
		`\blanguage\s+['"]?(?:c|internal|plpython\w*|plperlu|pltclu|plsh|plv8u?|pljava\w*|plr)\b|\bgetenv\s*\(|` +
		`\bdblink\w*\s*\(|\bforeign\s+data\s+wrapper\b|\bcreate\s+server\b|\bcreate\s+extension\b|` +
		// the tables of password hashes
		`\bsoname\b|\bpg_authid\b|\bpg_shadow\b|\bpg_user_mappings?\b|\bmysql[\x60"\]]?\s*\.\s*[\x60"\[]?user\b|\bauthentication_string\b|` +
		`\bsql_logins\b|\bsyslogins\b|\bglobal_priv\b|\buser\$|` +
		// the sqlite3 shell's edit(), which runs an editor; SQL Server's
		// OLE automation, external scripts and Agent job steps that run a
		// program
		`\bedit\s*\(|\bsp_oacreate\b|\bsp_execute_external_script\b|\bsubsystem\s*=\s*N?'(?:cmdexec|powershell|ssis)'|` +
		// the server made to reach another server (a FEDERATED table, a
		// replica's source, a linked server) with the credentials given;
		// the roles that let COPY run programs and open files; the tables
		// that keep a replica's password
		`\bengine\s*=\s*federated\b|\bchange\s+(?:master|replication\s+source)\s+to\b|\bsp_addlinkedserver\b|` +
		`\bpg_execute_server_program\b|\bpg_read_server_files\b|\bpg_write_server_files\b|\bslave_master_info\b|` +
		`\breplication_connection_configuration\b`)
	// sqlFileCall: the file functions whose first argument (lo_export's
	// second) is a file's name.
	sqlFileCall = regexp.MustCompile(`(?i)\b(pg_read_file|pg_read_binary_file|pg_stat_file|pg_ls_dir|lo_import|lo_export|` +
		`pg_file_write|pg_write_file|load_file|load_extension|readfile|writefile|read_text|read_blob|read_csv\w*|read_json\w*|` +
		`read_parquet|read_ndjson\w*|fsdir|sqlite_scan)\s*\(`)
)

// continuesLiteral reports a quote at i that, after only white space with
// a newline in it, follows the end of another single-quoted literal: the
// two are one to SQL.
func continuesLiteral(s string, i int) bool {
	newline := false
	for j := i - 1; j >= 0; j-- {
		switch s[j] {
		case '\n':
			newline = true
		case ' ', '\t', '\r':
		case '\'':
			return newline
		default:
			return false
		}
	}
	return false
}

// hexText is the text hex digits spell ("2f657463" is "/etc"), or the
// digits themselves when they spell none.
func hexText(h string) string {
	if len(h)%2 != 0 {
		return h
	}
	b := make([]byte, len(h)/2)
	for i := range b {
		hi, lo := hexValue(h[2*i]), hexValue(h[2*i+1])
		if hi < 0 || lo < 0 {
			return h
		}
		b[i] = byte(hi<<4 | lo)
	}
	return string(b)
}

func hexValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c|0x20 >= 'a' && c|0x20 <= 'f':
		return int(c|0x20-'a') + 10
	}
	return -1
}

func isWordByte(c byte) bool { return isASCIILetter(c) || c >= '0' && c <= '9' || c == '_' }

// asciiAddress is r with the full-width digits, colons and slashes and
// the ideographic and full-width full stops an address may be written in
// made ASCII, as Python's socket layer and WHATWG's URL parser map them
// ("10。0。0。1" is 10.0.0.1).
func asciiAddress(r string) string {
	for i := 0; i < len(r); i++ {
		if r[i] >= utf8.RuneSelf {
			return strings.Map(func(c rune) rune {
				switch {
				case c >= '０' && c <= '９':
					return c - '０' + '0'
				case c == '。' || c == '．' || c == '｡':
					return '.'
				case c == '：':
					return ':'
				case c == '／':
					return '/'
				}
				return c
			}, r)
		}
	}
	return r
}

// readsAsCommandFile reports a command line's word that names a file: a
// path (looksLikePath), an option naming one (looksLikeOption), a relative
// path with a separator ("secret/x.yaml", "pod:/x" is a remote's), or a
// dot name (".bashrc", "./x").
func readsAsCommandFile(r string) bool {
	switch {
	case r == "" || readsAsURL(r):
		return false
	case looksLikePath(r) || looksLikeOption(r):
		return true
	case r[0] == '-':
		// Short options run together ("-uo.bashrc": -u -o .bashrc): a
		// path or a dot name anywhere in the word.
		return !isNumber(r) && (strings.ContainsAny(r, "/\\") || strings.Contains(r[1:], "."))
	case strings.ContainsAny(r, "/\\"):
		return true
	case strings.Contains(r, "="):
		_, value, _ := strings.Cut(r, "=")
		return readsAsCommandFile(value) // dd's "of=.bashrc"
	}
	return r[0] == '.' && len(r) > 1
}

// isBareOption reports an option whose value is the next word ("-f",
// "--file"; not "--file=x", "-", "--").
func isBareOption(r string) bool {
	return len(r) >= 2 && r[0] == '-' && r != "--" && !strings.Contains(r, "=") && !isNumber(r)
}

// hasPrefixFold reports whether s starts with prefix, in any case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// plainGlob is the directory a glob's matches are in, when the glob can
// only match plain files there: its directories literal, no ".." and no
// quoting, and its last name "*.EXT" or
// "PREFIX*.EXT" for an extension of source, text or data files no floor
// or secrets entry has (globExtensions). A glob does not match a name that
// starts with a dot, and nearly every floor file is one or lives in one:
// "src/*.ts", "data/events/*.csv" and "docs/**/*.md" can name none, and
// the directory ("src") is what rules and the floor check. "*.py"
// (sitecustomize.py), "*.json", "*.yml" and "*" stay unknown.
func plainGlob(v string) (string, bool) { return plainGlobOf(v, nil) }

// readGlobExtensions are the extensions a glob may end in when a program
// that only reads takes it (wc -l src/*.py): no secret file is named so,
// and what a write of one could reach (sitecustomize.py) is no read's.
var readGlobExtensions = keySet("py", "pyi")

// readGlob is plainGlob for a program that only reads what it is given.
func readGlob(v string) (string, bool) { return plainGlobOf(v, readGlobExtensions) }

// plainGlobOf is plainGlob, with more extensions allowed.
func plainGlobOf(v string, more map[string]bool) (string, bool) {
	if v == "" || strings.ContainsAny(v, "$`'\"\\~\x00") || !strings.ContainsAny(v, "*?[") {
		return "", false
	}
	dir, last := "", v
	if i := strings.LastIndexByte(v, '/'); i >= 0 {
		dir, last = v[:i], v[i+1:]
	}
	walks := false
	for name := range strings.SplitSeq(dir, "/") {
		if name == "**" {
			walks = true // any depth: the directory's tree (Value.Tree)
			continue
		}
		if name == ".." || strings.ContainsAny(name, "*?[]{}") || len(name) > 1 && name[0] == '.' {
			// A dot directory holds the floor's files by any name
			// (.m2/settings.xml).
			return "", false
		}
	}
	if walks && strings.Count(dir, "**") > 1 {
		return "", false
	}
	if strings.ContainsAny(last, "{}") {
		// "*.{js,ts}": each alternative a plain name.
		for _, alt := range braceVariants(last) {
			if strings.ContainsAny(alt, "{},") || !plainName(alt, more) {
				return "", false
			}
		}
	} else if !plainName(last, more) {
		return "", false
	}
	if walks {
		// "**" walks into dot directories for DuckDB's and other
		// globbers (bash's too, with dotglob): the directory above it is
		// read as a tree, so a home's or /etc's is asked.
		dir = strings.TrimSuffix(strings.TrimSuffix(dir[:strings.Index(dir, "**")], "/"), "/")
	}
	switch {
	case dir == "" && strings.HasPrefix(v, "/"):
		return "/", true
	case dir == "":
		return ".", true
	}
	return dir, true
}

// plainName reports a glob's last name that names no floor file: a
// wildcard before an extension no floor or secrets entry's file has
// ("*.ts", "test_*.go").
func plainName(last string, more map[string]bool) bool {
	dot := strings.LastIndexByte(last, '.')
	if last == "" || last[0] == '.' || dot < 0 || !strings.ContainsAny(last[:dot], "*?") || strings.ContainsAny(last[:dot], "[]") {
		return false
	}
	ext := strings.ToLower(last[dot+1:])
	return globExtensions[ext] || more[ext]
}

// globExtensions are extensions that no floor or secrets entry's file
// has (tested: TestGlobExtensionsAreNoFloorFiles).
var globExtensions = keySet("go", "rs", "c", "h", "cc", "cpp", "hpp", "java", "kt", "swift", "md", "txt", "rst", "adoc",
	"html", "htm", "css", "scss", "less", "ts", "tsx", "js", "jsx", "mjs", "cjs", "vue", "svelte", "proto", "sql", "csv", "tsv",
	"parquet", "log", "png", "jpg", "jpeg", "gif", "svg", "webp", "pdf", "cs", "scala", "dart", "rb", "ex", "exs", "erl", "lua",
	"tf", "xml", "ipynb", "graphql", "gql", "snap")

// psqlDescribesOnly reports text whose psql meta-commands only describe,
// list or format (\d orders, \dt, \l, \x, \timing): each backslash
// starts one of them, a line holds nothing else after its arguments, and
// no backquote hands anything to a shell. The rest (\! runs a command,
// \o and \w write files, \i runs one, \copy, \c connects elsewhere)
// are not.
func psqlDescribesOnly(v string) bool {
	for _, line := range strings.Split(v, "\n") {
		if strings.ContainsAny(line, "`|") {
			return false
		}
		for i := strings.IndexByte(line, '\\'); i >= 0; {
			rest := line[i+1:]
			end := strings.IndexFunc(rest, func(r rune) bool { return r == ' ' || r == '\t' || r == '\\' })
			if end < 0 {
				end = len(rest)
			}
			if !psqlDescribing[strings.TrimRight(rest[:end], "+S")] {
				return false
			}
			next := strings.IndexByte(rest[end:], '\\')
			if next < 0 {
				break
			}
			i += 1 + end + next
		}
	}
	return true
}

// psqlDescribing are psql's meta-commands that describe, list or format
// and do nothing else (+ and S, their variants, trimmed).
var psqlDescribing = keySetExact("d", "da", "dA", "dAc", "dAf", "dAo", "dAp", "db", "dc", "dC", "dd", "dD", "ddp", "dE", "di", "dm",
	"ds", "dt", "dv", "des", "det", "deu", "dew", "df", "dF", "dFd", "dFp", "dFt", "dg", "dl", "dL", "dn", "do", "dO",
	"dp", "dP", "drds", "drg", "dRp", "dRs", "dT", "du", "dx", "dX", "dy", "l", "list", "x", "timing", "conninfo",
	"encoding", "?", "h", "help", "a", "t", "H", "z", "sf", "sv", "lo_list")

// keySetExact is a set of words compared as written.
func keySetExact(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
