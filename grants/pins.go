package grants

// Tool pins: what a human approved of a tool stays what its grants answer
// for.
//
// A grant, the floor's read-only leniency and the default rules all trust
// what a server says of its tools: the description the human read, the
// schema, the annotations (readOnlyHint). A server can change any of them
// after the human approved it (a "rug pull"). So the first definition of
// each tool a server offers is pinned (trust on first use) where the
// grants live — the grants file's pins file, or PostgreSQL, so the first
// sight on one machine pins it for the fleet — and a later definition that
// differs is recorded beside the pin, not taken: until a human approves it
// (an "always" answer to a question that showed the change, or
// `mcp-policy pins approve`), the tool's allow grants answer nothing and
// its annotations are not trusted. A tool a server adds is pinned as it
// comes; a tool removed and offered again under its name is held to its
// pin.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcp-policy/mcp-policy/internal/visible"
)

// Definition is the part of a tool a human approves: what the model and
// the policy read of it.
type Definition struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
}

// Digest names a definition: a SHA-256 of its canonical JSON (see
// canonical), so a server that only reorders or reformats its schema
// changes nothing.
func (d Definition) Digest() string { return d.canonical().canonicalDigest() }

// canonicalDigest is Digest of a definition already canonical.
func (d Definition) canonicalDigest() string {
	b, _ := json.Marshal(d) // canonical values always marshal
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// canonical is d with its JSON members re-encoded in one form. A member
// that is not JSON (it cannot be, from a decoded tools/list) is kept as
// its text, quoted.
func (d Definition) canonical() Definition {
	d.InputSchema, d.Annotations = canonicalSchema(d.InputSchema), canonicalJSON(d.Annotations)
	return d
}

// canonicalJSON is raw re-encoded in one form: object keys sorted, no white
// space, each number by its value (1, 1.0 and 1e0 are one number).
func canonicalJSON(raw json.RawMessage) json.RawMessage { return canonicalWith(raw, nil) }

// canonicalSchema is canonicalJSON for a JSON Schema, with what says
// nothing left out, as schema generators write it one way or another
// between two versions of one server (a benign round of 18 real servers'
// upgrades: half the changes flagged were only these): additionalProperties
// of true or {} (the default), propertyNames {"type":"string"} (true of
// every JSON object), minimum and maximum of ±(2^53-1) (a generator's
// bound of a safe integer); and "required" as a sorted set. "$schema" is
// kept: its value can carry text a host passes on (red team 33).
func canonicalSchema(raw json.RawMessage) json.RawMessage {
	return canonicalWith(raw, plainSchema)
}

func canonicalWith(raw json.RawMessage, simplify func(any) any) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		b, _ := json.Marshal(string(raw))
		return b
	}
	v = byValue(v)
	if simplify != nil {
		v = simplify(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(string(raw))
	}
	return b
}

// byValue writes each number of v in one form for its value.
func byValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if f, ok := new(big.Float).SetPrec(256).SetString(string(x)); ok {
			return json.Number(f.Text('g', -1))
		}
		return x
	case map[string]any:
		for k, e := range x {
			x[k] = byValue(e)
		}
	case []any:
		for i, e := range x {
			x[i] = byValue(e)
		}
	}
	return v
}

// plainSchema is the schema v without the members that say nothing (see
// canonicalSchema).
func plainSchema(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if ap, ok := x["additionalProperties"]; ok && (ap == true || isEmptyObject(ap)) {
			delete(x, "additionalProperties")
		}
		if pn, ok := x["propertyNames"].(map[string]any); ok && len(pn) == 1 && pn["type"] == "string" {
			delete(x, "propertyNames")
		}
		for _, bound := range []string{"minimum", "maximum"} {
			if n, ok := x[bound].(json.Number); ok && (n == safeIntegerMax || n == safeIntegerMin) {
				delete(x, bound)
			}
		}
		if req, ok := x["required"].([]any); ok && allStrings(req) {
			sort.Slice(req, func(i, j int) bool { return req[i].(string) < req[j].(string) })
		}
		// Only the members that hold schemas are schemas: a property's
		// name, an enum's value or a default is left as written.
		for k, e := range x {
			list, isList := e.([]any)
			switch {
			case schemaListKeywords[k] && isList:
				for i, s := range list {
					list[i] = plainSchema(s)
				}
			case schemaKeywords[k]:
				x[k] = plainSchema(e)
			case schemaMapKeywords[k]:
				if named, ok := e.(map[string]any); ok {
					for name, s := range named {
						named[name] = plainSchema(s)
					}
				}
			}
		}
	}
	return v
}

// ±(2^53-1), as byValue writes them.
var (
	safeIntegerMax = byValue(json.Number("9007199254740991")).(json.Number)
	safeIntegerMin = byValue(json.Number("-9007199254740991")).(json.Number)
)

// The JSON Schema keywords whose value is a schema, a list of schemas, or
// schemas by name.
var (
	schemaKeywords = map[string]bool{"items": true, "additionalItems": true, "contains": true, "not": true, "if": true,
		"then": true, "else": true, "additionalProperties": true, "propertyNames": true, "unevaluatedItems": true,
		"unevaluatedProperties": true}
	schemaListKeywords = map[string]bool{"anyOf": true, "allOf": true, "oneOf": true, "prefixItems": true, "items": true}
	schemaMapKeywords  = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true,
		"dependentSchemas": true}
)

func isEmptyObject(v any) bool {
	m, ok := v.(map[string]any)
	return ok && len(m) == 0
}

func allStrings(list []any) bool {
	for _, e := range list {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return true
}

// Pin is one tool's approved definition on one server.
type Pin struct {
	// Server is who offers the tool: how it is reached (its command line
	// or URL), never a name the server gives itself.
	Server     string     `json:"server"`
	Tool       string     `json:"tool"`
	Digest     string     `json:"digest"`
	Definition Definition `json:"definition"`
	PinnedAt   time.Time  `json:"pinned_at"`
	// Changed is the last definition the server offered that is not the
	// pinned one, until a human approves it or the pin; nil otherwise. It
	// stays when the server offers the pinned definition again: a server
	// that answers one listing with a change and another with its pin
	// (the host's and the proxy's own, say) must not clear the mark.
	Changed *Offer `json:"changed,omitempty"`
	// Earlier are the other definitions offered since the pin, not
	// approved, the oldest first (at most maxEarlier): approving one
	// change leaves the tool marked with the others, since the model may
	// have been shown any of them.
	Earlier []Offer `json:"earlier,omitempty"`
}

// maxEarlier bounds Pin.Earlier; past it the oldest is dropped, and the
// tool stays marked all the same.
const maxEarlier = 64

// Offer is a definition a server offered that differs from its pin.
type Offer struct {
	Digest     string     `json:"digest"`
	Definition Definition `json:"definition"`
	SeenAt     time.Time  `json:"seen_at"`
}

// PinBackend is where Pins keeps them: the pins file beside a grants file
// (OpenPinsFile), PostgreSQL (grants/pgstore), or memory (MemoryPins). It
// must be safe for concurrent use, and many processes sharing one backend
// lose no pin.
type PinBackend interface {
	// Update has change make server's pins anew from those the backend
	// holds, and keeps what it made when it says it changed them; no
	// other Update of server's pins, in this process or another, runs
	// between the read and the write.
	Update(ctx context.Context, server string, change func(pins []Pin) (after []Pin, changed bool, err error)) error
	// List is every pin the backend holds.
	List(ctx context.Context) ([]Pin, error)
	Close() error
}

// Pins holds tools to the definitions a human approved, in a backend.
type Pins struct{ b PinBackend }

// NewPins is the pins kept in b.
func NewPins(b PinBackend) *Pins { return &Pins{b: b} }

// See records what server offers: a tool with no pin is pinned as
// offered; a pinned tool offered otherwise keeps its pin, and the offer is
// recorded as its Changed (which an offer of the pinned definition does
// not clear). A definition with no name is not pinned. It returns the
// offered tools' pins, in offered's order.
func (s *Pins) See(ctx context.Context, server string, offered []Definition, now time.Time) ([]Pin, error) {
	var seen []Pin
	err := s.b.Update(ctx, server, func(list []Pin) ([]Pin, bool, error) {
		after, sn, changed := seePins(list, server, offered, now)
		seen = sn
		return after, changed, nil
	})
	return seen, err
}

// List is every pin, by server and tool.
func (s *Pins) List(ctx context.Context) ([]Pin, error) {
	list, err := s.b.List(ctx)
	sortPins(list)
	return list, err
}

// Approve makes the changed definition whose digest is digest the tool's
// pin; the pinned definition's digest keeps the pin and clears the
// change. Any other digest is an error (ErrNotOffered): the human
// approved what they saw, not what the server offers since.
func (s *Pins) Approve(ctx context.Context, server, tool, digest string, now time.Time) (Pin, error) {
	var p Pin
	err := s.b.Update(ctx, server, func(list []Pin) ([]Pin, bool, error) {
		after, approved, err := approvePin(list, server, tool, digest, now)
		p = approved
		return after, err == nil, err
	})
	return p, err
}

// Forget removes the tool's pin (the next definition offered is pinned as
// it comes) and reports whether there was one.
func (s *Pins) Forget(ctx context.Context, server, tool string) (bool, error) {
	var found bool
	err := s.b.Update(ctx, server, func(list []Pin) ([]Pin, bool, error) {
		after, ok := forgetPin(list, tool)
		found = ok
		return after, ok, nil
	})
	return found, err
}

// Close closes the backend.
func (s *Pins) Close() error { return s.b.Close() }

// MaxPinsPerServer bounds the tools pinned for one server. A tool offered
// past it is not pinned, and is unapproved (its See pin has a Changed and
// no Digest).
const MaxPinsPerServer = 2000

// ErrNotOffered: an approval named a definition the server does not offer
// (now) in place of the pin.
var ErrNotOffered = errors.New("that definition is not the change the server offers")

// seePins is See on a server's pins: the pins after, and those of the
// offered tools, in offered's order.
func seePins(list []Pin, server string, offered []Definition, now time.Time) (after []Pin, seen []Pin, changed bool) {
	after = slices.Clone(list)
	index := map[string]int{}
	for i, p := range after {
		index[p.Tool] = i
	}
	now = now.UTC()
	for _, def := range offered {
		def = def.canonical()
		digest := def.canonicalDigest()
		i, ok := index[def.Name]
		switch {
		case def.Name == "":
			seen = append(seen, Pin{Server: server, Digest: digest, Definition: def}) // no tool to pin: a reader refuses it
			continue
		case !ok && len(index) >= MaxPinsPerServer:
			// Not pinned, so never approved: a server that lists ever new
			// tools must not grow the store every process reads.
			seen = append(seen, Pin{Server: server, Tool: def.Name, Definition: def,
				Changed: &Offer{Digest: digest, Definition: def, SeenAt: now}})
			continue
		case !ok:
			after = append(after, Pin{Server: server, Tool: def.Name, Digest: digest, Definition: def, PinnedAt: now})
			index[def.Name] = len(after) - 1
			changed = true
		case after[i].Digest == digest:
			// The pin offered again: a change seen stays seen.
		case after[i].Changed == nil:
			after[i].Changed = &Offer{Digest: digest, Definition: def, SeenAt: now}
			changed = true
		case after[i].Changed.Digest != digest:
			pin := &after[i]
			pin.Earlier = slices.DeleteFunc(slices.Clone(pin.Earlier), func(o Offer) bool { return o.Digest == digest })
			pin.Earlier = append(pin.Earlier, *pin.Changed)
			if len(pin.Earlier) > maxEarlier {
				pin.Earlier = pin.Earlier[len(pin.Earlier)-maxEarlier:]
			}
			pin.Changed = &Offer{Digest: digest, Definition: def, SeenAt: now}
			changed = true
		}
		seen = append(seen, after[index[def.Name]])
	}
	return after, seen, changed
}

// approvePin is Approve on a server's pins.
func approvePin(list []Pin, server, tool, digest string, now time.Time) ([]Pin, Pin, error) {
	for i, p := range list {
		if p.Tool != tool {
			continue
		}
		if p.Digest == digest {
			if p.Changed == nil {
				return list, p, nil // approved already
			}
			out := slices.Clone(list)
			out[i].Changed, out[i].Earlier = nil, nil // the pin kept, the changes refused
			return out, out[i], nil
		}
		var offers []Offer
		if p.Changed != nil {
			offers = append(slices.Clone(p.Earlier), *p.Changed)
		}
		k := slices.IndexFunc(offers, func(o Offer) bool { return o.Digest == digest })
		if k < 0 {
			return nil, Pin{}, fmt.Errorf("%s on %s: %w", tool, server, ErrNotOffered)
		}
		approved := offers[k]
		rest := slices.Delete(offers, k, k+1)
		out := slices.Clone(list)
		out[i] = Pin{Server: server, Tool: tool, Digest: digest, Definition: approved.Definition, PinnedAt: now.UTC()}
		if len(rest) > 0 {
			// Still marked with the newest of the others.
			last := rest[len(rest)-1]
			out[i].Changed, out[i].Earlier = &last, rest[:len(rest)-1]
			if len(out[i].Earlier) == 0 {
				out[i].Earlier = nil
			}
		}
		return out, out[i], nil
	}
	return nil, Pin{}, fmt.Errorf("%s on %s: no pin", tool, server)
}

// forgetPin is Forget on a server's pins.
func forgetPin(list []Pin, tool string) ([]Pin, bool) {
	out := slices.DeleteFunc(slices.Clone(list), func(p Pin) bool { return p.Tool == tool })
	return out, len(out) != len(list)
}

// sortPins orders pins by server, then tool.
func sortPins(list []Pin) {
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].Server != list[j].Server {
			return list[i].Server < list[j].Server
		}
		return list[i].Tool < list[j].Tool
	})
}

// ChangeSummary says what differs between the pinned definition and the
// changed one, for a question a human answers at a glance, one part a
// line: the changed definition's digest first (what an answer approves),
// then the read-only, destructive, idempotent and open-world marks that
// changed, each whole, then the schema, the title and the description.
// The server's text is escaped here (visible.ShownPath: what cannot be
// seen escaped, a long text shown by both its ends with its length), so
// each line is bounded whatever the server writes, and a reader that
// shows each line on its own bound never loses one to another.
func (p Pin) ChangeSummary() string {
	if p.Changed == nil {
		return ""
	}
	if p.Digest == "" {
		return fmt.Sprintf("it is not pinned: its server has %d tools pinned, the most a server may have", MaxPinsPerServer)
	}
	was, now := p.Definition, p.Changed.Definition
	parts := []string{"definition " + p.Changed.Digest[:min(12, len(p.Changed.Digest))]}
	parts = append(parts, hintChanges(was.Annotations, now.Annotations)...)
	for _, line := range schemaChange(was.InputSchema, now.InputSchema) {
		parts = append(parts, "input schema: "+line)
	}
	if was.Title != now.Title {
		a, b := differing(was.Title, now.Title, 100)
		parts = append(parts, "title was: "+a, "title now: "+b)
	}
	if was.Description != now.Description {
		a, b := differing(was.Description, now.Description, 500)
		parts = append(parts, "description was: "+a, "description now: "+b)
	}
	if len(parts) == 1 {
		parts = append(parts, "changed only in what this summary does not name")
	}
	if len(p.Earlier) > 0 {
		parts = append(parts, fmt.Sprintf("and %d other definitions were offered since the pin, each to be approved on its own (mcp-policy pins show)", len(p.Earlier)))
	}
	return strings.Join(parts, "\n")
}

// The MCP hints, in the order a question names them.
var hintNames = []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}

// hintChanges names each MCP hint that changed, whole ("readOnlyHint was
// unset, now true"), and the other annotation members that changed, by
// name.
func hintChanges(was, now json.RawMessage) []string {
	members := func(raw json.RawMessage) map[string]string {
		var m map[string]json.RawMessage
		out := map[string]string{}
		if json.Unmarshal(raw, &m) == nil {
			for k, v := range m {
				out[k] = string(canonicalJSON(v))
			}
		}
		return out
	}
	a, b := members(was), members(now)
	var parts, others []string
	for _, h := range hintNames {
		if a[h] != b[h] {
			parts = append(parts, fmt.Sprintf("%s was %s, now %s", h, visible.ShownPath(orUnset(a[h]), 40), visible.ShownPath(orUnset(b[h]), 40)))
		}
	}
	for _, k := range sortedKeys(a, b) {
		if !slices.Contains(hintNames, k) && a[k] != b[k] {
			others = append(others, k)
		}
	}
	if len(others) > 0 {
		parts = append(parts, "annotations "+visible.ShownPath(names(others, 5), 200)+" changed")
	}
	return parts
}

func orUnset(v string) string {
	if v == "" {
		return "unset"
	}
	return cut(v, 40)
}

// sortedKeys are the keys of a and b, once each, sorted.
func sortedKeys(a, b map[string]string) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// names lists at most n names (each cut), then how many more there are.
func names(list []string, n int) string {
	shown := make([]string, 0, n)
	for i, s := range list {
		if i == n {
			break
		}
		shown = append(shown, cut(s, 60))
	}
	out := strings.Join(shown, ", ")
	if len(list) > n {
		out += fmt.Sprintf(" and %d more", len(list)-n)
	}
	return out
}

// differing is a and b around where they differ: from a little before the
// first difference to a little after the last, escaped, and when longer
// than n characters shown by its start and (mostly) its end, with its
// length, so a change at either end of it is always seen
// (visible.ShownPath). A common start or end left out is marked ….
func differing(a, b string, n int) (string, string) {
	start := 0
	for start < len(a) && start < len(b) && a[start] == b[start] {
		start++
	}
	end := 0
	for end < len(a)-start && end < len(b)-start && a[len(a)-1-end] == b[len(b)-1-end] {
		end++
	}
	const context = 40
	from := max(0, start-context)
	for from > 0 && !utf8.RuneStart(a[from]) {
		from--
	}
	show := func(s string) string {
		to := len(s) - end + min(end, context)
		for to < len(s) && !utf8.RuneStart(s[to]) {
			to++
		}
		out := visible.ShownPath(s[from:to], n)
		if from > 0 {
			out = "…" + out
		}
		if to < len(s) {
			out += "…"
		}
		return out
	}
	return show(a), show(b)
}

// schemaChange says in lines what changed of a schema: the top-level
// properties added (shown) and removed, the changed ones around their
// difference, and the rest around its difference when it changed outside
// its properties (its own description, $defs, …). None when it did not.
func schemaChange(was, now json.RawMessage) []string {
	a, b := canonicalSchema(was), canonicalSchema(now)
	if bytes.Equal(a, b) {
		return nil
	}
	split := func(raw json.RawMessage) (map[string]string, string) {
		var s map[string]json.RawMessage
		props := map[string]string{}
		if json.Unmarshal(raw, &s) != nil {
			return props, string(raw)
		}
		var ps map[string]json.RawMessage
		if json.Unmarshal(s["properties"], &ps) == nil {
			for k, v := range ps {
				props[k] = string(canonicalJSON(v))
			}
		}
		delete(s, "properties")
		rest, _ := json.Marshal(s)
		return props, string(rest)
	}
	pa, restA := split(a)
	pb, restB := split(b)
	var added, removed, changed []string
	for _, k := range sortedKeys(pa, pb) {
		w, inA := pa[k]
		v, inB := pb[k]
		switch {
		case !inA:
			added = append(added, k)
		case !inB:
			removed = append(removed, k)
		case w != v:
			changed = append(changed, k)
		}
	}
	var out []string
	// An added property is shown, not only named: its description is
	// text the model reads.
	for i, k := range added {
		if i == 5 {
			out = append(out, fmt.Sprintf("and %d more properties added (mcp-policy pins show)", len(added)-5))
			break
		}
		out = append(out, "property added "+visible.ShownPath(k, 60)+" "+visible.ShownPath(pb[k], 300))
	}
	if len(removed) > 0 {
		out = append(out, "properties removed "+visible.ShownPath(names(removed, 5), 300))
	}
	for i, k := range changed {
		if i == 5 {
			out = append(out, fmt.Sprintf("and %d more properties changed (mcp-policy pins show)", len(changed)-5))
			break
		}
		x, y := differing(pa[k], pb[k], 200)
		out = append(out, fmt.Sprintf("property %s was: %s", visible.ShownPath(k, 60), x), fmt.Sprintf("property %s now: %s", visible.ShownPath(k, 60), y))
	}
	if restA != restB {
		x, y := differing(restA, restB, 300)
		out = append(out, "outside its properties was: "+x, "outside its properties now: "+y)
	}
	return out
}

// cut shortens s to about n bytes on a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
