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
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/policy/rules"
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
	hosts     []string
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
	allowRepo  = `[{"tool": "git_*", "decision": "allow", "under": "/srv/repo"}]`
	// An allow under scratch, a host deny: an unknown path or URL beside the
	// visible path is asked.
	allowScratchDenyEvil = `[{"tool": "*", "decision": "allow", "under": "/srv/scratch"}, {"tool": "*", "decision": "deny", "host": "evil.example"}]`
	// A tool allowed outright, a directory denied.
	allowReadDenySecret = `[{"tool": "read_text_file", "decision": "allow"}, {"tool": "*", "decision": "deny", "under": "/srv/secret"}]`
	// A tool allowed outright, cloud metadata denied.
	allowConvertDenyMetadata = `[{"tool": "convert", "decision": "allow"}, {"tool": "*", "decision": "deny", "host": "169.254.0.0/16"}]`
	// A pinger allowed, cloud metadata and the machine denied.
	allowPingDenyMetadata = `[{"tool": "ping", "decision": "allow"}, {"tool": "*", "decision": "deny", "host": "169.254.0.0/16"},
		{"tool": "*", "decision": "deny", "host": "127.0.0.0/8"}, {"tool": "*", "decision": "deny", "host": "0.0.0.0/8"}]`
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
		tool: "write_file", args: `{"path":"/srv/secret/key ‌"}`, decision: "deny", reason: "rule"},

	// 2. Paths the engine cannot see: a harmless visible path beside one
	// the server will also act on must not be allowed on the visible one.
	{name: "hidden/dest", rules: allowScratch, roots: srv, tool: "move_file", args: `{"source":"scratch/a","dest":"/etc/cron.d/x"}`, decision: "ask"},
	{name: "hidden/to", rules: allowScratch, roots: srv, tool: "move_file", args: `{"from":"scratch/a","to":"/opt/x"}`, decision: "ask", reason: "no-match"},
	{name: "hidden/new_path", rules: allowScratch, roots: srv, tool: "move_file", args: `{"path":"scratch/a","new_path":"/opt/x"}`, decision: "ask", reason: "no-match"},
	{name: "hidden/output", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","output":"/opt/x"}`, decision: "ask", reason: "no-match"},
	{name: "hidden/destination_path", rules: allowScratch, roots: srv, tool: "move_file", args: `{"path":"scratch/a","destination_path":"/opt/x"}`, decision: "ask", reason: "no-match"},
	{name: "hidden/sources", rules: allowScratch, roots: srv, tool: "move_file", args: `{"sources":["scratch/a","/opt/b"],"dst":"scratch/c"}`, decision: "ask", reason: "no-match"},
	{name: "hidden/dirs", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","dirs":["/opt"]}`, decision: "ask", reason: "no-match"},
	{name: "hidden/filenames", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","filenames":["../b"]}`, decision: "ask", reason: "no-match"},
	{name: "hidden/camelCase outputDir", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","outputDir":"/opt"}`, decision: "ask", reason: "no-match"},
	{name: "hidden/sourcePdfPath", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","sourcePdfPath":"/opt/x.pdf"}`, decision: "ask", reason: "no-match"},
	{name: "hidden/userDataDir", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","userDataDir":"/opt/p"}`, decision: "ask", reason: "no-match"},
	{name: "hidden/nested object", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","options":{"path":"/opt/x"}}`, decision: "ask", reason: "no-match"},
	{name: "hidden/array of objects", rules: allowScratch, roots: srv, tool: "edit_file", args: `{"path":"scratch/a","edits":[{"path":"/opt/x","oldText":"a","newText":"b"}]}`, decision: "ask", reason: "no-match"},
	{name: "hidden/deep", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","a":{"b":[{"c":{"file":"/opt/x"}}]}}`, decision: "ask", reason: "no-match"},
	{name: "hidden/JSON in a string", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","options":"{\"path\":\"/opt/x\"}"}`, decision: "ask", reason: "no-match"},
	{name: "hidden/absolute under an unknown name", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","where":"/etc/passwd"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "hidden/home under an unknown name", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","where":"~/.bashrc"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "hidden/file URI under an unknown name", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","where":"file:///etc/passwd"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "hidden/dot-dot under an unknown name", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","name":"../../etc/x"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "hidden/Windows path under an unknown name", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","name":"C:\\Windows\\x"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "hidden/a path as an object key", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","volumes":{"/etc":{"bind":"/x"}}}`, decision: "ask", reason: "unevaluable-path"},
	{name: "hidden/URL under an unknown name", rules: denyEvilHost, tool: "web_fetch", args: `{"url":"https://docs.example/","next":"https://evil.example/"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "hidden/callback URL", rules: denyEvilHost, tool: "web_fetch", args: `{"url":"https://docs.example/","callback":"https://evil.example/"}`, decision: "deny", reason: "rule"},
	{name: "hidden/webhookUrl", rules: denyEvilHost, tool: "web_fetch", args: `{"url":"https://docs.example/","webhookUrl":"https://evil.example/"}`, decision: "deny", reason: "rule"},
	{name: "hidden/schema format path, nested", rules: allowScratch, roots: srv, tool: "export", args: `{"path":"scratch/a","opts":{"where":"../etc/x"}}`, decision: "ask", reason: "no-match", paths: []string{"/srv/scratch/a", "/etc/x"}},
	{name: "hidden/schema format uri, array", rules: denyEvilHost, tool: "export", args: `{"sink":["https://evil.example/"]}`, decision: "deny", reason: "rule"},
	{name: "seen/content is not a path", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","content":"/etc/passwd\n~/.ssh"}`, decision: "allow", reason: "rule"},
	{name: "seen/edits text is not a path", rules: allowScratch, roots: srv, tool: "edit_file", args: `{"path":"scratch/a","edits":[{"oldText":"/etc/passwd","newText":"../x"}]}`, decision: "allow", reason: "rule"},
	{name: "git/repo_path and files relative to it", rules: allowRepo, roots: []string{"*=/srv/repo"}, arguments: []string{"git"}, tool: "git_add",
		args: `{"repo_path":"/etc","files":["passwd"]}`, decision: "ask", paths: []string{"/etc", "/etc/passwd"}},
	{name: "git/files stay relative to the repo", rules: allowRepo, roots: []string{"*=/srv/repo"}, arguments: []string{"git"}, tool: "git_add",
		args: `{"repo_path":"/srv/repo","files":["a.go","../escape"]}`, decision: "ask", reason: "no-match", paths: []string{"/srv/repo", "/srv/repo/a.go", "/srv/escape"}},
	{name: "git/no repo_path: files unknown", rules: allowRepo, roots: []string{"*=/srv/repo"}, arguments: []string{"git"}, tool: "git_add",
		args: `{"files":["a.go"]}`, decision: "ask", reason: "unevaluable-path"},
	{name: "git/target is a ref, not a path", rules: allowRepo, roots: []string{"*=/srv/repo"}, arguments: []string{"git"}, tool: "git_diff",
		args: `{"repo_path":"/srv/repo","target":"main"}`, decision: "allow", reason: "rule", paths: []string{"/srv/repo"}},
	{name: "git/without the specs, files resolve against the root", rules: allowRepo, roots: []string{"*=/srv/repo"}, tool: "git_add",
		args: `{"repo_path":"/etc","files":["passwd"]}`, decision: "ask", paths: []string{"/etc", "/srv/repo/passwd"}},

	// Found by the red team: more members of class 2.
	{name: "hidden/a path under a URL's name", rules: denySecret, roots: srv, tool: "read_text_file", args: `{"url":"/srv/secret/key"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "hidden/URL or path (anyOf), a path", rules: allowAll, tool: "convert", args: `{"save_to":"/home/u/.bashrc"}`, decision: "ask", reason: "floor"},
	{name: "hidden/URL or path (anyOf), a URL", rules: denyEvilHost, tool: "convert", args: `{"save_to":"https://evil.example/x"}`, decision: "deny", reason: "rule"},
	{name: "hidden/directory-path format", rules: denySecret, roots: srv, tool: "convert", args: `{"workspace":"secret"}`, decision: "deny", reason: "rule"},
	{name: "hidden/a tool's own reason argument", rules: allowAll, tool: "convert", args: `{"reason":"/home/u/.bashrc"}`, decision: "ask"},
	{name: "hidden/keys of an object under a path's name", rules: allowAll, roots: []string{"*=/srv/proj"}, tool: "write_file",
		args: `{"files":{"README.md":"x",".git/hooks/pre-commit":"#!/bin/sh"}}`, decision: "ask", reason: "floor"},
	{name: "hidden/a title is not content", rules: allowAll, tool: "write_file", args: `{"title":"../../.bashrc","content":"x"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "hidden/long s folds to s", rules: `[{"tool": "*", "decision": "deny", "under": "/srv/secret"}, {"tool": "*", "decision": "allow", "under": "/srv"}]`, roots: srv,
		tool: "move_file", args: `{"ſource":"secret/key","destination":"public/key"}`, decision: "deny", reason: "rule"},
	{name: "hidden/embedded JSON with a duplicate key", rules: allowScratch, roots: srv, tool: "write_file",
		args: `{"path":"scratch/a","options":"{\"path\":\"scratch/ok\",\"path\":\"/home/u/.bashrc\"}"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "hidden/embedded JSON with white space around it", rules: allowScratch, roots: srv, tool: "write_file",
		args: `{"path":"scratch/a","options":" {\"path\":\"/opt/x\"} "}`, decision: "ask", reason: "no-match"},
	{name: "hidden/a path word inside a name", rules: allowAll, roots: []string{"*=/srv/proj"}, tool: "write_file", args: `{"pathInProject":".git/hooks/pre-commit"}`, decision: "ask", reason: "floor"},
	{name: "hidden/a count under a path word is not a path", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","fileCount":3}`, decision: "allow", reason: "rule"},
	{name: "hidden/a bare host argument", rules: denyLocalhost, tool: "web_fetch", args: `{"host":"169.254.169.254","port":80}`, decision: "deny", reason: "rule"},
	{name: "hidden/an IP argument", rules: denyLocalhost, tool: "web_fetch", args: `{"ip":"::ffff:10.0.0.1"}`, decision: "deny", reason: "rule"},
	{name: "hidden/option injection through an ignored ref", rules: allowRepo, roots: []string{"*=/srv/repo"}, arguments: []string{"git"}, tool: "git_diff",
		args: `{"repo_path":"/srv/repo","target":"--output=/home/u/.bashrc"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "hidden/option injection under no name", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","flags":["-o/etc/x"]}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/a path that is an option", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"--output=scratch/x"}`, decision: "ask", reason: "unevaluable-path"},

	// Red team 4: a name's class is its folded spelling's. Go's
	// encoding/json matches "OUTPUTPATH" to a field tagged outputPath;
	// numbered names and names that end in a path word are path names.
	{name: "names/OUTPUTPATH", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"pub/a","OUTPUTPATH":"secret/key"}`, decision: "deny", reason: "rule"},
	{name: "names/outputpath", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"pub/a","outputpath":"secret/key"}`, decision: "deny", reason: "rule"},
	{name: "names/savepath", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"pub/a","savepath":"secret/key"}`, decision: "deny", reason: "rule"},
	{name: "names/notepath", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"pub/a","notepath":"secret/key"}`, decision: "deny", reason: "rule"},
	{name: "names/logfile", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"pub/a","logfile":"secret/key"}`, decision: "deny", reason: "rule"},
	{name: "names/downloaddir", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"pub/a","downloaddir":"secret"}`, decision: "deny", reason: "rule"},
	{name: "names/file1", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"pub/a","file1":"secret/key"}`, decision: "deny", reason: "rule"},
	{name: "names/path2", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"pub/a","path_2":"secret/key"}`, decision: "deny", reason: "rule"},
	{name: "names/REDISHOST", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://11.0.0.1/","REDISHOST":"169.254.169.254"}`, decision: "deny", reason: "rule"},
	{name: "names/serverip", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://11.0.0.1/","serverip":"localhost"}`, decision: "deny", reason: "rule"},
	{name: "names/a profile is not a path", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","userProfile":"work"}`, decision: "allow", reason: "rule"},
	{name: "names/a ZIP code is not a host", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://11.0.0.1/","zip":"12345","clientIp":"8.8.8.8"}`, decision: "allow", reason: "rule"},

	// Red team 5: a stop word is a whole word between "_", "-", "." or
	// the name's ends; inside a word it cut a path or host word in two.
	{name: "names/cli_path keeps its clip", rules: allowAllDenySecret, roots: srv, tool: "write_file", args: `{"cli_path":"secret/key"}`, decision: "deny", reason: "rule"},
	{name: "names/ClipAth is cliPath to a Go server", rules: allowAllDenySecret, roots: srv, tool: "write_file", args: `{"ClipAth":"secret/key"}`, decision: "deny", reason: "rule"},
	{name: "names/syslog_host keeps its ghost", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://11.0.0.1/","syslog_host":"localhost"}`, decision: "deny", reason: "rule"},
	{name: "names/debughost", rules: denyEvilHost, tool: "web_fetch", args: `{"url":"https://docs.example/","debughost":"evil.example"}`, decision: "deny", reason: "rule"},
	{name: "names/job_server keeps its observer", rules: denyEvilHost, tool: "web_fetch", args: `{"url":"https://docs.example/","job_server":"evil.example"}`, decision: "deny", reason: "rule"},
	{name: "names/a whole stop word still goes", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","user_profile":"work","ghost_mode":"on"}`, decision: "allow", reason: "rule"},
	// Red team 5: the schema is read whole.
	{name: "schema/the root's additionalProperties", rules: allowAllDenySecret, roots: srv, tool: "kv_put", args: `{"anything":"secret/key"}`, decision: "deny", reason: "rule"},
	{name: "schema/a declared property is not the rest", rules: allowAllDenySecret, roots: srv, tool: "kv_put", args: `{"note":"secret/key"}`, decision: "allow", reason: "rule"},
	{name: "schema/the root's patternProperties", rules: allowAllDenySecret, roots: srv, tool: "kv_pattern", args: `{"f_x":"secret/key"}`, decision: "deny", reason: "rule"},
	{name: "schema/a $ref shared by two properties, the first", rules: allowAllDenySecret, roots: srv, tool: "linked", args: `{"alpha":"secret/key"}`, decision: "deny", reason: "rule"},
	{name: "schema/a $ref shared by two properties, the second", rules: allowAllDenySecret, roots: srv, tool: "linked", args: `{"beta":"secret/key"}`, decision: "deny", reason: "rule"},
	{name: "schema/a $ref shared by items", rules: allowAllDenySecret, roots: srv, tool: "linked", args: `{"gamma":["pub","secret/key"]}`, decision: "deny", reason: "rule"},
	{name: "schema/a name declared a path and a host is a path", rules: allowAllDenySecret, roots: srv, tool: "mixed", args: `{"spot":"secret/key"}`, decision: "deny", reason: "rule"},
	{name: "schema/a name declared a path and a host is a host", rules: `[{"tool": "mixed", "decision": "allow"}, {"tool": "*", "decision": "deny", "host": "169.254.0.0/16"}]`, tool: "mixed", args: `{"opts":{"spot":"169.254.169.254"}}`, decision: "deny", reason: "rule"},
	{name: "schema/dependentSchemas", rules: allowAllDenySecret, roots: srv, tool: "dependent", args: `{"mode":"x","spot":"secret/key"}`, decision: "deny", reason: "rule"},
	{name: "schema/additionalItems", rules: allowAllDenySecret, roots: srv, tool: "dependent", args: `{"list":["pub","secret/key"]}`, decision: "deny", reason: "rule"},
	// Red team 5: quotes come off each end on their own, as many as
	// there are.
	{name: "trimmed/a quote at the start only", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","where":"'/etc/passwd"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "trimmed/mismatched quotes", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","where":"'/etc/passwd\""}`, decision: "ask", reason: "unevaluable-path"},
	{name: "trimmed/German quotes", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","where":"„/etc/passwd“"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "trimmed/corner brackets", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","where":"「/etc/passwd」"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "trimmed/quotes twice", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","next":"''https://evil.example/''"}`, decision: "ask", reason: "unevaluable-path"},
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
	{name: "names/zip_data reads no less than before", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://11.0.0.1/","zip_data":"http://169.254.169.254/x"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "names/zip_to is to", rules: allowAllDenySecret, roots: srv, tool: "write_file", args: `{"zip_to":"secret/a.zip"}`, decision: "deny", reason: "rule"},
	{name: "names/symlink_target is target", rules: allowAllDenySecret, roots: srv, tool: "write_file", args: `{"symlink_target":"secret/x"}`, decision: "deny", reason: "rule"},

	// Red team 4: a value is read as a server that trims and repairs reads
	// it. Under no name, what reads as a path or URL once white space,
	// format characters and a pair of quotes are trimmed, and a special
	// scheme's URL with any slashes, is unknown.
	{name: "trimmed/leading space", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","where":" /etc/passwd"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "trimmed/leading tab", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","where":"\t/etc/passwd"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "trimmed/leading newline", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","where":"\n/etc/passwd"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "trimmed/no-break space", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","where":"\u00a0/etc/passwd"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "trimmed/BOM", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","where":"\ufeff/etc/passwd"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "trimmed/zero-width space", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","where":"\u200b/etc/passwd"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "trimmed/single quotes", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","where":"'/etc/passwd'"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "trimmed/double quotes, home", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","where":"\"~/.bashrc\""}`, decision: "ask", reason: "unevaluable-path"},
	{name: "trimmed/backticks", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","where":"` + "`/etc/passwd`" + `"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "trimmed/URL with a leading space", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","next":" https://evil.example/"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "trimmed/URL in angle brackets", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","next":"<https://evil.example/>"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "repaired/https: one slash", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","next":"https:/evil.example/"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "repaired/https: backslashes", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","next":"https:\\\\evil.example/"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "repaired/http: no slash", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","next":"http:evil.example"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "repaired/a tab in the scheme", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","next":"ht\ttps://evil.example/"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "repaired/ws", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","next":"WS:evil.example"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "trimmed/a word is still nothing", rules: allowScratchDenyEvil, roots: srv, tool: "write_file", args: `{"path":"scratch/a","next":" 'hello' ","mode":"https"}`, decision: "allow", reason: "rule"},
	// Under a URL's name, a value that is not a URL as written is a path
	// too: a server trims " file:///x" into a file URI, or reads a path.
	{name: "trimmed/file URI with a leading space under a URL name", rules: allowReadDenySecret, tool: "read_text_file", args: `{"url":" file:///srv/secret/key"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "trimmed/a path with a leading space under a URL name", rules: allowReadDenySecret, tool: "read_text_file", args: `{"url":" /srv/secret/key"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "trimmed/a relative path under a URL name", rules: allowReadDenySecret, roots: srv, tool: "read_text_file", args: `{"url":"secret/key"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "trimmed/a URL under a URL name is no path", rules: allowReadDenySecret, tool: "read_text_file", args: `{"url":"https:/docs.example/"}`, decision: "allow", reason: "rule"},

	// Red team 4: a URL under a path's name is a URL too (a converter
	// that takes a file or a URL fetches it), its host read.
	{name: "path URL/source", rules: allowConvertDenyMetadata, tool: "convert", args: `{"source":"http://169.254.169.254/latest/meta-data/"}`, decision: "deny", reason: "rule"},
	{name: "path URL/file, beside a grant", rules: `[{"tool": "*", "decision": "deny", "host": "169.254.0.0/16"}]`, grants: `[{"tool": "convert", "decision": "allow"}]`,
		tool: "convert", args: `{"file":"http://169.254.169.254/latest/meta-data/"}`, decision: "deny", reason: "rule"},
	{name: "path URL/a path word in the name", rules: denyLocalhost, tool: "read_text_file", args: `{"inputFilePath":"http://127.0.0.1:8080/admin"}`, decision: "deny", reason: "rule"},
	{name: "path URL/in an array", rules: allowConvertDenyMetadata, tool: "convert", args: `{"paths":["a.pdf","https://[::ffff:a9fe:a9fe]/x"]}`, decision: "deny", reason: "rule"},
	{name: "path URL/repaired, unknown host", rules: allowConvertDenyMetadata, tool: "convert", args: `{"source":"http:/169.254.169.254/"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "path URL/a plain path has no host", rules: allowConvertDenyMetadata, roots: srv, tool: "convert", args: `{"source":"docs/a.pdf"}`, decision: "allow", reason: "rule"},

	// Red team 4: a JSON document passed as a string is read as one under
	// a path, directory, URL or host name (Python's FastMCP parses such a
	// string into a list or object for any parameter that is not a str,
	// and Claude Desktop sends lists that way); the string stays a path.
	{name: "JSON string/paths", rules: denySecret, roots: srv, tool: "read_multiple_files", args: `{"paths":"[\"pub/a\",\"secret/key\"]"}`, decision: "deny", reason: "rule"},
	{name: "JSON string/absolute paths", rules: denySecret, roots: srv, tool: "read_multiple_files", args: `{"paths":"[\"pub/a\",\"/srv/secret/x\"]"}`, decision: "deny", reason: "rule"},
	{name: "JSON string/white space around it", rules: denySecret, roots: srv, tool: "read_multiple_files", args: `{"paths":" [\"pub/a\",\"secret/key\"]\n"}`, decision: "deny", reason: "rule"},
	{name: "JSON string/a file map", rules: denySecret, roots: srv, tool: "write_file", args: `{"files":"{\"pub/a\":\"x\",\"secret/x\":\"y\"}"}`, decision: "deny", reason: "rule"},
	{name: "JSON string/filePaths", rules: denySecret, roots: srv, tool: "read_multiple_files", args: `{"filePaths":"[\"pub/a\",\"secret/x\"]"}`, decision: "deny", reason: "rule"},
	{name: "JSON string/urls", rules: denyEvilHost, tool: "web_fetch", args: `{"urls":"[\"https://docs.example/\",\"https://evil.example/\"]"}`, decision: "deny", reason: "rule"},
	{name: "JSON string/hosts", rules: denyLocalhost, tool: "web_fetch", args: `{"url":"http://11.0.0.1/","hosts":"[\"11.0.0.2\",\"169.254.169.254\"]"}`, decision: "deny", reason: "rule"},
	{name: "JSON string/servers", rules: denyEvilHost, tool: "web_fetch", args: `{"url":"https://docs.example/","servers":"[\"evil.example\"]"}`, decision: "deny", reason: "rule"},
	{name: "JSON string/the string stays a path", rules: `[{"tool": "*", "decision": "allow", "under": "/srv"}]`, roots: srv, tool: "read_multiple_files",
		args: `{"paths":"[\"pub/a\"]"}`, decision: "allow", reason: "rule", paths: []string{`/srv/["pub/a"]`, "/srv/pub/a"}},
	{name: "JSON string/under content, no schema", rules: allowAllDenySecret, tool: "write_file", args: `{"path":"/srv/pub/a","data":"{\"path\":\"/srv/secret/x\"}"}`, decision: "deny", reason: "rule"},
	{name: "JSON string/under query, no schema", rules: allowAllDenySecret, tool: "write_file", args: `{"path":"/srv/pub/a","query":"{\"path\":\"/srv/secret/x\"}"}`, decision: "deny", reason: "rule"},
	{name: "JSON string/under content, schema not a string", rules: allowAllDenySecret, tool: "write_typed", args: `{"path":"/srv/pub/a","query":"[{\"path\":\"/srv/secret/x\"}]"}`, decision: "deny", reason: "rule"},
	{name: "JSON string/content the schema says is text", rules: allowAllDenySecret, tool: "write_typed", args: `{"path":"/srv/pub/a.json","content":"{\"path\":\"/srv/secret/x\"}"}`, decision: "allow", reason: "rule"},
	{name: "JSON string/content the schema says is text or null", rules: allowAllDenySecret, tool: "write_typed", args: `{"path":"/srv/pub/a.json","data":"{\"path\":\"/srv/secret/x\"}"}`, decision: "allow", reason: "rule"},
	{name: "JSON string/text that is no JSON stays text", rules: allowAllDenySecret, tool: "write_file", args: `{"path":"/srv/pub/a","content":"{{name}} /srv/secret/x }"}`, decision: "allow", reason: "rule"},

	// Red team 4: a schema's additionalProperties or patternProperties
	// format is its object's values' (the keys are names).
	{name: "schema map/additionalProperties path", rules: denySecret, roots: srv, tool: "mount", args: `{"path":"pub/a","mounts":{"a":"secret/key"}}`, decision: "deny", reason: "rule"},
	{name: "schema map/patternProperties path", rules: denySecret, roots: srv, tool: "mount", args: `{"path":"pub/a","pp":{"a":"secret/key"}}`, decision: "deny", reason: "rule"},
	{name: "schema map/absolute value", rules: denySecret, roots: srv, tool: "mount", args: `{"path":"pub/a","mounts":{"a":"/srv/secret/key"}}`, decision: "deny", reason: "rule"},
	{name: "schema map/arrays of directories", rules: denySecret, roots: srv, tool: "mount", args: `{"lists":{"a":["pub","secret"]}}`, decision: "deny", reason: "rule"},
	{name: "schema map/uri values", rules: `[{"tool": "mount", "decision": "allow"}, {"tool": "*", "decision": "deny", "host": "169.254.0.0/16"}]`,
		tool: "mount", args: `{"hooks":{"a":"http://169.254.169.254/"}}`, decision: "deny", reason: "rule"},
	{name: "schema map/the keys are names", rules: `[{"tool": "*", "decision": "allow", "under": "/srv/pub"}]`, roots: srv, tool: "mount",
		args: `{"mounts":{"data":"pub/x"}}`, decision: "allow", reason: "rule", paths: []string{"/srv/pub/x"}},
	// Red team 4: a string nested in an object under a path's name is a
	// path too, unless its key has a class of its own or reads as a file
	// name (a file map's values are contents).
	{name: "nested/an object under path", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":{"value":"secret/x"}}`, decision: "deny", reason: "rule"},
	{name: "nested/an object in an array under paths", rules: denySecret, roots: srv, tool: "write_file", args: `{"paths":["pub/a",{"name":"secret/x"}]}`, decision: "deny", reason: "rule"},
	{name: "nested/deeper", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"pub/a","items":[{"file":{"name":"secret/x"}}]}`, decision: "deny", reason: "rule"},
	{name: "nested/under a directory name", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"pub/a","dirs":[{"where":{"at":"secret"}}]}`, decision: "deny", reason: "rule"},
	{name: "nested/a file map's values are contents", rules: `[{"tool": "*", "decision": "allow", "under": "/srv"}, {"tool": "*", "decision": "deny", "under": "/srv/secret"}]`, roots: srv,
		tool: "write_file", args: `{"files":{"README.md":"secret/x","docs/a.txt":"hello"}}`, decision: "allow", reason: "rule", paths: []string{"/srv/README.md", "/srv/docs/a.txt"}},
	{name: "nested/a key of its own class keeps it", rules: `[{"tool": "*", "decision": "allow", "under": "/srv"}, {"tool": "*", "decision": "deny", "under": "/srv/secret"}]`, roots: srv,
		tool: "write_file", args: `{"files":[{"path":"pub/a","content":"secret/x","count":3}]}`, decision: "allow", reason: "rule"},

	// Red team 4: under an ignored name (a git ref) anything a command line
	// reads as an option is unknown: git writes --output=.git/config in
	// the repository it runs in. Under no name, an option whose value is a
	// relative path with a "/" or a dot-name is unknown too.
	{name: "option/relative output through an ignored ref", rules: allowRepo, roots: []string{"*=/srv/repo"}, arguments: []string{"git"}, tool: "git_diff",
		args: `{"repo_path":"/srv/repo","target":"--output=.git/config"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "option/short form through an ignored ref", rules: allowRepo, roots: []string{"*=/srv/repo"}, arguments: []string{"git"}, tool: "git_diff",
		args: `{"repo_path":"/srv/repo","target":"-osecret/key"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "option/any option through an ignored ref", rules: allowRepo, roots: []string{"*=/srv/repo"}, arguments: []string{"git"}, tool: "git_diff",
		args: `{"repo_path":"/srv/repo","target":"--ext-diff"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "option/a trimmed option through an ignored ref", rules: allowRepo, roots: []string{"*=/srv/repo"}, arguments: []string{"git"}, tool: "git_diff",
		args: `{"repo_path":"/srv/repo","target":" --output=x"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "option/a dot-name under no name", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","flags":["--output=.bashrc"]}`, decision: "ask", reason: "unevaluable-path"},
	{name: "option/short form, relative, under no name", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","flags":["-o.git/config"]}`, decision: "ask", reason: "unevaluable-path"},
	{name: "option/a quoted value under no name", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","flags":["--output='/etc/x'"]}`, decision: "ask", reason: "unevaluable-path"},
	{name: "option/plain flags are nothing", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/a","flags":["--verbose","-v","-1.5","--format=json","-n5"]}`, decision: "allow", reason: "rule"},

	// Red team 4: a relative-to base named twice in different case (Go's
	// encoding/json takes the last in document order, another server the
	// exact one): each relative value is resolved against every one.
	{name: "base twice/case", rules: `[{"tool": "git_*", "decision": "allow", "under": "/srv"}, {"tool": "*", "decision": "deny", "under": "/srv/secret/key"}]`,
		roots: srv, arguments: []string{"git"}, tool: "git_add", args: `{"repo_path":"/srv/repo","REPO_PATH":"/srv/secret","files":["key"]}`, decision: "deny", reason: "rule",
		paths: []string{"/srv/repo", "/srv/secret", "/srv/repo/key", "/srv/secret/key"}},
	{name: "base twice/the other order", rules: `[{"tool": "git_*", "decision": "allow", "under": "/srv"}, {"tool": "*", "decision": "deny", "under": "/srv/secret/key"}]`,
		roots: srv, arguments: []string{"git"}, tool: "git_add", args: `{"REPO_PATH":"/srv/secret","repo_path":"/srv/repo","files":["key"]}`, decision: "deny", reason: "rule"},
	{name: "base twice/one is not a path", rules: `[{"tool": "git_*", "decision": "allow", "under": "/srv"}]`,
		roots: srv, arguments: []string{"git"}, tool: "git_add", args: `{"repo_path":"/srv/repo","Repo-Path":7,"files":["key"]}`, decision: "ask", reason: "unevaluable-path"},
	{name: "base twice/both inside", rules: `[{"tool": "git_*", "decision": "allow", "under": "/srv"}]`,
		roots: srv, arguments: []string{"git"}, tool: "git_add", args: `{"repo_path":"/srv/a","repoPath":"/srv/b","files":["x"]}`, decision: "allow", reason: "rule",
		paths: []string{"/srv/a", "/srv/b", "/srv/a/x", "/srv/b/x"}},

	// Red team 4: hosts under names the host list did not have, IP
	// literals under any name, a URL as an object key, and a schema's
	// host formats.
	{name: "host names/address", rules: allowPingDenyMetadata, tool: "ping", args: `{"address":"169.254.169.254"}`, decision: "deny", reason: "rule"},
	{name: "host names/server", rules: allowPingDenyMetadata, tool: "ping", args: `{"server":"169.254.169.254"}`, decision: "deny", reason: "rule"},
	{name: "host names/ipv4", rules: allowPingDenyMetadata, tool: "ping", args: `{"ipv4":"169.254.169.254"}`, decision: "deny", reason: "rule"},
	{name: "host names/ipv6", rules: allowPingDenyMetadata, tool: "ping", args: `{"ipv6":"::ffff:169.254.169.254"}`, decision: "deny", reason: "rule"},
	{name: "host names/domain", rules: allowPingDenyMetadata, tool: "ping", args: `{"domain":"localhost"}`, decision: "deny", reason: "rule"},
	{name: "host names/peers", rules: allowPingDenyMetadata, tool: "ping", args: `{"peers":["10.0.0.1","127.0.0.1:6379"]}`, decision: "deny", reason: "rule"},
	{name: "host names/proxy URL", rules: allowPingDenyMetadata, tool: "ping", args: `{"proxy":"http://169.254.169.254:80"}`, decision: "deny", reason: "rule"},
	{name: "host names/serverAddress", rules: allowPingDenyMetadata, tool: "ping", args: `{"serverAddress":"0x7f.1"}`, decision: "deny", reason: "rule"},
	{name: "host names/a spelling a server trims", rules: allowPingDenyMetadata, tool: "ping", args: `{"address":"127.0.0.1 "}`, decision: "ask", reason: "unevaluable-path"},
	{name: "IP literal/under no name", rules: allowPingDenyMetadata, tool: "ping", args: `{"remote":"169.254.169.254"}`, decision: "deny", reason: "rule"},
	{name: "IP literal/octal", rules: allowPingDenyMetadata, tool: "ping", args: `{"node":"0251.0376.0251.0376"}`, decision: "deny", reason: "rule"},
	{name: "IP literal/hex parts and a port", rules: allowPingDenyMetadata, tool: "ping", args: `{"node":"0xa9.0xfe.0xa9.0xfe:80"}`, decision: "deny", reason: "rule"},
	{name: "IP literal/IPv6 in brackets with a port", rules: allowPingDenyMetadata, tool: "ping", args: `{"machine":"[::ffff:a9fe:a9fe]:80"}`, decision: "deny", reason: "rule"},
	{name: "IP literal/IPv6 loopback", rules: allowPingDenyMetadata, tool: "ping", args: `{"machine":"::1"}`, decision: "deny", reason: "rule"},
	{name: "IP literal/in a list", rules: allowPingDenyMetadata, tool: "ping", args: `{"nodes":["8.8.8.8","169.254.169.254"]}`, decision: "deny", reason: "rule"},
	{name: "IP literal/with white space", rules: allowPingDenyMetadata, tool: "ping", args: `{"remote":" 169.254.169.254"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "URL key/an object key that is a URL", rules: allowPingDenyMetadata, tool: "ping", args: `{"requests":{"http://169.254.169.254/":"GET"}}`, decision: "ask", reason: "unevaluable-path"},
	{name: "URL key/repaired", rules: allowPingDenyMetadata, tool: "ping", args: `{"requests":{"https:evil.example":"GET"}}`, decision: "ask", reason: "unevaluable-path"},
	{name: "schema host/hostname format", rules: allowPingDenyMetadata, tool: "ping", args: `{"target":"169.254.169.254"}`, decision: "deny", reason: "rule"},
	{name: "schema host/ipv4 format", rules: allowPingDenyMetadata, tool: "ping", args: `{"via":"2852039166"}`, decision: "deny", reason: "rule"},
	{name: "schema host/a map of ipv6", rules: allowPingDenyMetadata, tool: "ping", args: `{"peers":{"a":"::1"}}`, decision: "deny", reason: "rule"},
	{name: "host names/no flood: a street address, a wallet, numbers", rules: allowPingDenyMetadata, tool: "ping",
		args: `{"address":"1600 Amphitheatre Parkway, Mountain View","wallet_address":"0x742d35Cc6634C0532925a3b844Bc454e4438f44e","server":"1",` +
			`"version":"1.2.3","temperature":"0.5","zip":"12345","value":"0x0","email_address":"a@b.example","mac_address":"aa:bb:cc:dd:ee:ff","sep":"std::vector<int>"}`,
		decision: "allow", reason: "rule"},

	// Red team 4's design gap: names real MCP servers use for paths
	// (mail servers' attachments, downloaders' save_to).
	{name: "gap/save_as", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"pub/a","save_as":"secret/x"}`, decision: "deny", reason: "rule"},
	{name: "gap/saveAs", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"pub/a","saveAs":"secret/x"}`, decision: "deny", reason: "rule"},
	{name: "gap/save_to", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"pub/a","save_to":"secret"}`, decision: "deny", reason: "rule"},
	{name: "gap/extract_to", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"pub/a","extract_to":"secret"}`, decision: "deny", reason: "rule"},
	{name: "gap/copyTo", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"pub/a","copyTo":"secret"}`, decision: "deny", reason: "rule"},
	{name: "gap/attachments", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"pub/a","attachments":["secret/x"]}`, decision: "deny", reason: "rule"},
	{name: "gap/an attachment object", rules: denySecret, roots: srv, tool: "write_file", args: `{"path":"pub/a","attachment":{"name":"x.pdf","location":"secret/x.pdf"}}`, decision: "deny", reason: "rule"},

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
	{name: "spelling/quoted", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"'/etc/passwd'"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/percent-encoded dots", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"scratch/%2e%2e/%2E%2E/etc/passwd"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/percent-encoded slash in a file URI", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"file:///srv/scratch%2f..%2f..%2fetc"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "spelling/file URI dot-dot is resolved", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"file:///srv/scratch/%2e%2e/x"}`, decision: "ask", reason: "no-match", paths: []string{"/srv/x"}},
	{name: "spelling/URL under a path name", rules: allowScratch, roots: srv, tool: "write_file", args: `{"path":"http://evil.example/x"}`, decision: "ask", reason: "unevaluable-path"},
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
	{name: "no path/a system path under a name is one", rules: allowProject, roots: srv, tool: "create_entities", args: `{"name":"/etc/passwd"}`, decision: "ask", reason: "unevaluable-path"},
	{name: "no path/a file under a weak name is one", rules: allowAllDenySecret, roots: srv, tool: "move_file", args: `{"source":"notes.txt","destination":"secret"}`, decision: "deny", reason: "rule"},
	{name: "no path/a list of files names its files, not its fields", rules: allowProject, roots: srv, tool: "write_files", args: `{"files":[{"name":"notes.md","content":"x"}]}`, decision: "allow", reason: "rule", paths: []string{"/srv/notes.md"}},
	// Specs for remote servers: a repository's path is no local path.
	{name: "remote spec/github path", rules: allowProject, roots: srv, arguments: []string{"github"}, tool: "create_or_update_file", args: `{"owner":"acme","repo":"web","path":".github/workflows/ci.yml","content":"x","message":"m","branch":"main"}`, decision: "ask", reason: "no-match", paths: []string{}},
	{name: "remote spec/without it the path is local and the floor asks", rules: allowProject, roots: srv, tool: "create_or_update_file", args: `{"owner":"acme","repo":"web","path":".github/workflows/ci.yml","content":"x"}`, decision: "ask", reason: "floor"},
	{name: "remote spec/playwright element", rules: allowProject, roots: srv, arguments: []string{"playwright"}, tool: "browser_click", args: `{"element":"Submit","target":"e42"}`, decision: "ask", reason: "no-match", paths: []string{}},
	{name: "remote spec/playwright upload is local", rules: allowAllDenySecret, roots: srv, arguments: []string{"playwright"}, tool: "browser_file_upload", args: `{"paths":["/srv/secret/key"]}`, decision: "deny", reason: "rule"},
}

func TestAttacksDecidedAlikeByTheCLIAndTheGoAPI(t *testing.T) {
	dir := t.TempDir()
	tools := write(t, dir, "tools.json", attackTools)
	catalogue, err := loadTools(tools)
	require.NoError(t, err)
	var list []provider.Tool
	for _, tool := range catalogue {
		list = append(list, *tool)
	}
	for i, a := range attacks {
		t.Run(a.name, func(t *testing.T) { decideAlike(t, dir, tools, list, i, a) })
	}
}

// decideAlike decides a by policy-eval decide and by the Go API, with the
// catalogue in the file tools (list, as read), and checks that both give
// its answer. i numbers its files in dir.
func decideAlike(t *testing.T, dir, tools string, list []provider.Tool, i int, a attack) {
	t.Helper()
	rulesFile := write(t, dir, fmt.Sprintf("rules%d.json", i), a.rules)
	callText := call("1", a.tool, mustJSONString(t, a.args))

	// policy-eval decide
	flags := []string{"decide", "--rules", rulesFile, "--tools", tools}
	for _, r := range a.roots {
		flags = append(flags, "--root", r)
	}
	for _, v := range a.arguments {
		flags = append(flags, "--arguments", v)
	}
	var gs []rules.Rule
	if a.grants != "" {
		flags = append(flags, "--grants", write(t, dir, fmt.Sprintf("grants%d.json", i), a.grants))
		var err error
		gs, err = rules.ParseRules([]byte(a.grants), "grants")
		require.NoError(t, err)
	}
	_, out, errOut := cli(t, "", append(flags, callText)...)
	ls := lines(t, out)
	require.Len(t, ls, 1, "stderr: %s", errOut)
	cliDecision, _ := ls[0]["decision"].(string)
	if _, failed := ls[0]["error"]; failed {
		cliDecision = "error"
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
	d, err := p.Decide(context.Background(), provider.Call{ID: "1", Function: provider.CallFunction{Name: a.tool, Arguments: a.args}})
	apiDecision := string(d.Decision)
	if err != nil {
		apiDecision = "error"
	}

	assert.Equal(t, a.decision, cliDecision, "policy-eval decide: %v", ls[0])
	assert.Equal(t, a.decision, apiDecision, "Go API: %+v %v", d, err)
	if a.reason != "" && err == nil {
		assert.Equal(t, a.reason, ls[0]["reason"], "policy-eval decide")
		assert.Equal(t, a.reason, string(d.Reason), "Go API")
	}
	if a.paths != nil {
		assert.ElementsMatch(t, a.paths, d.Paths)
		assert.ElementsMatch(t, toAny(a.paths), ls[0]["paths"])
	}
	if a.suggestion != "" && err == nil {
		var want, api map[string]any
		require.NoError(t, json.Unmarshal([]byte(a.suggestion), &want))
		require.NoError(t, json.Unmarshal(must(json.Marshal(d.Suggestion)), &api))
		assert.Equal(t, want, ls[0]["suggestion"], "policy-eval decide")
		assert.Equal(t, want, api, "Go API")
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
