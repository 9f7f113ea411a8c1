package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// main parses flags and starts the proxy: what it refuses, it refuses
// before any server is started.
func TestProxyCommandRefusesBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"proxy"}, "give the server to run after --, or --url"},
		{[]string{"proxy", "--url", "http://x/mcp", "--", "srv"}, "not both"},
		{[]string{"proxy", "--header", "A: b", "--", "srv"}, "--header is for --url"},
		{[]string{"proxy", "--ask", "maybe", "--", "srv"}, `--ask "maybe"`},
		{[]string{"proxy", "--log-arguments", "some", "--", "srv"}, `--log-arguments "some"`},
		{[]string{"proxy", "--ask-timeout", "0s", "--", "srv"}, "--ask-timeout must be positive"},
		{[]string{"proxy", "--ask-wait", "-1s", "--", "srv"}, "--ask-wait must not be negative"},
		{[]string{"proxy", "--max-line", "1000", "--", "srv"}, "at least 1048576"},
		{[]string{"proxy", "--max-line", "9223372036854775807", "--", "srv"}, "at most 1073741824"},
		{[]string{"proxy", "--grants", "postgress://u:secret@db/g", "--", "srv"}, "the only URLs --grants takes"},
		{[]string{"nonsense"}, `unknown command "nonsense"`},
		{[]string{"proxy", "--rules", "nope.json", "--", "srv"}, "--rules nope.json: no such file or directory"},
		{[]string{"proxy", "--policy", "nope/", "--", "srv"}, "--policy nope/: no such file or directory"},
		{[]string{"proxy", "--root", "fs=/no/such/dir", "--", "srv"}, `--root fs: directory "/no/such/dir": no such file or directory`},
		{[]string{"proxy", "--root", "*=" + os.Args[0], "--", "srv"}, `is not a directory`},
		{[]string{"proxy", "--ask", "elicit,approvals", "--", "srv"}, "--ask elicit,approvals needs --grants (a file or a postgres:// URL)"},
		{[]string{"approvals"}, "give --grants FILE"},
		{[]string{"approvals", "--grants", "g.json", "stray"}, `unexpected argument "stray"`},
		{[]string{"approve", "list"}, "give --grants FILE"},
		{[]string{"approve", "--grants", "g.json", "maybe", "0123456789abcdef01234567"}, "usage: mcp-policy approve"},
		{[]string{"approve", "--grants", "g.json", "allow"}, "usage: mcp-policy approve"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, strings.NewReader(""), &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: status %d, stderr %q; want %d and %q", c.args, code, stderr.String(), exitUsage, c.want)
		}
	}
}

// A first run from a host's JSON config: --log's directory does not exist
// yet, and no shell expanded ~ or $HOME. The directory is made (0700), the
// paths are the home directory's, flags written after the server's
// command are warned of, and one line says what is in force.
func TestProxyFirstRunFromAHostConfig(t *testing.T) {
	if _, err := exec.LookPath("true"); err != nil {
		t.Skip("no true command to serve as the server")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	cwd := t.TempDir()
	t.Chdir(cwd)
	require.NoError(t, os.WriteFile(filepath.Join(home, "grants.json"), nil, 0o600)) // made by touch
	var stdout, stderr bytes.Buffer
	code := run([]string{"proxy", "--log", "~/.config/mcp-policy/decisions.jsonl", "--grants", "$HOME/grants.json",
		"--root", "*=${HOME}", "--", "true", "--grants", "x", "--log=y"}, strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code, "stderr: %s", stderr.String())

	dir := filepath.Join(home, ".config", "mcp-policy")
	info, err := os.Stat(dir)
	require.NoError(t, err, "--log's directory")
	assert.Equal(t, os.FileMode(0o700), info.Mode().Perm(), "--log's directory")
	_, err = os.Stat(filepath.Join(dir, "decisions.jsonl"))
	require.NoError(t, err, "the decision log")
	_, err = os.Stat(filepath.Join(cwd, "~"))
	assert.ErrorIs(t, err, os.ErrNotExist, "a literal ~ directory was made")

	assert.Contains(t, stderr.String(), "mcp-policy proxy: warning: after the server's command, --grants, --log go to the server, not to mcp-policy; put mcp-policy's flags before --\n")
	assert.Contains(t, stderr.String(), "mcp-policy proxy: rules: default; grants: "+filepath.Join(home, "grants.json")+" (0 held); log: "+
		filepath.Join(dir, "decisions.jsonl")+"; roots: *="+home+"; home: "+home+"; links: resolved; questions: to the host, or to `mcp-policy approvals` if it cannot elicit\n")
}

func TestOwnFlagsAfter(t *testing.T) {
	fset := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fset.String("rules", "", "")
	fset.String("log", "", "")
	fset.String("root", "", "")
	got := ownFlagsAfter(fset, []string{"--rules", "npx", "-y", "server", "--root=x", "-log", "y", "--rules", "--", "--verbose", "rules"})
	assert.Equal(t, []string{"--root", "--log", "--rules"}, got)
	assert.Empty(t, ownFlagsAfter(fset, []string{"npx"}))
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"version", "--version"} {
		var stdout, stderr bytes.Buffer
		require.Equal(t, exitOK, run([]string{arg}, nil, &stdout, &stderr), arg)
		assert.Regexp(t, `^mcp-policy \S+ go1\.\d+`, stdout.String(), arg)
	}
}

// The synopsis names every flag the proxy takes.
func TestUsageListsEveryFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, exitOK, run([]string{"proxy", "--help"}, nil, &stdout, &stderr))
	names := regexp.MustCompile(`(?m)^  -([a-z-]+)`).FindAllStringSubmatch(stderr.String(), -1)
	require.NotEmpty(t, names)
	for _, n := range names {
		assert.Regexp(t, `--`+n[1]+`[ \]]`, usage, "the usage synopsis")
	}
	assert.Contains(t, usage, "KEY is a tool-name prefix, or * for every tool")
}
