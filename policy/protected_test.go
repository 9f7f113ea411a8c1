package policy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-policy/mcp-policy/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
)

// The policy's own files are guarded by the floor without being listed,
// and Options.Protected adds any other: an allow rule over the directory
// holding them does not let a tool change them.
func TestThePolicysOwnFilesAreProtected(t *testing.T) {
	dir := t.TempDir()
	store, err := grants.Open(filepath.Join(dir, "state", "grants.json"))
	require.NoError(t, err)
	module := filepath.Join(dir, "team.rego")
	require.NoError(t, os.WriteFile(module, []byte("package mcp.custom\n"), 0o600))
	src, err := os.ReadFile(module)
	require.NoError(t, err)

	p := newPolicy(t, policy.Options{
		Provider: newFake(), GrantsStore: store, Roots: map[string]string{"fs": dir},
		Rules:     withDefaults(rules.Rule{Tool: "fs_*", Decision: rules.Allow, Under: dir}),
		Modules:   []rules.Module{{Name: module, Source: string(src)}},
		Protected: []string{filepath.Join(dir, "rules.json")},
	})
	for _, f := range []string{"state/grants.json", "state/grants.json.lock", "team.rego", "rules.json"} {
		t.Run(f, func(t *testing.T) {
			d, err := p.Decide(context.Background(), write("1", f))
			require.NoError(t, err)
			assert.Equal(t, rules.Ask, d.Decision)
			assert.Equal(t, rules.ReasonFloor, d.Reason)
		})
	}
	d, err := p.Decide(context.Background(), write("1", "notes.md"))
	require.NoError(t, err)
	assert.Equal(t, rules.Allow, d.Decision, "everything else under the rule is allowed")
}

// A command line that puts files in the directory holding the grants,
// under names it does not spell (red team 40: cp into it, cp -t, tar -C,
// cd into it and copy "."), changes the grants as surely as one that
// names them: asked, under a rule that allows the shell in the project
// where the grants live. A copy elsewhere is not.
func TestCommandsFillingThePolicysDirectoryAreAsked(t *testing.T) {
	dir := t.TempDir()
	store, err := grants.Open(filepath.Join(dir, ".mcp", "grants.json"))
	require.NoError(t, err)
	p := newPolicy(t, policy.Options{
		Provider: newFake(), GrantsStore: store, Roots: map[string]string{"*": dir},
		Rules: withDefaults(rules.Rule{Tool: "run_command", Decision: rules.Allow, Under: dir}),
	})
	decide := func(line string) rules.Decision {
		args, err := json.Marshal(map[string]string{"command": line})
		require.NoError(t, err)
		d, err := p.Decide(context.Background(), testkit.Call("1", "run_command", string(args)))
		require.NoError(t, err)
		return d
	}
	for _, line := range []string{
		"cp s/grants.json .mcp/", "cp -t .mcp s/grants.json", "tar xf s.tar -C .mcp",
		"cd .mcp && cp ../s/grants.json .", "unzip -o s.zip -d .mcp", "install -m 644 s/grants.json .mcp/",
		"rsync -a s/ .mcp/", "mv s/grants.json .mcp",
		// Red team 41: an archive extracted where they are, a checkout of
		// them from another commit.
		"tar xf evil.tar", "unzip -o evil.zip", "git checkout evil -- .mcp", "git restore --source=evil -- .mcp",
		"git checkout evil -- .",
		// Red team 42: without --, pathspec magic, a switch, a hard reset,
		// a stash popped, a container's or a build's tree copied here.
		"git checkout evil .mcp", "git restore --source evil :/", "git checkout -f evil", "git reset --hard evil",
		"git stash pop", "docker cp w:/x/. ./.mcp", "docker build -o . src",
	} {
		d := decide(line)
		assert.Equal(t, rules.Ask, d.Decision, line)
		assert.Equal(t, rules.ReasonFloor, d.Reason, line)
	}
	for _, line := range []string{"cp a.txt build/", "tar xf a.tar -C build", "ls .mcp"} {
		assert.Equal(t, rules.Allow, decide(line).Decision, line)
	}
}

// The floor compares paths as written, so the policy's files and its
// roots are guarded under each spelling the file system gives them: a
// directory of the policy's reached through a link (dotfiles, macOS's
// /tmp) is changed as surely by the link's target's name, and the other
// way round. The rules allow everything, so only the floor can ask.
func TestProtectedFilesAndRootsUnderEveryLinkedSpelling(t *testing.T) {
	top, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	real := filepath.Join(top, "real")
	require.NoError(t, os.Mkdir(real, 0o700))
	require.NoError(t, os.Symlink(real, filepath.Join(top, "cfg")))
	proj := filepath.Join(top, "projects", "app")
	require.NoError(t, os.MkdirAll(proj, 0o700))
	require.NoError(t, os.Symlink(proj, filepath.Join(top, "app")))
	module := filepath.Join(top, "cfg", "team.rego")
	require.NoError(t, os.WriteFile(module, []byte("package mcp.custom\n"), 0o600))

	for _, opened := range []string{"cfg", "real"} {
		t.Run("grants opened by "+opened, func(t *testing.T) {
			store, err := grants.Open(filepath.Join(top, opened, "grants.json"))
			require.NoError(t, err)
			p := newPolicy(t, policy.Options{
				Provider: newFake(), GrantsStore: store, Roots: map[string]string{"fs": filepath.Join(top, "app")},
				Rules:     []rules.Rule{{Tool: "*", Decision: rules.Allow, Under: "/"}},
				Modules:   []rules.Module{{Name: module, Source: "package mcp.custom\n"}},
				Protected: []string{filepath.Join(top, "cfg", "rules.json")},
			})
			for _, c := range []struct{ tool, path string }{
				{"fs_write", "cfg/grants.json"}, {"fs_write", "real/grants.json"},
				{"fs_write", "cfg/grants.json.lock"}, {"fs_write", "real/grants.json.lock"},
				{"fs_write", "cfg/rules.json"}, {"fs_write", "real/rules.json"},
				{"fs_write", "cfg/team.rego"}, {"fs_write", "real/team.rego"},
				{"fs_write", "real"}, {"fs_write", "cfg"}, // a move of the directory holding them
				{"fs_delete", "app"}, {"fs_delete", "projects/app"}, {"fs_delete", "projects"}, // a root, by either name, and above it
			} {
				t.Run(c.tool+" "+c.path, func(t *testing.T) {
					d, err := p.Decide(context.Background(), testkit.Call("1", c.tool, fmt.Sprintf(`{"path":%q}`, filepath.Join(top, c.path))))
					require.NoError(t, err)
					assert.Equal(t, rules.Ask, d.Decision)
					assert.Equal(t, rules.ReasonFloor, d.Reason)
				})
			}
			d, err := p.Decide(context.Background(), testkit.Call("1", "fs_delete", fmt.Sprintf(`{"path":%q}`, filepath.Join(top, "projects", "app", "old"))))
			require.NoError(t, err)
			assert.Equal(t, rules.Allow, d.Decision, "below the root, the rules decide")
		})
	}
}
