package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProxyRefusesMessagesAServerCouldReadOtherwise: the proxy forwards a
// call as the host wrote it, so a message a server could read otherwise
// than the proxy is refused, never passed on. Servers read JSON
// differently: mcp-go (encoding/json) matches a name regardless of case
// and takes the last match, the TypeScript SDK takes the last exact one.
// Each message here would have run a write the rules refuse, against the
// real server it is aimed at (red team, second report, finding 1).
func TestProxyRefusesMessagesAServerCouldReadOtherwise(t *testing.T) {
	t.Parallel()
	type target struct {
		name   string
		server func(t *testing.T) (server []string, dir string)
		write  string // the write tool, and its path argument for a file in dir
		read   string
	}
	goServer := func(t *testing.T) ([]string, string) {
		dir, err := filepath.EvalSymlinks(t.TempDir())
		require.NoError(t, err)
		return []string{fsserver, dir}, dir
	}
	for _, tg := range []target{
		{"mcp-go (test/fsserver)", goServer, "fs_write", "fs_read"},
		{"official server-filesystem", officialFSServer, "write_file", "read_text_file"},
	} {
		t.Run(tg.name, func(t *testing.T) {
			server, dir := tg.server(t)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o644))
			pwned := filepath.Join(dir, "pwned.txt")
			h := startRaw(t, []string{"--ask", "refuse"}, server, nil)
			h.initialize(map[string]any{})
			a := filepath.Join(dir, "a.txt")
			write := fmt.Sprintf(`"name":%q,"arguments":{"path":%q,"content":"x"}`, tg.write, pwned)
			read := fmt.Sprintf(`"name":%q,"arguments":{"path":%q}`, tg.read, a)
			upperWrite := fmt.Sprintf(`"NAME":%q,"ARGUMENTS":{"path":%q,"content":"x"}`, tg.write, pwned)
			upperRead := fmt.Sprintf(`"NAME":%q,"ARGUMENTS":{"path":%q}`, tg.read, a)
			for i, msg := range []string{
				// the tool and its arguments twice, the second in capitals
				`"method":"tools/call","params":{` + write + `,` + upperRead + `}`,
				`"method":"tools/call","params":{` + read + `,` + upperWrite + `}`,
				// the method twice: tools/list, which is not decided, and tools/call
				`"method":"tools/list","METHOD":"tools/call","params":{` + write + `}`,
				`"METHOD":"tools/call","method":"tools/list","params":{` + write + `}`,
				`"method":"tools/list","Method":"tools/call","params":{` + write + `}`,
				// the same name twice, exactly
				`"method":"tools/call","params":{` + read + `,` + write + `}`,
				`"method":"tools/list","method":"tools/call","params":{` + write + `}`,
				// a name that folds to another (the long s is an s to encoding/json)
				`"method":"tools/call","params":{` + read + fmt.Sprintf(`,"argumentſ":{"path":%q,"content":"x"}`, pwned) + `}`,
			} {
				id := 100 + i
				line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s}`, id, msg)
				_, err := h.in.Write([]byte(line + "\n"))
				require.NoError(t, err)
				r := h.response(float64(id), 20*time.Second)
				assert.NotNil(t, r["error"], "message %d was passed on: %v\n%s", i+1, r, line)
				_, statErr := os.Stat(pwned)
				require.True(t, os.IsNotExist(statErr), "message %d ran the write:\n%s", i+1, line)
			}
			// The proxy still decides ordinary calls: the read is allowed.
			h.callTool(200, tg.read, map[string]any{"path": filepath.Join(dir, "a.txt")})
			text, isError := resultText(t, h.response(200, 20*time.Second))
			assert.False(t, isError, text)
			assert.Contains(t, text, "hello")
		})
	}
}
