// Package grantsview is the grants as `mcp-policy grants` shows them to a
// human: picked by a filter, as a table, one by one in full, or in a few
// words.
package grantsview

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/rules"
)

// Pick are the grants of all that f picks, in their order.
func Pick(all []grants.Grant, f grants.Filter, now time.Time) []grants.Grant {
	out := []grants.Grant{}
	for _, g := range all {
		if f.Match(g, now) {
			out = append(out, g)
		}
	}
	return out
}

// MissingIDs are the ids no grant of found has.
func MissingIDs(ids []string, found []grants.Grant) []string {
	var missing []string
	for _, id := range ids {
		ok := false
		for _, g := range found {
			ok = ok || g.ID == id
		}
		if !ok {
			missing = append(missing, id)
		}
	}
	return missing
}

// Describe is a grant's rule in a few words: "allow fs_write under /srv".
func Describe(r rules.Rule) string {
	s := string(r.Decision) + " " + r.Tool
	if r.Under != "" {
		s += " under " + r.Under
	}
	if r.Host != "" {
		s += " host " + r.Host
	}
	if len(r.Arguments) > 0 || len(r.Annotations) > 0 {
		s += " (with conditions: see show)"
	}
	return s
}

// List writes the grants as a table, one a line.
func List(w io.Writer, gs []grants.Grant, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tGRANT\tGRANTED\tEXPIRES\tLABELS")
	for _, g := range gs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", g.ID, Describe(g.Rule), when(g.GrantedAt, "unknown"), expiry(g, now), labelText(g.Labels))
	}
	tw.Flush()
}

// Show writes each grant in full: its rule as JSON, its record, and the
// question it answered.
func Show(w io.Writer, gs []grants.Grant, now time.Time) {
	for i, g := range gs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		rb, _ := json.Marshal(g.Rule)
		fmt.Fprintf(w, "id:       %s\nrule:     %s\ngranted:  %s\nexpires:  %s\nlabels:   %s\n",
			g.ID, rb, when(g.GrantedAt, "unknown"), expiry(g, now), labelText(g.Labels))
		if q := g.Question; q != nil {
			fmt.Fprintf(w, "question: %s", q.Tool)
			if len(q.Paths) > 0 {
				fmt.Fprintf(w, " paths %s", strings.Join(q.Paths, ", "))
			}
			if len(q.Hosts) > 0 {
				fmt.Fprintf(w, " hosts %s", strings.Join(q.Hosts, ", "))
			}
			if q.Reason != "" {
				fmt.Fprintf(w, " (%s)", q.Reason)
			}
			fmt.Fprintln(w)
		}
	}
}

func when(t time.Time, zero string) string {
	if t.IsZero() {
		return zero
	}
	return t.UTC().Format(time.RFC3339)
}

func expiry(g grants.Grant, now time.Time) string {
	switch {
	case g.Expires.IsZero():
		return "never"
	case g.ExpiredAt(now):
		return when(g.Expires, "") + " (expired)"
	}
	return when(g.Expires, "")
}

func labelText(l map[string]string) string {
	if len(l) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + l[k]
	}
	return strings.Join(parts, ",")
}
