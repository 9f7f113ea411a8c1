//go:build unix

package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/bundle"
	opakeys "github.com/open-policy-agent/opa/v1/keys"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/bundletest"
)

// The commands in README.md and docs/ are run as written. Each fenced
// block may be marked, on the line before it, with
//
//	<!-- doc-test: file PATH -->   written to PATH before anything runs
//	<!-- doc-test: run -->         run with bash in that directory
//	<!-- doc-test: output -->      lines the run before it prints (as JSON)
//	<!-- doc-test: synopsis -->    every --flag is one its command takes
//	<!-- doc-test: not run: WHY -->
//
// and every shell block must be. The commands run are the ones a reader
// has installed (policy-eval, mcp-policy, opa), built from this checkout;
// `go run ./cmd/X` runs the same program as X.

type docBlock struct {
	where  string // file:line
	lang   string
	marker string // what follows "doc-test:", trimmed; "" for none
	text   string
}

var docMarker = regexp.MustCompile(`^<!-- doc-test: (.*) -->$`)

func docBlocks(t *testing.T) []docBlock {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(modRoot, "docs", "*.md"))
	require.NoError(t, err)
	files = append([]string{filepath.Join(modRoot, "README.md")}, files...)
	var out []docBlock
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		lines := strings.Split(string(data), "\n")
		for i := 0; i < len(lines); i++ {
			lang, ok := strings.CutPrefix(lines[i], "```")
			if !ok || lang == "" {
				continue
			}
			b := docBlock{where: fmt.Sprintf("%s:%d", filepath.Base(f), i+1), lang: lang}
			if i > 0 {
				if m := docMarker.FindStringSubmatch(lines[i-1]); m != nil {
					b.marker = m[1]
				}
			}
			var body []string
			for i++; i < len(lines) && lines[i] != "```"; i++ {
				body = append(body, lines[i])
			}
			b.text = strings.Join(body, "\n") + "\n"
			out = append(out, b)
		}
	}
	return out
}

// Every shell block says how it is tested, or why it is not.
func TestEveryDocCommandIsTested(t *testing.T) {
	t.Parallel()
	n := 0
	for _, b := range docBlocks(t) {
		if b.lang != "sh" {
			continue
		}
		n++
		switch kind, _, _ := strings.Cut(b.marker, ":"); {
		case b.marker == "run", b.marker == "synopsis":
		case kind == "not run" && strings.TrimSpace(strings.TrimPrefix(b.marker, "not run:")) != "":
		default:
			t.Errorf("%s: a shell block with no <!-- doc-test: run|synopsis|not run: WHY --> before it", b.where)
		}
	}
	assert.Greater(t, n, 10, "the docs' shell blocks were found")
}

// docBin builds the commands a reader of the docs has installed.
func docBin(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	// mcp-policy is the one the other tests built.
	require.NoError(t, os.Symlink(proxyBinary(t), filepath.Join(bin, "mcp-policy")))
	for name, pkg := range map[string]string{"policy-eval": "./cmd/policy-eval", "opa": "github.com/open-policy-agent/opa"} {
		build := exec.Command("go", "build", "-o", filepath.Join(bin, name), pkg)
		build.Dir = modRoot
		out, err := build.CombinedOutput()
		require.NoError(t, err, "building %s: %s", name, out)
	}
	return bin
}

// The docs' files are written, their runnable blocks run in order, and
// what a block says a command prints, it prints.
func TestDocCommandsRunAsWritten(t *testing.T) {
	t.Parallel()
	bin := docBin(t)
	dir := t.TempDir()
	signer := bundletest.NewSigner(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "private.pem"), []byte(signer.Private), 0o600))
	blocks := docBlocks(t)
	for _, b := range blocks {
		if path, ok := strings.CutPrefix(b.marker, "file "); ok {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, path), []byte(b.text), 0o644), b.where)
		}
	}
	ran := 0
	for i, b := range blocks {
		if b.marker != "run" {
			continue
		}
		script := strings.NewReplacer("go run ./cmd/policy-eval", "policy-eval", "go run ./cmd/mcp-policy", "mcp-policy").Replace(b.text)
		cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), "%s, as written:\n%s\nstdout:\n%s\nstderr:\n%s", b.where, b.text, stdout.String(), stderr.String())
		ran++
		if i+1 < len(blocks) && blocks[i+1].marker == "output" {
			for _, want := range strings.Split(strings.TrimSpace(blocks[i+1].text), "\n") {
				assert.True(t, hasJSONLine(stdout.String(), want), "%s: the output the docs show\n%s\nis not among what it printed:\n%s", blocks[i+1].where, want, stdout.String())
			}
		}
	}
	assert.GreaterOrEqual(t, ran, 4, "the runnable blocks were run")

	// The bundle docs/fleet.md builds is signed with the team's key and
	// holds its rules and module, as a proxy's --config will verify it.
	f, err := os.Open(filepath.Join(dir, "mcp-policy.tar.gz"))
	require.NoError(t, err, "docs/fleet.md builds mcp-policy.tar.gz")
	defer f.Close()
	verify := bundle.NewVerificationConfig(map[string]*opakeys.Config{"default": {Key: signer.Public, Algorithm: "RS256"}}, "default", "", nil)
	b, err := bundle.NewReader(f).WithBundleVerificationConfig(verify).Read()
	require.NoError(t, err, "the bundle verifies with the team's public key")
	assert.Equal(t, []string{"mcp"}, *b.Manifest.Roots)
	assert.NotEmpty(t, b.Modules, "the module is in the bundle")
	rules, err := json.Marshal(b.Data["mcp"].(map[string]any)["rules"])
	require.NoError(t, err)
	assert.JSONEq(t, `[{"tool":"write_file","decision":"allow","under":"/srv/app"}]`, string(rules))
}

// hasJSONLine says out has a line equal to want as JSON.
func hasJSONLine(out, want string) bool {
	var w any
	if json.Unmarshal([]byte(want), &w) != nil {
		return strings.Contains(out, want)
	}
	for _, line := range strings.Split(out, "\n") {
		var g any
		if json.Unmarshal([]byte(line), &g) == nil && fmt.Sprint(g) == fmt.Sprint(w) {
			return true
		}
	}
	return false
}

// A synopsis names only flags its command takes.
func TestDocSynopsesMatchTheCommands(t *testing.T) {
	t.Parallel()
	bin := proxyBinary(t)
	helpOf := map[string]string{}
	help := func(args ...string) string {
		key := strings.Join(args, " ")
		if _, ok := helpOf[key]; !ok {
			out, _ := exec.Command(bin, append(args, "--help")...).CombinedOutput() // help exits 0 or 2
			helpOf[key] = string(out)
		}
		return helpOf[key]
	}
	flag := regexp.MustCompile(`(?:^|[\s\[|])(--[a-z][a-z-]*)`)
	n := 0
	for _, b := range docBlocks(t) {
		if b.marker != "synopsis" {
			continue
		}
		for _, line := range strings.Split(b.text, "\n") {
			line, _, _ = strings.Cut(line, "#")
			f := strings.Fields(line)
			if len(f) < 2 || f[0] != "mcp-policy" {
				continue
			}
			args := []string{f[1]}
			if (f[1] == "grants" || f[1] == "pins") && len(f) > 2 {
				sub, _, _ := strings.Cut(f[2], "|") // list|show|...: the flags every one takes
				args = append(args, sub)
			}
			text := help(args...)
			for _, m := range flag.FindAllStringSubmatch(line, -1) {
				n++
				assert.True(t, strings.Contains(text, "  -"+strings.TrimPrefix(m[1], "--")+" ") || strings.Contains(text, "  -"+strings.TrimPrefix(m[1], "--")+"\n"),
					"%s: mcp-policy %s takes no %s:\n%s", b.where, strings.Join(args, " "), m[1], line)
			}
		}
	}
	assert.Greater(t, n, 20, "the synopses' flags were read")
}
