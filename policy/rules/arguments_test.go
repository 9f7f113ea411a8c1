package rules

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/provider"
)

func TestDefaultClassOfNames(t *testing.T) {
	for class, names := range map[argClass][]string{
		classPath: {"path", "Paths", "FILE_PATH", "filePath", "file-name", "filenames", "source", "sources", "src", "dest", "dst", "\u017Fource", "pathname",
			"destination_path", "to", "from", "output", "target", "new_path", "oldPath", "sourcePdfPath", "configFile", "input_file",
			"executablePath", "log.file", "dockerfile",
			// A name's class is its folded spelling's (red team 4): case,
			// separators and numbers do not hide it.
			"outputPath", "OUTPUTPATH", "outputpath", "Output_Path", "outputPATH", "savepath", "SavePath", "save path", "save.path",
			"notepath", "logfile", "outputfile", "newfile", "zipFile", "PDFPath", "pdfpath", "targetFilePath", "textfile",
			"file1", "path2", "path_2", "FILE_1", "s3path", "indexPath", "sshKeyPath", "outputJsonPath", "profilePath", "zipfile",
			"cli_path", "clipath", "cliPath", "ClipAth", "clip_path", "zip_file", "Profile_Path"},
		classDir: {"dir", "dirs", "directory", "directories", "folder", "cwd", "root", "repo_path", "repoPath", "workingDirectory",
			"outputDir", "userDataDir", "project_root", "base_dir", "downloadFolder", "folderName", "dirname",
			"downloaddir", "DOWNLOADDIR", "tmpdir", "filedir", "dirPath", "dirpath", "projectroot", "dir2", "workspaceFolder"},
		classWordPath: {"pathInProject", "file_type", "fileCount", "path_in_repo", "FILETYPE", "filecount", "pathinproject"},
		classWordDir:  {"folder_id", "folderid", "directoryId"},
		classHost: {"host", "hostname", "ip", "ip_address", "remoteHost", "REMOTEHOST", "redishost", "db_host", "hostName", "host2",
			"ipv4", "IPv6", "hostIpv4", "ipv4_address", "syslog_host", "sysloghost", "debugHost", "debughost", "log_host"},
		// The ending "ip" reads an address or a dotted name (red team 6:
		// "sshIp" spells "ship", and a stop word there hid it).
		classWordIP: {"server_ip", "serverIp", "SERVERIP", "remote_ip", "clientIp", "hostIp", "localIp", "vip", "ssh_ip", "switch_ip",
			"sshIp", "sship", "switchIp", "sip", "dip", "relationship", "membership", "roundTrip", "tip", "gzip"},
		classWordHost: {
			"address", "addresses", "addr", "server", "servers", "domain", "domains", "peer", "peers", "proxy", "proxies",
			"serverAddress", "server_address", "bindAddr", "dnsServer", "subdomain", "httpProxy", "email_address",
			"job_server", "jobServer"},
		classURL: {"url", "URLs", "uri", "href", "link", "links", "endpoint", "webhook", "callback", "callbackUrl", "redirect_uri",
			"baseURL", "serverUrl", "origin", "imageUrl", "CALLBACKURL", "imageurl", "url2", "hyperlink", "permalink"},
		classContent: {"content", "text", "body", "oldText", "newText", "old_string", "newString", "message", "commitMessage",
			"description", "query", "prompt", "data", "observations", "stdin", "\u017Fubstring", "CONTENT"},
		classNone: {"name", "mode", "profile", "xpath", "tail", "head", "pattern", "excludePatterns", "id", "count",
			"destinationType", "urlencoded", "pathway", "title", "topic",
			// Words that end like a path, URL or host word, and are not.
			"userProfile", "userprofile", "profiles", "XPath", "jsonPath", "JSONPATH", "curl", "purl", "followSymlinks",
			"follow_links", "symlink", "hardlinks", "unlink", "ghost", "zip", "skip", "tooltip", "showTooltip",
			"strip", "clip", "md5", "sha256", "base64", "dirForOutput", "percentile", "observer",
			// Red team 5: a stop word is a whole word between "_", "-", "."
			// or the name's ends.
			"user_profile", "ghost_mode", "follow-symlinks", "backup.zip", "pathway", "PROFILE"},
	} {
		for _, n := range names {
			assert.Equal(t, class, defaultClass(n), "%s", n)
		}
	}
}

// A name's class is its folded spelling's: every spelling encoding/json
// would match to one field, or normKey folds to one name, is one class.
func TestDefaultClassIsAFunctionOfTheFoldedName(t *testing.T) {
	for _, n := range []string{"outputPath", "sourcePDFPath", "XPath", "jsonPath", "remoteIp", "userDataDir", "callbackURL",
		"file_1", "pathInProject", "folder_id", "userProfile", "followSymlinks", "redisHost", "logFile"} {
		for _, spelling := range []string{strings.ToLower(n), strings.ToUpper(n), strings.ReplaceAll(n, "_", ""), "_" + n, n + "-"} {
			assert.Equal(t, defaultClass(n), defaultClass(spelling), "%s and %s", n, spelling)
		}
	}
}

func TestSplitWords(t *testing.T) {
	for in, want := range map[string][]string{
		"sourcePDFPath":    {"source", "pdf", "path"},
		"file_path":        {"file", "path"},
		"URLPath":          {"url", "path"},
		"callback-url":     {"callback", "url"},
		"log.file":         {"log", "file"},
		"x2File":           {"x2", "file"},
		"ALLCAPS":          {"allcaps"},
		"workingDirectory": {"working", "directory"},
	} {
		assert.Equal(t, want, splitWords(in), in)
	}
}

func TestLooksLikePathAndURL(t *testing.T) {
	for _, s := range []string{"/etc/passwd", "/", "~", "~/x", "~root", "file:///x", "FILE:/x", `C:\x`, "c:/x", `\\srv\share`,
		"..", "../x", "a/../b", "a/..", `a\..\b`} {
		assert.True(t, looksLikePath(s), s)
	}
	for _, s := range []string{"", "x", "a/b", "...", "a..b", "..a", "a..", "C:", "http://x", "hello world"} {
		assert.False(t, looksLikePath(s), s)
	}
	for _, s := range []string{"http://x", "HTTPS://x/y", "ftp://x", "git+ssh://x", "s3://bucket/k"} {
		assert.True(t, looksLikeURL(s), s)
	}
	for _, s := range []string{"x://", "://x", "1http://x", "see http://x", "mailto:a@b", "urn:x"} {
		assert.False(t, looksLikeURL(s) && s[0] != 'x', s)
	}
}

// An option a command line would read as naming a path (red team 4: a
// relative one too, when it has a "/" or is a dot-name).
func TestLooksLikeOption(t *testing.T) {
	for _, s := range []string{"--output=/x", "-o/x", "--config=~/c", "--output=.git/config", "--output=.bashrc", "-o.git/config",
		"-osecret/key", "--output=secret/key", "--output= /etc/x", "--output='/etc/x'", "--url=https:/x", "-Dx=a/b", "--o=C:\\x"} {
		assert.True(t, looksLikeOption(s), s)
	}
	for _, s := range []string{"--verbose", "-v", "-rf", "--format=json", "-n5", "-1.5", "-1.5e3", "--output", "--output=x", "-", "--", "x=/y", "-o"} {
		assert.False(t, looksLikeOption(s), s)
	}
}

// An IP address under any name is a host; a number is not (red team 4).
func TestReadsAsIP(t *testing.T) {
	for _, s := range []string{"169.254.169.254", "169.254.169.254.", "169.254.169.254:80", "0251.0376.0251.0376", "0xa9.0xfe.0xa9.0xfe",
		"::1", "::", "fe80::1%eth0", "[::ffff:a9fe:a9fe]", "[::1]:8080", "::ffff:127.0.0.1", "1.2.3.4", "999.1.1.1", "a::b"} {
		assert.True(t, readsAsIP(s), s)
	}
	for _, s := range []string{"", "12345", "1.5", "1.2.3", "0x0", "0x7f.1", "2130706433", "std::vector", "12:30:45", "1.2.3.4.5",
		"[::1", "[::1]x", "1.2.3.4:x", "1.2.3.4:1234567", "localhost", "host.example", "1.2.3.a"} {
		assert.False(t, readsAsIP(s), s)
	}
	for _, s := range []string{"localhost", "evil.example", "10.0.0.1", "0x7f.1", "::1", "[::1]:80", "a.b:8080"} {
		assert.True(t, readsAsHost(s), s)
	}
	for _, s := range []string{"12345", "1.5", "1.2.3", "a b", "a@b.example", "0x742d35Cc6634C0532925a3b844Bc454e4438f44e", "aa:bb:cc:dd:ee:ff", ""} {
		assert.False(t, readsAsHost(s), s)
	}
	// Red team 5: short forms a person rarely writes for anything else.
	for _, s := range []string{"127.1", "2130706433", "0177.1", "0x7f000001", "169.254.43518", "10.1:80", "127.0.1"} {
		assert.True(t, isNumericHost(s), s)
	}
	for _, s := range []string{"1", "0", "12345", "90210", "1.5", "1.2.3", "3.11", "x.1", "", "1.2.3.4.5"} {
		assert.False(t, isNumericHost(s), s)
	}
}

// A value is read as a server that trims it reads it (red team 4).
func TestTrimReading(t *testing.T) {
	for in, want := range map[string]string{
		"/etc/passwd": "/etc/passwd", " /etc/passwd": "/etc/passwd", "\t/x\n": "/x", "\u00a0/x": "/x", "\ufeff/x": "/x",
		"\u200b/x\u200e": "/x", "'/x'": "/x", "\"~/.bashrc\"": "~/.bashrc", "` /x `": "/x", "<https://x/>": "https://x/",
		"\u201c/x\u201d": "/x", "''/x''": "/x", "'/x\"": "/x", "'": "", "": "", "hello": "hello", " \u3000 ": "",
		"\"/x": "/x", "/x'": "/x", "\u201e/x\u201c": "/x", "\u300c/x\u300d": "/x", "\u2039 '/x' \u203a": "/x", "\u00ab\u00ab/x": "/x",
		"\uff02/x\uff02": "/x", "it's": "it's", "'a' and 'b'": "a' and 'b",
	} {
		assert.Equal(t, want, trimReading(in), "%q", in)
	}
	for _, s := range []string{"https:/x", "HTTPS:\\\\x", "http:x", "ws:x", "wss:///x", "ftp:x", "ht\ttp://x", "h\nttps:x", "//host/x", `\\host\x`,
		"s3://bucket/k", "git+ssh://x"} {
		assert.True(t, readsAsURL(s), "%q", s)
	}
	for _, s := range []string{"http:", "http:/", "https:\\\\", "file:///x", "FILE:x", "mailto:a@b", "note: see", "///x", "/x", "x", "httpx:y", ""} {
		assert.False(t, readsAsURL(s), "%q", s)
	}
	for _, s := range []string{"https:", "mailto:x", "s3:x", "c:", "git+ssh:"} {
		assert.True(t, startsWithScheme(s), s)
	}
	for _, s := range []string{" https:", ":x", "1a:x", "a b:x", "abc"} {
		assert.False(t, startsWithScheme(s), s)
	}
}

// A property the schema declares a string (or a string or null) holds
// text: JSON in it is not read. Any other type, or none, is parsed by
// FastMCP, and is read (red team 4).
func TestSchemaDeclaredStrings(t *testing.T) {
	keys := parseSchemaKeys(json.RawMessage(`{"type": "object", "properties": {
		"content": {"type": "string"}, "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "both": {"type": ["string", "null"]},
		"list": {"type": "array"}, "either": {"anyOf": [{"type": "string"}, {"type": "array"}]}, "untyped": {},
		"twice": {"type": "string"}, "nested": {"type": "object", "properties": {"twice": {"type": "object"}, "inner": {"type": "string"},
		"Folded": {"type": "object"}}}, "folded": {"type": "string"}, "nulls": {"anyOf": [{"type": "null"}]}}}`))
	for name, want := range map[string]bool{"content": true, "maybe": true, "both": true, "inner": true,
		"list": false, "either": false, "untyped": false, "twice": false, "absent": false, "nulls": false} {
		assert.Equal(t, want, keys.strings[name], name)
	}
	ta := compileArgs(nil, "t", keys)
	assert.True(t, ta.declaresString("CONTENT"))
	assert.False(t, ta.declaresString("folded"), "a spelling that folds to it is an object")
	assert.False(t, ta.declaresString("twice"))
}

// A format on an object's additionalProperties or patternProperties is its
// values': the keys are names (red team 4).
func TestSchemaValueMaps(t *testing.T) {
	keys := parseSchemaKeys(json.RawMessage(`{"type": "object", "properties": {
		"mounts": {"type": "object", "additionalProperties": {"type": "string", "format": "path"}},
		"pp": {"type": "object", "patternProperties": {"^a": {"format": "directory"}, "^b": {"type": "integer"}}},
		"deep": {"type": "object", "additionalProperties": {"type": "array", "items": {"$ref": "#/$defs/p"}}},
		"hooks": {"type": "object", "unevaluatedProperties": {"format": "uri"}},
		"named": {"type": "object", "propertyNames": {"format": "path"}},
		"own": {"type": "string", "format": "path"}}, "$defs": {"p": {"type": "string", "format": "file-path"}}}`))
	assert.Equal(t, map[string]bool{"mounts": true, "pp": true, "deep": true}, keys.valuePaths)
	assert.Equal(t, map[string]bool{"hooks": true}, keys.valueURLs)
	assert.Equal(t, map[string]bool{"named": true, "own": true}, keys.paths)
	ta := compileArgs(nil, "t", keys)
	assert.Equal(t, classPathMap, ta.classOf("mounts"))
	assert.Equal(t, classURLMap, ta.classOf("hooks"))
}

// The whole schema is read (red team 5): the root's additionalProperties
// and patternProperties class the arguments it does not declare; a $ref
// is followed for every name it is reached under, and a cycle ends; a
// name declared two ways is read both ways; dependentSchemas and
// additionalItems count.
func TestSchemaReadWhole(t *testing.T) {
	keys := parseSchemaKeys(json.RawMessage(`{"type": "object",
		"properties": {"a": {"$ref": "#/$defs/loc"}, "b": {"$ref": "#/$defs/loc"}, "tree": {"$ref": "#/$defs/node"},
			"spot": {"type": "string", "format": "path"}, "opts": {"properties": {"spot": {"format": "hostname"}}},
			"list": {"items": [{"type": "string"}], "additionalItems": {"format": "uri"}}},
		"dependentSchemas": {"a": {"properties": {"dep": {"format": "path"}}}},
		"additionalProperties": {"type": "string", "format": "path"},
		"$defs": {"loc": {"type": "string", "format": "path"},
			"node": {"type": "object", "properties": {"kids": {"items": {"$ref": "#/$defs/node"}}, "where": {"format": "path"}}}}}`))
	for _, n := range []string{"a", "b", "spot", "dep", "where"} {
		assert.True(t, keys.paths[n], n)
	}
	assert.True(t, keys.urls["list"])
	assert.True(t, keys.hosts["spot"])
	assert.True(t, keys.restPaths)
	ta := compileArgs(nil, "t", keys)
	assert.Equal(t, classPath, ta.classOf("spot"))
	// Red team 6: anchors, $dynamicRef, the document's own $id, a
	// percent-encoded pointer, formats in capitals and draft 3's.
	more := parseSchemaKeys(json.RawMessage(`{"$id": "https://x/s", "type": "object",
		"properties": {"an": {"$ref": "#Pth"}, "dyn": {"$dynamicRef": "#meta"}, "abs": {"$ref": "https://x/s#/$defs/P"},
			"pct": {"$ref": "#/$defs/My%20P"}, "caps": {"format": "Path"}, "h3": {"format": "host-name"}, "i3": {"format": "ip-address"},
			"other": {"$ref": "https://y/s#/$defs/P"}},
		"$defs": {"P": {"$anchor": "Pth", "format": "path"}, "D": {"$dynamicAnchor": "meta", "format": "path"}, "My P": {"format": "path"}}}`))
	for _, n := range []string{"an", "dyn", "abs", "pct", "caps"} {
		assert.True(t, more.paths[n], n)
	}
	assert.False(t, more.paths["other"], "another document is not followed")
	assert.True(t, more.hosts["h3"])
	assert.True(t, more.hosts["i3"])
	assert.Equal(t, []argClass{classHost}, ta.moreOf("spot"))
	assert.Equal(t, classPath, ta.topClassOf("undeclared"))
	assert.Equal(t, classPath, ta.topClassOf("a"))
	assert.Equal(t, cachedDefaultClass("tree"), ta.topClassOf("tree"), "declared: not the rest")
	assert.Equal(t, cachedDefaultClass("undeclared"), ta.classOf("undeclared"), "the rest is the top level's only")
}

// A path relative to another argument is resolved against each distinct
// value of the arguments that fold to its name, once (red team 5: 5,000
// spellings of repo_path and 3,000 files took 2 s).
func TestRelativeBasesAreDistinct(t *testing.T) {
	e, err := NewEngine(context.Background(), Config{Roots: map[string]string{"*": "/srv"},
		Arguments: []ArgumentSpec{{Tool: "git_add", Relative: map[string]string{"files": "repo_path"}}}})
	require.NoError(t, err)
	args := map[string]any{"files": []string{"a", "b"}, "repo_path": "/srv/r", "REPO_PATH": "/srv/r", "Repo-Path": "/srv/r", "repoPath": "/srv/other"}
	text, _ := json.Marshal(args)
	in, err := e.NewInput(provider.Call{Function: provider.CallFunction{Name: "git_add", Arguments: string(text)}}, nil)
	require.NoError(t, err)
	var files []string
	for _, p := range in.Paths {
		if p.Arg == "files" {
			files = append(files, p.Resolved)
		}
	}
	assert.ElementsMatch(t, []string{"/srv/r/a", "/srv/other/a", "/srv/r/b", "/srv/other/b"}, files)
}

// FuzzArgumentsSeen: every string of a call's arguments that reads as a
// path or a URL, wherever it is, is among the input's paths or hosts,
// unless the name above it says it is content. The arguments are walked
// again here by encoding/json, independently of the engine's walker.
func FuzzArgumentsSeen(f *testing.F) {
	for _, s := range []string{
		`{"a":"/etc/passwd"}`, `{"options":{"where":"~/x"}}`, `{"list":[{"x":["../y"]}]}`, `{"content":"/etc","x":"file:/y"}`,
		`{"v":"{\"k\":\"/etc\"}"}`, `{"u":"https://evil.example/"}`, `{"/etc":1}`, `{"edits":[{"oldText":"/a","newText":"/b","path":"c"}]}`,
		`{"reason":"/etc/passwd"}`, `{"w":" /etc/x"}`, `{"w":"'~/x'"}`, `{"n":"https:\\\\evil.example/"}`, `{"n":"\ufeffws:x"}`,
		`{"serverIp":"10.0.0.1"}`, `{"zip":"12345"}`, `{"logfile":"x"}`, `{"paths":"[\"a\",{\"b\":\"/c\"}]"}`, `{"content":"{\"w\":\"~/x\"}"}`,
		`{"path":{"value":"x","a.md":"y"}}`, `{"files":[{"name":"n"}]}`, `{"m":{" /etc":1}}`, `{"a":"169.254.169.254"}`,
		`{"address":"x.example"}`, `{"m":{"http://h/":1,"[::1]:80":2}}`, `{"server":"1"}`,
		`{"server":"127.1"}`, `{"next":"169.254.169.254/latest"}`, `{"proxy":"evil.example/x"}`, `{"w":"\u201e/etc\u201c"}`,
		`{"cli_path":"x"}`, `{"syslog_host":"h"}`, `{"user_profile":"p"}`,
		`{"sshIp":"localhost"}`, `{"server":"127.1/x"}`, `{"server":"evil%2eexample"}`, `{"source":"git@evil.example:a/b.git"}`,
		`{"repo":"root@10.0.0.1:/x"}`, `{"server":"root@evil.example"}`, `{"zip_to":"x"}`,
	} {
		f.Add(s)
	}
	e, err := NewEngine(context.Background(), Config{Roots: map[string]string{"*": "/srv"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args string) {
		in, err := e.NewInput(provider.Call{Function: provider.CallFunction{Name: "t", Arguments: args}}, nil)
		var bad *BadCallError
		if errors.As(err, &bad) {
			return
		}
		require.NoError(t, err)
		var v map[string]any
		if json.Unmarshal([]byte(args), &v) != nil {
			return
		}
		seen := map[string]bool{}
		for _, p := range in.Paths {
			if raw, ok := p.Raw().(string); ok {
				seen[raw] = true
			}
		}
		for _, h := range in.Hosts {
			if raw, ok := h.Raw().(string); ok {
				seen[raw] = true
			}
		}
		pathish := func(c argClass) bool {
			return c == classPath || c == classDir || c == classWordPath || c == classWordDir
		}
		var walk func(key string, c argClass, x any, top bool)
		walk = func(key string, c argClass, x any, top bool) {
			switch x := x.(type) {
			case string:
				if c == classContent || top && key == ReasonArgument {
					return
				}
				r := trimReading(x)
				h, schemeless := schemelessHost(r)
				_, weak := weakHost(r, c == classWordIP)
				_, remote := remoteHost(r)
				must := pathish(c) || c == classURL || c == classHost || (c == classWordHost || c == classWordIP) && weak ||
					schemeless && readsAsIP(h) || remote ||
					looksLikePath(r) || looksLikeOption(r) || readsAsURL(r) || readsAsIP(r)
				if must && !seen[x] {
					t.Fatalf("arguments %s: %q under %q is not among the paths and URLs %v %v", args, x, key, in.Paths, in.Hosts)
				}
			case []any:
				for _, e := range x {
					walk(key, c, e, false)
				}
			case map[string]any:
				if top && key == ReasonArgument {
					return
				}
				for k, e := range x {
					kc := defaultClass(k)
					switch {
					case pathish(c):
						// The keys of an object under a path's name are
						// paths; a value under a key that says nothing,
						// and no file name, is a path too.
						if !seen[k] {
							t.Fatalf("arguments %s: the key %q under %q is not among the paths", args, k, key)
						}
						if kc == classNone && !strings.ContainsAny(k, "./\\") {
							kc = classWordPath
						}
					case c != classContent && (looksLikePath(trimReading(k)) || readsAsURL(trimReading(k)) || readsAsIP(trimReading(k))) && !seen[k]:
						t.Fatalf("arguments %s: the key %q is not among the paths", args, k)
					}
					walk(k, kc, e, false)
				}
			}
		}
		for k, x := range v {
			walk(k, defaultClass(k), x, true)
		}
	})
}

// A call costs memory in proportion to its text, not to the names in a
// path: a path of 800,000 names (1.6 MB) is unknown past MaxPathBytes and
// never cleaned, split or indexed name by name.
func TestAHugePathCostsItsTextNotItsNames(t *testing.T) {
	e, err := NewEngine(context.Background(), Config{Rules: []Rule{{Tool: "*", Decision: Deny, Under: "/srv/secret"}}})
	require.NoError(t, err)
	args := `{"path":"/srv/` + strings.Repeat("a/", 800_000) + `x"}`
	call := provider.Call{Function: provider.CallFunction{Name: "write", Arguments: args}}
	_, _, err = e.Decide(context.Background(), call, nil) // warm the caches
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d, _, err := e.Decide(context.Background(), call, nil)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Equal(t, ReasonUnevaluable, d.Reason)
	perByte := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(args))
	t.Logf("%.1f bytes allocated per byte of arguments", perByte)
	assert.Less(t, perByte, 8.0, "a decision allocates a few copies of the text at most")
}

// Many long paths, a deny to weigh them against: the index walks up each
// distinct path once, it does not list every ancestor of every path.
func TestManyLongPathsCostTheirText(t *testing.T) {
	e, err := NewEngine(context.Background(), Config{Rules: []Rule{{Tool: "*", Decision: Deny, Under: "/srv/secret"},
		{Tool: "*", Decision: Allow, Under: "/a"}}})
	require.NoError(t, err)
	long := "/" + strings.Repeat("a/", 2000) + "a"
	args := `{"paths":["` + strings.Repeat(long+`","`, 999) + long + `"]}`
	call := provider.Call{Function: provider.CallFunction{Name: "write", Arguments: args}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d, _, err := e.Decide(context.Background(), call, nil)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Equal(t, Allow, d.Decision)
	perByte := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(args))
	t.Logf("%.1f bytes allocated per byte of arguments", perByte)
	assert.Less(t, perByte, 16.0)
}
