package cliconfig_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
	"github.com/mcp-policy/mcp-policy/internal/rules"
)

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

func parse(t *testing.T, args ...string) cliconfig.Flags {
	t.Helper()
	var f cliconfig.Flags
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f.Register(fs)
	require.NoError(t, fs.Parse(args))
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
	require.NoError(t, err)
	defaults := len(rules.DefaultRules())
	require.Len(t, c.Rules, defaults+1, "rules %+v", c.Rules)
	require.Equal(t, "write_file", c.Rules[defaults].Tool, "rules %+v", c.Rules)
	require.Len(t, c.Modules, 2, "modules %+v", c.Modules)
	require.True(t, strings.HasSuffix(c.Modules[0].Name, "a.rego"), "modules %+v", c.Modules)
	require.True(t, strings.HasSuffix(c.Modules[1].Name, "b.rego"), "modules %+v", c.Modules)
	require.Equal(t, map[string]string{"*": "/srv", "fs": "/data"}, c.Roots, "roots")
	require.Equal(t, []string{rulesFile, filepath.Join(dir, "team")}, c.Protected, "protected")
	// A missing grants file is an empty shared store; LoadGrants, for a
	// reader, says it is missing.
	s, err := c.OpenGrants()
	require.NoError(t, err, "OpenGrants of a missing file")
	require.Empty(t, s.List(), "store")
	require.Equal(t, filepath.Join(dir, "grants.json"), s.File(), "store")
	_, err = c.LoadGrants()
	require.Error(t, err, "LoadGrants of a missing file succeeded")

	c, err = parse(t, "--no-default-rules").Load()
	require.NoError(t, err, "no defaults")
	require.Empty(t, c.Rules, "no defaults")
	s, err = c.OpenGrants()
	require.NoError(t, err, "no --grants")
	require.Equal(t, "", s.File(), "no --grants")
	gs, err := c.LoadGrants()
	require.NoError(t, err, "no --grants")
	require.Nil(t, gs, "no --grants")
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
		{"object.json", "\n\n{\"tool\": \"a\"}\n", "object.json:3: must be a JSON array of rules, not an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := write(t, dir, tc.name, tc.content)
			_, err := parse(t, "--rules", file).Load()
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, file)
		})
	}

	t.Run("grants", func(t *testing.T) {
		content := "[\n  {\"tool\": \"a\", \"decision\": \"allow\", \"under\": \"/x\"},\n  {\"tool\": \"b\", \"decision\": \"ask\"}\n]\n"
		file := write(t, dir, "grants.json", content)
		c, err := parse(t, "--grants", file).Load()
		require.NoError(t, err)
		want := file + `:3: rule 2: field "decision": a grant must be "allow" or "deny"`
		_, err = c.OpenGrants()
		require.ErrorContains(t, err, want, "OpenGrants")
		_, err = c.LoadGrants()
		require.ErrorContains(t, err, want, "LoadGrants")
		after, err := os.ReadFile(file)
		require.NoError(t, err)
		require.Equal(t, content, string(after), "a bad grants file was rewritten")
	})

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"root-without-dir", []string{"--root", "fs"}, `--root "fs": want KEY=DIR`},
		{"root-without-key", []string{"--root", "=/x"}, `want KEY=DIR`},
		{"root-twice", []string{"--root", "fs=/a", "--root", "fs=/b"}, `key "fs" given twice`},
		{"relative-root", []string{"--root", "fs=data"}, `--root fs: directory "data" is not an absolute path`},
		{"missing-rules", []string{"--rules", filepath.Join(dir, "missing.json")}, "--rules " + filepath.Join(dir, "missing.json") + ": no such file"},
		{"missing-policy", []string{"--policy", filepath.Join(dir, "missing.rego")}, "--policy " + filepath.Join(dir, "missing.rego") + ": no such file"},
		{"missing-policy-dir", []string{"--policy", "nope/"}, "--policy nope/: no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(t, tc.args...).Load()
			assert.ErrorContains(t, err, tc.want, "%v", tc.args)
		})
	}
}

// A host runs the proxy without a shell: ~ and $HOME in a path flag are
// expanded by the flags themselves, every one of them.
func TestExpandPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for in, want := range map[string]string{
		"~":          home,
		"~/a/b.json": home + "/a/b.json",
		"$HOME":      home,
		"$HOME/a":    home + "/a",
		"${HOME}/a":  home + "/a",
		"/abs/~/x":   "/abs/~/x",
		"rel/x":      "rel/x",
		"~other/x":   "~other/x",
		"$HOMEDIR/x": "$HOMEDIR/x",
		"a/$HOME/x":  "a/$HOME/x",
		"":           "",
		"filesystem": "filesystem",
	} {
		got, err := cliconfig.ExpandPath("--x", in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	t.Setenv("HOME", "")
	_, err := cliconfig.ExpandPath("--grants", "~/g.json")
	require.ErrorContains(t, err, "--grants ~/g.json: no home directory")
}

func TestLoadExpandsHomeInEveryPathFlag(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	write(t, home, "r.json", `[{"tool":"a","decision":"allow"}]`)
	write(t, home, "p/a.rego", "package mcp.custom\n")
	write(t, home, "args.json", `[{"tool":"t","paths":["p"]}]`)
	require.NoError(t, os.Mkdir(filepath.Join(home, "proj"), 0o755))
	c, err := parse(t, "--rules", "~/r.json", "--policy", "$HOME/p", "--grants", "${HOME}/g.json",
		"--arguments", "~/args.json", "--root", "fs=~/proj", "--root", "*=$HOME").Load()
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"fs": filepath.Join(home, "proj"), "*": home}, c.Roots)
	assert.Equal(t, filepath.Join(home, "g.json"), c.GrantsFile)
	assert.Equal(t, []string{filepath.Join(home, "r.json"), filepath.Join(home, "p"), filepath.Join(home, "args.json")}, c.Protected)
	require.Len(t, c.Modules, 1)
	assert.Len(t, c.Arguments, 1)
	require.NoError(t, c.CheckRootDirs())
}

// The proxy's roots are the directories its server works in: one that is
// not there is refused, naming the flag.
func TestCheckRootDirs(t *testing.T) {
	dir := t.TempDir()
	file := write(t, dir, "f.txt", "x")
	for _, tc := range []struct{ root, want string }{
		{"fs=" + filepath.Join(dir, "missing"), `--root fs: directory "` + filepath.Join(dir, "missing") + `": no such file or directory`},
		{"*=" + file, `--root *: "` + file + `" is not a directory`},
	} {
		c, err := parse(t, "--root", tc.root).Load()
		require.NoError(t, err, "policy-eval decide takes roots of another machine")
		assert.EqualError(t, c.CheckRootDirs(), tc.want)
	}
}

// --label and --grant-ttl reach every grant the store makes; a bad label
// or a negative TTL is refused; a postgres:// --grants is a URL, not a
// path to expand.
func TestGrantRecordFlags(t *testing.T) {
	parse := func(args ...string) (*cliconfig.Config, error) {
		var f cliconfig.Flags
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		f.Register(fs)
		f.RegisterGrantRecord(fs)
		require.NoError(t, fs.Parse(args))
		return f.Load()
	}
	cfg, err := parse("--label", "laptop-3", "--label", "team=web", "--grant-ttl", "24h")
	require.NoError(t, err)
	s, err := cfg.OpenGrants()
	require.NoError(t, err)
	require.NoError(t, s.Add(rules.Rule{Tool: "x", Decision: rules.Deny}))
	g := s.Records()[0]
	assert.Equal(t, map[string]string{"id": "laptop-3", "team": "web"}, g.Labels)
	assert.Equal(t, 24*time.Hour, g.Expires.Sub(g.GrantedAt))

	for args, want := range map[string]string{"--label==v": "want KEY=VALUE or NAME", "--label=k=": "want KEY=VALUE or NAME",
		"--grant-ttl=-1h": "--grant-ttl must not be negative"} {
		_, err := parse(args)
		if assert.Error(t, err, args) {
			assert.Contains(t, err.Error(), want, args)
		}
	}
	assert.True(t, cliconfig.IsPostgres("postgresql://u@h/db"))
	assert.False(t, cliconfig.IsPostgres("~/postgres://x"))
	cfg, err = parse("--grants", "postgres://u@localhost:1/db")
	require.NoError(t, err)
	assert.Equal(t, "postgres://u@localhost:1/db", cfg.GrantsFile, "a URL is not expanded as a path")
}

// --config is read at start, its path expanded like the others, and
// guarded by the floor: it names the keys bundles are verified with. One
// that cannot be read is refused naming the flag.
func TestLoadOPAConfig(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	write(t, home, "opa.yaml", "labels:\n  team: platform\n")
	c, err := parse(t, "--config", "~/opa.yaml").Load()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(home, "opa.yaml"), c.OPAConfigFile)
	assert.Equal(t, "labels:\n  team: platform\n", string(c.OPAConfig))
	assert.Contains(t, c.Protected, filepath.Join(home, "opa.yaml"))

	_, err = parse(t, "--config", "~/none.yaml").Load()
	require.Error(t, err)
	assert.Equal(t, "--config "+filepath.Join(home, "none.yaml")+": no such file or directory", err.Error())
}
