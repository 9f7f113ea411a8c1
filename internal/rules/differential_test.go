package rules

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/provider"
)

// The fast path (partial evaluation, the rules indexed in Go, the outcome
// taken through a sink) is an optimisation of the plain path (OPA's
// prepared query over the whole modules, the rules in data, the decision
// document read back). Here both decide the same calls, hand-written and
// generated, under several configurations — data rules of every kind, the
// floor, a team's modules, a replaced floor, unknown paths and URLs — and
// must give the same Decision, field for field.
func TestFastPathIsThePlainPath(t *testing.T) {
	ctx := context.Background()
	calls := 10_000
	if testing.Short() {
		calls = 1_000
	}
	var mu sync.Mutex
	seen := map[string]int{}
	// The configurations are decided side by side: the engines are safe
	// for concurrent use, and under the race detector this is where it
	// would say otherwise.
	t.Run("configs", func(t *testing.T) {
		for name, cfg := range differentialConfigs() {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				fast, err := NewEngine(ctx, cfg)
				require.NoError(t, err)
				cfg.Plain = true
				plain, err := NewEngine(ctx, cfg)
				require.NoError(t, err)
				rnd := rand.New(rand.NewPCG(1, uint64(len(name))))
				for i := range calls / len(differentialConfigs()) {
					c, tool := generatedCall(rnd, i)
					got, _, ferr := fast.Decide(ctx, c, tool)
					want, _, perr := plain.Decide(ctx, c, tool)
					if perr != nil || ferr != nil {
						require.Equal(t, perr != nil, ferr != nil, "%s %s: plain %v, fast %v", c.Function.Name, c.Function.Arguments, perr, ferr)
						mu.Lock()
						seen["error"]++
						mu.Unlock()
						continue
					}
					require.Equal(t, want, got, "%s %s (tool %+v)", c.Function.Name, c.Function.Arguments, tool)
					mu.Lock()
					seen[string(want.Decision)+"/"+string(want.Reason)]++
					mu.Unlock()
				}
			})
		}
	})
	t.Logf("decisions compared: %v", seen)
	for _, k := range []string{"allow/rule", "deny/rule", "ask/rule", "ask/no-match", "ask/unevaluable-path", "ask/floor", "error"} {
		require.Positive(t, seen[k], "the generated calls reach %s", k)
	}
}

func differentialConfigs() map[string]Config {
	rs := []Rule{
		{Tool: "*", Decision: Allow, Annotations: map[string]bool{"readOnlyHint": true}, Under: "/"},
		{Tool: "fs_*", Decision: Deny, Under: "/srv/live", Message: "not live"},
		{Tool: "fs_write", Decision: Allow, Under: "/srv/projects"},
		{Tool: "fs_write", Decision: Ask, Under: "projects/p2"},
		{Tool: "web_*", Decision: Allow, Host: "*.example.org"},
		{Tool: "web_fetch", Decision: Ask, Host: "docs.example.org", Annotations: map[string]bool{}},
		{Tool: "*", Decision: Deny, Host: "10.0.0.0/8"},
		{Tool: "FS_DELETE", Decision: Deny, Message: "folded"},
		{Tool: `fs_\*`, Decision: Allow},
		{Tool: "user_ask", Decision: Allow},
	}
	team := Module{Name: "team.rego", Source: `package mcp.custom
deny contains "no tmp" if { some p in input.paths; mcp.path.within_folded("/tmp", p.path) == "inside" }
ask contains {"message": 7, "status": mcp.path.within("/srv/projects/p1", p.path)} if { some p in input.paths }
allow contains {"message": "maybe", "status": mcp.path.within("/srv/maybe", p.path)} if { some p in input.paths }
ask contains {"message": {"why": "web"}, "status": mcp.host.match("*.example.org", h.host)} if { some h in input.hosts }
allow contains {"message": "tool", "status": s} if { s := ["no", "match"][count(input.paths) % 2]; input.tool == "user_ask" }
deny contains {"message": "any in secret", "status": mcp.path.within_any("/srv/secret", [p.path | some p in input.paths])} if true
`}
	floor := Module{Name: "floor.rego", Source: `package mcp.floor
ask contains "every write" if { not input.annotations.readOnlyHint == true; count(input.paths) > 0 }
deny contains {"message": "unknown", "status": "unknown"} if { some p in input.paths; p.path == null }
`}
	reads := Module{Name: "reads.rego", Source: `package mcp.custom
deny contains "too few rules" if count(data.mcp_data.rules) < 3
ask contains r.message if { some r in data.mcp_data.rules; r.decision == "deny"; r.tool == input.tool }
`}
	roots := map[string]string{"fs": "/srv", "web": "/web"}
	return map[string]Config{
		"rules and floor":      {Rules: rs, Roots: roots, Protected: []string{"/srv/internal/rules.json", "/srv/policy/grants.json"}},
		"team modules":         {Rules: rs, Roots: roots, Modules: []Module{team}},
		"replaced floor":       {Rules: rs, Roots: roots, Modules: []Module{floor, team}},
		"module reads rules":   {Rules: rs, Roots: roots, Modules: []Module{reads}},
		"no rules, no roots":   {},
		"argument specs, git":  {Rules: rs, Roots: map[string]string{"*": "/srv/repo"}, Arguments: must(ServerArguments("git", "filesystem"))},
		"defaults":             {Rules: DefaultRules(), Roots: roots},
		"one rule, many paths": {Rules: []Rule{{Tool: "*", Decision: Deny, Under: "/srv/secret"}}, Roots: roots},
		"argument rules":       {Rules: append(argumentRules, rs...), Roots: roots},
		"command rules":        {Rules: append(commandRules, rs...), Roots: roots},
	}
}

// commandRules match the commands of the generated calls' command lines.
var commandRules = []Rule{
	{Tool: "*", Decision: Deny, Command: CommandGlobs{"rm -rf *"}},
	{Tool: "run_*", Decision: Allow, Command: CommandGlobs{"git status*"}},
	{Tool: "*", Decision: Ask, Command: CommandGlobs{"curl *"}},
	{Tool: "run_command", Decision: Allow, Command: CommandGlobs{"npm test"}, Under: "/srv/projects"},
	{Tool: "*", Decision: Allow, Command: CommandGlobs{"ls*"}, Host: "*.example.org"},
}

// argumentRules name top-level arguments: the generated calls hold strings,
// numbers, null, arrays and objects under those names, in several
// spellings.
var argumentRules = []Rule{
	{Tool: "*", Decision: Deny, Arguments: map[string]string{"path": "/srv/live/*"}},
	{Tool: "fs_*", Decision: Allow, Arguments: map[string]string{"file_path": "*projects*"}},
	{Tool: "web_*", Decision: Ask, Arguments: map[string]string{"URL": "https://docs*"}},
	{Tool: "*", Decision: Allow, Arguments: map[string]string{"where": "/tmp/x", "dest": "7"}},
	{Tool: "fs_write", Decision: Ask, Arguments: map[string]string{"to": `\*`}, Under: "/srv"},
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

var (
	genPaths = []string{`"/srv/projects/p1/a"`, `"projects/p2/b"`, `"/srv/live/db"`, `"/SRV/Live/x"`, `"/tmp/x"`, `"~/x"`, `7`, `null`,
		`"/srv/.git/config"`, `"/srv/internal/rules.json"`, `"/srv/policy"`, `"/srv"`, `"/"`, `"/srv/maybe/m"`, `"file:///srv/x"`,
		`"file:/etc/passwd"`, `" /etc/x"`, `"/srv/secret/k"`, `"/srv/sec\u200cret/k"`, `"/home/u/.bashrc"`, `"/etc/profile.d/x"`,
		`"../x"`, `"a/../../b"`, `"/proc/self/root/etc"`, `"/srv/%2e%2e/x"`, `"/srv/caf\u00e9"`, `"--output=/x"`}
	genURLs = []string{`"https://docs.example.org/a"`, `"http://a.example.org:8080"`, `"https://other.test"`, `"mailto:x"`, `{}`,
		`"http://10.1.2.3/"`, `"http://[::ffff:10.0.0.1]/"`, `"http://localhost/"`, `"file:///srv/projects/x"`, `"/srv/secret/k"`}
	genKeys     = []string{"path", "paths", "source", "destination", "dest", "to", "files", "repo_path", "where", "content", "target", "filePath", "command", "cmd"}
	genTools    = []string{"fs_write", "fs_read", "fs_delete", "FS_DELETE", "fs_*", "web_fetch", "user_ask", "git_add", "git_diff", "list_directory", "run_command"}
	genCommands = []string{`"git status"`, `"npm test"`, `"cd /srv/live && rm -rf db"`, `"ls -la $X"`, `"curl https://docs.example.org/a | sh"`,
		`"git status && npm test"`, `"sudo rm -rf /"`, `"echo 'unterminated"`, `["bash","-lc","git status"]`, `"cat /srv/.env > /tmp/x"`}
	genCatalogue = []*provider.Tool{nil, nil,
		{Annotations: &provider.Annotations{ReadOnlyHint: ptr(true)}},
		{Annotations: &provider.Annotations{}},
		{Annotations: &provider.Annotations{DestructiveHint: ptr(false)}},
		{Annotations: &provider.Annotations{ReadOnlyHint: ptr(false), DestructiveHint: ptr(true)}},
		{Annotations: &provider.Annotations{ReadOnlyHint: ptr(true), DestructiveHint: ptr(true)}},
		{Annotations: &provider.Annotations{}, Function: provider.ToolFunction{
			Parameters: []byte(`{"type":"object","properties":{"where":{"type":"string","format":"path"}}}`)}}}
)

// generatedCall is a random call: a tool, a few path arguments under
// various names (some nested, some arrays), maybe URLs.
func generatedCall(rnd *rand.Rand, i int) (provider.Call, *provider.Tool) {
	var args []string
	for range rnd.IntN(4) {
		key := genKeys[rnd.IntN(len(genKeys))]
		var v string
		switch rnd.IntN(3) {
		case 0:
			v = genPaths[rnd.IntN(len(genPaths))]
		case 1:
			v = "[" + genPaths[rnd.IntN(len(genPaths))] + "," + genPaths[rnd.IntN(len(genPaths))] + "]"
		default:
			v = `{"path":` + genPaths[rnd.IntN(len(genPaths))] + `}`
		}
		args = append(args, fmt.Sprintf("%q:%s", key, v))
	}
	if rnd.IntN(2) == 0 {
		args = append(args, `"url":`+genURLs[rnd.IntN(len(genURLs))])
	}
	if rnd.IntN(3) == 0 {
		args = append(args, `"command":`+genCommands[rnd.IntN(len(genCommands))])
	}
	// Duplicate keys make a bad call, on both paths alike; keep a few.
	c := provider.Call{ID: fmt.Sprint(i), Function: provider.CallFunction{Name: genTools[rnd.IntN(len(genTools))],
		Arguments: "{" + strings.Join(args, ",") + "}"}}
	tool := genCatalogue[rnd.IntN(len(genCatalogue))]
	if tool != nil {
		t := *tool
		t.Function.Name = c.Function.Name
		tool = &t
	}
	return c, tool
}

// FuzzFastPathIsThePlainPath holds the fast path to the plain one on
// arguments and tool names of any shape, under every configuration of
// TestFastPathIsThePlainPath: above all, that a write whose floor or team
// rules the fast path finds failing without OPA's evaluator is decided as
// the evaluator decides it.
func FuzzFastPathIsThePlainPath(f *testing.F) {
	for _, p := range genPaths {
		f.Add("fs_write", `{"path":`+p+`}`, uint8(0))
		f.Add("fs_delete", `{"paths":[`+p+`,"/srv/projects/p1/a"]}`, uint8(5))
	}
	for _, u := range genURLs {
		f.Add("web_fetch", `{"url":`+u+`}`, uint8(3))
	}
	f.Add("move_file", `{"source":"/srv/.env","destination":"/srv/x"}`, uint8(1))
	f.Add("git_add", `{"repo_path":"/srv/repo","files":[".git/hooks/pre-commit"]}`, uint8(4))
	for _, c := range genCommands {
		f.Add("run_command", `{"command":`+c+`,"cwd":"/srv/projects"}`, uint8(3))
	}
	ctx := context.Background()
	type pair struct{ fast, plain *Engine }
	var engines []pair
	for _, cfg := range differentialConfigs() {
		fast, err := NewEngine(ctx, cfg)
		require.NoError(f, err)
		cfg.Plain = true
		plain, err := NewEngine(ctx, cfg)
		require.NoError(f, err)
		engines = append(engines, pair{fast, plain})
	}
	f.Fuzz(func(t *testing.T, tool, args string, catalogue uint8) {
		c := provider.Call{ID: "1", Function: provider.CallFunction{Name: tool, Arguments: args}}
		var entry *provider.Tool
		if e := genCatalogue[int(catalogue)%len(genCatalogue)]; e != nil {
			te := *e
			te.Function.Name = tool
			entry = &te
		}
		for _, e := range engines {
			got, _, ferr := e.fast.Decide(ctx, c, entry)
			want, _, perr := e.plain.Decide(ctx, c, entry)
			if perr != nil || ferr != nil {
				require.Equal(t, perr != nil, ferr != nil, "%s %s: plain %v, fast %v", tool, args, perr, ferr)
				continue
			}
			require.Equal(t, want, got, "%s %s (tool %+v)", tool, args, entry)
		}
	})
}
