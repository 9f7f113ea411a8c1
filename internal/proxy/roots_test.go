package proxy

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rootURIs are root URIs, and the path the proxy takes each for ("" for
// none).
var rootURIs = map[string]string{
	"file:///tmp/a":             "/tmp/a",
	"file:///tmp/a/":            "/tmp/a/",
	"file:///":                  "/",
	"file://localhost/tmp/a":    "/tmp/a",
	"file://LocalHost/tmp/a":    "/tmp/a",
	"file:///tmp/a%20b":         "/tmp/a b",
	"file:///tmp/a b":           "/tmp/a b",
	"file:///tmp/%C3%A9":        "/tmp/é",
	"file:///tmp/é":             "/tmp/é",
	"file:///tmp/a%2e":          "/tmp/a.",
	"file:/tmp/a":               "",
	"FILE:///tmp/a":             "",
	"File:///tmp/a":             "",
	"file:tmp/a":                "",
	"/tmp/a":                    "",
	"file://":                   "",
	"file://tmp/a":              "",
	"file://127.0.0.1/tmp/a":    "",
	"file://local%68ost/tmp/a":  "",
	"file://localhost:80/tmp/a": "",
	"file://u@localhost/tmp/a":  "",
	"file:///tmp/a%2Fb":         "",
	"file:///tmp/a%2fb":         "",
	"file:///tmp/a%00b":         "",
	"file:///tmp/a%5Cb":         "",
	"file:///tmp/a%0Ab":         "",
	"file:///tmp/a%FFb":         "",
	"file:///tmp/a%zz":          "",
	"file:///tmp/a%2":           "",
	"file:///tmp/a?x":           "",
	"file:///tmp/a#x":           "",
	"file:///tmp\\a":            "",
	"file:///tmp/a\tb":          "",
	"file:///tmp/a\nb":          "",
	"file:///tmp/a ":            "",
	"file:///tmp/a/../b":        "",
	"file:///tmp/./a":           "",
	"file:///tmp/%2e%2e/etc":    "",
	"file:///tmp/.%2E/etc":      "",
	"file:///tmp/%2E":           "",
	"file:////tmp/a":            "",
	"file:///tmp//a":            "",
	"file:///tmp/a/..":          "",
	"file://localhost/..":       "",
	"file:///tmp/a%20":          "",
	"file:///%20tmp":            "/ tmp",
	"file:///c|":                "",
	"file:///c|/x":              "",
	"file:///tmp/a|b":           "",
}

func TestRootURIPath(t *testing.T) {
	for uri, want := range rootURIs {
		got, err := rootURIPath(uri)
		if want == "" {
			assert.Error(t, err, "%q read as %q", uri, got)
			continue
		}
		if assert.NoError(t, err, "%q", uri) {
			assert.Equal(t, want, got, "%q", uri)
		}
	}
}

// TestRootURIPathAsNodeReadsIt: every URI the proxy takes, Node's
// fileURLToPath (which the reference filesystem server reads roots with)
// takes for the same path.
func TestRootURIPathAsNodeReadsIt(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is needed")
		}
		t.Skip("no node")
	}
	var taken []string
	for uri, want := range rootURIs {
		if want != "" {
			taken = append(taken, uri)
		}
	}
	in, err := json.Marshal(taken)
	require.NoError(t, err)
	script := `const {fileURLToPath} = require("url");
const out = {};
for (const u of JSON.parse(process.argv[1])) { try { out[u] = fileURLToPath(u) } catch (e) { out[u] = "ERROR " + e.code } }
console.log(JSON.stringify(out));`
	b, err := exec.Command(node, "-e", script, string(in)).Output()
	require.NoError(t, err)
	var byNode map[string]string
	require.NoError(t, json.Unmarshal(b, &byNode))
	for _, uri := range taken {
		got, err := rootURIPath(uri)
		require.NoError(t, err)
		assert.Equal(t, byNode[uri], got, "%q: the proxy's path, against Node's", uri)
	}
}

func TestRootBase(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "real"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "file"), nil, 0o644))
	roots := func(uris ...string) []byte {
		var rs []map[string]string
		for _, u := range uris {
			rs = append(rs, map[string]string{"uri": u})
		}
		b, _ := json.Marshal(map[string]any{"roots": rs})
		return b
	}
	for _, tc := range []struct {
		result []byte
		want   string
	}{
		{roots("file://" + dir + "/real"), dir + "/real"},
		{roots("file://" + dir + "/link"), dir + "/real"},
		{roots("file://" + dir + "/link/"), dir + "/real"},
		{roots("file://" + dir + "/file"), ""},
		{roots("file://" + dir + "/missing"), ""},
		{roots("file://"+dir+"/real", "file://"+dir+"/link"), ""},
		{roots(), ""},
		{roots("file:" + dir + "/real"), ""},
		{[]byte(`{"roots":"x"}`), ""},
		// What the TypeScript SDK refuses whole (the reference server then
		// keeps the roots it had), or reads otherwise than encoding/json
		// (red team 5): no root.
		{[]byte(`{"roots":[{"uri":"file://` + dir + `/real","name":null}]}`), ""},
		{[]byte(`{"roots":[{"uri":"file://` + dir + `/real","name":5}]}`), ""},
		{[]byte(`{"roots":[{"uri":"file://` + dir + `/real","_meta":"x"}]}`), ""},
		{[]byte(`{"roots":[{"uri":"file://` + dir + `/real"}],"_meta":[]}`), ""},
		{[]byte(`{"roots":[{"uri":"file://` + dir + `/file","URI":"file://` + dir + `/real"}]}`), ""},
		{[]byte(`{"roots":[{"uri":"file://` + dir + `/file"},{"uri":"file://` + dir + `/file"}],"ROOTS":[{"uri":"file://` + dir + `/real"}]}`), ""},
		{[]byte(`{"roots":[{"uri":null}]}`), ""},
		{[]byte(`{"roots":[{"uri":"file://` + dir + `/real"}],"roots":[]}`), ""},
		{[]byte(`{"roots":["file://` + dir + `/real"]}`), ""},
		{[]byte(`{"roots":[{"uri":"file://` + dir + `/real","name":"work","_meta":{}}],"_meta":{}}`), dir + "/real"},
	} {
		got, why := rootBase(tc.result)
		assert.Equal(t, tc.want, got, "%s", tc.result)
		assert.Equal(t, tc.want == "", why != "", "%s: why %q", tc.result, why)
	}
}
