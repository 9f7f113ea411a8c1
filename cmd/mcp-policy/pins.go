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
	"github.com/mcp-policy/mcp-policy/internal/visible"
)

const pinsUsage = `usage:
  mcp-policy pins list    --grants FILE|URL [--server SERVER] [--changed] [--json]
  mcp-policy pins show    --grants FILE|URL [--server SERVER] [--json] TOOL
  mcp-policy pins approve --grants FILE|URL [--server SERVER] [--digest DIGEST] TOOL
  mcp-policy pins forget  --grants FILE|URL [--server SERVER] TOOL

A tool's pin is the definition (description, input schema, annotations) of
it a proxy first saw, or a human last approved, kept where the grants are.
A tool whose server now offers another definition is "changed": its allow
grants and annotations are suspended until the change is approved. approve
takes the change the server offers now (or, with --digest, only the one
with that digest: the one a human was shown); forget drops the pin, so the
next definition the server offers is pinned as it comes. SERVER is a pin's
server as list shows it, needed only when the tool is pinned on several.
`

type pinsFlags struct {
	sub, store, server, digest string
	changed, asJSON            bool
	tool                       string
}

func pinsCommand(args []string, stdout, stderr io.Writer) int {
	if code, ok := subcommand("pins", args, []string{"list", "show", "approve", "forget"}, pinsUsage, stdout, stderr); !ok {
		return code
	}
	fail := failer(stderr, "pins "+args[0])
	f := &pinsFlags{sub: args[0]}
	fset := flag.NewFlagSet("pins "+f.sub, flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.StringVar(&f.store, "grants", "", "the grants (and pins): a JSON file or a postgres:// URL")
	fset.StringVar(&f.server, "server", "", "the server, as list shows it")
	switch f.sub {
	case "list":
		fset.BoolVar(&f.changed, "changed", false, "only tools whose server offers another definition")
		fset.BoolVar(&f.asJSON, "json", false, "write the pins as JSON, one array")
	case "show":
		fset.BoolVar(&f.asJSON, "json", false, "write the pin as JSON")
	case "approve":
		fset.StringVar(&f.digest, "digest", "", "approve only the change with this digest")
	}
	fset.Usage = func() { fmt.Fprint(stderr, pinsUsage, "\nflags:\n"); fset.PrintDefaults() }
	if code, ok := parsed(fset.Parse(args[1:])); !ok {
		return code
	}
	switch {
	case f.store == "":
		return fail(exitUsage, "--grants is required: the grants file or postgres:// URL the pins are kept beside")
	case f.sub == "list" && fset.NArg() > 0:
		return fail(exitUsage, "list takes no tool (%s): use show", strings.Join(fset.Args(), " "))
	case f.sub != "list" && fset.NArg() != 1:
		return fail(exitUsage, "name one tool")
	}
	f.tool = fset.Arg(0)
	location, err := cliconfig.GrantsLocation(f.store)
	if err != nil {
		return fail(exitFailure, "%v", err)
	}
	pins, err := (&cliconfig.Config{GrantsFile: location}).OpenPins()
	if err != nil {
		return fail(exitFailure, "%v", err)
	}
	defer pins.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.run(ctx, pins, stdout); err != nil {
		return fail(exitFailure, "%v", err)
	}
	return exitOK
}

func (f *pinsFlags) run(ctx context.Context, pins *grants.Pins, stdout io.Writer) error {
	all, err := pins.List(ctx)
	if err != nil {
		return err
	}
	if f.sub == "list" {
		picked := slices.DeleteFunc(all, func(p grants.Pin) bool {
			return (f.server != "" && p.Server != f.server) || (f.changed && p.Changed == nil)
		})
		if f.asJSON {
			return writeJSON(stdout, picked)
		}
		for _, p := range picked {
			state := "pinned " + p.PinnedAt.Format(time.RFC3339)
			if p.Changed != nil {
				state = "CHANGED since " + p.Changed.SeenAt.Format(time.RFC3339) + " (digest " + p.Changed.Digest[:16] + ")"
			}
			fmt.Fprintf(stdout, "%s\t%s\t%s\n", visible.Whole(p.Server), visible.Whole(p.Tool), state)
		}
		return nil
	}
	p, err := f.pick(all)
	if err != nil {
		return err
	}
	switch f.sub {
	case "show":
		if f.asJSON {
			return writeJSON(stdout, p)
		}
		fmt.Fprintf(stdout, "server: %s\ntool: %s\npinned: %s (digest %s)\n", visible.Whole(p.Server), visible.Whole(p.Tool), p.PinnedAt.Format(time.RFC3339), p.Digest)
		fmt.Fprintf(stdout, "description: %s\n", visible.Shown(p.Definition.Description, 2000))
		if p.Changed != nil {
			fmt.Fprintf(stdout, "CHANGED: the server offers another definition since %s (digest %s):\n",
				p.Changed.SeenAt.Format(time.RFC3339), p.Changed.Digest)
			for _, line := range strings.Split(p.ChangeSummary(), "\n") {
				fmt.Fprintf(stdout, "  %s\n", visible.Shown(line, 4000))
			}
		}
		return nil
	case "approve":
		if p.Changed == nil {
			return fmt.Errorf("%s on %s has no change to approve", visible.Whole(p.Tool), visible.Whole(p.Server))
		}
		digest := p.Changed.Digest
		if f.digest != "" {
			digest = f.digest
		}
		if _, err := pins.Approve(ctx, p.Server, p.Tool, digest, time.Now()); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "approved: %s on %s is pinned as its server offers it now (digest %s)\n", visible.Whole(p.Tool), visible.Whole(p.Server), digest)
		return nil
	default: // forget
		if _, err := pins.Forget(ctx, p.Server, p.Tool); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "forgotten: %s on %s (the next definition its server offers is pinned as it comes)\n", visible.Whole(p.Tool), visible.Whole(p.Server))
		return nil
	}
}

// pick is the pin of f.tool, on f.server when given; it is an error when
// there is none, or several and no server says which.
func (f *pinsFlags) pick(all []grants.Pin) (grants.Pin, error) {
	var found []grants.Pin
	for _, p := range all {
		if p.Tool == f.tool && (f.server == "" || p.Server == f.server) {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 0:
		return grants.Pin{}, fmt.Errorf("no pin of %s%s", visible.Whole(f.tool), onServer(f.server))
	case 1:
		return found[0], nil
	}
	servers := make([]string, len(found))
	for i, p := range found {
		servers[i] = visible.Whole(p.Server)
	}
	return grants.Pin{}, errors.New(visible.Whole(f.tool) + " is pinned on several servers; say which with --server: " + strings.Join(servers, "; "))
}

func onServer(server string) string {
	if server == "" {
		return ""
	}
	return " on " + visible.Whole(server)
}
