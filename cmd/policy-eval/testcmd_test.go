package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// `policy-eval test` runs OPA's global test command, which writes to the
// process's stdout and keeps flag state between runs: it is tested through
// the built binary.

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "policy-eval-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "policy-eval")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = errors.New(string(out))
		}
	})
	require.NoError(t, binErr, "go build")
	return binPath
}

func exe(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		require.NoError(t, err)
	}
	return code, out.String(), errOut.String()
}

// A team's module with its tests: they use the builtins and the engine.
const teamModule = `package team

import data.mcp.engine

in_home(p) if mcp.path.within("/home", p) == "inside"

decision(tool, path) := d if {
	d := engine.decision with input as {
		"tool": tool, "root": null, "annotations": null,
		"paths": [{"arg": "path", "raw": path, "path": mcp.path.resolve(null, path)}],
		"hosts": [], "arguments": {},
	}
		with data.mcp_data as {"rules": [], "roots": [], "protected": []}
}
`

const passingTests = `package team_test

import data.team

test_in_home if team.in_home("/home/u/x")

test_floor_asks if team.decision("fs_write", "/r/.git/config").reason == "floor"
`

const failingTest = `package team_fail_test

import data.team

test_wrong if team.in_home("/etc/passwd")
`

func teamDir(t *testing.T, failing bool) string {
	dir := t.TempDir()
	write(t, dir, "team.rego", teamModule)
	write(t, dir, "team_test.rego", passingTests)
	if failing {
		write(t, dir, "fail_test.rego", failingTest)
	}
	return dir
}

func TestTestCommandPasses(t *testing.T) {
	dir := teamDir(t, false)
	code, out, errOut := exe(t, dir, "test", ".")
	assert.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	assert.Equal(t, "PASS: 2/2\n", out)

	code, out, _ = exe(t, dir, "test", "-v", ".")
	assert.Equal(t, 0, code)
	assert.Regexp(t, `data\.team_test\.test_in_home: PASS`, out)
	assert.Regexp(t, `data\.team_test\.test_floor_asks: PASS`, out)
	assert.Contains(t, out, "PASS: 2/2")
}

func TestTestCommandFails(t *testing.T) {
	dir := teamDir(t, true)
	code, out, errOut := exe(t, dir, "test", ".")
	assert.Equal(t, 2, code, "opa test's exit code for failing tests; stderr: %s", errOut)
	assert.Contains(t, out, "data.team_fail_test.test_wrong: FAIL")
	assert.Contains(t, out, "PASS: 2/3")
	assert.Contains(t, out, "FAIL: 1/3")

	code, out, _ = exe(t, dir, "test", "-v", dir)
	assert.Equal(t, 2, code)
	assert.Contains(t, out, "data.team_test.test_in_home: PASS")
	assert.Contains(t, out, "data.team_fail_test.test_wrong: FAIL")

	// --run narrows the tests; its value is not taken for a path.
	code, out, _ = exe(t, dir, "test", "--run", "test_in_home", dir)
	assert.Equal(t, 0, code, out)
	assert.Equal(t, "PASS: 1/1\n", out)
}

func TestTestCommandCoverage(t *testing.T) {
	dir := teamDir(t, false)
	code, out, errOut := exe(t, dir, "test", "--coverage", ".")
	require.Equal(t, 0, code, errOut)
	var report struct {
		Files    map[string]json.RawMessage `json:"files"`
		Coverage float64                    `json:"coverage"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &report), out)
	assert.Contains(t, report.Files, "team.rego")
	assert.Greater(t, report.Coverage, 0.0)
}

func TestTestCommandBadModule(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "bad.rego", "package bad\n\nx := \n")
	code, _, errOut := exe(t, dir, "test", ".")
	assert.Equal(t, 1, code)
	assert.Regexp(t, regexp.MustCompile(`bad\.rego:\d+`), errOut)
}

func TestTestCommandReplacedFloor(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "team.rego", teamModule)
	write(t, dir, "floor.rego", "package mcp.floor\n\nask contains \"special\" if input.tool == \"special\"\n")
	write(t, dir, "floor_test.rego", `package team_test

import data.team

test_git_is_no_longer_asked if team.decision("fs_write", "/r/.git/config").reason == "no-match"

test_special if team.decision("special", "/x").reason == "floor"
`)
	code, out, errOut := exe(t, dir, "test", "-v", ".")
	assert.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	assert.Contains(t, out, "PASS: 2/2")
}

func TestTestCommandRepositoryRego(t *testing.T) {
	rego, err := filepath.Abs(filepath.Join("..", "..", "rego"))
	require.NoError(t, err)
	code, out, errOut := exe(t, t.TempDir(), "test", "-v", rego)
	assert.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	assert.Contains(t, out, "data.mcp.engine_test.")
	assert.Contains(t, out, "data.mcp.floor_test.")
	assert.Contains(t, out, "data.mcp.defaults_test.")
	assert.NotContains(t, out, "FAIL")
	assert.Regexp(t, `PASS: (\d+)/(\d+)`, out)
	m := regexp.MustCompile(`PASS: (\d+)/(\d+)`).FindStringSubmatch(out)
	assert.Equal(t, m[1], m[2])
}

func TestTestCommandEmbedded(t *testing.T) {
	// No paths: the embedded modules and their tests.
	code, out, errOut := exe(t, t.TempDir(), "test")
	assert.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	assert.Regexp(t, `^PASS: \d+/\d+\n$`, out)

	code, out, _ = exe(t, t.TempDir(), "test", "-v")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "data.mcp.engine_test.test_deny_beats_ask_and_allow: PASS")
	assert.True(t, strings.Contains(out, "data.mcp.floor_test."), out)
}

func TestDecideBinaryExitCodes(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := exe(t, dir, "decide", call("1", "user_ask", "{}"))
	assert.Equal(t, 0, code)
	assert.Contains(t, out, `"decision":"allow"`)

	code, _, _ = exe(t, dir, "decide", "{")
	assert.Equal(t, 1, code)

	code, _, _ = exe(t, dir, "decide", "--bogus")
	assert.Equal(t, 2, code)

	code, out, _ = exe(t, dir, "capabilities")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, `"mcp.engine.decide"`)
}

func TestTestCommandFlagValuesAreNotPaths(t *testing.T) {
	dir := t.TempDir()
	caps := write(t, dir, "caps.json", "")
	code, out, errOut := exe(t, dir, "capabilities")
	require.Equal(t, 0, code, errOut)
	require.NoError(t, os.WriteFile(caps, []byte(out), 0o600))

	// A flag's value that names a file is not a path to test: with no
	// paths, the embedded tests run.
	code, out, errOut = exe(t, dir, "test", "--capabilities", caps)
	assert.Equal(t, 0, code, errOut)
	assert.Regexp(t, `^PASS: \d+/\d+\n$`, out)

	// Nor is one that names a directory.
	write(t, dir, "team/team.rego", teamModule)
	write(t, dir, "team/team_test.rego", passingTests)
	code, out, errOut = exe(t, dir, "test", "--run", "team", "-v")
	assert.Equal(t, 0, code, errOut)
	assert.NotContains(t, out, "data.team_test", "team is --run's value, not a path")
	code, out, _ = exe(t, dir, "test", "--run", "test_in_home", "team")
	assert.Equal(t, 0, code)
	assert.Equal(t, "PASS: 1/1\n", out)
}
