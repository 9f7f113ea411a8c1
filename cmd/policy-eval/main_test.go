package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/regoeval"
	"github.com/mcp-policy/mcp-policy/rego"
)

// cli runs the command in-process.
func cli(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// lines decodes decide's output, one JSON object a line.
func lines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var res []map[string]any
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), "output line %q", l)
		res = append(res, m)
	}
	return res
}

// one runs decide on a single CALL and returns its one output line.
func one(t *testing.T, call string, args ...string) map[string]any {
	t.Helper()
	code, out, errOut := cli(t, "", append(append([]string{"decide"}, args...), call)...)
	require.Equal(t, exitOK, code, "stderr: %s\nstdout: %s", errOut, out)
	ls := lines(t, out)
	require.Len(t, ls, 1)
	return ls[0]
}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

func call(id, tool, args string) string {
	return `{"id":"` + id + `","type":"function","function":{"name":"` + tool + `","arguments":` + args + `}}`
}

// --- decide: one call ------------------------------------------------------

func TestDecideArgumentsAsStringOrObject(t *testing.T) {
	dir := t.TempDir()
	rules := write(t, dir, "rules.json", `[{"tool": "fs_write", "decision": "allow", "under": "/w"}]`)
	asObject := one(t, call("a", "fs_write", `{"path": "/w/x.txt", "content": "hi"}`), "--rules", rules)
	asString := one(t, call("s", "fs_write", `"{\"path\": \"/w/x.txt\", \"content\": \"hi\"}"`), "--rules", rules)

	want := map[string]any{
		"id": "a", "tool": "fs_write", "decision": "allow", "reason": "rule",
		"rule":  map[string]any{"tool": "fs_write", "decision": "allow", "under": "/w"},
		"grant": nil, "paths": []any{"/w/x.txt"}, "hosts": []any{},
		"suggestion": map[string]any{"tool": "fs_write", "under": "/w"},
	}
	assert.Equal(t, want, asObject)
	want["id"] = "s"
	assert.Equal(t, want, asString)
}

func TestDecideNoMatchAndNoArguments(t *testing.T) {
	for _, args := range []string{`{}`, `""`, `null`} {
		got := one(t, call("1", "fs_write", args))
		assert.Equal(t, "ask", got["decision"], args)
		assert.Equal(t, "no-match", got["reason"], args)
		assert.Nil(t, got["rule"], args)
		assert.Equal(t, map[string]any{"tool": "fs_write"}, got["suggestion"], args)
	}
	// No "arguments" key at all, and a numeric id.
	got := one(t, `{"id": 7, "function": {"name": "fs_write"}}`)
	assert.Equal(t, "7", got["id"])
	assert.Equal(t, "no-match", got["reason"])
}

func TestDecideUnevaluablePath(t *testing.T) {
	dir := t.TempDir()
	rules := write(t, dir, "rules.json", `[{"tool": "fs_write", "decision": "allow", "under": "/home/u"}]`)
	got := one(t, call("1", "fs_write", `{"path": "~/x"}`), "--rules", rules)
	assert.Equal(t, "ask", got["decision"])
	assert.Equal(t, "unevaluable-path", got["reason"])
	assert.Equal(t, []any{"~/x"}, got["paths"])
	assert.Equal(t, map[string]any{"tool": "fs_write"}, got["suggestion"])
}

func TestDecideRoots(t *testing.T) {
	dir := t.TempDir()
	rules := write(t, dir, "rules.json", `[{"tool": "fs_write", "decision": "allow", "under": "scratch"}]`)
	got := one(t, call("1", "fs_write", `{"path": "scratch/a"}`), "--rules", rules, "--root", "fs=/proj")
	assert.Equal(t, "allow", got["decision"])
	assert.Equal(t, []any{"/proj/scratch/a"}, got["paths"])

	// The longest key wins; "*" is the fallback.
	got = one(t, call("1", "fs_write", `{"path": "scratch/a"}`), "--rules", rules,
		"--root", "*=/other", "--root", "fs=/proj", "--root", "fs_write=/exact")
	assert.Equal(t, []any{"/exact/scratch/a"}, got["paths"])
	got = one(t, call("1", "web_write", `{"path": "scratch/a"}`), "--rules", rules, "--root", "*=/other", "--root", "fs=/proj")
	assert.Equal(t, []any{"/other/scratch/a"}, got["paths"])

	// A destructive tool on its root is asked by the floor.
	all := write(t, dir, "all.json", `[{"tool": "*", "decision": "allow"}]`)
	got = one(t, call("1", "fs_delete", `{"path": "/proj"}`), "--rules", all, "--root", "fs=/proj")
	assert.Equal(t, "ask", got["decision"])
	assert.Equal(t, "floor", got["reason"])
}

func TestDecideFloor(t *testing.T) {
	dir := t.TempDir()
	rules := write(t, dir, "rules.json", `[{"tool": "*", "decision": "allow"}]`)
	for _, p := range []string{"/r/.git/config", "/home/u/.ssh/id_rsa", "/home/u/.bashrc", "/app/.env.local"} {
		got := one(t, call("1", "fs_write", `{"path": "`+p+`"}`), "--rules", rules)
		assert.Equal(t, "ask", got["decision"], p)
		assert.Equal(t, "floor", got["reason"], p)
		rule, _ := got["rule"].(map[string]any)
		assert.Contains(t, rule["message"], p)
	}
	// Two floor asks at once are one decision, not a conflict.
	got := one(t, call("1", "fs_write", `{"paths": ["/r/.git/config", "/r/.ssh/id"]}`), "--rules", rules)
	assert.Equal(t, "floor", got["reason"])

	// The policy's own rules file is guarded.
	got = one(t, call("1", "fs_write", `{"path": "`+rules+`"}`), "--rules", rules)
	assert.Equal(t, "floor", got["reason"])
	rule, _ := got["rule"].(map[string]any)
	assert.Contains(t, rule["message"], "own rules or grants")
}

// --- decide: JSON lines ------------------------------------------------------

func TestDecideLinesWithAMalformedLine(t *testing.T) {
	stdin := strings.Join([]string{
		call("first", "fs_read", `{"path": "/a"}`),
		`{"id": "broken", "function": 5}`,
		"",
		call("second", "fs_read", `{"path": "/b"}`),
		`this is not json`,
		call("bad-args", "fs_read", `"{\"path\": "`),
		call("last", "fs_read", `{"path": "/c"}`), // no trailing newline
	}, "\n")
	code, out, errOut := cli(t, stdin, "decide")
	assert.Equal(t, exitMalformed, code, errOut)
	got := lines(t, out)
	require.Len(t, got, 6, out) // the blank line is skipped

	assert.Equal(t, "first", got[0]["id"])
	assert.Equal(t, "ask", got[0]["decision"])

	assert.Equal(t, "broken", got[1]["id"])
	assert.Contains(t, got[1]["error"], "malformed call")
	assert.NotContains(t, got[1], "decision")

	assert.Equal(t, "second", got[2]["id"])
	assert.Equal(t, []any{"/b"}, got[2]["paths"])

	assert.Contains(t, got[3], "id")
	assert.Nil(t, got[3]["id"], "no id to recover")
	assert.NotEmpty(t, got[3]["error"])

	assert.Equal(t, "bad-args", got[4]["id"])
	assert.Contains(t, got[4]["error"], "not valid JSON")

	assert.Equal(t, "last", got[5]["id"])
	assert.Equal(t, []any{"/c"}, got[5]["paths"])
}

func TestDecideLinesAllDecided(t *testing.T) {
	stdin := call("1", "user_ask", `{}`) + "\n" + call("2", "fs_read", `{"path": "/x"}`) + "\n\n"
	code, out, errOut := cli(t, stdin, "decide")
	assert.Equal(t, exitOK, code, errOut)
	got := lines(t, out)
	require.Len(t, got, 2)
	assert.Equal(t, "1", got[0]["id"])
	assert.Equal(t, "allow", got[0]["decision"])
	assert.Equal(t, "2", got[1]["id"])
	assert.Equal(t, "ask", got[1]["decision"])
}

func TestDecideEmptyStdin(t *testing.T) {
	code, out, _ := cli(t, "", "decide")
	assert.Equal(t, exitOK, code)
	assert.Empty(t, out)
}

func TestDecideRefusesInvalidUTF8AndDuplicateKeys(t *testing.T) {
	cases := map[string]string{
		"utf8-line":      call("u1", "fs_write", "{\"path\": \"/w/\xff\"}"),
		"utf8-in-string": call("u2", "fs_write", "\"{\\\"path\\\": \\\"/w/\xfe\\\"}\""),
		"dup-object":     call("d1", "fs_write", `{"path": "/w/a", "path": "/etc/passwd"}`),
		"dup-string":     call("d2", "fs_write", `"{\"path\": \"/w/a\", \"path\": \"/etc/passwd\"}"`),
		"dup-nested":     call("d3", "fs_write", `{"opts": {"a": 1, "a": 2}}`),
		"dup-call":       `{"id": "d4", "function": {"name": "fs_read", "name": "fs_write", "arguments": {}}}`,
	}
	for name, line := range cases {
		t.Run(name, func(t *testing.T) {
			code, out, _ := cli(t, line+"\n"+call("next", "fs_write", `{}`)+"\n", "decide")
			assert.Equal(t, exitMalformed, code)
			got := lines(t, out)
			require.Len(t, got, 2)
			assert.NotEmpty(t, got[0]["error"])
			assert.NotContains(t, got[0], "decision")
			assert.Equal(t, "next", got[1]["id"])
			assert.Equal(t, "ask", got[1]["decision"])
		})
	}
	// The ids that can be read are reported.
	_, out, _ := cli(t, cases["dup-object"]+"\n"+cases["utf8-line"]+"\n", "decide")
	got := lines(t, out)
	assert.Equal(t, "d1", got[0]["id"])
	assert.Contains(t, got[0]["error"], "duplicate key")
	assert.Equal(t, "u1", got[1]["id"])
	assert.Contains(t, got[1]["error"], "UTF-8")
}

func TestDecideMalformedSingleCall(t *testing.T) {
	code, out, _ := cli(t, "", "decide", `{"id": "x"}`)
	assert.Equal(t, exitMalformed, code)
	got := lines(t, out)
	require.Len(t, got, 1)
	assert.Equal(t, "x", got[0]["id"])
	assert.Contains(t, got[0]["error"], "malformed call")
}

// --- decide: bad flags and bad policy ----------------------------------------

func TestUsage(t *testing.T) {
	code, _, errOut := cli(t, "")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "usage:")

	code, _, errOut = cli(t, "", "frobnicate")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `unknown command "frobnicate"`)

	code, out, _ := cli(t, "", "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "policy-eval decide")
}

func TestDecideBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"decide", "--nope"},
		{"decide", "--rules"},
		{"decide", call("1", "a", "{}"), call("2", "b", "{}")},
		{"decide", "--root", "fs"},
		{"decide", "--root", "=/x"},
		{"decide", "--root", "fs="},
		{"decide", "--root", "fs=/a", "--root", "fs=/b"},
	} {
		code, out, errOut := cli(t, "", args...)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.Empty(t, out, "%v", args)
		assert.NotEmpty(t, errOut, "%v", args)
	}
}

func TestDecideBadRoot(t *testing.T) {
	// ~/ and $HOME are expanded (cliconfig.ExpandPath); ~user and
	// $HOMEDIR are not, and are not absolute.
	for _, dir := range []string{"relative/dir", "~other/x", "$HOMEDIR/x", `C:\x`} {
		code, _, errOut := cli(t, "", "decide", "--root", "fs="+dir, call("1", "fs_read", "{}"))
		assert.Equal(t, exitUsage, code, dir)
		assert.Contains(t, errOut, "fs", dir)
		assert.Contains(t, errOut, strconv.Quote(dir))
	}
}

func TestDecideBadRulesFile(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, content string
		want          []string
	}{
		{"decision.json", `[{"tool": "a", "decision": "allow"}, {"tool": "b", "decision": "maybe"}]`,
			[]string{"rule 2", `"decision"`, "maybe"}},
		{"unknown.json", `[{"tool": "a", "decision": "allow", "undr": "/x"}]`, []string{"rule 1", `"undr"`}},
		{"tool.json", `[{"decision": "allow"}]`, []string{"rule 1", `"tool"`}},
		{"under.json", `[{"tool": "a", "decision": "allow", "under": ""}]`, []string{"rule 1", `"under"`}},
		{"host.json", `[{"tool": "a", "decision": "allow", "host": "http://x y"}]`, []string{"rule 1", `"host"`}},
		{"hint.json", `[{"tool": "a", "decision": "allow", "annotations": {"readOnly": true}}]`,
			[]string{"rule 1", `"annotations"`}},
		{"syntax.json", `[{"tool": "a",}]`, nil},
		{"object.json", `{"tool": "a", "decision": "allow"}`, []string{"array"}},
		{"dup.json", `[{"tool": "a", "decision": "allow", "decision": "deny"}]`, []string{"duplicate"}},
	}
	for _, c := range cases {
		p := write(t, dir, c.name, c.content)
		code, out, errOut := cli(t, "", "decide", "--rules", p, call("1", "a", "{}"))
		assert.Equal(t, exitUsage, code, c.name)
		assert.Empty(t, out, c.name)
		assert.Contains(t, errOut, p, c.name)
		for _, w := range c.want {
			assert.Contains(t, errOut, w, c.name)
		}
	}
	missing := filepath.Join(dir, "missing.json")
	code, _, errOut := cli(t, "", "decide", "--rules", missing, call("1", "a", "{}"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, missing)
}

func TestDecideBadRegoModule(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, src, want string
	}{
		{"syntax.rego", "package mcp.custom\n\ndeny contains \"x\" if {\n\tinput.tool == == 1\n}\n", ":4"},
		{"types.rego", "package mcp.custom\n\n\n\ndeny contains msg if msg := mcp.no_such_builtin(input.tool)\n", ":5"},
		{"v0.rego", "package mcp.custom\n\ndeny[msg] { msg := \"x\" }\n", ":3"},
		{"engine.rego", "package mcp.engine\n\nx := 1\n", "belongs to the engine"},
		{"defaults.rego", "package mcp.defaults\n\nrules := []\n", "belongs to the engine"},
	}
	for _, c := range cases {
		p := write(t, dir, c.name, c.src)
		code, out, errOut := cli(t, "", "decide", "--policy", p, call("1", "a", "{}"))
		assert.Equal(t, exitUsage, code, c.name)
		assert.Empty(t, out, c.name)
		assert.Contains(t, errOut, p, c.name)
		assert.Contains(t, errOut, c.want, c.name)
	}
	code, _, errOut := cli(t, "", "decide", "--policy", filepath.Join(dir, "missing.rego"), call("1", "a", "{}"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "missing.rego")
}

// --- decide: default rules ---------------------------------------------------

const readOnlyTools = `{"tools": [
	{"name": "fs_read", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}},
	{"name": "fs_write", "inputSchema": {"type": "object"}}
]}`

func TestDecideDefaultRules(t *testing.T) {
	dir := t.TempDir()
	tools := write(t, dir, "tools.json", readOnlyTools)
	read := call("1", "fs_read", `{"path": "/etc/hosts"}`)

	got := one(t, read, "--tools", tools)
	assert.Equal(t, "allow", got["decision"])
	assert.Equal(t, map[string]any{"tool": "*", "decision": "allow", "under": "/",
		"annotations": map[string]any{"readOnlyHint": true}}, got["rule"])

	got = one(t, read, "--tools", tools, "--no-default-rules")
	assert.Equal(t, "ask", got["decision"])
	assert.Equal(t, "no-match", got["reason"])

	for _, tool := range []string{"user_ask", "srv_user_ask"} {
		assert.Equal(t, "allow", one(t, call("1", tool, `{}`))["decision"], tool)
		assert.Equal(t, "no-match", one(t, call("1", tool, `{}`), "--no-default-rules")["reason"], tool)
	}

	// The rules file comes after the defaults: a deny still beats their allow.
	rules := write(t, dir, "rules.json", `[{"tool": "fs_read", "decision": "deny", "under": "/etc", "message": "not /etc"}]`)
	got = one(t, read, "--tools", tools, "--rules", rules)
	assert.Equal(t, "deny", got["decision"])
	assert.Equal(t, "not /etc", got["rule"].(map[string]any)["message"])

	allow := write(t, dir, "allow.json", `[{"tool": "fs_write", "decision": "allow", "under": "/w"}]`)
	got = one(t, call("1", "fs_write", `{"path": "/w/a"}`), "--no-default-rules", "--rules", allow)
	assert.Equal(t, "allow", got["decision"])
	assert.Equal(t, "no-match", one(t, call("1", "user_ask", `{}`), "--no-default-rules", "--rules", allow)["reason"])
}

// --- decide: tools -----------------------------------------------------------

func TestDecideTools(t *testing.T) {
	dir := t.TempDir()
	listed := write(t, dir, "list.json", `{"tools": [{
		"name": "nb_read", "description": "reads a notebook",
		"inputSchema": {"type": "object", "properties": {"notebook": {"type": "string", "format": "path"},
			"links": {"type": "array", "items": {"type": "string", "format": "uri"}}}},
		"annotations": {"readOnlyHint": true, "title": "Read"}
	}]}`)
	got := one(t, call("1", "nb_read", `{"notebook": "/n/a.ipynb"}`), "--tools", listed)
	assert.Equal(t, "allow", got["decision"])
	assert.Equal(t, []any{"/n/a.ipynb"}, got["paths"])

	got = one(t, call("1", "nb_read", `{"links": ["https://docs.raku.org/x"]}`), "--tools", listed)
	assert.Equal(t, []any{"docs.raku.org"}, got["hosts"])
	assert.Equal(t, map[string]any{"tool": "nb_read", "host": "docs.raku.org"}, got["suggestion"])

	// Without the catalogue the annotations are unknown and no name says
	// the value is a path: an absolute one reads as itself, and no rule
	// allows a tool of unknown hints to act on it.
	got = one(t, call("1", "nb_read", `{"notebook": "/n/a.ipynb"}`))
	assert.Equal(t, "no-match", got["reason"])
	assert.Equal(t, []any{"/n/a.ipynb"}, got["paths"], "shown as written")

	// A []Tool, annotations beside "function".
	array := write(t, dir, "array.json", `[{"type": "function",
		"function": {"name": "fs_read", "description": "", "parameters": {"type": "object"}},
		"annotations": {"readOnlyHint": true}}]`)
	got = one(t, call("1", "fs_read", `{"path": "/etc/hosts"}`), "--tools", array)
	assert.Equal(t, "allow", got["decision"])

	// Listed without annotations: known, but not read-only.
	bare := write(t, dir, "bare.json", `{"tools": [{"name": "fs_read"}]}`)
	got = one(t, call("1", "fs_read", `{"path": "/srv/notes.md"}`), "--tools", bare)
	assert.Equal(t, "no-match", got["reason"])

	for name, content := range map[string]string{
		"bad-shape.json": `{"result": 1}`,
		"no-name.json":   `{"tools": [{"description": "x"}]}`,
		"twice.json":     `{"tools": [{"name": "a"}, {"name": "a"}]}`,
		"dup-key.json":   `{"tools": [{"name": "a", "name": "b"}]}`,
		"syntax.json":    `{"tools": [`,
	} {
		p := write(t, dir, name, content)
		code, _, errOut := cli(t, "", "decide", "--tools", p, call("1", "a", "{}"))
		assert.Equal(t, exitUsage, code, name)
		assert.Contains(t, errOut, p, name)
	}
}

// --- decide: grants ----------------------------------------------------------

func TestDecideGrants(t *testing.T) {
	dir := t.TempDir()
	grantsFile := write(t, dir, "grants.json", `[
		{"tool": "fs_write", "decision": "allow", "under": "/w"},
		{"tool": "fs_delete", "decision": "deny", "under": "/w/.git"}
	]`)

	got := one(t, call("1", "fs_write", `{"path": "/w/a"}`), "--grants", grantsFile)
	assert.Equal(t, "allow", got["decision"])
	assert.Equal(t, "grant", got["reason"])
	assert.Nil(t, got["rule"])
	assert.Equal(t, map[string]any{"tool": "fs_write", "decision": "allow", "under": "/w"}, got["grant"])

	// An allow grant never answers the floor.
	got = one(t, call("1", "fs_write", `{"path": "/w/.git/config"}`), "--grants", grantsFile)
	assert.Equal(t, "ask", got["decision"])
	assert.Equal(t, "floor", got["reason"])
	assert.Nil(t, got["grant"])

	// A deny grant does.
	got = one(t, call("1", "fs_delete", `{"path": "/w/.git/config"}`), "--grants", grantsFile)
	assert.Equal(t, "deny", got["decision"])
	assert.Equal(t, "grant", got["reason"])
	assert.Equal(t, "fs_delete", got["grant"].(map[string]any)["tool"])

	// An explicit ask rule means "ask every time": an allow grant leaves it.
	rules := write(t, dir, "rules.json", `[{"tool": "fs_write", "decision": "ask", "under": "/w"}]`)
	got = one(t, call("1", "fs_write", `{"path": "/w/a"}`), "--grants", grantsFile, "--rules", rules)
	assert.Equal(t, "ask", got["decision"])
	assert.Equal(t, "rule", got["reason"])
	assert.Nil(t, got["grant"])

	// The grants file itself is guarded.
	got = one(t, call("1", "fs_write", `{"path": "`+grantsFile+`"}`), "--grants", grantsFile,
		"--rules", write(t, dir, "all.json", `[{"tool": "*", "decision": "allow"}]`))
	assert.Equal(t, "floor", got["reason"])

	bad := write(t, dir, "bad.json", `[{"tool": "fs_write", "decision": "ask"}]`)
	code, _, errOut := cli(t, "", "decide", "--grants", bad, call("1", "a", "{}"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, bad)
	assert.Contains(t, errOut, "rule 1")
	assert.Contains(t, errOut, `"decision"`)
}

// --- decide: modules ---------------------------------------------------------

func TestDecideCustomModule(t *testing.T) {
	dir := t.TempDir()
	rules := write(t, dir, "rules.json", `[{"tool": "*", "decision": "allow"}]`)
	c := call("1", "fs_delete", `{"path": "/w/a"}`)
	assert.Equal(t, "allow", one(t, c, "--rules", rules)["decision"])

	mod := write(t, dir, "policies/team.rego", `package mcp.custom

deny contains "no deletes here" if input.tool == "fs_delete"

# A move out of /w is asked; one that might be is asked as unevaluable.
ask contains {"message": "outside /w", "status": status} if {
	input.tool == "fs_move"
	within := mcp.path.within_all("/w", [p.path | some p in input.paths])
	status := {"outside": "match", "unknown": "unknown"}[within]
}
`)
	// A test file beside it is not loaded (it would not compile).
	write(t, dir, "policies/team_test.rego", "package mcp.custom_test\n\ntest_x if mcp.nothing(1)\n")

	for _, policy := range []string{mod, filepath.Dir(mod)} {
		got := one(t, c, "--rules", rules, "--policy", policy)
		assert.Equal(t, "deny", got["decision"], policy)
		assert.Equal(t, "rule", got["reason"], policy)
		assert.Equal(t, map[string]any{"tool": "fs_delete", "decision": "deny", "message": "no deletes here"}, got["rule"], policy)
	}
	got := one(t, call("1", "fs_write", `{"path": "/w/a"}`), "--rules", rules, "--policy", mod)
	assert.Equal(t, "allow", got["decision"])

	// A module entry with a status takes part in the two worlds.
	got = one(t, call("1", "fs_move", `{"path": "/w/a"}`), "--rules", rules, "--policy", mod)
	assert.Equal(t, "allow", got["decision"])
	got = one(t, call("1", "fs_move", `{"path": "/x"}`), "--rules", rules, "--policy", mod)
	assert.Equal(t, "ask", got["decision"])
	assert.Equal(t, "outside /w", got["rule"].(map[string]any)["message"])
	got = one(t, call("1", "fs_move", `{"path": "~/a"}`), "--rules", rules, "--policy", mod)
	assert.Equal(t, "unevaluable-path", got["reason"])

	// The module is guarded like the rules file.
	got = one(t, call("1", "fs_write", `{"path": "`+mod+`"}`), "--rules", rules, "--policy", filepath.Dir(mod))
	assert.Equal(t, "floor", got["reason"])
}

func TestDecideReplacedFloor(t *testing.T) {
	dir := t.TempDir()
	rules := write(t, dir, "rules.json", `[{"tool": "*", "decision": "allow"}]`)
	floor := write(t, dir, "floor.rego", `package mcp.floor

ask contains sprintf("%s is special", [p.path]) if {
	some p in input.paths
	startswith(p.path, "/special/")
}
`)
	git := call("1", "fs_write", `{"path": "/r/.git/config"}`)
	assert.Equal(t, "floor", one(t, git, "--rules", rules)["reason"])

	got := one(t, git, "--rules", rules, "--policy", floor)
	assert.Equal(t, "allow", got["decision"], "the embedded floor is replaced")

	got = one(t, call("1", "fs_read", `{"path": "/special/x"}`), "--rules", rules, "--policy", floor)
	assert.Equal(t, "ask", got["decision"])
	assert.Equal(t, "floor", got["reason"])
	assert.Equal(t, "/special/x is special", got["rule"].(map[string]any)["message"])

	// An allow grant does not answer the replaced floor either.
	grantsFile := write(t, dir, "grants.json", `[{"tool": "*", "decision": "allow"}]`)
	got = one(t, call("1", "fs_read", `{"path": "/special/x"}`), "--policy", floor, "--grants", grantsFile)
	assert.Equal(t, "floor", got["reason"])
}

// --- capabilities ------------------------------------------------------------

func TestCapabilities(t *testing.T) {
	code, out, errOut := cli(t, "", "capabilities")
	require.Equal(t, exitOK, code, errOut)
	caps, err := ast.LoadCapabilitiesJSON(strings.NewReader(out))
	require.NoError(t, err)
	have := map[string]*ast.Builtin{}
	for _, b := range caps.Builtins {
		have[b.Name] = b
	}
	decls := regoeval.Declarations()
	require.NotEmpty(t, decls)
	for _, d := range decls {
		b, ok := have[d.Name]
		if assert.True(t, ok, "capabilities lack %s", d.Name) {
			assert.True(t, strings.HasPrefix(b.Name, "mcp."))
			assert.NotNil(t, b.Decl, d.Name)
		}
	}
	for _, name := range []string{"mcp.path.within", "mcp.url.host", "mcp.host.match", "mcp.tool.match", "mcp.engine.decide"} {
		assert.Contains(t, have, name)
	}
	assert.Contains(t, have, "startswith", "OPA's own builtins are there too")

	// The capabilities are enough to compile the embedded modules and tests.
	modules := map[string]*ast.Module{}
	for _, m := range append(mcprego.Modules(), mcprego.TestModules()...) {
		parsed, err := ast.ParseModuleWithOpts(m.Name, m.Source, ast.ParserOptions{RegoVersion: ast.RegoV1, Capabilities: caps})
		require.NoError(t, err)
		modules[m.Name] = parsed
	}
	compiler := ast.NewCompiler().WithCapabilities(caps)
	compiler.Compile(modules)
	require.False(t, compiler.Failed(), "%v", compiler.Errors)

	code, _, errOut = cli(t, "", "capabilities", "extra")
	assert.Equal(t, exitUsage, code)
	assert.NotEmpty(t, errOut)
}

func TestPositional(t *testing.T) {
	for _, c := range []struct{ args, want []string }{
		{nil, nil},
		{[]string{"rego"}, []string{"rego"}},
		{[]string{"-v", "rego", "team"}, []string{"rego", "team"}},
		{[]string{"--run", "x", "rego"}, []string{"rego"}},
		{[]string{"--run=x", "rego"}, []string{"rego"}},
		{[]string{"-r", "x", "rego"}, []string{"rego"}},
		{[]string{"-rx", "rego"}, []string{"rego"}},
		{[]string{"-vr", "x", "rego"}, []string{"rego"}},
		{[]string{"--coverage", "--format", "json", "rego"}, []string{"rego"}},
		{[]string{"--capabilities", "caps.json"}, nil},
		{[]string{"-v", "--", "-odd"}, []string{"-odd"}},
	} {
		assert.Equal(t, c.want, positional(c.args), "%q", c.args)
	}
}

func TestDecideHelp(t *testing.T) {
	code, _, errOut := cli(t, "", "decide", "-h")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, errOut, "-no-default-rules")
}

// --explain shows what was read and where it came from, so a user can see
// why a call was asked: every path and host, its argument, its place in
// the arguments, the value as written and what it resolved to.
// A rules file's data marks: --explain shows where the unknown path is,
// the rule marks it data, and the call is allowed; a secret there is
// asked still.
func TestDecideDataMarks(t *testing.T) {
	dir := t.TempDir()
	put := call("1", "kv_put", `{"key":"session","value":"~/sessions/abc"}`)
	plain := write(t, dir, "plain.json", `[{"tool": "kv_put", "decision": "allow"}]`)
	got := one(t, put, "--rules", plain, "--explain")
	assert.Equal(t, "unevaluable-path", got["reason"])
	assert.Contains(t, got["read"], map[string]any{"kind": "path", "arg": "value", "at": "/value", "raw": "~/sessions/abc", "resolved": ""})

	marked := write(t, dir, "marked.json", `[{"tool": "kv_put", "decision": "allow", "data": ["/value"]}]`)
	got = one(t, put, "--rules", marked)
	assert.Equal(t, "allow", got["decision"])
	got = one(t, call("2", "kv_put", `{"key":"k","value":"~/.aws/credentials"}`), "--rules", marked)
	assert.Equal(t, "ask", got["decision"])
	assert.Equal(t, "floor", got["reason"])
	got = one(t, call("3", "kv_put", `{"key":"~/x","value":"v"}`), "--rules", marked)
	assert.Equal(t, "unevaluable-path", got["reason"], "a pointer marks its place only")

	bad := write(t, dir, "bad.json", `[{"tool": "x", "decision": "ask", "data": ["key"]}]`)
	code, _, errOut := cli(t, "", "decide", "--rules", bad, call("1", "x", `{}`))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `field "data"`)
}

func TestDecideExplain(t *testing.T) {
	got := one(t, call("1", "ping", `{"target":"169.254.169.254","opts":{"out":"../x"},"note":"~/y"}`), "--root", "*=/srv", "--explain")
	assert.Equal(t, []any{
		map[string]any{"kind": "host", "arg": "target", "at": "/target", "raw": "169.254.169.254", "resolved": "169.254.169.254"},
		map[string]any{"kind": "path", "arg": "note", "at": "/note", "raw": "~/y", "resolved": ""},
		map[string]any{"kind": "path", "arg": "out", "at": "/opts/out", "raw": "../x", "resolved": "/x"},
	}, got["read"])
	plain := one(t, call("1", "ping", `{"target":"169.254.169.254"}`), "--root", "*=/srv")
	assert.NotContains(t, plain, "read", "only with --explain")
}

// decide --grants leaves out a grant whose "expires" has passed: an
// expired "Allow for a day" allowed here while the proxy's store had
// dropped it (outside round on links and hosts).
func TestDecideGrantsLeavesExpiredOnesOut(t *testing.T) {
	dir := t.TempDir()
	grantsFile := write(t, dir, "grants.json", `[
		{"tool": "fs_write", "decision": "allow", "under": "/w", "expires": "2020-01-01T00:00:00Z"},
		{"tool": "fs_write", "decision": "allow", "under": "/v", "expires": "2999-01-01T00:00:00Z"}
	]`)
	got := one(t, call("1", "fs_write", `{"path": "/w/a"}`), "--grants", grantsFile)
	assert.Equal(t, "ask", got["decision"], "the expired grant answered")
	got = one(t, call("1", "fs_write", `{"path": "/v/a"}`), "--grants", grantsFile)
	assert.Equal(t, "allow", got["decision"], "the live grant did not answer")
	assert.Equal(t, "grant", got["reason"])
}
