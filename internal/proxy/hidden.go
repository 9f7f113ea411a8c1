package proxy

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"

	"github.com/mcp-policy/mcp-policy/internal/toolflags"
	"github.com/mcp-policy/mcp-policy/internal/toolslist"
	"github.com/mcp-policy/mcp-policy/internal/visible"
	"github.com/mcp-policy/mcp-policy/provider"
)

// Tools denied outright. A tool that a rule or grant denies for every call
// (policy.DeniesOutright: a deny naming only the tool) is left out of the
// tools/list answers the host shows the model, as Gemini CLI and ToolHive
// leave such tools out: offered one, a model calls it, is refused, and
// tries another way. A call to it is still decided, and denied.
// --list-denied keeps them listed.

// withoutDeniedTools is a tools/list answer with the tools denied
// outright left out: msg as it was when none is, or when it cannot be
// read as one (the host then reads it as the server wrote it).
func (p *Proxy) withoutDeniedTools(msg []byte, env envelope) []byte {
	set := p.pols.Load()
	if set == nil {
		return msg
	}
	var result map[string]json.RawMessage
	if json.Unmarshal(env.result, &result) != nil {
		return msg
	}
	var tools []json.RawMessage
	if json.Unmarshal(result["tools"], &tools) != nil {
		return msg
	}
	kept := make([]json.RawMessage, 0, len(tools))
	var hidden []string
	for _, raw := range tools {
		var t struct {
			Name        string                `json:"name"`
			Annotations *provider.Annotations `json:"annotations"`
		}
		if json.Unmarshal(raw, &t) == nil && t.Name != "" &&
			set.interactive.DeniesOutright(provider.Tool{Function: provider.ToolFunction{Name: t.Name}, Annotations: t.Annotations}) {
			hidden = append(hidden, t.Name)
			continue
		}
		kept = append(kept, raw)
	}
	if len(hidden) == 0 {
		return msg
	}
	var err error
	if result["tools"], err = json.Marshal(kept); err != nil {
		return msg
	}
	out, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(env.id), "result": result})
	if err != nil {
		return msg
	}
	if bytes.HasSuffix(msg, []byte{'\n'}) {
		out = append(out, '\n') // a line, as the server's was
	}
	if p.hiddenSaid.CompareAndSwap(false, true) {
		p.sayf("left out of tools/list, as a rule or grant denies every call of them (--list-denied lists them): %s", shownNames(hidden))
	}
	return out
}

// warnPoisoned says on stderr, once per definition, which tools of a
// tools/list result carry text aimed at the model in their definitions
// (toolflags.Scan, with the whole list as the server's own tools): the
// operator hears of it when the server offers it, before any call.
func (p *Proxy) warnPoisoned(result []byte) {
	page, err := toolslist.Decode(result) // as the host reads it
	if err != nil {
		return // unreadable: pins.go suspends it all, and says so
	}
	names := make([]string, len(page.Tools))
	for i, t := range page.Tools {
		names[i] = t.Function.Name
	}
	own := toolflags.NewSiblings(names)
	for _, tool := range page.Tools {
		t := struct {
			Name, Description string
			InputSchema       []byte
		}{tool.Function.Name, tool.Function.Description, tool.Function.Parameters}
		flags := toolflags.Scan(tool, own)
		if len(flags) == 0 {
			continue
		}
		// Said once per definition: its digest kept, at most maxFlaggedSaid
		// of them (a server that changes its descriptions on every list
		// is then said again, not kept for ever).
		key := sha256.Sum256([]byte(t.Name + "\x00" + t.Description + "\x00" + string(t.InputSchema)))
		if _, said := p.flaggedSaid.LoadOrStore(key, true); said {
			continue
		}
		if p.flaggedCount.Add(1) > maxFlaggedSaid {
			p.flaggedSaid.Clear()
			p.flaggedCount.Store(0)
		}
		p.warnf("the server's tool %s: %s", visible.Shown(t.Name, maxShown), visible.Shown(toolflags.Sentence(flags), 2000))
	}
}

// maxFlaggedSaid bounds the definitions whose flags stderr remembers
// having said.
const maxFlaggedSaid = 4096

// shownNames lists tool names for stderr, at most a few.
func shownNames(names []string) string {
	var b bytes.Buffer
	for i, n := range names {
		if i == 8 {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(visible.Shown(n, maxShown))
	}
	return b.String()
}
