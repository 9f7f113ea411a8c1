//go:build unix

package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// readmeHostConfigs are the proxy command lines of README.md's host
// configurations, by host, as a reader whose home is home runs them: the
// mcpServers JSON (Claude Desktop, Cursor), whose words reach the proxy as
// written once the reader has put their home for /Users/you, and the
// Claude Code line, whose words a shell splits and expands first (a
// leading ~ becomes home).
func readmeHostConfigs(t *testing.T, home string) map[string][]string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(modRoot, "README.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "\n## Use it with your MCP host\n")
	require.True(t, ok, "README.md has no \"Use it with your MCP host\"")
	section, _, _ = strings.Cut(section, "\n## ")

	configs := map[string][]string{}
	_, block, ok := strings.Cut(section, "```json\n")
	require.True(t, ok, "no JSON configuration in README.md's host section")
	block, _, _ = strings.Cut(block, "```")
	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	require.NoError(t, json.Unmarshal([]byte(block), &cfg), "README.md's JSON configuration:\n%s", block)
	fs, ok := cfg.MCPServers["filesystem"]
	require.True(t, ok, "no filesystem server in README.md's JSON configuration:\n%s", block)
	var words []string
	for _, w := range append([]string{fs.Command}, fs.Args...) {
		words = append(words, strings.ReplaceAll(w, "/Users/you", home))
	}
	configs["mcpServers JSON"] = words

	_, line, ok := strings.Cut(section, "claude mcp add ")
	require.True(t, ok, "no claude mcp add line in README.md's host section")
	line, _, _ = strings.Cut(line, "\n```")
	line = strings.ReplaceAll(line, "\\\n", " ")
	_, line, ok = strings.Cut(line, " -- ")
	require.True(t, ok, "the claude mcp add line has no -- before the command: %s", line)
	words = nil
	for _, w := range strings.Fields(line) {
		if strings.HasPrefix(w, "~/") {
			w = home + w[1:]
		}
		words = append(words, w)
	}
	configs["claude mcp add"] = words
	return configs
}

// TestReadmeHostConfigs: each host configuration README.md prints works on
// a fresh machine. Its command line runs with HOME an empty directory, the
// way the host would run it, in front of the official filesystem server:
// the proxy starts, an allowed read passes, a write is asked and the
// "always allow" answer is kept in the grants file the configuration
// names, in a directory the proxy made (0700), the next write in that
// directory is allowed by the grant without a question, and the log the
// configuration names has a line per decision. Two words are swapped for
// this machine's: the path go install would have written the proxy to,
// for the proxy the tests built, and `npx -y
// @modelcontextprotocol/server-filesystem` for node and that package as
// test/npm installed it (no network in a test).
func TestReadmeHostConfigs(t *testing.T) {
	t.Parallel()
	node, entry := needOfficialFS(t)
	for _, host := range []string{"mcpServers JSON", "claude mcp add"} {
		t.Run(host, func(t *testing.T) {
			home, err := filepath.EvalSymlinks(t.TempDir())
			require.NoError(t, err)
			argv := readmeHostConfigs(t, home)[host]
			require.Equal(t, filepath.Join(home, "go", "bin", "mcp-policy"), argv[0], "the command: where go install puts mcp-policy")
			require.Equal(t, "proxy", argv[1], "%q", argv)
			args := argv[2:]
			npx := []string{"npx", "-y", "@modelcontextprotocol/server-filesystem"}
			at := -1
			for i := range args {
				if i+len(npx) <= len(args) && strings.Join(args[i:i+len(npx)], " ") == strings.Join(npx, " ") {
					at = i
				}
			}
			require.GreaterOrEqual(t, at, 0, "the official filesystem server run by npx: %q", argv)
			args = append(append(append([]string{}, args[:at]...), node, entry), args[at+len(npx):]...)
			projects := args[len(args)-1]
			require.True(t, strings.HasPrefix(projects, home+string(filepath.Separator)), "the server's directory %q is not in the reader's home", projects)
			mkfile(t, projects, "hello.txt", "hello from the README\n")
			require.NoError(t, os.MkdirAll(filepath.Join(projects, "docs"), 0o755))

			person := &human{answer: choose("always-allow")}
			ph := startProxiedArgs(t, append([]string{"proxy"}, args...), hostOptions{elicit: person, env: []string{"HOME=" + home}})

			r := ph.call("read_text_file", map[string]any{"path": filepath.Join(projects, "hello.txt")})
			wantCallOK(t, r)
			require.Equal(t, "hello from the README\n", text(r), "read")
			require.Empty(t, person.asked(), "a read was asked")

			wantCallOK(t, ph.call("write_file", map[string]any{"path": filepath.Join(projects, "docs", "a.md"), "content": "A"}))
			require.Len(t, person.asked(), 1, "the first write is asked")
			wantCallOK(t, ph.call("write_file", map[string]any{"path": filepath.Join(projects, "docs", "b.md"), "content": "B"}))
			require.Len(t, person.asked(), 1, "the second write in docs/ is asked, the grant unused")

			config := filepath.Join(home, ".config", "mcp-policy")
			st, err := os.Stat(config)
			require.NoError(t, err, "the directory of --grants and --log")
			require.Equal(t, os.FileMode(0o700), st.Mode().Perm(), "%s's mode", config)
			g, err := os.ReadFile(filepath.Join(config, "grants.json"))
			require.NoError(t, err, "the grants file")
			var kept []map[string]any
			require.NoError(t, json.Unmarshal(g, &kept), "the grants file:\n%s", g)
			require.Len(t, kept, 1, "the grants file:\n%s", g)
			rule := map[string]any{}
			for _, k := range []string{"tool", "decision", "under", "host"} {
				if v, ok := kept[0][k]; ok {
					rule[k] = v
				}
			}
			require.Equal(t, map[string]any{"tool": "write_file", "decision": "allow", "under": filepath.Join(projects, "docs")}, rule, "the grant kept:\n%s", g)
			require.NotEmpty(t, kept[0]["granted_at"], "the grant records when it was made:\n%s", g)
			if strings.Contains(strings.Join(argv, " "), "--log") {
				require.Len(t, logLines(t, filepath.Join(config, "decisions.jsonl")), 3, "the decision log")
			}
			require.Equal(t, 0, ph.exitCode(), "the proxy's exit status\n%s", ph.stderr)
		})
	}
}
