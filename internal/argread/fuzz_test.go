package argread

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/mcp-policy/mcp-policy/internal/strictjson"
)

// FuzzArgumentsSeen: every string of a call's arguments that reads as a
// path or a URL, wherever it is, is among the reading's paths or hosts,
// unless the class above it says it is text. The arguments are walked
// again here by encoding/json, independently of the reader's walker; the
// classes and the value recognisers are the reader's own (what is tested
// is that the walker applies them everywhere).
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
	r, err := NewReader(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args string) {
		items, ok, err := strictjson.DecodeObject([]byte(args))
		if err != nil || !ok {
			return
		}
		reading, err := r.Read(Call{Tool: "t", Root: "/srv", Arguments: items})
		if err != nil {
			return // past a limit: the call is refused
		}
		var v map[string]any
		if json.Unmarshal([]byte(args), &v) != nil {
			return
		}
		seen := map[string]bool{}
		for _, list := range [][]Value{reading.Paths, reading.Hosts} {
			for _, x := range list {
				if s, ok := x.Raw.Value.(ast.String); ok {
					seen[string(s)] = true
				}
			}
		}
		var walk func(key string, c Class, x any, top bool)
		walk = func(key string, c Class, x any, top bool) {
			switch x := x.(type) {
			case string:
				if c.Kind == Content || top && key == ReasonArgument {
					return
				}
				if isDocument(x) && c.local() {
					return // the document's strings are read in its place (TestGoldenReadings)
				}
				r := trimReading(x)
				if excludes(key, r) {
					return // a pattern's exclusion names nothing read
				}
				if c.Remote && !readsAsURL(r) && !isUserAtHost(r) && !looksLikeOption(r) {
					return // the other machine's path (a floor file among them is read: TestGoldenReadings)
				}
				if utf8.RuneCountInString(r) == 1 && keyNames[FoldName(key)] {
					return // a key pressed, a separator
				}
				h, schemeless := schemelessHost(r)
				_, weakOK := weakHostValue(r, c.Dotted)
				_, remote := remoteHost(r)
				must := c.local() && (!c.weak() || readsAsLocalName(r) && !isAddress(r)) || c.urlish() && (!c.weak() || readsAsURL(r) || looksLikePath(r)) ||
					c.Kind == Host && (!c.weak() || weakOK) ||
					schemeless && readsAsIP(h) || remote ||
					looksLikePath(r) || looksLikeOption(r) || readsAsURL(r) || readsAsIP(r)
				if must && !seen[x] {
					t.Fatalf("arguments %s: %q under %q is not among the paths and hosts %v %v", args, x, key, reading.Paths, reading.Hosts)
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
					r := trimReading(k)
					switch {
					case c.keysArePaths() && (nameClass(k) == none || isFileName(k) || looksLikePath(r)):
						if !seen[k] {
							t.Fatalf("arguments %s: the key %q under %q is not among the paths", args, k, key)
						}
					case c.Kind != Content && (looksLikePath(r) || readsAsURL(r) || readsAsIP(r)) && !seen[k]:
						t.Fatalf("arguments %s: the key %q is not among the paths", args, k)
					}
					walk(k, c.inner(k, nameClass(k)), e, false)
				}
			}
		}
		for k, x := range v {
			walk(k, nameClass(k), x, true)
		}
	})
}

func isAddress(r string) bool { _, ok := readsAsAddress(r); return ok }

// isDocument reports a string that holds a JSON array or object the
// reader decodes.
func isDocument(x string) bool {
	t := strings.TrimSpace(x)
	if len(t) < 2 || !(t[0] == '{' && t[len(t)-1] == '}' || t[0] == '[' && t[len(t)-1] == ']') {
		return false
	}
	_, err := strictjson.Decode([]byte(t))
	return err == nil
}
