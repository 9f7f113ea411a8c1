// Package toolflags reads a tool's definition — its description, and the
// descriptions and titles in its input schema — for signs of text aimed at
// the model rather than at the user: the "tool poisoning" of published MCP
// attacks, where a description tells the model to read a secret and pass
// it in an argument, to keep that from the user, or to change how another
// server's tool is used.
//
// Each sign is a Flag with a code Rego rules read (input.tool_flags) and
// words for the human's question. The signs are plain patterns, kept
// narrow so that the official servers' descriptions raise none; what they
// do not catch (instructions in plain prose, another language, an image)
// is listed in docs/arguments.md.
package toolflags

import (
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/provider"
)

// The flags' codes.
const (
	Hidden    = "hidden-characters" // format, bidirectional or tag characters: text a person does not see
	Tags      = "instruction-tags"  // <IMPORTANT>, <system>, [INST]: markup addressed to a model
	Conceals  = "conceals-from-user"
	Overrides = "overrides-instructions" // "ignore previous instructions"
	Secrets   = "mentions-secrets"       // names a file the floor keeps secret (~/.ssh/id_rsa, mcp.json)
	Shadows   = "mentions-other-tools"   // tells how a tool not of this server is to be used
	Long      = "long-description"
)

// Flag is one sign found.
type Flag struct {
	Code string `json:"code"`
	// Why says what was found, for a human: "an <IMPORTANT> tag".
	Why string `json:"why"`
}

// MaxDescription is the description length past which a description is
// flagged long: the official servers' longest is far shorter, and a long
// one hides instructions past what a person reads.
const MaxDescription = 6000

// maxScanned bounds the text read of one tool.
const maxScanned = 1 << 18

var (
	tagPattern = regexp.MustCompile(`(?i)<\s*/?\s*(important|system|instructions?|hidden|secret|admin|assistant|prompt|context|critical)[\w-]*\b[^<>]{0,80}>` +
		`|\[/?(INST|SYSTEM|SYS)\]|<\|(im_start|im_end|start_header_id|end_header_id|eot_id|begin_of_text|system|user|assistant)\|>|<<\s*SYS\s*>>` +
		// An HTML comment: hidden where the description is rendered.
		`|<!--` +
		// A note addressed to the model by name.
		`|\b(note|notes|message|instructions?|directive)\s+(for|to)\s+(the\s+)?(ai|assistant|model|llm|agent|claude|gpt)\b`)
	// concealPattern: telling the user is forbidden ("never tell the
	// user", "do not mention this to the user", "the user must not
	// know"); not "never show a dialog; the user answers".
	concealPattern = regexp.MustCompile(`(?i)\b(do not|don't|dont|never|without)\s+(\w+\s+){0,2}?(tell|telling|inform|informing|notify|notifying|alert|alerting|warn|warning)\s+(the\s+)?(user|human)\b` +
		`|\b(do not|don't|dont|never)\s+(\w+\s+){0,2}?(mention|mentioning|reveal|revealing|disclose|disclosing|show|showing)\b[^.\n]{0,40}\b(to|with)\s+(the\s+)?(user|human)\b` +
		`|\b(user|human)\s+(must|should)\s+(not|never)\s+(know|see|notice|be told|find out)\b|\bwithout\s+the\s+user'?s?\s+(knowledge|knowing|noticing)` +
		`|\b(do not|don't|dont|never)\s+let\s+(the\s+)?(user|human)\s+(know|see|notice|find out)\b` +
		`|\b(user|human)\s+(doesn't|does not|need not|needn't|shouldn't)\s+(need\s+to\s+)?(know|see|be told)\b` +
		`|\brefrain\s+from\s+(mentioning|telling|informing|notifying|alerting|showing|revealing)\b` +
		`|\bkeep\s+(this|it|that|these)\s+(secret|hidden|private|quiet)\s+from\s+(the\s+)?(user|human)\b` +
		`|\b(omit|leave out|hide|exclude|remove)\s+(it|this|that|these|them)\s+from\s+(your|the)\s+(reply|replies|response|responses|answer|answers|output|summary)\b`)
	overridePattern = regexp.MustCompile(`(?i)\b(ignore|disregard|forget)\s+(all\s+|any\s+)?(the\s+)?(previous|prior|earlier|above|other|your)\s+(instructions|rules|directions|guidelines|prompts?)\b` +
		`|\b(ignore|disregard|forget)\s+(all\s+|any\s+)?(the\s+)?(instructions|rules|directions|guidelines)\s+(above|before|given|you were given)\b` +
		`|\b(ignore|disregard|forget)\s+(whatever|everything|anything|all)\s+(you\s+were|you've\s+been|you\s+have\s+been|you\s+are)\s+(told|given|instructed)\b`)
	// pathToken is a word that reads as a file's path or name: with a
	// slash, a leading dot or tilde, or an extension.
	pathToken = regexp.MustCompile("[~./A-Za-z0-9_-]*[~/.][~./A-Za-z0-9_-]+")
	// toolToken is a tool's name as a description speaks of it, before
	// or after the word "tool": snake_case or dotted (send_email,
	// ducklake.time_travel), or any identifier in backquotes; not an
	// English compound ("a built-in tool", "third-party tool").
	toolToken = regexp.MustCompile("(?i)(?:\\b([a-z][a-z0-9]*(?:[_.][a-z0-9]+)+)|`([a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+)`)\\s+tool\\b" +
		"|\\btool\\s+(?:([a-z][a-z0-9]*(?:[_.][a-z0-9]+)+)\\b|`([a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+)`)")
)

// Siblings are the names of a server's tools, and each name's part after
// a "_" or "-" (confluence_get_attachments is also get_attachments): a
// description that speaks of one of them speaks of its own server. Made
// once per list, so that reading a list is linear in its length.
type Siblings map[string]bool

// NewSiblings is the set of names.
func NewSiblings(names []string) Siblings {
	s := Siblings{}
	for _, n := range names {
		n = strings.ToLower(n)
		s[n] = true
		for i := 0; i < len(n); i++ {
			if n[i] == '_' || n[i] == '-' {
				s[n[i+1:]] = true
			}
		}
	}
	return s
}

// Scan reads tool's definition for the signs; own are its server's tools
// (a description that speaks of its siblings is ordinary). Each code is
// given once, in a fixed order.
func Scan(tool provider.Tool, own Siblings) []Flag {
	texts := []string{tool.Function.Description}
	if len(tool.Function.Parameters) > 0 {
		var schema any
		if json.Unmarshal(tool.Function.Parameters, &schema) == nil {
			texts = schemaTexts(schema, texts, 0)
		}
	}
	var flags []Flag
	add := func(code, why string) {
		if !slices.ContainsFunc(flags, func(f Flag) bool { return f.Code == code }) {
			flags = append(flags, Flag{Code: code, Why: why})
		}
	}
	self := NewSiblings([]string{tool.Function.Name})
	size := 0
	for _, t := range texts {
		if size += len(t); size > maxScanned {
			break
		}
		if r, at, ok := hiddenRune(t); ok {
			add(Hidden, fmt.Sprintf("characters a person does not see (U+%04X at byte %d)", r, at))
		}
		t = normalize(t)
		if m := tagPattern.FindString(t); m != "" {
			add(Tags, "markup addressed to a model ("+shown(m)+")")
		}
		if m := concealPattern.FindString(t); m != "" {
			add(Conceals, "words that keep something from the user (\""+shown(m)+"\")")
		}
		if m := overridePattern.FindString(t); m != "" {
			add(Overrides, "words that override the model's instructions (\""+shown(m)+"\")")
		}
		if p := secretNamed(t); p != "" {
			add(Secrets, "the name of a secret file ("+shown(p)+")")
		}
		if name := otherTool(t, self, own); name != "" {
			add(Shadows, "words on another server's tool ("+shown(name)+")")
		}
	}
	if n := len(tool.Function.Description); n > MaxDescription {
		add(Long, fmt.Sprintf("a description of %d characters", n))
	}
	order := []string{Hidden, Tags, Conceals, Overrides, Secrets, Shadows, Long}
	slices.SortFunc(flags, func(a, b Flag) int { return slices.Index(order, a.Code) - slices.Index(order, b.Code) })
	return flags
}

// Codes are the flags' codes, in order.
func Codes(flags []Flag) []string {
	out := make([]string, len(flags))
	for i, f := range flags {
		out[i] = f.Code
	}
	return out
}

// Sentence is the flags as the question says them: "this tool's
// description contains instructions to the model: …"; "" for none.
func Sentence(flags []Flag) string {
	if len(flags) == 0 {
		return ""
	}
	whys := make([]string, len(flags))
	for i, f := range flags {
		whys[i] = f.Why
	}
	return "This tool's description contains instructions to the model: " + strings.Join(whys, "; ") + "."
}

// schemaTexts adds every string of a schema, at any depth, and every key
// but the schema language's own: a model reads all of it (a $comment, an
// x- extension, a property's name, a default object).
func schemaTexts(v any, out []string, depth int) []string {
	if depth > 32 {
		return out
	}
	switch x := v.(type) {
	case string:
		out = append(out, x)
	case map[string]any:
		for k, e := range x {
			if !schemaKeywords[k] {
				// A property's name as written, and as words
				// (IMPORTANT_never_tell_the_user).
				out = append(out, k, strings.NewReplacer("_", " ", "-", " ").Replace(k))
			}
			out = schemaTexts(e, out, depth+1)
		}
	case []any:
		for _, e := range x {
			out = schemaTexts(e, out, depth+1)
		}
	}
	return out
}

// schemaKeywords are JSON Schema's own keys, which say nothing.
var schemaKeywords = map[string]bool{"type": true, "properties": true, "items": true, "required": true, "description": true, "title": true,
	"default": true, "enum": true, "const": true, "examples": true, "format": true, "anyOf": true, "oneOf": true, "allOf": true,
	"additionalProperties": true, "minimum": true, "maximum": true, "minLength": true, "maxLength": true, "pattern": true,
	"$schema": true, "$ref": true, "$defs": true, "definitions": true, "minItems": true, "maxItems": true, "nullable": true}

// hiddenRune is the first character of t a person does not see: a format
// character (zero-width, bidirectional control, Unicode tag), a private
// use one or a control other than tab and newline. The zero-width joiner
// and the variation selectors, which emoji are written with, and the
// zero-width non-joiner, which Persian and other scripts need, are not.
func hiddenRune(t string) (rune, int, bool) {
	selectors := 0 // a run of variation selectors: one after an emoji is how emoji are written
	for i, r := range t {
		switch {
		case r >= 0xFE00 && r <= 0xFE0F:
			if selectors++; selectors > 1 {
				return r, i, true
			}
			continue
		case r >= 0xE0100 && r <= 0xE01EF:
			return r, i, true // the supplement's: text hidden one byte a character
		case r == '\u200d' || r == '\u200c' || r == '\t' || r == '\n' || r == '\r':
		case unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Co, r) || unicode.IsControl(r) || r == '\ufffd':
			return r, i, true
		}
		selectors = 0
	}
	return 0, 0, false
}

// confusables are letters of other scripts drawn as Latin ones, the few
// that spell English words unseen ("tell the usеr" with a Cyrillic е).
var confusables = strings.NewReplacer("а", "a", "е", "e", "о", "o", "р", "p", "с", "c", "у", "y", "х", "x", "і", "i", "ј", "j", "ѕ", "s",
	"А", "A", "Е", "E", "О", "O", "Р", "P", "С", "C", "Т", "T", "Х", "X", "ο", "o", "α", "a", "ε", "e", "ι", "i", "ν", "v", "Ι", "I", "Ο", "O")

// normalize is text as the word patterns read it: format characters
// removed (a zero-width joiner inside "tell"), compatibility forms folded
// (NFKC: fullwidth letters), lookalike letters made Latin, HTML's escapes
// of markup undone (&lt;IMPORTANT&gt;), and a Windows home made "~".
func normalize(t string) string {
	t = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) || r >= 0xFE00 && r <= 0xFE0F || r >= 0xE0100 && r <= 0xE01EF {
			return -1
		}
		return r
	}, t)
	t = confusables.Replace(norm.NFKC.String(t))
	t = html.UnescapeString(t)
	return windowsHome.ReplaceAllStringFunc(t, func(m string) string { return "~" })
}

// windowsHome is a Windows home directory as a description may write it.
var windowsHome = regexp.MustCompile(`(?i)%(USERPROFILE|HOMEPATH|HOME)%|\$env:USERPROFILE|\$\{?HOME\}?|\b[A-Z]:\\Users\\[^\\\s]+`)

// secretNamed is the first word of t that reads as a path to a file the
// floor keeps secret (lexical.SecretFile), with "~" as a home. A bare
// name counts only for a key or an environment file (id_rsa, .env): a
// description may well say where its own credentials.json goes.
func secretNamed(t string) string {
	t = strings.ReplaceAll(t, "\\", "/") // ~\.aws\credentials
	if strings.Contains(t, "%") {
		if d, err := url.PathUnescape(t); err == nil {
			t += " " + d // %7E/%2Essh/id%5Frsa, as a server that decodes it reads it
		}
	}
	for _, w := range pathToken.FindAllString(t, 64) {
		w = strings.TrimRight(w, ".")
		// A path: from the home, the root, here, or a dot directory
		// (~/.aws/credentials, /etc/shadow, ./x, .ssh/id_rsa); any other
		// word is a bare name ("client_id/client_secret" is two).
		p, bare := w, false
		switch {
		case strings.HasPrefix(p, "~/"):
			p = "/home/user" + p[1:]
		case strings.HasPrefix(p, "/"):
		case strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || strings.HasPrefix(p, ".") && strings.Contains(p, "/"):
			p = "/home/user/" + p
		default:
			p, bare = "/home/user/"+p, true
		}
		clean, ok := lexical.Resolve("", p)
		if !ok {
			continue
		}
		e := lexical.SecretFile(lexical.FoldPath(clean))
		// A bare name by its whole name (id_rsa, .env.local), not by an
		// ending (".key" ends "item.key" in code quoted in prose).
		byName := e != nil && (e.Kind == lexical.File || e.Kind == lexical.Prefix) && (strings.HasPrefix(e.ID, "KEY") || strings.HasPrefix(e.ID, "ENV"))
		// The secret directory alone ("~/.ssh is refused") names no file
		// to read; a file in it, or a secret file, does.
		dirItself := e != nil && e.Kind == lexical.Dir && lexical.SecretFile(lexical.FoldPath(path.Dir(clean))) == nil &&
			slices.ContainsFunc(e.Names, func(n string) bool { return strings.HasSuffix(lexical.FoldPath(clean), "/"+n) })
		if e != nil && !dirItself && (!bare || byName) {
			return w
		}
	}
	return ""
}

// otherTool is a tool name t speaks of ("the send_email tool") that is
// neither tool's own name nor one of its server's.
func otherTool(t string, self, own Siblings) string {
	for _, m := range toolToken.FindAllStringSubmatch(t, 16) {
		name := m[1] + m[2] + m[3] + m[4] // one of the four matched
		// A sibling by its own name or by the part after its server's
		// prefix ("get_attachments" for confluence_get_attachments).
		n := strings.ToLower(name)
		if name == "" || own[n] || self[n] {
			continue
		}
		return name
	}
	return ""
}

// shown is found text as a question quotes it: at most 60 characters, its
// hidden characters and line breaks escaped.
func shown(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == 60 {
			b.WriteString("…")
			break
		}
		n++
		if _, _, hidden := hiddenRune(string(r)); hidden || r == '\n' || r == '\t' {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
