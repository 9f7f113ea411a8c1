package grants

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/strictjson"
)

// Grant is a grant with its record: the rule that answers, and who made
// it, when, in answer to what, and until when. Only Rule decides calls;
// the rest is for the human who later lists, scopes and revokes grants.
//
// In a grants file (and in PostgreSQL) a grant is one JSON object: the
// rule's fields beside "id", "granted_at", "labels", "question" and
// "expires", each optional, so a file of bare rules is a file of grants.
type Grant struct {
	Rule rules.Rule
	// ID names the grant to show or revoke it. It is derived from the
	// rule (IDOf), so the same answer given on two machines is one grant.
	ID        string
	GrantedAt time.Time         // zero when unknown (a grant written by hand)
	Labels    map[string]string // the proxy or agent that asked (--label, a config's labels)
	Question  *Question         // what the human was asked, nil when unknown
	Expires   time.Time         // zero: never; from then on the grant answers nothing
}

// Question is what a grant answered.
type Question struct {
	Tool   string   `json:"tool"`
	Paths  []string `json:"paths,omitempty"`
	Hosts  []string `json:"hosts,omitempty"`
	Reason string   `json:"reason,omitempty"`
}

// IDOf is the ID of the grant whose rule is r (validated): a short hash
// of the rule, so that adding the same grant twice, from two processes or
// after a lost acknowledgement, is one grant.
func IDOf(r rules.Rule) string {
	b, _ := json.Marshal(r) // a Rule always marshals; map keys are sorted
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

// ExpiredAt reports whether the grant has expired at now.
func (g Grant) ExpiredAt(now time.Time) bool {
	return !g.Expires.IsZero() && !now.Before(g.Expires)
}

// Clone is a deep copy.
func (g Grant) Clone() Grant {
	g.Rule = g.Rule.Clone()
	g.Labels = maps.Clone(g.Labels)
	if g.Question != nil {
		q := *g.Question
		q.Paths, q.Hosts = slices.Clone(q.Paths), slices.Clone(q.Hosts)
		g.Question = &q
	}
	return g
}

// metaKeys are the keys of a grant's record beside its rule's.
var metaKeys = map[string]bool{"id": true, "granted_at": true, "labels": true, "question": true, "expires": true}

// MarshalJSON writes the grant as one object: the rule's fields, in the
// rule's order, then the record's.
func (g Grant) MarshalJSON() ([]byte, error) {
	rb, err := json.Marshal(g.Rule)
	if err != nil {
		return nil, err
	}
	buf := bytes.NewBuffer(rb[:len(rb)-1]) // the rule's object, still open
	put := func(k string, v any) {
		if err != nil {
			return
		}
		var b []byte
		if b, err = json.Marshal(v); err == nil {
			fmt.Fprintf(buf, ",%q:%s", k, b)
		}
	}
	id := g.ID
	if id == "" {
		id = IDOf(g.Rule)
	}
	put("id", id)
	if !g.GrantedAt.IsZero() {
		put("granted_at", g.GrantedAt.UTC())
	}
	if len(g.Labels) > 0 {
		put("labels", g.Labels)
	}
	if g.Question != nil {
		put("question", g.Question)
	}
	if !g.Expires.IsZero() {
		put("expires", g.Expires.UTC())
	}
	buf.WriteByte('}')
	return buf.Bytes(), err
}

// ParseGrants reads a JSON array of grants (rules, each with an optional
// record), validated: a rule's errors are named "<what>: rule N" as
// rules.ParseRules names them; an ask, a relative under or a malformed
// record is an error too. Each grant's ID is derived from its rule; a
// grant held twice is kept once (the first, unless it has expired and a
// later one has not).
func ParseGrants(data []byte, what string) ([]Grant, error) {
	if err := strictjson.Check(data); err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	t := bytes.TrimSpace(data)
	if len(t) == 0 || t[0] != '[' {
		return nil, fmt.Errorf("%s: must be a JSON array of grants (null or an object is not)", what)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, fmt.Errorf("%s: must be a JSON array of grants: %v", what, err)
	}
	// The rules go to rules.ParseRules whole, so its errors and checks
	// are the ones every rule gets; the records are read here.
	ruleRaws := make([]json.RawMessage, len(raws))
	out := make([]Grant, len(raws))
	for i, raw := range raws {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			// Not an object: let ParseRules say so, naming the rule.
			ruleRaws[i] = raw
			continue
		}
		for k, v := range m {
			if !metaKeys[k] {
				continue
			}
			delete(m, k)
			if err := readMeta(&out[i], k, v); err != nil {
				return nil, fmt.Errorf("%s: rule %d: field %q: %v", what, i+1, k, err)
			}
		}
		b, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		ruleRaws[i] = b
	}
	arr, err := json.Marshal(ruleRaws)
	if err != nil {
		return nil, err
	}
	rs, err := rules.ParseRules(arr, what)
	if err != nil {
		return nil, err
	}
	if err := check(rs, func(i int) string { return fmt.Sprintf("%s: rule %d", what, i+1) }); err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Rule = rs[i]
		out[i].ID = IDOf(rs[i])
	}
	return merge(nil, out, time.Now()), nil
}

func readMeta(g *Grant, k string, v json.RawMessage) error {
	strict := func(dst any) error {
		d := json.NewDecoder(bytes.NewReader(v))
		d.DisallowUnknownFields()
		return d.Decode(dst)
	}
	switch k {
	case "id":
		var s string
		return strict(&s) // derived from the rule: read only to check its type
	case "granted_at":
		return strict(&g.GrantedAt)
	case "labels":
		return strict(&g.Labels)
	case "question":
		if err := strict(&g.Question); err != nil {
			return err
		}
		if g.Question == nil || g.Question.Tool == "" {
			return fmt.Errorf("a question names its tool")
		}
		return nil
	case "expires":
		if err := strict(&g.Expires); err != nil {
			return err
		}
		if g.Expires.IsZero() {
			// Written, so it ends; zero stands for "never" in a Grant,
			// and year 1 (in any zone) is long past.
			g.Expires = time.Unix(0, 0).UTC()
		}
		return nil
	}
	return nil
}

// merge adds to list the grants of add it does not hold (by ID), in
// order, and returns the result; a grant held but expired at now is
// replaced by a new one, so "always" answered again after a grant expired
// answers again. list is not modified.
func merge(list, add []Grant, now time.Time) []Grant {
	out := append(make([]Grant, 0, len(list)+len(add)), list...)
	at := make(map[string]int, len(out)+len(add))
	for i, g := range out {
		at[g.ID] = i
	}
	for _, g := range add {
		i, held := at[g.ID]
		switch {
		case !held:
			at[g.ID] = len(out)
			out = append(out, g)
		case out[i].ExpiredAt(now) && !g.ExpiredAt(now):
			out[i] = g
		}
	}
	return out
}

// rulesOf are the rules of gs.
func rulesOf(gs []Grant) []rules.Rule {
	out := make([]rules.Rule, len(gs))
	for i, g := range gs {
		out[i] = g.Rule
	}
	return out
}
