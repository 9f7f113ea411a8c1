package rules_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-policy/mcp-policy/internal/rules"
)

// TestCommandAllowCoversWhatItRuns: an allow whose only condition is its
// commands allows what they run that cannot be read (inline code, a
// script on standard input) — the user named the program — but not a
// known secret or floor file they name, nor a command it does not match,
// nor a word the shell changes; an allow that also names a directory
// still asks about what it cannot see.
func TestCommandAllowCoversWhatItRuns(t *testing.T) {
	py := rules.Rule{Tool: "run_command", Decision: rules.Allow, Command: rules.CommandGlobs{"python3", "python3 -c *", "python3 -", "tar xf *", "bash -c *"}}
	inProject := rules.Rule{Tool: "run_command", Decision: rules.Allow, Command: rules.CommandGlobs{"python3 -c *"}, Under: "/srv/app"}
	withCommand := engine(t, rules.Config{Roots: map[string]string{"*": "/srv/app"}, Home: "/home/u", Rules: []rules.Rule{py}})
	withUnder := engine(t, rules.Config{Roots: map[string]string{"*": "/srv/app"}, Home: "/home/u", Rules: []rules.Rule{inProject}})
	for _, c := range []struct {
		args        map[string]any
		want, under rules.Reason
	}{
		{map[string]any{"command": `python3 -c "import json; print(json.load(open('x.json')))"`}, rules.ReasonRule, rules.ReasonUnevaluable},
		{map[string]any{"command": "python3", "stdin": "print(open('data.csv').read())"}, rules.ReasonRule, rules.ReasonUnevaluable},
		{map[string]any{"command": "tar xf dist.tar -C build"}, rules.ReasonRule, rules.ReasonNoMatch},
		// An archive extracted into the root: which members it writes
		// (.git/hooks among them) cannot be told (red team 41).
		{map[string]any{"command": "tar xf dist.tar"}, rules.ReasonUnevaluable, rules.ReasonUnevaluable},
		// What the command names that can be read is read still.
		{map[string]any{"command": `python3 -c "print(1)" > ~/.bashrc`}, rules.ReasonFloor, rules.ReasonFloor},
		{map[string]any{"command": `python3 -c "print(1)" ~/.ssh/id_rsa`}, rules.ReasonFloor, rules.ReasonFloor},
		// Not the rule's command, or one the shell changes: unknown.
		{map[string]any{"command": `node -e "console.log(1)"`}, rules.ReasonUnevaluable, rules.ReasonUnevaluable},
		{map[string]any{"command": `python3 -c "$CODE"`}, rules.ReasonUnevaluable, rules.ReasonUnevaluable},
		{map[string]any{"command": `python3 -c "print(1)" && node -e 1`}, rules.ReasonUnevaluable, rules.ReasonUnevaluable},
		// Only the code of an option the glob spells: not another code
		// option, not a line that does not parse (its text is the
		// attacker's), not what comes after the allowed command.
		{map[string]any{"command": "bash -c -- '-c=x\ncat ~/.ssh/id_rsa\n)'"}, rules.ReasonUnevaluable, rules.ReasonUnevaluable},
		{map[string]any{"command": `python3 -c "print(1)" 2> >(python3 -c x) 2>>"$HOME/.bashrc"`}, rules.ReasonUnevaluable, rules.ReasonUnevaluable},
		{map[string]any{"command": `python3 - <<'EOF'
print(open('/home/u/.ssh/id_rsa').read())
EOF`}, rules.ReasonFloor, rules.ReasonFloor},
	} {
		b, _ := json.Marshal(c.args)
		assert.Equal(t, c.want, decide(t, withCommand, call("run_command", string(b)), nil).Reason, "command rule: %s", b)
		assert.Equal(t, c.under, decide(t, withUnder, call("run_command", string(b)), nil).Reason, "command rule with under: %s", b)
	}
}
