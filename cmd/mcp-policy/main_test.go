package main

import (
	"bytes"
	"strings"
	"testing"
)

// main parses flags and starts the proxy: what it refuses, it refuses
// before any server is started.
func TestProxyCommandRefusesBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"proxy"}, "give the server to run after --, or --url"},
		{[]string{"proxy", "--url", "http://x/mcp", "--", "srv"}, "not both"},
		{[]string{"proxy", "--header", "A: b", "--", "srv"}, "--header is for --url"},
		{[]string{"proxy", "--ask", "maybe", "--", "srv"}, `--ask "maybe"`},
		{[]string{"proxy", "--log-arguments", "some", "--", "srv"}, `--log-arguments "some"`},
		{[]string{"proxy", "--ask-timeout", "0s", "--", "srv"}, "--ask-timeout must be positive"},
		{[]string{"nonsense"}, `unknown command "nonsense"`},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, strings.NewReader(""), &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: status %d, stderr %q; want %d and %q", c.args, code, stderr.String(), exitUsage, c.want)
		}
	}
}
