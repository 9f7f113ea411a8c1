package proxy

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/approvals"
	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
)

// Once the host's initialize is read, stderr says whether what needs
// asking can reach the human.
func TestInitializeSaysWhetherTheHostCanElicit(t *testing.T) {
	for _, c := range []struct {
		ask, caps, want string
	}{
		{AskElicit, `{"elicitation":{}}`, `the host "claude-code 2.1.0" can elicit: what needs asking is asked of the human`},
		{AskElicit, `{"elicitation":{"url":{}}}`, `the host "claude-code 2.1.0" cannot elicit (no form elicitation in its capabilities): what needs asking is refused`},
		{AskElicit, `{}`, `the host "claude-code 2.1.0" cannot elicit`},
		{AskRefuse, `{"elicitation":{}}`, `the host "claude-code 2.1.0": what needs asking is refused (--ask refuse)`},
	} {
		var stderr bytes.Buffer
		p := newProxy(options{askMode: c.ask, stderr: &stderr}, nil, io.Discard)
		p.readInitialize([]byte(`{"protocolVersion":"2025-11-25","capabilities":` + c.caps +
			`,"clientInfo":{"name":"claude-code","version":"2.1.0"}}`))
		assert.Contains(t, stderr.String(), "mcp-policy proxy: "+c.want, "%s %s", c.ask, c.caps)
		assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line")
	}
}

// A --root KEY that names none of the server's tools does nothing: the
// first whole catalogue says so, once.
func TestRootKeyNamingNoToolIsWarnedOnce(t *testing.T) {
	cfg := &cliconfig.Config{Roots: map[string]string{"fs": "/srv", "read": "/r", "*": "/all", "edit_file": "/e"}}
	var stderr bytes.Buffer
	p := newProxy(options{cfg: cfg, rootsFixed: true, stderr: &stderr}, nil, io.Discard)
	list := `{"tools":[{"name":"read_file"},{"name":"write_file"},{"name":"edit_file"},{"name":"list_directory"},{"name":"move_file"}]}`
	p.readToolsPage([]byte(`{"tools":[{"name":"read_file"}],"nextCursor":"2"}`), true)
	assert.Empty(t, stderr.String(), "a first page is not the catalogue")
	p.readToolsPage([]byte(list), true)
	assert.Equal(t, "mcp-policy proxy: --root fs=/srv: no tool of the server's is named fs or fs_* "+
		"(its tools: read_file, write_file, edit_file, …); KEY is a tool-name prefix, or * for every tool\n", stderr.String())
	p.readToolsPage([]byte(list), true)
	assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "warned once")

	stderr.Reset()
	p = newProxy(options{cfg: &cliconfig.Config{Roots: map[string]string{}}, stderr: &stderr}, nil, io.Discard)
	p.readToolsPage([]byte(list), true)
	assert.Empty(t, stderr.String(), "no --root, nothing to say")
}

// Where questions go, by --ask and the host's capabilities: the line
// names the command to answer them with when they go to the approvers.
func TestInitializeSaysWhereQuestionsGo(t *testing.T) {
	file := filepath.Join(t.TempDir(), "grants.json")
	store, err := grants.Open(file)
	require.NoError(t, err)
	queue, err := approvals.Open(file)
	require.NoError(t, err)
	approvalsCmd := "`mcp-policy approvals --grants " + file + "` (or `mcp-policy approve --grants " + file + "`)"
	for _, c := range []struct {
		ask   string
		queue approvals.Queue
		caps  string
		want  string
		route asked
	}{
		{AskElicitApprovals, queue, `{"elicitation":{}}`, `the host "h 1" can elicit: what needs asking is asked of the human`, toHost},
		{AskElicitApprovals, queue, `{}`, `the host "h 1": it cannot elicit (no form elicitation in its capabilities), so what needs asking waits for an answer at ` + approvalsCmd, toApprovers},
		{AskApprovals, queue, `{"elicitation":{}}`, `the host "h 1": --ask approvals, so what needs asking waits for an answer at ` + approvalsCmd, toApprovers},
		{AskElicit, queue, `{}`, `the host "h 1" cannot elicit (no form elicitation in its capabilities): what needs asking is refused`, toNobody},
		{AskElicitApprovals, nil, `{}`, "what needs asking is refused; with --grants FILE, it would wait for an answer at `mcp-policy approvals --grants FILE`", toNobody},
		{AskRefuse, queue, `{"elicitation":{}}`, `what needs asking is refused (--ask refuse)`, toNobody},
	} {
		var stderr bytes.Buffer
		p := newProxy(options{askMode: c.ask, approvals: c.queue, store: store, stderr: &stderr}, nil, io.Discard)
		p.readInitialize([]byte(`{"protocolVersion":"2025-11-25","capabilities":` + c.caps + `,"clientInfo":{"name":"h","version":"1"}}`))
		assert.Contains(t, stderr.String(), c.want, "%s %s", c.ask, c.caps)
		assert.Equal(t, c.route, p.route(p.session().caps), "%s %s", c.ask, c.caps)
	}
}
