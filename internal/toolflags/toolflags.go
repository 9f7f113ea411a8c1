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
	"regexp"
	"slices"
	"strings"
	"unicode"

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
	tagPattern = regexp.MustCompile(`(?i)<\s*/?\s*(important|system|instructions?|hidden|secret|admin|assistant|prompt|context|critical)\b[^<>]{0,80}>` +
		`|\[/?(INST|SYSTEM|SYS)\]|<\|im_(start|end)\|>|<<\s*SYS\s*>>`)
	// concealPattern: telling the user is forbidden ("never tell the
	// user", "do not mention this to the user", "the user must not
	// know"); not "never show a dialog; the user answers".
	concealPattern = regexp.MustCompile(`(?i)\b(do not|don't|dont|never|without)\s+(\w+\s+){0,2}?(tell|telling|inform|informing|notify|notifying|alert|alerting|warn|warning)\s+(the\s+)?(user|human)\b` +
		`|\b(do not|don't|dont|never)\s+(\w+\s+){0,2}?(mention|mentioning|reveal|revealing|disclose|disclosing|show|showing)\b[^.\n]{0,40}\b(to|with)\s+(the\s+)?(user|human)\b` +
		`|\b(user|human)\s+(must|should)\s+(not|never)\s+(know|see|notice|be told|find out)\b|\bwithout\s+the\s+user'?s?\s+(knowledge|knowing|noticing)`)
	overridePattern = regexp.MustCompile(`(?i)\b(ignore|disregard|forget)\s+(all\s+|any\s+)?(the\s+)?(previous|prior|earlier|above|other|your)\s+(instructions|rules|directions|guidelines|prompts?)\b`)
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

// Scan reads tool's definition for the signs; own are the names of the
// server's tools (a description that speaks of its siblings is ordinary).
// Each code is given once, in a fixed order.
func Scan(tool provider.Tool, own []string) []Flag {
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
	size := 0
	for _, t := range texts {
		if size += len(t); size > maxScanned {
			break
		}
		if r, at, ok := hiddenRune(t); ok {
			add(Hidden, fmt.Sprintf("characters a person does not see (U+%04X at byte %d)", r, at))
		}
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
		if name := otherTool(t, tool.Function.Name, own); name != "" {
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

// schemaTexts adds the descriptions and titles at any depth of a schema.
func schemaTexts(v any, out []string, depth int) []string {
	if depth > 32 {
		return out
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && (k == "description" || k == "title") {
				out = append(out, s)
				continue
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

// hiddenRune is the first character of t a person does not see: a format
// character (zero-width, bidirectional control, Unicode tag), a private
// use one or a control other than tab and newline. The zero-width joiner
// and the variation selectors, which emoji are written with, and the
// zero-width non-joiner, which Persian and other scripts need, are not.
func hiddenRune(t string) (rune, int, bool) {
	for i, r := range t {
		switch {
		case r == '\u200d' || r == '\u200c' || r == '\t' || r == '\n' || r == '\r':
		case unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Co, r) || unicode.IsControl(r) || r == '\ufffd':
			return r, i, true
		}
	}
	return 0, 0, false
}

// secretNamed is the first word of t that reads as a path to a file the
// floor keeps secret (lexical.SecretFile), with "~" as a home. A bare
// name counts only for a key or an environment file (id_rsa, .env): a
// description may well say where its own credentials.json goes.
func secretNamed(t string) string {
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
		if e != nil && (!bare || byName) {
			return w
		}
	}
	return ""
}

// otherTool is a tool name t speaks of ("the send_email tool") that is
// neither tool's own name nor one of its server's.
func otherTool(t, self string, own []string) string {
	for _, m := range toolToken.FindAllStringSubmatch(t, 16) {
		name := m[1] + m[2] + m[3] + m[4] // one of the four matched
		// A sibling by its own name or by the part after its server's
		// prefix ("get_attachments" for confluence_get_attachments).
		mine := func(o string) bool {
			o, n := strings.ToLower(o), strings.ToLower(name)
			return o == n || strings.HasSuffix(o, "_"+n) || strings.HasSuffix(o, "-"+n)
		}
		if name == "" || mine(self) || slices.ContainsFunc(own, mine) {
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
