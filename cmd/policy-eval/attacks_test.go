package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// An attack is a call the rules must not let through, or must let through
// only as far as they say: each class of issue 12, with the members found
// of it. Every case is decided twice, by policy-eval decide and by the Go
// API (policy.Policy.Decide), and both must give the same answer.
type attack struct {
	name      string
	rules     string   // JSON rules, after the default rules
	roots     []string // KEY=DIR
	arguments []string // --arguments values
	grants    string   // JSON grants, "" for none
	tool      string
	args      string // the arguments text
	decision  string // "error" for a call refused as bad
	reason    string // "" for any
	paths     []string
	// suggestion is the suggestion's JSON, "" for any.
	suggestion string
}

// Tools with the MCP annotations of the reference filesystem and git
// servers, and a web fetcher: the default rules allow read-only ones.
const attackTools = `{"tools": [
	{"name": "read_multiple_files", "annotations": {"readOnlyHint": true}, "inputSchema": {"type": "object"}},
	{"name": "read_text_file", "annotations": {"readOnlyHint": true}, "inputSchema": {"type": "object"}},
	{"name": "list_directory", "annotations": {"readOnlyHint": true}, "inputSchema": {"type": "object"}},
	{"name": "write_file", "annotations": {"readOnlyHint": false, "destructiveHint": true}, "inputSchema": {"type": "object"}},
	{"name": "edit_file", "annotations": {"readOnlyHint": false, "destructiveHint": true}, "inputSchema": {"type": "object"}},
	{"name": "move_file", "annotations": {"readOnlyHint": false, "destructiveHint": false}, "inputSchema": {"type": "object"}},
	{"name": "delete_file", "annotations": {"readOnlyHint": false, "destructiveHint": true}, "inputSchema": {"type": "object"}},
	{"name": "export", "annotations": {"readOnlyHint": false, "destructiveHint": false},
	 "inputSchema": {"type": "object", "properties": {"opts": {"type": "object", "properties": {"where": {"type": "string", "format": "path"}}},
	   "sink": {"type": "array", "items": {"type": "string", "format": "uri"}}}}},
	{"name": "convert", "annotations": {"readOnlyHint": false, "destructiveHint": true},
	 "inputSchema": {"type": "object", "properties": {"save_to": {"anyOf": [{"type": "string", "format": "uri"}, {"type": "string", "format": "path"}]},
	   "workspace": {"type": "string", "format": "directory-path"}, "reason": {"type": "string", "description": "the tool's own: where to log"}}}},
	{"name": "git_add", "annotations": {"readOnlyHint": false, "destructiveHint": false}, "inputSchema": {"type": "object"}},
	{"name": "git_diff", "annotations": {"readOnlyHint": true}, "inputSchema": {"type": "object"}},
	{"name": "web_fetch", "annotations": {"readOnlyHint": true, "openWorldHint": true}, "inputSchema": {"type": "object"}},
	{"name": "write_typed", "annotations": {"readOnlyHint": false, "destructiveHint": true},
	 "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"},
	   "data": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "options": {"type": "object"}, "query": {"type": "array", "items": {"type": "string"}}}}},
	{"name": "mount", "annotations": {"readOnlyHint": false, "destructiveHint": true},
	 "inputSchema": {"type": "object", "properties": {
	   "mounts": {"type": "object", "additionalProperties": {"type": "string", "format": "path"}},
	   "pp": {"type": "object", "patternProperties": {"^[a-z]+$": {"type": "string", "format": "path"}}},
	   "lists": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string", "format": "directory"}}},
	   "hooks": {"type": "object", "additionalProperties": {"type": "string", "format": "uri"}}}}},
	{"name": "kv_put", "annotations": {"readOnlyHint": false, "destructiveHint": false},
	 "inputSchema": {"type": "object", "properties": {"note": {"type": "string"}}, "additionalProperties": {"type": "string", "format": "path"}}},
	{"name": "kv_pattern", "annotations": {"readOnlyHint": false, "destructiveHint": false},
	 "inputSchema": {"type": "object", "patternProperties": {"^f_": {"type": "string", "format": "path"}}}},
	{"name": "linked", "annotations": {"readOnlyHint": false, "destructiveHint": false},
	 "inputSchema": {"type": "object", "$defs": {"loc": {"type": "string", "format": "path"}},
	   "properties": {"alpha": {"$ref": "#/$defs/loc"}, "beta": {"$ref": "#/$defs/loc"}, "gamma": {"type": "array", "items": {"$ref": "#/$defs/loc"}}}}},
	{"name": "mixed", "annotations": {"readOnlyHint": false, "destructiveHint": false},
	 "inputSchema": {"type": "object", "properties": {"spot": {"type": "string", "format": "path"},
	   "opts": {"type": "object", "properties": {"spot": {"type": "string", "format": "hostname"}}}}}},
	{"name": "dependent", "annotations": {"readOnlyHint": false, "destructiveHint": false},
	 "inputSchema": {"type": "object", "properties": {"mode": {"type": "string"},
	   "list": {"type": "array", "items": [{"type": "string"}], "additionalItems": {"type": "string", "format": "path"}}},
	   "dependentSchemas": {"mode": {"properties": {"spot": {"type": "string", "format": "path"}}}}}},
	{"name": "ping", "annotations": {"readOnlyHint": true, "openWorldHint": true},
	 "inputSchema": {"type": "object", "properties": {"target": {"type": "string", "format": "hostname"}, "via": {"type": "string", "format": "ipv4"},
	   "peers": {"type": "object", "additionalProperties": {"type": "string", "format": "ipv6"}}}}}
]}`

var (
	denySecret    = `[{"tool": "*", "decision": "deny", "under": "/srv/secret"}]`
	allowScratch  = `[{"tool": "*", "decision": "allow", "under": "/srv/scratch"}]`
	askLive       = `[{"tool": "*", "decision": "allow", "under": "/srv"}, {"tool": "*", "decision": "ask", "under": "/srv/live"}]`
	denyEvilHost  = `[{"tool": "web_fetch", "decision": "allow", "host": "*.example"}, {"tool": "*", "decision": "deny", "host": "evil.example"}]`
	denyLocalhost = `[{"tool": "web_fetch", "decision": "allow", "annotations": {"readOnlyHint": true}},
		{"tool": "*", "decision": "deny", "host": "127.0.0.0/8"}, {"tool": "*", "decision": "deny", "host": "169.254.0.0/16"},
		{"tool": "*", "decision": "deny", "host": "10.0.0.0/8"}, {"tool": "*", "decision": "deny", "host": "::1/128"}]`
	allowAll   = `[{"tool": "*", "decision": "allow"}]`
	toolGrants = `[{"tool": "read_text_file", "decision": "allow"}, {"tool": "write_file", "decision": "allow"}, {"tool": "web_fetch", "decision": "allow"}]`
	srv        = []string{"*=/srv"}
	// Everything allowed but a host, or the machine.
	allowAllDenyEvil      = `[{"tool": "*", "decision": "allow"}, {"tool": "*", "decision": "deny", "host": "evil.example"}]`
	denyLocalhostAllowAll = `[{"tool": "*", "decision": "allow"}, {"tool": "*", "decision": "deny", "host": "127.0.0.0/8"}]`
	// Everything allowed but cloud metadata, or private ranges.
	allowAllDenyMetadata = `[{"tool": "*", "decision": "allow"}, {"tool": "*", "decision": "deny", "host": "169.254.0.0/16"}]`
	allowAllDenyPrivate  = `[{"tool": "*", "decision": "allow"}, {"tool": "*", "decision": "deny", "host": "10.0.0.0/8"}]`
	// A user's project rule: any tool under the project.
	allowProject = `[{"tool": "*", "decision": "allow", "under": "/srv"}]`
	// Everything allowed but a directory.
	allowAllDenySecret = `[{"tool": "*", "decision": "allow"}, {"tool": "*", "decision": "deny", "under": "/srv/secret"}]`
)

var attacks = []attack{
	// How each argument is read is held by internal/argread's golden
	// readings (testdata/readings.json); the cases here are decisions, made
	// by both front ends.
	// 1. A deny or ask with under is not dodged by a harmless extra path.
	{name: "deny/extra path first", rules: denySecret, roots: srv, tool: "read_multiple_files",
		args: `{"paths":["docs/readme.txt","secret/keys.txt"]}`, decision: "deny", reason: "rule"},
	{name: "deny/extra path last", rules: denySecret, roots: srv, tool: "read_multiple_files",
		args: `{"paths":["secret/keys.txt","docs/readme.txt"]}`, decision: "deny", reason: "rule"},
	{name: "deny/move out of it", rules: denySecret, roots: srv, tool: "move_file",
		args: `{"source":"secret/keys.txt","destination":"public/keys.txt"}`, decision: "deny", reason: "rule"},
	{name: "deny/move into it", rules: denySecret, roots: srv, tool: "move_file",
		args: `{"source":"public/x","destination":"/srv/secret/x"}`, decision: "deny", reason: "rule"},
	{name: "deny/unknown beside outside", rules: denySecret, roots: srv, tool: "read_multiple_files",
		args: `{"paths":["docs/a","~/b"]}`, decision: "ask", reason: "unevaluable-path"},
	{name: "ask/extra path", rules: askLive, tool: "write_file",
		args: `{"path":"/srv/a","paths":["/srv/live/db"]}`, decision: "ask", reason: "rule"},
	{name: "deny host/extra URL", rules: denyEvilHost, tool: "web_fetch",
		args: `{"urls":["https://docs.example/","https://evil.example/x"]}`, decision: "deny", reason: "rule"},
	{name: "allow/every path inside", rules: allowScratch, roots: srv, tool: "write_file",
		args: `{"paths":["scratch/a","scratch/b/c"]}`, decision: "allow", reason: "rule"},

	// 1b. An allow grant answers no ask where a deny or ask rule might
	// apply: a path or URL it cannot evaluate might be what the deny names.
	{name: "grant/tool-wide allow vs a deny that might match a path", rules: denySecret, roots: srv, grants: toolGrants,
		tool: "read_text_file", args: `{"path":"~/../../srv/secret/key"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "grant/tool-wide allow vs a deny that might match a URL", rules: denyLocalhost, grants: toolGrants,
		tool: "web_fetch", args: `{"url":"http:/10.0.0.1/"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "grant/tool-wide allow vs an ask rule that might match", rules: askLive, grants: toolGrants,
		tool: "read_text_file", args: `{"path":"~/../../srv/live/db"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "grant/tool-wide allow vs a relative deny with no root", rules: `[{"tool": "*", "decision": "deny", "under": "secret"}]`, grants: toolGrants,
		tool: "read_text_file", args: `{"path":"secret/key"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "grant/an allow grant still answers an unknown nothing denies", rules: allowScratch, roots: srv, grants: toolGrants,
		tool: "read_text_file", args: `{"path":"scratch/a","where":"~/x"}`, decision: "allow", reason: "grant"},
	{name: "grant/folding leaves the path known", rules: denySecret, roots: srv, grants: `[{"tool": "write_file", "decision": "allow", "under": "/srv"}]`,
		tool: "write_file", args: "{\"path\":\"/srv/secret/key \u200c\"}", decision: "deny", reason: "rule"},

	// Found by the red team: more members of class 2.
	{name: "spelling/a path that is an option", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"--output=scratch/x"}`, decision: "ask", reason: "unevaluable-path"},

	// Red team 5: an address written short under a name that may hold
	// one is unknown; an address with a path after it is a URL's host.
	{name: "host/short IPv4 under a server name", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://11.0.0.1/","server":"127.1"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "host/one number under an address name", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://11.0.0.1/","bindAddr":"2130706433"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "host/an address and a path under no name", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://11.0.0.1/","next":"169.254.169.254/latest/meta-data"}`, decision: "deny", reason: "rule"},
	{name: "host/an address, a port and a path under no name", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://11.0.0.1/","next":"127.0.0.1:8080/admin"}`, decision: "deny", reason: "rule"},
	{name: "host/a host and a path under a server name", rules: denyEvilHost, tool: "web_fetch", args: `{"url":"https://docs.example/","server":"evil.example/x"}`, decision: "deny", reason: "rule"},
	{name: "host/a relative path under no name is no host", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://11.0.0.1/","next":"docs/1.2.3.4/x"}`, decision: "allow", reason: "rule"},

	// Red team 6: a weak host name's value is read as a client reads it.
	{name: "host/a short address and a path under a server name", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://11.0.0.1/","server":"127.1/x"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "host/percent-encoded under a server name", rules: denyEvilHost, tool: "web_fetch", args: `{"url":"https://docs.example/","server":"evil%2eexample"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "host/sshIp spells ship", rules: denyEvilHost, tool: "web_fetch", args: `{"url":"https://docs.example/","sshIp":"evil.example"}`, decision: "deny", reason: "rule"},
	{name: "host/sip is a source IP", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://11.0.0.1/","sip":"localhost"}`, decision: "deny", reason: "rule"},
	{name: "host/user@host under a server name", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://11.0.0.1/","server":"root@127.0.0.1"}`, decision: "deny", reason: "rule"},
	{name: "host/host:path under a server name", rules: denyEvilHost, tool: "web_fetch", args: `{"url":"https://docs.example/","server":"evil.example:repo.git"}`, decision: "deny", reason: "rule"},
	{name: "host/a membership is no host", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://11.0.0.1/","membership":"gold","mac_address":"aa:bb:cc:dd:ee:ff"}`, decision: "allow", reason: "rule"},
	{name: "host/scp's user@host:path under a path name", rules: allowAllDenyEvil, roots: srv, tool: "write_file", args: `{"source":"git@evil.example:a/b.git","destination":"ok"}`, decision: "deny", reason: "rule"},
	{name: "host/an address and a path under a path name", rules: denyLocalhostAllowAll, roots: srv, tool: "write_file", args: `{"destination":"127.0.0.1:/tmp/x"}`, decision: "deny", reason: "rule"},
	{name: "host/scp's user@host:path under no name", rules: allowAllDenyEvil, roots: srv, tool: "write_file", args: `{"repo":"git@evil.example:a/b.git"}`, decision: "deny", reason: "rule"},
	{name: "host/a user with an @ in it, scp's reading", rules: allowAllDenyEvil, roots: srv, tool: "write_file", args: `{"source":"a@b@evil.example:x"}`, decision: "deny", reason: "rule"},
	{name: "host/ssh and a URL parser read different hosts", rules: denyEvilHost, tool: "web_fetch", args: `{"url":"https://docs.example/","server":"root@evil.example:x@y"}`, decision: "ask", reason: "unevaluable-path"},
	// Red team 7: remote paths as scp reads them, a dot as IDNA maps it,
	// and a content name left by a stop word reads no less.
	{name: "host/user@host:digits is a remote file", rules: allowAllDenyEvil, roots: srv, tool: "write_file", args: `{"path":"root@evil.example:22"}`, decision: "deny", reason: "rule"},
	{name: "host/user@host: is the remote home", rules: denyLocalhostAllowAll, roots: srv, tool: "write_file", args: `{"x":"root@127.0.0.1:"}`, decision: "deny", reason: "rule"},
	{name: "host/user@short address", rules: denyLocalhostAllowAll, roots: srv, tool: "write_file", args: `{"path":"root@127.1:x"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "host/a dotted host and :/ under no name", rules: allowAllDenyEvil, roots: srv, tool: "write_file", args: `{"x":"evil.example:/etc/passwd"}`, decision: "deny", reason: "rule"},
	{name: "host/an ideographic full stop under an ip name", rules: denyEvilHost, tool: "web_fetch", args: `{"url":"https://docs.example/","serverIp":"evil。example"}`, decision: "deny", reason: "rule"},

	// 3. Spellings the server reads differently are unknown.
	{name: "spelling/percent-encoded letter", rules: denySecret, roots: srv, tool: "read_text_file", args: `{"path":"/srv/%73ecret/key"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/through /proc/self/root", rules: allowAll, tool: "write_file", args: `{"path":"/proc/self/root/etc/sudoers"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/through /proc/PID/cwd", rules: allowAll, tool: "write_file", args: `{"path":"/proc/1/cwd/x"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/through /dev/fd", rules: allowAll, tool: "write_file", args: `{"path":"/dev/fd/3"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/macOS firmlink", rules: allowAll, tool: "write_file", args: `{"path":"/System/Volumes/Data/Users/u/.npmrc"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/macOS /.nofollow", rules: denySecret, roots: srv, tool: "read_text_file", args: `{"path":"/.nofollow/srv/secret/key"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/macOS /.resolve", rules: allowAll, tool: "write_file", args: `{"path":"/.resolve/1/etc/sudoers"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/macOS /.vol by number", rules: allowAll, tool: "write_file", args: `{"path":"/.vol/16777220/2/Users/u/.zshrc"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/macOS /.vol cleaned to", rules: denySecret, roots: srv, tool: "read_text_file", args: `{"path":"../.vol/16777220/12345"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/macOS start-up volume's link", rules: allowAll, tool: "write_file", args: `{"path":"/Volumes/Macintosh HD/etc/sudoers"}`, decision: "ask", reason: "unevaluable-path"},
	// Windows answers to a short name: GIT~1 may be .git. Elsewhere it
	// is a name like HEAD~3 (issue 21: git refs were asked every time).
	{name: "spelling/Windows short name", rules: allowAll, tool: "write_file", args: `{"path":"/r/GIT~1/hooks/x"}`,
		decision: map[bool]string{true: "ask", false: "allow"}[runtime.GOOS == "windows"]},
	{name: "spelling/a git ref is a name", rules: allowAll, roots: srv, tool: "git_checkout", args: `{"repo_path":"/r","target":"HEAD~3"}`,
		decision: map[bool]string{true: "ask", false: "allow"}[runtime.GOOS == "windows"]},
	// A shell name inside a path only inserts text where it stands: read
	// as written and expanded to nothing (a Remix route is no question);
	// at the start, or as ${...} or $(...), it is unknown.
	{name: "spelling/a route file with $", rules: allowAll, tool: "write_file", args: `{"path":"/srv/app/routes/posts.$slug.tsx"}`,
		decision: "allow", paths: []string{"/srv/app/routes/posts.$slug.tsx", "/srv/app/routes/posts..tsx"}},
	{name: "spelling/$ that vanishes into a denied directory", rules: allowAllDenySecret, tool: "write_file",
		args: `{"path":"/srv/secret$x/key"}`, decision: "deny", reason: "rule"},
	{name: "spelling/$ that vanishes into a floor file", rules: allowAll, roots: srv, tool: "write_file",
		args: `{"path":".bashrc$x"}`, decision: "ask", reason: "floor"},
	{name: "spelling/a leading $", rules: allowAll, tool: "write_file", args: `{"path":"$HOME/.bashrc"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/a braced $", rules: allowAll, tool: "write_file", args: `{"path":"/srv/app/${x:-../../etc}/y"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "floor/NTFS trailing dot", rules: allowAll, tool: "write_file", args: `{"path":"/home/u/.gitconfig."}`, decision: "ask", reason: "floor"},
	{name: "floor/NTFS trailing dot in a directory", rules: allowAll, tool: "write_file", args: `{"path":"/r/.git./hooks/x"}`, decision: "ask", reason: "floor"},
	{name: "floor/a home under /var/home", rules: allowAll, tool: "write_file", args: `{"path":"/var/home/u/.npmrc"}`, decision: "ask", reason: "floor"},
	{name: "floor/alias: macOS root's home under /private", rules: allowAll, tool: "write_file", args: `{"path":"/private/var/root/.npmrc"}`, decision: "ask", reason: "floor"},
	{name: "floor/alias: /var/run is /run", rules: allowAll, tool: "write_file", args: `{"path":"/var/run/systemd/transient/x.service"}`, decision: "ask", reason: "floor"},
	{name: "floor/alias: /lib is /usr/lib", rules: allowAll, tool: "write_file", args: `{"path":"/lib/tmpfiles.d/x.conf"}`, decision: "ask", reason: "floor"},
	{name: "floor/whole tree: git_reset on its own root", rules: allowAll, roots: srv, tool: "git_reset", args: `{"repo_path":"/srv"}`, decision: "allow", reason: "rule"},
	{name: "floor/whole tree: a build whose context is the root", rules: allowAll, roots: srv, tool: "docker_build", args: `{"context_path":"."}`, decision: "allow", reason: "rule"},
	{name: "floor/whole tree: git_clean on the root", rules: allowAll, roots: srv, tool: "git_clean", args: `{"repo_path":"/srv"}`, decision: "ask", reason: "floor"},
	{name: "floor/whole tree: deleteDirectory on the root", rules: allowAll, roots: srv, tool: "deleteDirectory", args: `{"path":"."}`, decision: "ask", reason: "floor"},
	{name: "floor/whole tree: any destructive tool on /", rules: allowAll, roots: srv, tool: "git_reset", args: `{"repo_path":"/"}`, decision: "ask", reason: "floor"},
	{name: "floor/a system program", rules: allowAll, tool: "write_file", args: `{"path":"/usr/bin/git"}`, decision: "ask", reason: "floor"},
	{name: "floor/a shared library under merged /usr", rules: allowAll, tool: "write_file", args: `{"path":"/lib/x86_64-linux-gnu/libpam.so.0"}`, decision: "ask", reason: "floor"},
	{name: "floor/the loader's preload", rules: allowAll, tool: "write_file", args: `{"path":"/etc/ld.so.preload"}`, decision: "ask", reason: "floor"},
	{name: "floor/core_pattern", rules: allowAll, tool: "write_file", args: `{"path":"/proc/sys/kernel/core_pattern"}`, decision: "ask", reason: "floor"},
	{name: "floor/a GitHub workflow", rules: allowAll, roots: srv, tool: "write_file", args: `{"path":".github/workflows/release.yml"}`, decision: "ask", reason: "floor"},
	{name: "floor/a Jenkinsfile", rules: allowAll, roots: srv, tool: "write_file", args: `{"path":"Jenkinsfile"}`, decision: "ask", reason: "floor"},
	{name: "floor/not a template of an environment file", rules: allowAll, roots: srv, tool: "write_file", args: `{"path":".env.example"}`, decision: "allow", reason: "rule"},
	{name: "floor/alias: a user's runtime directory under /var/run", rules: allowAll, tool: "write_file", args: `{"path":"/var/run/user/1000/systemd/user/x.service"}`, decision: "ask", reason: "floor"},
	{name: "floor/renaming a directory into .vscode", rules: allowAll, tool: "move_file", args: `{"source":"/srv/proj/x","destination":"/srv/proj/.vscode"}`, decision: "ask", reason: "floor"},
	{name: "floor/renaming site-packages away", rules: allowAll, tool: "move_file", args: `{"source":"/srv/.venv/lib/python3.12/site-packages","destination":"/srv/sp"}`, decision: "ask", reason: "floor"},
	{name: "floor/renaming .config", rules: allowAll, tool: "move_file", args: `{"source":"/home/u/.config","destination":"/home/u/c"}`, decision: "ask", reason: "floor"},
	{name: "floor/PATH directory", rules: allowAll, tool: "write_file", args: `{"path":"/usr/local/bin/git"}`, decision: "ask", reason: "floor"},
	{name: "floor/commit hooks outside .git", rules: allowAll, tool: "write_file", args: `{"path":"/srv/proj/.husky/pre-commit"}`, decision: "ask", reason: "floor"},
	{name: "floor/a bare repository's hooks", rules: allowAll, tool: "write_file", args: `{"path":"/srv/repo.git/hooks/post-receive"}`, decision: "ask", reason: "floor"},
	{name: "host/0.0.0.0 is the machine", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://0.0.0.0:8080/"}`, decision: "deny", reason: "rule"},
	{name: "host/0 is the machine", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://0/"}`, decision: "deny", reason: "rule"},
	{name: "host/[::] is the machine", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://[::]:8080/"}`, decision: "deny", reason: "rule"},
	{name: "host/localhost.localdomain", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://localhost.localdomain/"}`, decision: "deny", reason: "rule"},
	{name: "host/ip6-localhost", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://ip6-localhost/"}`, decision: "deny", reason: "rule"},
	{name: "host/ip6-loopback", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://ip6-loopback:8080/x"}`, decision: "deny", reason: "rule"},
	{name: "host/127.1.2.3 under a rule on localhost", rules: `[{"tool": "*", "decision": "allow"}, {"tool": "*", "decision": "deny", "host": "localhost"}]`, tool: "web_fetch", args: `{"url":"http://127.1.2.3/"}`, decision: "deny", reason: "rule"},
	{name: "host/LOCALHOST.localdomain.", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://LOCALHOST.localdomain./"}`, decision: "deny", reason: "rule"},
	{name: "host/an exact loopback deny catches localhost", rules: `[{"tool": "*", "decision": "allow"}, {"tool": "*", "decision": "deny", "host": "127.0.0.1"}]`,
		tool: "web_fetch", args: `{"url":"http://localhost/"}`, decision: "deny", reason: "rule"},
	{name: "fold/a one-character glob and a name that folds to two", rules: `[{"tool": "*", "decision": "allow"}, {"tool": "run_?", "decision": "deny"}]`,
		tool: "run_ß", args: `{}`, decision: "deny", reason: "rule"},

	{name: "spelling/file: one slash", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"file:/etc/passwd"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/FILE: no slash", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"FILE:etc/passwd"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/leading space", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":" /etc/passwd"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/leading tab", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"\t/etc/passwd"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/trailing space", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a "}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/no-break space", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"\u00a0/etc/passwd"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/quoted", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"'/etc/passwd'"}`, decision: "ask", reason: "floor"},
	{name: "spelling/percent-encoded dots", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/%2e%2e/%2E%2E/etc/passwd"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/percent-encoded slash in a file URI", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"file:///srv/scratch%2f..%2f..%2fetc"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/file URI dot-dot is resolved", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"file:///srv/scratch/%2e%2e/x"}`, decision: "ask", reason: "no-match", paths: []string{"/srv/x"}},
	{name: "spelling/URL under a path name", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"http://evil.example/x"}`, decision: "ask", reason: "no-match"},
	{name: "spelling/newline", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a\n/etc/passwd"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/NUL", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a\u0000/../../etc"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/bidi override", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/\u202etxt.exe"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/drive in a file URI", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"file:///C:/x"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/too long", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/` + strings.Repeat("a/", 3000) + `"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/lone surrogate", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/\ud800"}`, decision: "error"},

	// 4. Case and Unicode forms: deny and ask folded, allow exact.
	{name: "fold/upper case", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"/srv/SECRET/key"}`, decision: "deny", reason: "rule"},
	{name: "fold/mixed case parent", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"/SRV/Secret/key"}`, decision: "deny", reason: "rule"},
	{name: "fold/Cherokee small letters under a rule in capitals", rules: `[{"tool": "*", "decision": "allow"}, {"tool": "*", "decision": "deny", "under": "/srv/\u13b6"}]`, tool: "write_file", args: `{"path":"/srv/\uab86/key"}`, decision: "deny", reason: "rule"},
	{name: "fold/Cherokee capitals under a rule in small letters", rules: `[{"tool": "*", "decision": "allow"}, {"tool": "*", "decision": "deny", "under": "/srv/\uab86"}]`, tool: "write_file", args: `{"path":"/srv/\u13b6/key"}`, decision: "deny", reason: "rule"},
	{name: "fold/HFS+ ignorable", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"/srv/sec\u200cret/key"}`, decision: "deny", reason: "rule"},
	{name: "fold/NFD of an NFC rule", rules: `[{"tool": "*", "decision": "deny", "under": "/srv/caf\u00e9"}]`, tool: "write_file", args: `{"path":"/srv/cafe\u0301/x"}`, decision: "deny", reason: "rule"},
	{name: "fold/NFC of an NFD rule", rules: `[{"tool": "*", "decision": "deny", "under": "/srv/cafe\u0301"}]`, tool: "write_file", args: `{"path":"/srv/caf\u00e9/x"}`, decision: "deny", reason: "rule"},
	{name: "fold/Kelvin sign", rules: `[{"tool": "*", "decision": "deny", "under": "/srv/kit"}]`, tool: "write_file", args: `{"path":"/srv/\u212ait/x"}`, decision: "deny", reason: "rule"},
	{name: "fold/ask rule", rules: askLive, tool: "write_file", args: `{"path":"/srv/LIVE/db"}`, decision: "ask", reason: "rule"},
	{name: "fold/tool name of a deny", rules: `[{"tool": "*", "decision": "allow"}, {"tool": "delete_file", "decision": "deny"}]`, tool: "DELETE_FILE", args: `{"path":"/srv/x"}`, decision: "deny", reason: "rule"},
	{name: "fold/allow stays exact", rules: `[{"tool": "*", "decision": "allow", "under": "/srv/Scratch"}]`, tool: "write_file", args: `{"path":"/srv/scratch/x"}`, decision: "ask", reason: "no-match"},
	{name: "fold/floor, upper case", rules: allowAll, tool: "write_file", args: `{"path":"/home/u/.SSH/authorized_keys"}`, decision: "ask", reason: "floor"},
	{name: "fold/floor, ignorable", rules: allowAll, tool: "write_file", args: `{"path":"/r/.g\u200cit/hooks/pre-commit"}`, decision: "ask", reason: "floor"},
	// A name that ends in a space or a dot is what NTFS makes of the name
	// without them; its parent is no directory a grant can name, and the
	// suggestion's search for one looped for ever (red team 4).
	{name: "fold/a name ending in a space, beside a harmless path", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"pub/a","paths":["/srv/secret /x"]}`, decision: "deny", reason: "rule"},
	{name: "fold/a name ending in a dot and a space", rules: denySecret, roots: srv, tool: "write_file", args: `{"paths":["/srv/secret. /x"]}`, decision: "deny", reason: "rule"},
	{name: "fold/a name ending in a no-break space", rules: allowScratch, roots: srv, tool: "write_file", args: `{"paths":["/srv/scratch\u00a0/x"]}`, decision: "ask", reason: "no-match"},

	// 5. Hosts: every spelling of an address is the address.
	{name: "host/mapped IPv6", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://[::ffff:127.0.0.1]/"}`, decision: "deny", reason: "rule"},
	{name: "host/mapped IPv6, hex", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://[::ffff:7f00:1]/"}`, decision: "deny", reason: "rule"},
	{name: "host/compatible IPv6", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://[::127.0.0.1]/"}`, decision: "deny", reason: "rule"},
	{name: "host/NAT64", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://[64:ff9b::7f00:1]/"}`, decision: "deny", reason: "rule"},
	{name: "host/decimal", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://2130706433/"}`, decision: "deny", reason: "rule"},
	{name: "host/hex and short", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://0x7f.1/"}`, decision: "deny", reason: "rule"},
	{name: "host/metadata, mapped", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://[::ffff:a9fe:a9fe]/latest/meta-data/"}`, decision: "deny", reason: "rule"},
	{name: "host/metadata, dotted", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://169.254.169.254/"}`, decision: "deny", reason: "rule"},
	{name: "host/private range", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://10.20.30.40:8080/"}`, decision: "deny", reason: "rule"},
	{name: "host/private range, mapped", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://[::ffff:10.0.0.1]/"}`, decision: "deny", reason: "rule"},
	{name: "host/localhost in a loopback range", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://localhost:3000/"}`, decision: "deny", reason: "rule"},
	{name: "host/a subdomain of localhost", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://admin.localhost/"}`, decision: "deny", reason: "rule"},
	{name: "host/IPv6 loopback", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://[::1]/"}`, decision: "deny", reason: "rule"},
	{name: "host/outside the ranges", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://11.0.0.1/"}`, decision: "allow", reason: "rule"},

	// 6. The floor: destructive calls on an ancestor of a root.
	{name: "floor/parent of the root", rules: allowAll, roots: []string{"*=/srv/app"}, tool: "delete_file", args: `{"path":".."}`, decision: "ask", reason: "floor"},
	{name: "floor/grandparent of the root", rules: allowAll, roots: []string{"*=/srv/app"}, tool: "delete_file", args: `{"path":"/srv"}`, decision: "ask", reason: "floor"},
	{name: "floor/the root", rules: allowAll, roots: []string{"*=/srv/app"}, tool: "delete_file", args: `{"path":"."}`, decision: "ask", reason: "floor"},
	{name: "floor/inside the root", rules: allowAll, roots: []string{"*=/srv/app"}, tool: "delete_file", args: `{"path":"old"}`, decision: "allow", reason: "rule"},

	// 7. Start-up and credential files (every entry has its own test in
	// builtins; these go through both front ends).
	{name: "floor/bash_aliases", rules: allowAll, tool: "write_file", args: `{"path":"/home/u/.bash_aliases"}`, decision: "ask", reason: "floor"},
	{name: "floor/profile.d", rules: allowAll, tool: "write_file", args: `{"path":"/etc/profile.d/x.sh"}`, decision: "ask", reason: "floor"},
	{name: "floor/fish conf.d", rules: allowAll, tool: "write_file", args: `{"path":"/home/u/.config/fish/conf.d/x.fish"}`, decision: "ask", reason: "floor"},
	{name: "floor/gitconfig", rules: allowAll, tool: "write_file", args: `{"path":"/home/u/.gitconfig"}`, decision: "ask", reason: "floor"},
	{name: "floor/npmrc at home", rules: allowAll, tool: "write_file", args: `{"path":"/home/u/.npmrc"}`, decision: "ask", reason: "floor"},
	{name: "floor/aws", rules: allowAll, tool: "write_file", args: `{"path":"/root/.aws/credentials"}`, decision: "ask", reason: "floor"},
	{name: "floor/vscode settings", rules: allowAll, tool: "write_file", args: `{"path":"/srv/proj/.vscode/settings.json"}`, decision: "ask", reason: "floor"},
	{name: "floor/an agent's own MCP servers", rules: allowAll, tool: "write_file", args: `{"path":"/srv/proj/.mcp.json"}`, decision: "ask", reason: "floor"},
	{name: "floor/crontab", rules: allowAll, tool: "write_file", args: `{"path":"/var/spool/cron/crontabs/u"}`, decision: "ask", reason: "floor"},
	{name: "floor/ordinary project file", rules: allowAll, tool: "write_file", args: `{"path":"/srv/proj/internal/profile/profile.go"}`, decision: "allow", reason: "rule"},

	// Issue 21, 4.1: an address under a path or directory name is that
	// host too (a ping or probe tool's target), in every spelling.
	{name: "address under a path name/target", rules: allowAllDenyMetadata, tool: "probe", args: `{"target":"169.254.169.254"}`, decision: "deny", reason: "rule"},
	{name: "address under a path name/octal target", rules: allowAllDenyMetadata, tool: "probe", args: `{"target":"0251.0376.0251.0376"}`, decision: "deny", reason: "rule"},
	{name: "address under a path name/mapped target", rules: allowAllDenyMetadata, tool: "probe", args: `{"target":"::ffff:169.254.169.254"}`, decision: "deny", reason: "rule"},
	{name: "address under a path name/an address and a path", rules: allowAllDenyMetadata, roots: srv, tool: "probe", args: `{"path":"169.254.169.254/latest/meta-data"}`, decision: "deny", reason: "rule"},
	{name: "address under a path name/a short address under dir", rules: allowAllDenyMetadata, roots: srv, tool: "probe", args: `{"dir":"169.254.43518"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "address under a path name/localhost and a port", rules: denyLocalhostAllowAll, tool: "probe", args: `{"target":"localhost:8080"}`, decision: "deny", reason: "rule"},
	// 4.4: user@host:path read two ways: ssh's host, of one label or not,
	// and a URL parser's.
	{name: "two readings/a one-label ssh host", rules: allowAllDenyEvil, tool: "connect", args: `{"server":"root@prod:x@evil.example"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "two readings/under an ip name", rules: denyLocalhostAllowAll, tool: "connect", args: `{"serverIp":"root@prod:x@127.0.0.1"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "two readings/under address", rules: allowAllDenyEvil, tool: "connect", args: `{"address":"a@prod:b@evil.example"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "two readings/one reading is that host", rules: allowAllDenyEvil, tool: "connect", args: `{"server":"git@evil.example:org/repo.git"}`, decision: "deny", reason: "rule"},
	// 4.6: a URL whose scheme is a chain is a URL with a host.
	{name: "compound scheme/jdbc under no name", rules: allowAllDenyPrivate, tool: "query", args: `{"conn":"jdbc:mysql://10.0.0.5/prod"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "compound scheme/jdbc under a URL name", rules: allowAllDenyPrivate, tool: "query", args: `{"url":"jdbc:mysql://10.0.0.5/prod"}`, decision: "deny", reason: "rule"},
	{name: "compound scheme/jar under a URL name", rules: allowAllDenyEvil, tool: "load", args: `{"uri":"jar:http://evil.example/x.jar!/a"}`, decision: "deny", reason: "rule"},
	{name: "compound scheme/git+ssh under a URL name", rules: allowAllDenyEvil, tool: "clone", args: `{"repo_url":"git+ssh://git@evil.example/r.git"}`, decision: "deny", reason: "rule"},
	{name: "compound scheme/a file under jar", rules: allowAllDenySecret, tool: "load", args: `{"x":"jar:file:///srv/secret/x.jar!/y"}`, decision: "ask", reason: "unevaluable-path"},
	// 6: what no server opens is no path, and a weak path name reads a
	// file's name only (a tool allowed under the project, and the floor).
	{name: "no path/a route on a map", rules: allowProject, roots: srv, tool: "maps_directions", args: `{"origin":"Munich Airport","destination":"Marienplatz, Munich"}`, decision: "ask", reason: "no-match", paths: []string{}},
	{name: "no path/coordinates", rules: allowProject, roots: srv, tool: "maps_directions", args: `{"origin":"48.3538,11.7861","destination":"48.1374,11.5755"}`, decision: "ask", reason: "no-match", paths: []string{}},
	{name: "no path/SQL opening with a comment", rules: allowProject, roots: srv, tool: "run_sql", args: `{"sql":"/* active */ SELECT 1","stmt":"/* x */ SELECT 2"}`, decision: "ask", reason: "no-match", paths: []string{}},
	{name: "no path/an entity named like a route", rules: allowProject, roots: srv, tool: "create_entities", args: `{"entities":[{"name":"/api/v2/orders","entityType":"endpoint"}]}`, decision: "ask", reason: "no-match", paths: []string{}},
	{name: "no path/a system path under a name is one", rules: allowProject, roots: srv, tool: "create_entities", args: `{"name":"/etc/passwd"}`, decision: "ask", reason: "floor"},
	{name: "no path/a file under a weak name is one", rules: allowAllDenySecret, roots: srv, tool: "move_file", args: `{"source":"notes.txt","destination":"secret"}`, decision: "deny", reason: "rule"},
	{name: "no path/a list of files names its files, not its fields", rules: allowProject, roots: srv, tool: "write_files", args: `{"files":[{"name":"notes.md","content":"x"}]}`, decision: "allow", reason: "rule", paths: []string{"/srv/notes.md"}},
	// Red team 8 (after the reader moved): what the server opens by other
	// readings than the first.
	{name: "red team 8/an address then a path under a weak name", rules: allowAll, roots: srv, tool: "probe", args: `{"to":"127.1/../../../etc/ld.so.preload"}`, decision: "ask", reason: "floor"},
	{name: "red team 8/a label's path that starts with /./", rules: allowProject, roots: srv, tool: "note", args: `{"name":"/./etc/ld.so.preload"}`, decision: "ask", reason: "floor"},
	{name: "red team 8/a shell name after ..", rules: allowAllDenySecret, roots: srv, tool: "write_file", args: `{"path":"/..$PWD/secret/key"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "red team 8/a database file in a URL", rules: allowAllDenySecret, roots: srv, tool: "query", args: `{"db":"sqlite:////srv/secret/app.db"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "red team 8/ssh's destination under a weak name", rules: allowAllDenyPrivate, roots: srv, tool: "copy", args: `{"destination":"root@10.0.0.1"}`, decision: "deny", reason: "rule"},
	{name: "red team 8/0 is this machine", rules: denyLocalhostAllowAll, roots: srv, tool: "probe", args: `{"target":"0:8080"}`, decision: "deny", reason: "rule"},
	{name: "red team 8/user:pw@host:path", rules: allowAllDenyPrivate, roots: srv, tool: "copy", args: `{"x":"user:pw@10.0.0.1:x"}`, decision: "deny", reason: "rule"},
	{name: "red team 8/a driver's host in a URL's query", rules: allowAllDenyPrivate, tool: "query", args: `{"url":"postgresql://8.8.8.8/db?host=10.0.0.5"}`, decision: "deny", reason: "rule"},
	{name: "red team 8/a backquote runs a command", rules: allowAll, tool: "write_file", args: "{\"path\":\"/srv/`echo .git`/hooks/x\"}", decision: "ask", reason: "unevaluable-path"},
	{name: "red team 8/a bracket names a floor file", rules: allowAll, roots: srv, tool: "write_file", args: `{"path":".bashr[c]"}`, decision: "ask", reason: "floor"},
	{name: "red team 8/a Next.js route is no question", rules: allowProject, roots: srv, tool: "write_file", args: `{"path":"app/blog/[slug]/page.tsx"}`, decision: "allow", reason: "rule"},
	{name: "red team 8/SQL that attaches a file", rules: allowAllDenySecret, roots: srv, tool: "run_query", args: `{"query":"ATTACH DATABASE '/srv/secret/app.db' AS s"}`, decision: "deny", reason: "rule"},
	{name: "red team 8/a registry at an address", rules: allowAllDenyPrivate, roots: srv, arguments: []string{"docker"}, tool: "pull_image", args: `{"repository":"10.0.0.1:5000/x"}`, decision: "deny", reason: "rule"},
	// Red team 9: a second round on the new reader.
	{name: "red team 9/SQL with a double-quoted file", rules: allowAllDenySecret, roots: srv, tool: "run_query", args: `{"query":"ATTACH \"/srv/secret/app.db\" AS s"}`, decision: "deny", reason: "rule"},
	{name: "red team 9/SQL that writes a floor file", rules: allowAll, roots: srv, tool: "run_query", args: `{"query":"VACUUM \"main\" INTO '/etc/ld.so.preload'"}`, decision: "ask", reason: "floor"},
	{name: "red team 9/a relative database file", rules: allowAllDenySecret, roots: srv, tool: "query", args: `{"url":"jdbc:sqlite:secret/app.db"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "red team 9/an option's value in argv", rules: allowAllDenySecret, roots: srv, tool: "kubectl_generic", args: `{"args":["-f","secret/x.yaml"]}`, decision: "deny", reason: "rule"},
	// Read where the command runs (the root), as a command line's words are: denied there.
	{name: "red team 9/an unknown program's option value in argv", rules: allowAllDenySecret, roots: srv, tool: "run_tool", args: `{"args":["-f","secret/x.yaml"]}`, decision: "deny", reason: "rule"},
	{name: "red team 9/a file joined to a directory", rules: allowAllDenySecret, roots: srv, tool: "save", args: `{"directory":"/srv/pub","filename":"../secret/key"}`, decision: "deny", reason: "rule"},
	{name: "red team 9/a full-width address", rules: allowAllDenyPrivate, roots: srv, tool: "probe", args: `{"target":"10。0。0。1"}`, decision: "deny", reason: "rule"},
	{name: "red team 9/ssh's destination under no name", rules: allowAllDenyPrivate, tool: "connect", args: `{"ssh":"root@10.0.0.1"}`, decision: "deny", reason: "rule"},
	{name: "red team 9/a broker on localhost", rules: denyLocalhostAllowAll, tool: "connect", args: `{"broker":"localhost:9092"}`, decision: "deny", reason: "rule"},
	// Red team 10: a third round.
	{name: "red team 10/fsspec's local file system", rules: allowAllDenySecret, roots: srv, tool: "open", args: `{"path":"local:///srv/secret/key"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "red team 10/a shell name, then ..", rules: allowAllDenySecret, roots: srv, tool: "write_file", args: `{"path":"/srv/x$HOME/../../secret/key"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "red team 10/a brace sequence", rules: allowAll, roots: srv, tool: "write_file", args: `{"path":"/root/.bashr{c..c}"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "red team 10/a tilde after =", rules: allowAllDenySecret, roots: srv, tool: "write_file", args: `{"path":"a=~/../../secret/key"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "red team 10/an absolute path joined to a directory", rules: allowAllDenySecret, roots: srv, tool: "save", args: `{"directory":"/srv/pub","filename":"/../secret/key"}`, decision: "deny", reason: "rule"},
	{name: "red team 10/a name beside a folder", rules: allowAllDenySecret, roots: srv, tool: "save", args: `{"folder":"/srv","name":"secret/key"}`, decision: "deny", reason: "rule"},
	{name: "red team 10/short options run together", rules: allowAll, roots: srv, tool: "run", args: `{"args":["in.txt","-uo.bashrc"]}`, decision: "ask", reason: "unevaluable-path"},
	{name: "red team 10/a query split on ;", rules: allowAllDenyMetadata, tool: "fetch", args: `{"url":"https://good.example/r?x=1;url=http://169.254.169.254/"}`, decision: "deny", reason: "rule"},
	{name: "red team 10/a driver's key file", rules: allowAllDenySecret, roots: srv, tool: "query", args: `{"url":"postgresql://db.example/app?sslkey=/srv/secret/key.pem"}`, decision: "deny", reason: "rule"},
	{name: "red team 10/SQL in brackets", rules: allowAllDenySecret, roots: srv, tool: "run_query", args: `{"query":"ATTACH [/srv/secret/a.db] AS s"}`, decision: "deny", reason: "rule"},
	{name: "red team 10/SQL in hex", rules: allowAllDenySecret, roots: srv, tool: "run_query", args: `{"query":"ATTACH x'2f7372762f7365637265742f612e6462' AS s"}`, decision: "deny", reason: "rule"},
	// Specs for remote servers: a repository's path is no local path.
	{name: "remote spec/github path", rules: allowProject, roots: srv, arguments: []string{"github"}, tool: "create_or_update_file", args: `{"owner":"acme","repo":"web","path":".github/workflows/ci.yml","content":"x","message":"m","branch":"main"}`, decision: "ask", reason: "no-match", paths: []string{}},
	{name: "remote spec/without it the path is local and the floor asks", rules: allowProject, roots: srv, tool: "create_or_update_file", args: `{"owner":"acme","repo":"web","path":".github/workflows/ci.yml","content":"x"}`, decision: "ask", reason: "floor"},
	{name: "remote spec/playwright element", rules: allowProject, roots: srv, arguments: []string{"playwright"}, tool: "browser_click", args: `{"element":"Submit","target":"e42"}`, decision: "ask", reason: "no-match", paths: []string{}},
	{name: "remote spec/playwright upload is local", rules: allowAllDenySecret, roots: srv, arguments: []string{"playwright"}, tool: "browser_file_upload", args: `{"paths":["/srv/secret/key"]}`, decision: "deny", reason: "rule"},
}

func TestAttacksDecidedAlikeByTheCLIAndTheGoAPI(t *testing.T) { decideAllAlike(t, attacks) }

// decideAllAlike decides each case by both front ends, policy-eval decide
// and the Go API (policy.Policy.Decide), and checks that both give its
// answer. Cases with one configuration (rules, roots, argument specs,
// grants) are decided by one run of decide, a line each, and one policy:
// each configuration is compiled once, not once a case.
func decideAllAlike(t *testing.T, cases []attack) {
	dir := t.TempDir()
	tools := write(t, dir, "tools.json", attackTools)
	catalogue, err := loadTools(tools)
	require.NoError(t, err)
	var list []provider.Tool
	for _, tool := range catalogue {
		list = append(list, *tool)
	}
	groups := map[string][]int{}
	var order []string
	for i, a := range cases {
		k := fmt.Sprintf("%q %q %q %q", a.rules, a.roots, a.arguments, a.grants)
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	byCLI := make([]map[string]any, len(cases))
	byAPI := make([]apiDecision, len(cases))
	// The groups are decided side by side (each writes only its own cases'
	// entries), and all of them before any case is checked.
	t.Run("decide", func(t *testing.T) {
		for g, k := range order {
			t.Run(fmt.Sprint(g), func(t *testing.T) {
				t.Parallel()
				decideGroup(t, dir, tools, list, g, cases, groups[k], byCLI, byAPI)
			})
		}
	})
	if t.Failed() {
		return
	}
	for i, a := range cases {
		t.Run(a.name, func(t *testing.T) { checkAlike(t, a, byCLI[i], byAPI[i]) })
	}
}

// apiDecision is a case's decision by the Go API.
type apiDecision struct {
	d   policy.Decision
	err error
}

// decideGroup decides the cases at idx, which share one configuration,
// by one run of policy-eval decide (the catalogue in the file tools, list
// as read) and by one policy; g numbers the group's files in dir.
func decideGroup(t *testing.T, dir, tools string, list []provider.Tool, g int, cases []attack, idx []int, byCLI []map[string]any, byAPI []apiDecision) {
	t.Helper()
	a := cases[idx[0]]
	rulesFile := write(t, dir, fmt.Sprintf("rules%d.json", g), a.rules)
	flags := []string{"decide", "--rules", rulesFile, "--tools", tools}
	for _, r := range a.roots {
		flags = append(flags, "--root", r)
	}
	for _, v := range a.arguments {
		flags = append(flags, "--arguments", v)
	}
	var gs []rules.Rule
	if a.grants != "" {
		flags = append(flags, "--grants", write(t, dir, fmt.Sprintf("grants%d.json", g), a.grants))
		var err error
		gs, err = rules.ParseRules([]byte(a.grants), "grants")
		require.NoError(t, err)
	}

	// policy-eval decide: a line a case, answered in order.
	var stdin strings.Builder
	for _, i := range idx {
		stdin.WriteString(call(fmt.Sprint(i), cases[i].tool, mustJSONString(t, cases[i].args)) + "\n")
	}
	_, out, errOut := cli(t, stdin.String(), flags...)
	ls := lines(t, out)
	require.Len(t, ls, len(idx), "stderr: %s", errOut)
	for n, i := range idx {
		require.Equal(t, fmt.Sprint(i), ls[n]["id"], "the lines are answered in order")
		byCLI[i] = ls[n]
	}

	// The Go API
	rs, err := rules.ParseRules([]byte(a.rules), "rules")
	require.NoError(t, err)
	roots := map[string]string{}
	for _, r := range a.roots {
		k, v, _ := strings.Cut(r, "=")
		roots[k] = v
	}
	args, err := cliconfig.LoadArguments(a.arguments)
	require.NoError(t, err)
	p, err := policy.New(policy.Options{Provider: catalogueOnly(list), Rules: append(policy.DefaultRules(), rs...),
		Roots: roots, Arguments: args, Grants: gs})
	require.NoError(t, err)
	for _, i := range idx {
		d, err := p.Decide(context.Background(), provider.Call{ID: fmt.Sprint(i), Function: provider.CallFunction{Name: cases[i].tool, Arguments: cases[i].args}})
		byAPI[i] = apiDecision{d, err}
	}
}

// checkAlike checks that both front ends gave a its answer.
func checkAlike(t *testing.T, a attack, cli map[string]any, api apiDecision) {
	t.Helper()
	cliDecision, _ := cli["decision"].(string)
	if _, failed := cli["error"]; failed {
		cliDecision = "error"
	}
	d := api.d
	apiDecision := string(d.Decision)
	if api.err != nil {
		apiDecision = "error"
	}
	assert.Equal(t, a.decision, cliDecision, "policy-eval decide: %v", cli)
	assert.Equal(t, a.decision, apiDecision, "Go API: %+v %v", d, api.err)
	if a.reason != "" && api.err == nil {
		assert.Equal(t, a.reason, cli["reason"], "policy-eval decide")
		assert.Equal(t, a.reason, string(d.Reason), "Go API")
	}
	if a.paths != nil {
		assert.ElementsMatch(t, a.paths, d.Paths)
		assert.ElementsMatch(t, toAny(a.paths), cli["paths"])
	}
	if a.suggestion != "" && api.err == nil {
		var want, got map[string]any
		require.NoError(t, json.Unmarshal([]byte(a.suggestion), &want))
		require.NoError(t, json.Unmarshal(must(json.Marshal(d.Suggestion)), &got))
		assert.Equal(t, want, cli["suggestion"], "policy-eval decide")
		assert.Equal(t, want, got, "Go API")
	}
}

// catalogueOnly is a provider whose only part is its catalogue: the tests
// above decide calls and never run one.
type catalogueOnly []provider.Tool

func (c catalogueOnly) ToolsForLLM(context.Context) ([]provider.Tool, error) { return c, nil }
func (c catalogueOnly) ExecuteToolCalls(_ context.Context, calls []provider.Call) []provider.Result {
	out := make([]provider.Result, len(calls))
	for i, call := range calls {
		out[i] = provider.ErrorResult(call.ID, "not run")
	}
	return out
}

func mustJSONString(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	require.NoError(t, err)
	return string(b)
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// The CLI's own files are the policy's: a change to them, or to the
// directory holding them, is asked whatever the rules say.
func TestDecideProtectsItsOwnFiles(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "Config")
	require.NoError(t, os.Mkdir(cfg, 0o700))
	rulesFile := write(t, cfg, "rules.json", allowAll)
	grantsFile := write(t, cfg, "grants.json", `[]`)
	argsFile := write(t, cfg, "args.json", `[{"tool": "x", "paths": ["p"]}]`)
	flags := []string{"--rules", rulesFile, "--grants", grantsFile, "--arguments", argsFile}
	for _, p := range []string{rulesFile, grantsFile, argsFile, strings.ToUpper(grantsFile[:1]) + grantsFile[1:], filepath.Join(dir, "config", "GRANTS.json"), cfg} {
		got := one(t, call("1", "move_file", mustJSONString(t, `{"source":`+string(must(json.Marshal(p)))+`,"destination":"/tmp/x"}`)), flags...)
		assert.Equal(t, "ask", got["decision"], p)
		assert.Equal(t, "floor", got["reason"], p)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// A module that never ends is stopped by --timeout and the call fails,
// closed; the next line is decided.
func TestDecideTimeout(t *testing.T) {
	dir := t.TempDir()
	module := write(t, dir, "loop.rego", `package mcp.custom

deny contains "never" if {
	some i in numbers.range(1, 100000000 + count(input.paths))
	i < 0
}
`)
	in := call("1", "write_file", `{}`) + "\n" + call("2", "write_file", `{}`) + "\n"
	code, out, _ := cli(t, in, "decide", "--policy", module, "--timeout", "100ms")
	assert.Equal(t, exitMalformed, code)
	ls := lines(t, out)
	require.Len(t, ls, 2)
	for _, l := range ls {
		assert.Contains(t, l["error"], "took longer than 100ms", "failed, closed: %v", l)
	}
	_, _, errOut := cli(t, "", "decide", "--timeout", "-1s", call("1", "x", `{}`))
	assert.Contains(t, errOut, "--timeout")
}

// A huge path costs what its text costs, not a multiple per name: it is
// unknown past MaxPathBytes, and a call past MaxArgumentsBytes is refused.
func TestDecideBoundsTheCostOfACall(t *testing.T) {
	dir := t.TempDir()
	rulesFile := write(t, dir, "rules.json", allowAll)
	long := `{"path":"/srv/` + strings.Repeat("a/", 400_000) + `x"}`
	got := one(t, call("1", "write_file", mustJSONString(t, long)), "--rules", rulesFile)
	assert.Equal(t, "unevaluable-path", got["reason"])

	huge := `{"content":"` + strings.Repeat("x", rules.MaxArgumentsBytes) + `"}`
	code, out, _ := cli(t, call("1", "write_file", huge)+"\n", "decide", "--rules", rulesFile)
	assert.Equal(t, exitMalformed, code)
	assert.Contains(t, out, "more than")

	many := `{"paths":[` + strings.Repeat(`"/srv/a",`, rules.MaxArgumentValues) + `"/srv/b"]}`
	code, out, _ = cli(t, call("1", "write_file", mustJSONString(t, many))+"\n", "decide", "--rules", rulesFile)
	assert.Equal(t, exitMalformed, code)
	assert.Contains(t, out, "paths and URLs")
}
