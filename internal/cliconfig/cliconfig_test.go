package cliconfig_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
	"github.com/mcp-policy/mcp-policy/policy/rules"
)

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func parse(t *testing.T, args ...string) cliconfig.Flags {
	t.Helper()
	var f cliconfig.Flags
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	rulesFile := write(t, dir, "rules.json", `[{"tool":"write_file","decision":"allow","under":"/srv/scratch"}]`)
	write(t, dir, "team/a.rego", "package mcp.custom\n")
	write(t, dir, "team/b.rego", "package mcp.custom\n")
	write(t, dir, "team/a_test.rego", "package team_test\n")
	write(t, dir, "team/notes.txt", "not rego")
	c, err := parse(t, "--rules", rulesFile, "--policy", filepath.Join(dir, "team"), "--root", "*=/srv", "--root", "fs=/data",
		"--grants", filepath.Join(dir, "grants.json")).Load()
	if err != nil {
		t.Fatal(err)
	}
	defaults := len(rules.DefaultRules())
	if len(c.Rules) != defaults+1 || c.Rules[defaults].Tool != "write_file" {
		t.Fatalf("rules %+v", c.Rules)
	}
	if len(c.Modules) != 2 || !strings.HasSuffix(c.Modules[0].Name, "a.rego") || !strings.HasSuffix(c.Modules[1].Name, "b.rego") {
		t.Fatalf("modules %+v", c.Modules)
	}
	if c.Roots["*"] != "/srv" || c.Roots["fs"] != "/data" || len(c.Roots) != 2 {
		t.Fatalf("roots %v", c.Roots)
	}
	if len(c.Protected) != 2 || c.Protected[0] != rulesFile || c.Protected[1] != filepath.Join(dir, "team") {
		t.Fatalf("protected %v", c.Protected)
	}
	// A missing grants file is an empty shared store; LoadGrants, for a
	// reader, says it is missing.
	s, err := c.OpenGrants()
	if err != nil || len(s.List()) != 0 || s.File() != filepath.Join(dir, "grants.json") {
		t.Fatalf("store %v %v", s, err)
	}
	if _, err := c.LoadGrants(); err == nil {
		t.Fatal("LoadGrants of a missing file succeeded")
	}

	c, err = parse(t, "--no-default-rules").Load()
	if err != nil || len(c.Rules) != 0 {
		t.Fatalf("no defaults: %+v %v", c.Rules, err)
	}
	if s, err := c.OpenGrants(); err != nil || s.File() != "" {
		t.Fatalf("no --grants: %v %v", s, err)
	}
	if gs, err := c.LoadGrants(); err != nil || gs != nil {
		t.Fatalf("no --grants: %v %v", gs, err)
	}
}

// Every error names the file, and the line where there is one.
func TestErrorsNameFileAndLine(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content, want string
	}{
		{"bad-decision.json", "[\n  {\"tool\": \"a\", \"decision\": \"allow\"},\n  {\"tool\": \"b\", \"decision\": \"maybe\"}\n]\n",
			`bad-decision.json:3: rule 2: field "decision": "maybe" is not`},
		{"syntax.json", "[\n  {\"tool\": \"a\", \"decision\": \"allow\"},\n\n  {\"tool\": \"b\" \"decision\": \"deny\"}\n]\n",
			"syntax.json:4: invalid JSON"},
		{"duplicate.json", "[\n  {\"tool\": \"a\", \"decision\": \"allow\"}, {\"tool\": \"x\",\n   \"decision\": \"deny\", \"tool\": \"c\"}\n]\n",
			`duplicate.json:2: duplicate key "tool"`},
		{"unknown-field.json", "[\n{\"tool\": \"a\", \"decision\": \"allow\"},\n{\"tool\": \"a\", \"decision\": \"allow\"},\n{\"tool\": \"a\", \"decison\": \"allow\"}]",
			`unknown-field.json:4: rule 3: field "decison": unknown field`},
		{"object.json", "\n\n{\"tool\": \"a\"}\n", "object.json:3: must be a JSON array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := write(t, dir, tc.name, tc.content)
			_, err := parse(t, "--rules", file).Load()
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), file) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}

	t.Run("grants", func(t *testing.T) {
		file := write(t, dir, "grants.json", "[\n  {\"tool\": \"a\", \"decision\": \"allow\", \"under\": \"/x\"},\n  {\"tool\": \"b\", \"decision\": \"ask\"}\n]\n")
		c, err := parse(t, "--grants", file).Load()
		if err != nil {
			t.Fatal(err)
		}
		want := file + `:3: rule 2: field "decision": a grant must be "allow" or "deny"`
		if _, err := c.OpenGrants(); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("OpenGrants: %v, want %q", err, want)
		}
		if _, err := c.LoadGrants(); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("LoadGrants: %v, want %q", err, want)
		}
		before, _ := os.ReadFile(file)
		if after, _ := os.ReadFile(file); string(after) != string(before) {
			t.Fatal("a bad grants file was rewritten")
		}
	})

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--root", "fs"}, `--root "fs": want KEY=DIR`},
		{[]string{"--root", "=/x"}, `want KEY=DIR`},
		{[]string{"--root", "fs=/a", "--root", "fs=/b"}, `key "fs" given twice`},
		{[]string{"--rules", filepath.Join(dir, "missing.json")}, "missing.json: no such file"},
		{[]string{"--policy", filepath.Join(dir, "missing.rego")}, "missing.rego: no such file"},
	} {
		if _, err := parse(t, tc.args...).Load(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}
