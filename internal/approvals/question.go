package approvals

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/visible"
)

// Question is a pending question as the approver sees it: the words the
// proxy would have put in the host's elicitation form, and its answers.
type Question struct {
	ID     string `json:"id"`
	Digest string `json:"digest"` // of the call: see Digest
	Tool   string `json:"tool"`   // as shown (escaped by the proxy)
	// Message is the question's text, the elicitation form's message.
	Message string `json:"message"`
	// Options are the answers offered, in the order to show them.
	Options []Option `json:"options"`
	// Arguments are the call's arguments as indented JSON, with what
	// cannot be seen escaped.
	Arguments string    `json:"arguments"`
	Asker     Asker     `json:"asker"`
	Asked     time.Time `json:"asked"`
	Deadline  time.Time `json:"deadline"` // when the proxy refuses the call unanswered
}

// Option is one answer a question offers: the action (allow-once,
// always-allow, deny-once, always-deny) and its title ("Always allow
// write_file under /srv").
type Option struct {
	Action string `json:"action"`
	Title  string `json:"title"`
}

// Asker says which proxy asked: enough for a human with several agents to
// tell them apart.
type Asker struct {
	Machine string `json:"machine"`          // the host name of the machine
	PID     int    `json:"pid"`              // the proxy's process
	Server  string `json:"server"`           // the server it fronts: its command, or its URL
	Client  string `json:"client,omitempty"` // the MCP host's name and version, as it gave them
}

// Answer is an approver's answer to one question.
type Answer struct {
	ID     string    `json:"id"`
	Digest string    `json:"digest"`
	Action string    `json:"action"`
	By     string    `json:"by"` // "approvals page" or "approve command", and the user
	At     time.Time `json:"at"`
}

// The five answers, the host's form's: the action a question file and an
// answer name, the word approve takes, and the label a button or a line
// starts with. One table, so what a button says is what it does, whatever
// a question file holds as its title.
var answers = []struct{ action, word, label string }{
	{"allow-once", "allow", "Allow once"},
	{"always-allow", "always-allow", "Always allow"},
	{"allow-for-a-day", "allow-for-a-day", "Allow for a day"},
	{"deny-once", "deny", "Deny once"},
	{"always-deny", "always-deny", "Always deny"},
}

// ActionOf is the action approve's word names (allow → allow-once).
func ActionOf(word string) (string, bool) {
	for _, a := range answers {
		if a.word == word {
			return a.action, true
		}
	}
	return "", false
}

// Word is the word approve takes for action.
func (o Option) Word() string {
	for _, a := range answers {
		if a.action == o.Action {
			return a.word
		}
	}
	return ""
}

// Label is what the option's button or line says: the action's label from
// the table, then the scope the title gives it (what an "always" answer
// covers), escaped; a title that does not start with the label gives no
// scope, so no title can make an allow read as a deny.
func (o Option) Label() string {
	for _, a := range answers {
		if a.action == o.Action {
			if rest, ok := strings.CutPrefix(o.Title, a.label); ok && rest != "" {
				return a.label + " " + visible.Whole(strings.TrimPrefix(rest, " "))
			}
			return a.label
		}
	}
	return visible.Whole(o.Action) // not offered: read refuses such a question
}

// known says every option of q is one of the five answers.
func (q Question) known() error {
	if len(q.Options) == 0 {
		return errors.New("it offers no answer")
	}
	for _, o := range q.Options {
		if o.Word() == "" {
			return fmt.Errorf("it offers %s, which is no answer", visible.Whole(o.Action))
		}
	}
	return nil
}

// offers says whether action is one of q's answers.
func (q Question) offers(action string) bool {
	for _, o := range q.Options {
		if o.Action == action {
			return true
		}
	}
	return false
}

var idPattern = regexp.MustCompile(`^[0-9a-f]{24}$`)

// NewID is a fresh question id: 12 random bytes in hex, unguessable, and
// safe as a file name.
func NewID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read does not fail
	return hex.EncodeToString(b[:])
}

// CheckID refuses anything but an id NewID could have made: ids become
// file names.
func CheckID(id string) error {
	if !idPattern.MatchString(id) {
		return fmt.Errorf("%q is not a question id (24 hex digits)", id)
	}
	return nil
}

// Digest is the call's identity: SHA-256, in hex, of the tool's name and
// its arguments as canonical JSON (object keys sorted, no white space,
// numbers as written). Two calls with the same digest do the same thing.
// Arguments that are not JSON are an error: such a call is refused before
// it is asked about.
func Digest(tool, arguments string) (string, error) {
	v, err := decodeArguments(arguments)
	if err != nil {
		return "", err
	}
	canon, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("the call's arguments: %w", err)
	}
	h := sha256.New()
	quoted, _ := json.Marshal(tool) // quoted: no name can run into the arguments
	h.Write(quoted)
	h.Write(canon)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ShowArguments is a call's arguments as an approver sees them: all of
// them, indented JSON, numbers as written (1e400 stays 1e400, and
// 9007199254740993 is not rounded), with every character that is not
// plainly seen escaped, and nothing cut however long. It reads the
// arguments as Digest does, so what is shown is what the digest binds.
func ShowArguments(arguments string) (string, error) {
	v, err := decodeArguments(arguments)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the page escapes markup; a terminal has none
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("the call's arguments: %w", err)
	}
	// Line breaks are the indentation's own (inside strings JSON escaped
	// them); the rest of what cannot be seen is escaped.
	return visible.Lines(strings.TrimRight(b.String(), "\n")), nil
}

// decodeArguments is the one reading of a call's arguments that its digest
// and its display share: numbers kept as written (UseNumber), one JSON
// value and nothing after it, and no arguments at all read as {}.
func decodeArguments(arguments string) (any, error) {
	if strings.Trim(arguments, " \t\r\n") == "" { // JSON's white space only
		return map[string]any{}, nil
	}
	d := json.NewDecoder(strings.NewReader(arguments))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("the call's arguments: %w", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("the call's arguments: more than one JSON value")
	}
	return v, nil
}

// Command is the command line of mcp-policy's sub (approvals or approve)
// for the store grants names, grants quoted for a POSIX shell when it
// needs it: what the proxy tells the human to run, and what approve prints
// for each answer.
func Command(sub, grants string) string {
	if grants == "" || strings.Trim(grants, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+~") != "" {
		grants = "'" + strings.ReplaceAll(grants, "'", `'\''`) + "'"
	}
	return "mcp-policy " + sub + " --grants " + grants
}
