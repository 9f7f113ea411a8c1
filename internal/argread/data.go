package argread

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/internal/strictjson"
)

// DataMark says where the arguments of the tools Tool matches hold the
// server's data (a Redis key, a spreadsheet's cell, a crawler's URL-path
// globs): nothing under them is read as a path, URL, host or command. It is
// what a user writes in a rule's "data", for a tool the user allows: the
// reading it replaces was a guess by shape, and an unknown guess is asked
// every time.
//
// A location is a name, an argument of that name at any depth compared
// folded as names are ("value"), or a JSON Pointer from the top of the
// arguments whose "*" stands for any one key or index ("/rows/*/cells").
// Everything under a location is data, nested keys included.
//
// One thing is read in data still: a value that, read as a path, names a
// file the floor guards (a secret, a file whose change runs code). A mark
// says what the server does with its arguments; it never lowers the
// floor's asks on a known sensitive file.
type DataMark struct {
	Tool string
	// Annotations are the rule's: a mark applies only to a tool whose
	// catalogue has those hints (none: any tool Tool matches), as the
	// rule itself only matches such a tool. A mark on the read-only rule
	// says nothing of a shell tool's arguments.
	Annotations map[string]bool
	Locations   []string
	// Commands are the command globs of an allow rule that names no
	// directory, host or argument ("python3 -c *"): a simple command
	// whose words are all known and that one of them matches may run the
	// code the glob spells out, by the user's word — the code given to an
	// option the glob writes before its first wildcard, and, for a glob
	// with no wildcard, code on standard input (commandCover). That code
	// is no unknown path; its literals are read still, and nothing else
	// unknown is covered.
	Commands []string
}

// appliesTo reports whether the mark is for a tool of this name and
// annotations (known: the tool's catalogue entry is known).
func (m DataMark) appliesTo(name string, known bool, annotations map[string]bool) bool {
	if !lexical.MatchTool(m.Tool, name) {
		return false
	}
	for hint, want := range m.Annotations {
		if got, ok := annotations[hint]; !known || !ok || got != want {
			return false
		}
	}
	return true
}

// dataClass is the class of what a mark covers.
var dataClass = Class{Kind: Data, Evidence: Specified}

// ValidateDataLocation checks one location of a mark: a name, or a JSON
// Pointer (RFC 6901: "~0" and "~1" the only escapes) with no empty key.
func ValidateDataLocation(loc string) error {
	if !strings.HasPrefix(loc, "/") {
		if FoldName(loc) == "" {
			return fmt.Errorf("%q names no argument", loc)
		}
		if FoldName(loc) == FoldName(ReasonArgument) {
			return fmt.Errorf("%q is the model's reason, which no rule sees", loc)
		}
		return nil
	}
	_, err := pointerSegments(loc)
	return err
}

// pointerSegments are a JSON Pointer's keys, unescaped.
func pointerSegments(loc string) ([]string, error) {
	segs := strings.Split(loc[1:], "/")
	for i, s := range segs {
		for j := 0; j < len(s); j++ {
			if s[j] == '~' && (j+1 == len(s) || s[j+1] != '0' && s[j+1] != '1') {
				return nil, fmt.Errorf("%q: a \"~\" in a JSON Pointer is written \"~0\" (and a \"/\" in a key \"~1\")", loc)
			}
		}
		if s == "" {
			return nil, fmt.Errorf("%q: a JSON Pointer names a key at each step (no empty step)", loc)
		}
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs, nil
}

// dataPointers are the JSON Pointers a tool's marks name, each as its
// keys folded ("*" any one).
type dataPointers [][]string

// covers reports whether p is at or under one of the pointers.
func (d dataPointers) covers(p *pointer) bool {
	if len(d) == 0 || p == nil {
		return false
	}
	depth := 0
	for q := p; q != nil; q = q.up {
		depth++
	}
	var chain [MaxDepth + 2]*pointer
	if depth > len(chain) {
		return false // deeper than any call is read
	}
	i := depth
	for q := p; q != nil; q = q.up {
		i--
		chain[i] = q
	}
	for _, segs := range d {
		if len(segs) <= depth && matchesChain(segs, chain[:depth]) {
			return true
		}
	}
	return false
}

// matchesChain reports whether each key of segs names the step of chain
// at its place.
func matchesChain(segs []string, chain []*pointer) bool {
	for i, seg := range segs {
		if seg == "*" {
			continue
		}
		q := chain[i]
		if q.isKey {
			if FoldName(q.key) != seg {
				return false
			}
		} else if seg != strconv.Itoa(q.index) {
			return false
		}
	}
	return true
}

// dataString reads a string the user marked data: only what names a file
// the floor guards, read as a path would be, is kept, and a path spelt so
// that no one can tell what it names but by a home directory or a glob
// (a /proc link, a percent-escape, a "$" expansion: no spelling data
// needs). A JSON document in the string is data too, each string in it
// read so.
func (w *walker) dataString(s site, t *ast.Term, v string) {
	if trimmed := strings.TrimSpace(v); len(trimmed) >= 2 && (trimmed[0] == '{' && trimmed[len(trimmed)-1] == '}' ||
		trimmed[0] == '[' && trimmed[len(trimmed)-1] == ']') {
		// A JSON document: each of its strings is data, read so. One past
		// the budget, or that this reader refuses while another parser
		// may read it (a duplicate key, NaN, a trailing comma), is
		// unknown: a secret in it could not be told.
		if w.embedded += len(trimmed); w.embedded <= maxEmbeddedJSON {
			if doc, err := strictjson.Decode([]byte(trimmed)); err == nil {
				w.walk(site{s.arg, s.class, s.at, s.depth + 1}, ast.NewTerm(doc))
				return
			}
		}
		if w.embedded > maxEmbeddedJSON || strictjson.CheckText([]byte(trimmed)) == nil ||
			strings.Contains(trimmed, "NaN") || strings.Contains(trimmed, "Infinity") {
			w.addPath(s.as(none), t, "")
			return
		}
		// JSON to no parser ("{key: key, name: fields.name}", a JMESPath
		// or jq expression): text, read as any other.
	}
	if isSQLName(FoldName(s.arg)) || readsAsSQL(v) {
		// SQL marked data still opens the files it names: each literal
		// that names a floor file is read (OPENROWSET(BULK '~/.ssh/x')).
		for _, f := range sqlFiles(v) {
			if r := trimReading(f); r != "" && (namesFloorInData(r) || w.namesSecret(r)) {
				w.pathString(s.as(Class{Kind: Path, Evidence: Specified}), ast.StringTerm(f), f)
			}
		}
	}
	r := trimReading(v)
	named := namesFloorInData(r)
	if !looksLikePath(r) && !named {
		return
	}
	before := len(w.out.Paths)
	hosts := len(w.out.Hosts)
	w.pathString(s.as(Class{Kind: Path, Evidence: Specified}), t, v)
	kept := w.out.Paths[:before]
	for _, p := range w.out.Paths[before:] {
		if named || guardedFile(p) || p.Resolved == "" && !plainlyUnknown(p) {
			kept = append(kept, p)
		}
	}
	w.out.Paths, w.out.Hosts = kept, w.out.Hosts[:hosts]
}

// namesFloorInData reports a value of data that, read as a path, names a
// floor file by what it spells out, where its shape alone would not make it
// read: a relative name (".env", ".git/hooks/pre-commit", from whatever
// directory the server is in), a path through a variable
// ("$HOME/.ssh/id_rsa", "$X/.ssh/id_rsa") or a glob whose literal parts
// name one ("/home/*/.ssh/id_rsa", "~/.ss*/id_rsa", "~/.bash*"). A value
// with a space in it is prose, not a path; a wildcard alone names nothing
// ("/blog/*" is a crawler's pattern); a bare name is read only as the
// floor lists it whole (".env", not "process.env" or "credentials").
func namesFloorInData(r string) bool {
	if r == "" || len(r) > maxDataName || strings.ContainsFunc(r, unicode.IsSpace) {
		return false
	}
	if !strings.ContainsAny(r, "/\\") {
		// A bare name is a file's only with an extension or a leading dot
		// (".env", "secrets.toml"; "credentials" is an enum's value), and
		// only by a name the floor lists whole: "process.env" and "x.key"
		// end like a secret's name, and are code and data as often.
		if strings.ContainsAny(r, "*?[{") {
			return globNamesFloor(r) // ".env*", "*.key"
		}
		if !strings.Contains(r, ".") {
			return false
		}
		e := floorEntry("/" + r)
		return e != nil && e.Kind != lexical.Suffix
	}
	if p, ok := namesOf(r); ok && floorFile(p) {
		return true
	}
	return globNamesFloor(r)
}

// maxDataName bounds the value namesFloorInData reads: a path longer than
// any the floor lists is read by its shape alone.
const maxDataName = 4096

// globNamesFloor reports a path or glob whose literal parts name a floor
// file: with each wildcard one name ("x"), with each brace one of its
// alternatives, or with one wildcard that follows a literal start
// completed to a name the floor lists (".bash*" to ".bashrc"). A leading
// "~" or "$HOME" is a home directory; a relative value is read from any
// directory. The tries are bounded (maxGlobTries); past the bound the
// answer is yes.
func globNamesFloor(r string) bool { return globNames(r, floorFile) }

// globNames is globNamesFloor for the files is reports.
func globNames(r string, is func(string) bool) bool {
	if strings.HasPrefix(r, "//") {
		r = "/" + strings.TrimLeft(r, "/") // the same directory to the server's open
	}
	if rest, home := afterHome(r); home {
		r = "/home/x/" + rest
	} else if !strings.HasPrefix(r, "/") {
		r = "/x/" + r
	}
	if !strings.ContainsAny(r, "*?[{") {
		return false // no glob: namesOf has read it
	}
	var floorNames []string // the floor's names, copied once a wildcard needs them
	tries := 0
	for _, variant := range braceVariants(r) {
		names := strings.Split(variant, "/")
		plain := make([]string, len(names))
		for i, n := range names {
			plain[i] = globAsName(n)
		}
		if is(strings.Join(plain, "/")) {
			return true
		}
		for i, n := range names {
			start := strings.IndexAny(n, "*?[")
			if start < 2 { // no wildcard, or nothing literal before it
				continue
			}
			if floorNames == nil {
				floorNames = lexical.FloorNames()
			}
			asGlob := plain[i]
			for _, candidate := range floorNames {
				if ok, err := path.Match(n, candidate); err != nil || !ok {
					continue
				}
				if tries++; tries > maxGlobTries {
					return true
				}
				plain[i] = candidate
				if is(strings.Join(plain, "/")) {
					return true
				}
			}
			plain[i] = asGlob
		}
	}
	return false
}

// afterHome is r without the home directory it starts with ("~",
// "~user", "$HOME", "${HOME}") and the slashes after it, and whether it
// starts with one.
func afterHome(r string) (string, bool) {
	for _, home := range []string{"${HOME}", "$HOME"} {
		if rest, ok := strings.CutPrefix(r, home); ok {
			return strings.TrimLeft(rest, "/"), true
		}
	}
	if strings.HasPrefix(r, "~") {
		_, rest, _ := strings.Cut(r, "/")
		return rest, true
	}
	return r, false
}

// fileGlobNamesFloor reports a glob of files' names (a search's
// --include) that names a floor file: as globNamesFloor reads one, and a
// bare name whole, whatever its ending ("id_rsa", "*.key"), since it
// names nothing but files.
func fileGlobNamesFloor(g string) bool {
	if strings.HasPrefix(g, "/") || strings.HasPrefix(g, "~") {
		return namesFloorInData(g)
	}
	if g != "" && strings.ContainsAny(g[:1], "*?[") {
		// A search's glob matches a leading dot, as a shell's does not:
		// grep --include='*env', rg -g '*env' and find -name '*env'
		// pick .env.
		for _, n := range lexical.SecretNames() {
			if ok, _ := path.Match(g, n); ok && strings.HasPrefix(n, ".") {
				return true
			}
		}
	}
	return floorFile("/x/"+globAsName(g)) || globNamesFloor(g)
}

// maxGlobTries bounds the completions globNamesFloor tries.
const maxGlobTries = 256

// globAsName is a glob's name with each wildcard one character: a name
// that the literal parts around it are read with.
func globAsName(n string) string {
	return strings.Map(func(c rune) rune {
		if strings.ContainsRune("*?[]", c) {
			return 'x'
		}
		return c
	}, n)
}

// braceVariants is r with each "{a,b}" group read as its first, its
// second, ... alternative (all groups at once, as many variants as the
// longest group has alternatives, at most 16), or r alone.
func braceVariants(r string) []string {
	if !strings.Contains(r, "{") {
		return []string{r}
	}
	var out []string
	for k := 0; k < 16; k++ {
		var b strings.Builder
		more := false
		for rest := r; rest != ""; {
			open := strings.IndexByte(rest, '{')
			end := strings.IndexByte(rest[max(open, 0):], '}')
			if open < 0 || end < 0 {
				b.WriteString(rest)
				break
			}
			end += open
			alts := strings.Split(rest[open+1:end], ",")
			b.WriteString(rest[:open])
			b.WriteString(alts[min(k, len(alts)-1)])
			more = more || k+1 < len(alts)
			rest = rest[end+1:]
		}
		out = append(out, b.String())
		if !more {
			break
		}
	}
	return out
}

// floorFile reports an absolute path on either of the floor's lists.
func floorFile(p string) bool { return floorEntry(p) != nil }

// secretFile reports an absolute path on the secrets list.
func secretFile(p string) bool {
	clean, ok := lexical.AbsClean(p)
	return ok && lexical.SecretFile(lexical.FoldPath(clean)) != nil
}

// floorEntry is the entry of the floor's lists an absolute path falls
// under, the secrets list's first; nil for none.
func floorEntry(p string) *lexical.SensitiveEntry {
	clean, ok := lexical.AbsClean(p)
	if !ok {
		return nil
	}
	f := lexical.FoldPath(clean)
	if e := lexical.SecretFile(f); e != nil {
		return e
	}
	return lexical.SensitiveFile(f)
}

// plainlyUnknown reports an unknown path in data that is unknown only for
// a leading "~" (whose home is the server's) or a glob ("/blog/*", a
// crawler's pattern): data spells paths so. Any other reason a path cannot
// be evaluated (a /proc link, "%2f", "$HOME", a backslash) is no way data
// is written, and may name a floor file another way.
func plainlyUnknown(p Value) bool {
	raw, ok := p.Raw.Value.(ast.String)
	if !ok {
		return false
	}
	r := trimReading(string(raw))
	if strings.HasPrefix(r, "~") {
		_, rest, _ := strings.Cut(r, "/")
		r = "/" + rest
	}
	r = strings.Map(func(c rune) rune {
		if strings.ContainsRune("*?[]{},", c) {
			return 'x'
		}
		return c
	}, r)
	return lexical.Unevaluable(r) == ""
}

// guardedFile reports a path the floor guards by its lists: a secret, or
// a file whose change runs code; for one that cannot be evaluated, as the
// floor reads it, its names wherever it leads ("~/.ssh/id_rsa").
func guardedFile(p Value) bool {
	resolved := p.Resolved
	if resolved == "" {
		raw, ok := p.Raw.Value.(ast.String)
		if !ok {
			return false
		}
		if resolved, ok = namesOf(string(raw)); !ok {
			return false
		}
	}
	return floorFile(resolved)
}

// namesOf is a path that cannot be evaluated read for its names, as the
// floor reads one: trimmed, its home ("~", "~user", "$HOME", "${HOME}")
// made "/", and a glob cut at its first name that has one
// ("/home/u/.ssh/*" is /home/u/.ssh), so that an entry matched anywhere
// matches it wherever it leads.
func namesOf(raw string) (string, bool) {
	r := trimReading(raw)
	if rest, home := afterHome(r); home {
		r = rest
	}
	if i := strings.IndexAny(r, "*?["); i >= 0 {
		r = r[:strings.LastIndexByte(r[:i], '/')+1]
	}
	return lexical.AbsClean("/" + strings.TrimLeft(r, "/"))
}
