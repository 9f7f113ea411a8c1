package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
	"github.com/mcp-policy/mcp-policy/internal/grantsview"
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
	sub       string // list, show, revoke, add or prune
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

	parsedLabels map[string]string
	filter       grants.Filter // what list, show and revoke pick
}

func grantsCommand(args []string, stdout, stderr io.Writer) int {
	if code, ok := subcommand("grants", args, []string{"list", "show", "revoke", "add", "prune"}, grantsUsage, stdout, stderr); !ok {
		return code
	}
	fail := failer(stderr, "grants "+args[0])
	f, code, err := parseGrantsFlags(args[0], args[1:], stderr)
	if err != nil {
		return fail(code, "%v", err)
	} else if f == nil {
		return code
	}
	store, err := openGrants(f.store)
	if err != nil {
		return fail(exitFailure, "%v", err)
	}
	defer store.Close()
	store.SetLabels(f.parsedLabels)
	store.SetTTL(f.ttl)
	switch f.sub {
	case "list", "show":
		code, err = f.show(store, stdout)
	case "revoke", "prune":
		code, err = f.revoke(store, stdout)
	case "add":
		code, err = f.add(store, stdout)
	}
	if err == nil {
		err = store.Close()
	}
	if err != nil {
		return fail(code, "%v", err)
	}
	return exitOK
}

// parseGrantsFlags reads sub's flags and checks them; a nil f with no
// error is help given, or the flag package's own complaint.
func parseGrantsFlags(sub string, args []string, stderr io.Writer) (f *grantsFlags, code int, err error) {
	f = &grantsFlags{sub: sub}
	fset := flag.NewFlagSet("grants "+sub, flag.ContinueOnError)
	fset.SetOutput(stderr)
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
	}
	if sub != "add" {
		fset.DurationVar(&f.olderThan, "older-than", 0, "made longer ago than DURATION")
		if sub != "prune" {
			fset.BoolVar(&f.expired, "expired", false, "expired")
		}
	}
	fset.Usage = func() { fmt.Fprint(stderr, grantsUsage, "\nflags:\n"); fset.PrintDefaults() }
	if code, ok := parsed(fset.Parse(args)); !ok {
		return nil, code, nil
	}
	if f.store == "" {
		return nil, exitUsage, errors.New("--grants is required: the grants file or postgres:// URL")
	}
	if f.parsedLabels, err = cliconfig.ParseLabels(f.labels); err != nil {
		return nil, exitUsage, err
	}
	f.filter = grants.Filter{IDs: fset.Args(), Tool: f.tool, Under: f.under, Host: f.host, Labels: f.parsedLabels,
		OlderThan: f.olderThan, Expired: f.expired}
	if sub == "add" {
		f.filter = grants.Filter{}
	} else if err := f.filter.Validate(); err != nil {
		return nil, exitUsage, err
	}
	switch {
	case sub == "show" && len(f.filter.IDs) == 0:
		return nil, exitUsage, errors.New("name the grants to show by ID")
	case sub == "list" && len(f.filter.IDs) > 0:
		return nil, exitUsage, fmt.Errorf("list takes filters, not IDs (%s): use show", strings.Join(f.filter.IDs, " "))
	case sub == "add" && fset.NArg() > 0:
		return nil, exitUsage, fmt.Errorf("unexpected arguments %q", fset.Args())
	case sub == "prune" && fset.NArg() > 0:
		return nil, exitUsage, errors.New("prune takes --older-than, not IDs: use revoke")
	case sub == "revoke" && f.filter.Empty() && !f.all:
		return nil, exitUsage, errors.New("name the grants to revoke by ID or filter (or --all for every grant)")
	}
	return f, exitOK, nil
}

// show lists the grants the filter picks, or shows the ones named in full.
func (f *grantsFlags) show(store *grants.Store, stdout io.Writer) (int, error) {
	now := time.Now()
	picked := grantsview.Pick(store.Records(), f.filter, now)
	if f.sub == "show" {
		if missing := grantsview.MissingIDs(f.filter.IDs, picked); len(missing) > 0 {
			return exitFailure, fmt.Errorf("no grant %s", strings.Join(missing, ", "))
		}
	}
	switch {
	case f.asJSON:
		return writeJSONOut(stdout, io.Discard, picked), nil
	case f.sub == "show":
		grantsview.Show(stdout, picked, now)
	default:
		grantsview.List(stdout, picked, now)
	}
	return exitOK, nil
}

// revoke removes the grants the filter picks (revoke), or the expired
// ones and, with --older-than, the old ones (prune).
func (f *grantsFlags) revoke(store *grants.Store, stdout io.Writer) (int, error) {
	now := time.Now()
	picked := grantsview.Pick(store.Records(), f.filter, now)
	if f.sub == "prune" {
		old := grants.Filter{OlderThan: f.olderThan}
		picked = slices.DeleteFunc(grantsview.Pick(store.Records(), grants.Filter{}, now), func(g grants.Grant) bool {
			return !g.ExpiredAt(now) && (f.olderThan == 0 || !old.Match(g, now))
		})
	}
	if f.sub == "revoke" && len(f.filter.IDs) > 0 {
		if missing := grantsview.MissingIDs(f.filter.IDs, picked); len(missing) > 0 {
			return exitFailure, fmt.Errorf("no grant %s (nothing was revoked)", strings.Join(missing, ", "))
		}
	}
	ids := make([]string, len(picked))
	for i, g := range picked {
		ids[i] = g.ID
	}
	removed, err := store.Revoke(context.Background(), ids...)
	if err != nil {
		return exitFailure, err
	}
	verb := map[string]string{"revoke": "revoked", "prune": "pruned"}[f.sub]
	for _, g := range removed {
		fmt.Fprintf(stdout, "%s %s %s\n", verb, g.ID, grantsview.Describe(g.Rule))
	}
	fmt.Fprintf(stdout, "%d grant(s) %s\n", len(removed), verb)
	return exitOK, nil
}

// add adds one grant, as an always-answer would.
func (f *grantsFlags) add(store *grants.Store, stdout io.Writer) (int, error) {
	if f.decision != string(rules.Allow) && f.decision != string(rules.Deny) {
		return exitUsage, fmt.Errorf("--decision %q: want allow or deny", f.decision)
	}
	r := rules.Rule{Tool: f.tool, Decision: verdict.Decision(f.decision), Under: f.under, Host: f.host, Message: f.message}
	if err := store.Add(r); err != nil {
		return exitFailure, err
	}
	fmt.Fprintf(stdout, "added %s %s\n", grants.IDOf(mustValidate(r)), grantsview.Describe(r))
	return exitOK, nil
}

// openGrants opens the grants file (~ expanded) or database the grants
// command works on, as the proxy opens it.
func openGrants(store string) (*grants.Store, error) {
	store, err := cliconfig.GrantsLocation(store)
	if err != nil {
		return nil, err
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
