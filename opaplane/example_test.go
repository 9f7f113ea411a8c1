package opaplane_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/mcp-policy/mcp-policy/opaplane"
	"github.com/mcp-policy/mcp-policy/policy"
)

// A policy whose rules come from a team's OPA bundle. The bundle holds the
// data rules at data.mcp.rules (mcp/rules/data.json in the directory `opa
// build` is given); here it is written with OPA's bundle writer and read
// from a file, where a fleet's configuration names a bundle service, a
// signing key and a decision-log service (docs/fleet.md).
func Example() {
	dir, _ := os.MkdirTemp("", "opaplane-example")
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "team.tar.gz")
	f, _ := os.Create(file)
	_ = bundle.NewWriter(f).Write(bundle.Bundle{
		Manifest: bundle.Manifest{Revision: "2026-12-04.1", Roots: &[]string{"mcp"}},
		Data: map[string]any{"mcp": map[string]any{"rules": []any{
			map[string]any{"tool": "fs_write", "decision": "allow", "under": "/srv/app"},
		}}},
	})
	_ = f.Close()

	ctx := context.Background()
	plane, err := opaplane.New(ctx, opaplane.Options{
		Config: []byte("bundles:\n  team:\n    resource: file://" + file + "\n"),
		Stderr: io.Discard,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer plane.Stop(ctx)
	p, err := policy.New(policy.Options{Provider: &files{}, Source: plane, OnDecision: plane.Log})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()

	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := plane.Ready(wait); err != nil { // until then every call is refused
		fmt.Println(err)
		return
	}
	set, _ := plane.Current()
	fmt.Println("revision:", set.Revisions["team"])
	d, _ := p.Decide(ctx, write("/srv/app/notes.md"))
	fmt.Println("/srv/app/notes.md:", d.Decision)
	d, _ = p.Decide(ctx, write("/etc/hosts"))
	fmt.Println("/etc/hosts:", d.Decision)
	// Output:
	// revision: 2026-12-04.1
	// /srv/app/notes.md: allow
	// /etc/hosts: ask
}
