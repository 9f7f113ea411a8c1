package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/verdict"
)

const grantsUsage = `usage:
  mcp-policy grants list   --grants FILE|URL [filters] [--json]
  mcp-policy grants show   --grants FILE|URL [--json] ID...
  mcp-policy grants revoke --grants FILE|URL [filters] [ID...]
  mcp-policy grants add    --grants FILE|URL --tool GLOB --decision allow|deny [--under DIR] [--host HOST]
                           [--message TEXT] [--grant-ttl DURATION] [--label KEY=VALUE]...
  mcp-policy grants prune  --grants FILE|URL [--older-than DURATION]

filters: [--tool GLOB] [--under DIR] [--host HOST] [--label KEY=VALUE]... [--older-than DURATION] [--expired]
A grants URL is postgres://... (the grants a fleet of proxies shares). revoke
takes IDs, filters or both, and refuses to revoke everything unless told
--all. prune removes expired grants, and with --older-than those made longer
ago than that too.
`

// grantsFlags are the flags every grants subcommand reads.
type grantsFlags struct {
	store     string
	tool      string
	under     string
	host      string
	labels    []string
	olderThan time.Duration
	expired   bool
	asJSON    bool
	all       bool
	// add's
	decision, message string
	ttl               time.Duration
}

func grantsCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, grantsUsage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	sub := args[0]
	fail := failer(stderr, "grants "+sub)
	fset := flag.NewFlagSet("grants "+sub, flag.ContinueOnError)
	fset.SetOutput(stderr)
	var f grantsFlags
	fset.StringVar(&f.store, "grants", "", "the grants: a JSON file or a postgres:// URL")
	fset.StringVar(&f.tool, "tool", "", "a tool glob")
	fset.StringVar(&f.under, "under", "", "an absolute directory")
	fset.StringVar(&f.host, "host", "", "a host name")
	fset.Var(stringList{&f.labels}, "label", "KEY=VALUE or NAME (id=NAME) (repeatable)")
	switch sub {
	case "list", "show":
		fset.BoolVar(&f.asJSON, "json", false, "write the grants as JSON, one array")
	case "revoke":
		fset.BoolVar(&f.all, "all", false, "revoke every grant the filters pick, even with no filter")
	case "add":
		fset.StringVar(&f.decision, "decision", "", "allow or deny")
		fset.StringVar(&f.message, "message", "", "the message a deny grant gives")
		fset.DurationVar(&f.ttl, "grant-ttl", 0, "how long the grant lasts (0: until revoked)")
	case "prune":
	default:
		fmt.Fprintf(stderr, "mcp-policy grants: unknown subcommand %q\n%s", sub, grantsUsage)
		return exitUsage
	}
	if sub != "add" {
		fset.DurationVar(&f.olderThan, "older-than", 0, "made longer ago than DURATION")
		if sub != "prune" {
			fset.BoolVar(&f.expired, "expired", false, "expired")
		}
	}
	fset.Usage = func() { fmt.Fprint(stderr, grantsUsage, "\nflags:\n"); fset.PrintDefaults() }
	if code, ok := parsed(fset.Parse(args[1:])); !ok {
		return code
	}
	if f.store == "" {
		return fail(exitUsage, "--grants is required: the grants file or postgres:// URL")
	}
	labels, err := cliconfig.ParseLabels(f.labels)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	filter := grants.Filter{IDs: fset.Args(), Tool: f.tool, Under: f.under, Host: f.host, Labels: labels,
		OlderThan: f.olderThan, Expired: f.expired}
	if sub == "add" {
		filter = grants.Filter{}
	} else if err := filter.Validate(); err != nil {
		return fail(exitUsage, "%v", err)
	}
	switch {
	case sub == "show" && len(filter.IDs) == 0:
		return fail(exitUsage, "name the grants to show by ID")
	case sub == "list" && len(filter.IDs) > 0:
		return fail(exitUsage, "list takes filters, not IDs (%s): use show", strings.Join(filter.IDs, " "))
	case sub == "add" && fset.NArg() > 0:
		return fail(exitUsage, "unexpected arguments %q", fset.Args())
	case sub == "prune" && fset.NArg() > 0:
		return fail(exitUsage, "prune takes --older-than, not IDs: use revoke")
	case sub == "revoke" && filter.Empty() && !f.all:
		return fail(exitUsage, "name the grants to revoke by ID or filter (or --all for every grant)")
	}

	store, err := openGrants(f.store)
	if err != nil {
		return fail(exitFailure, "%v", err)
	}
	defer store.Close()
	store.SetLabels(labels)
	store.SetTTL(f.ttl)
	now := time.Now()
	ctx := context.Background()

	switch sub {
	case "list", "show":
		picked := pick(store.Records(), filter, now)
		if sub == "show" {
			if missing := missingIDs(filter.IDs, picked); len(missing) > 0 {
				return fail(exitFailure, "no grant %s", strings.Join(missing, ", "))
			}
		}
		if f.asJSON {
			return writeJSON(stdout, stderr, picked)
		}
		if sub == "show" {
			showGrants(stdout, picked, now)
		} else {
			listGrants(stdout, picked, now)
		}
	case "revoke", "prune":
		picked := pick(store.Records(), filter, now)
		if sub == "prune" {
			// Expired, or (with --older-than) old: what pruning clears.
			old := grants.Filter{OlderThan: f.olderThan}
			picked = pick(store.Records(), grants.Filter{}, now)
			picked = slices.DeleteFunc(picked, func(g grants.Grant) bool {
				return !g.ExpiredAt(now) && (f.olderThan == 0 || !old.Match(g, now))
			})
		}
		if sub == "revoke" && len(filter.IDs) > 0 {
			if missing := missingIDs(filter.IDs, picked); len(missing) > 0 {
				return fail(exitFailure, "no grant %s (nothing was revoked)", strings.Join(missing, ", "))
			}
		}
		ids := make([]string, len(picked))
		for i, g := range picked {
			ids[i] = g.ID
		}
		removed, err := store.Revoke(ctx, ids...)
		if err != nil {
			return fail(exitFailure, "%v", err)
		}
		verb := map[string]string{"revoke": "revoked", "prune": "pruned"}[sub]
		for _, g := range removed {
			fmt.Fprintf(stdout, "%s %s %s\n", verb, g.ID, describe(g.Rule))
		}
		fmt.Fprintf(stdout, "%d grant(s) %s\n", len(removed), verb)
	case "add":
		r := rules.Rule{Tool: f.tool, Decision: verdict.Decision(f.decision), Under: f.under, Host: f.host, Message: f.message}
		if f.decision != string(rules.Allow) && f.decision != string(rules.Deny) {
			return fail(exitUsage, "--decision %q: want allow or deny", f.decision)
		}
		if err := store.Add(r); err != nil {
			return fail(exitFailure, "%v", err)
		}
		fmt.Fprintf(stdout, "added %s %s\n", grants.IDOf(mustValidate(r)), describe(r))
	}
	if err := store.Close(); err != nil {
		return fail(exitFailure, "%v", err)
	}
	return exitOK
}

// openGrants opens the grants file (~ expanded) or database the grants
// command works on, as the proxy opens it.
func openGrants(store string) (*grants.Store, error) {
	if !cliconfig.IsPostgres(store) {
		var err error
		if store, err = cliconfig.ExpandPath("--grants", store); err != nil {
			return nil, err
		}
	}
	return (&cliconfig.Config{GrantsFile: store}).OpenGrants()
}

// mustValidate is r as the store keeps it (the store validated it
// already), so its ID is the one the store gave.
func mustValidate(r rules.Rule) rules.Rule {
	v, err := rules.Validate(r, "grant")
	if err != nil {
		return r
	}
	return v
}

func pick(all []grants.Grant, f grants.Filter, now time.Time) []grants.Grant {
	out := []grants.Grant{}
	for _, g := range all {
		if f.Match(g, now) {
			out = append(out, g)
		}
	}
	return out
}

func missingIDs(ids []string, found []grants.Grant) []string {
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

func writeJSON(stdout, stderr io.Writer, gs []grants.Grant) int {
	b, err := json.MarshalIndent(gs, "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "mcp-policy grants: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "%s\n", b)
	return exitOK
}

// describe is a grant's rule in a few words: "allow fs_write under /srv".
func describe(r rules.Rule) string {
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

func listGrants(w io.Writer, gs []grants.Grant, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tGRANT\tGRANTED\tEXPIRES\tLABELS")
	for _, g := range gs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", g.ID, describe(g.Rule), when(g.GrantedAt, "unknown"), expiry(g, now), labelText(g.Labels))
	}
	tw.Flush()
}

func showGrants(w io.Writer, gs []grants.Grant, now time.Time) {
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
