package e2e_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/mcpclient"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// synopsisRules are the SYNOPSIS's rules. fsserver names its tools fs_read,
// fs_write, … — the names the SYNOPSIS's rules use — so the policy sits
// directly over the client, as in the SYNOPSIS, and rules and the roots key
// "fs" name tools exactly as the server does. (Under a Registry the names
// would gain a prefix; TestStackedLayers shows that layering.)
func synopsisRules() []policy.Rule {
	return append(policy.DefaultRules(),
		policy.Rule{Tool: "fs_write", Decision: policy.Allow, Under: "scratch"},
		policy.Rule{Tool: "fs_delete", Decision: policy.Deny},
	)
}

// TestSynopsis: reads pass by the default rules (the server's readOnlyHint),
// a write under scratch lands, a delete is denied and changes nothing, a
// write elsewhere is asked about, and an always-allow answer lets the next
// such write through without asking.
func TestSynopsis(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mkfile(t, dir, "README.md", "hello from the sandbox\n")
	keep := mkfile(t, dir, "keep.txt", "do not delete\n")

	human := &asker{answer: func(q policy.Question) policy.Answer { return policy.Answer{Action: policy.AlwaysAllow} }}
	log := newLineWatch("fsserver: call fs_list")
	client := connect(t, dir, mcpclient.WithStderr(log))
	p := newPolicy(t, policy.Options{
		Provider: client,
		Rules:    synopsisRules(),
		Roots:    map[string]string{"fs": dir},
		OnAsk:    human.ask,
	})
	require.True(t, p.Interactive(), "a policy with OnAsk is not interactive")

	// The catalogue passes through (mcp-go's server lists tools by name),
	// annotations kept, but for fs_delete, which a rule denies outright:
	// the model is not offered a tool every call of which is refused.
	tools, err := p.ToolsForLLM(t.Context())
	require.NoError(t, err)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Function.Name)
		if tl.Function.Name == "fs_read" {
			require.NotNil(t, tl.Annotations, "fs_read lost its annotations")
			require.NotNil(t, tl.Annotations.ReadOnlyHint, "fs_read lost its readOnlyHint: %+v", tl.Annotations)
			require.True(t, *tl.Annotations.ReadOnlyHint, "fs_read lost its readOnlyHint: %+v", tl.Annotations)
		}
	}
	require.Equal(t, []string{"fs_edit", "fs_list", "fs_mkdir", "fs_move", "fs_read", "fs_write"}, names, "catalogue")

	// The read is allowed by the default read-only rule, on the strength of
	// the server's own readOnlyHint.
	d, err := p.Decide(t.Context(), mkcall("read", "fs_read", map[string]string{"path": "README.md"}))
	require.NoError(t, err)
	require.Equal(t, policy.Allow, d.Decision, "fs_read decision %+v", d)
	require.Equal(t, policy.ReasonRule, d.Reason, "fs_read decision %+v", d)
	require.NotNil(t, d.Rule, "fs_read decision %+v", d)
	require.True(t, d.Rule.Annotations["readOnlyHint"], "fs_read decision by rule %+v, want the default read-only rule", d.Rule)

	// One batch: decided first, the allowed calls forwarded together, the
	// results in the caller's order.
	rs := execute(t, p,
		mkcall("read", "fs_read", map[string]string{"path": "README.md"}),
		mkcall("write", "fs_write", map[string]string{"path": "scratch/notes.md", "content": "# notes\n"}),
		mkcall("delete", "fs_delete", map[string]string{"path": "keep.txt"}),
	)
	wantOK(t, rs[0])
	require.Equal(t, "hello from the sandbox\n", rs[0].Content, "fs_read")
	wantOK(t, rs[1])
	wantFile(t, filepath.Join(dir, "scratch", "notes.md"), "# notes\n")
	wantError(t, rs[2], "Denied by mcp-policy: 'fs_delete' is not allowed by rule")
	wantFile(t, keep, "do not delete\n")
	// The denied delete never reached the server.
	got := serverCalls(t, client, log)
	require.Len(t, got, 2, "the server was called with %q, want the read and the write only", got)
	require.NotContains(t, got, "fs_delete", "the server's calls")
	require.Empty(t, human.asked(), "nothing in the first batch should ask")

	// A write elsewhere is asked about; the always-allow answer remembers
	// the suggestion (the directory of the write).
	rs = execute(t, p, mkcall("w1", "fs_write", map[string]string{"path": "docs/a.md", "content": "A"}))
	wantOK(t, rs[0])
	wantFile(t, filepath.Join(dir, "docs", "a.md"), "A")
	qs := human.asked()
	require.Len(t, qs, 1, "questions %+v", qs)
	q := qs[0]
	docs := filepath.Join(dir, "docs")
	require.Equal(t, policy.KindPermission, q.Kind, "question %+v", q)
	require.Equal(t, "fs_write", q.Tool, "question %+v", q)
	require.Equal(t, policy.ReasonNoMatch, q.Reason, "question %+v", q)
	require.Equal(t, "w1", q.Call.ID, "question %+v", q)
	require.Equal(t, []string{filepath.Join(docs, "a.md")}, q.Paths, "question paths")
	require.NotNil(t, q.Suggestion, "suggestion")
	require.Equal(t, "fs_write", q.Suggestion.Tool, "suggestion %+v", q.Suggestion)
	require.Equal(t, docs, q.Suggestion.Under, "suggestion %+v", q.Suggestion)
	require.Empty(t, q.Suggestion.Host, "suggestion %+v", q.Suggestion)
	require.Equal(t, "docs/a.md", q.Arguments["path"], "question arguments %v", q.Arguments)
	g := p.Grants()
	require.Len(t, g, 1, "grants %+v", g)
	require.Equal(t, "fs_write", g[0].Tool, "grants %+v", g)
	require.Equal(t, docs, g[0].Under, "grants %+v", g)
	require.Equal(t, policy.Allow, g[0].Decision, "grants %+v", g)

	// The next write there, and one deeper, go through on the grant.
	rs = execute(t, p,
		mkcall("w2", "fs_write", map[string]string{"path": "docs/b.md", "content": "B"}),
		mkcall("w3", "fs_write", map[string]string{"path": filepath.Join(docs, "deep", "c.md"), "content": "C"}),
	)
	wantOK(t, rs[0])
	wantOK(t, rs[1])
	wantFile(t, filepath.Join(docs, "b.md"), "B")
	wantFile(t, filepath.Join(docs, "deep", "c.md"), "C")
	require.Len(t, human.asked(), 1, "writes under the granted directory asked again")
	gd, ok := p.GrantDecision(mkcall("w4", "fs_write", map[string]string{"path": "docs/d.md"}))
	require.True(t, ok, "GrantDecision found no grant")
	require.Equal(t, policy.Allow, gd, "GrantDecision")

	// The grant is that directory, not the sandbox: a write next to it asks,
	// and a deny-once leaves nothing on disk.
	human.mu.Lock()
	human.answer = func(policy.Question) policy.Answer { return policy.Answer{Action: policy.DenyOnce} }
	human.mu.Unlock()
	rs = execute(t, p, mkcall("w5", "fs_write", map[string]string{"path": "other/x.md", "content": "X"}))
	wantError(t, rs[0], "The user declined 'fs_write'")
	wantAbsent(t, filepath.Join(dir, "other"))
	require.Len(t, human.asked(), 2, "a write outside the grant asks: questions in all")
}

// TestHeadlessRefusal: with no one to ask, a write outside scratch is
// refused before the server sees it, and the disk is untouched; the calls
// around it are unaffected.
func TestHeadlessRefusal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := newLineWatch("fsserver: call fs_list")
	client := connect(t, dir, mcpclient.WithStderr(log))
	p := newPolicy(t, policy.Options{
		Provider: client,
		Rules:    synopsisRules(),
		Roots:    map[string]string{"fs": dir},
	})
	require.False(t, p.Interactive(), "a policy without OnAsk is interactive")
	rs := execute(t, p,
		mkcall("1", "fs_write", map[string]string{"path": "x", "content": "x"}),
		mkcall("2", "fs_write", map[string]string{"path": "scratch/y", "content": "y"}),
		mkcall("3", "fs_mkdir", map[string]string{"path": "newdir"}),
	)
	wantError(t, rs[0], "Permission required: 'fs_write' needs approval, but")
	require.Contains(t, rs[0].Content, "no one is available to approve it", "the headless refusal")
	wantAbsent(t, filepath.Join(dir, "x"))
	wantOK(t, rs[1])
	wantFile(t, filepath.Join(dir, "scratch", "y"), "y")
	wantError(t, rs[2], "Permission required: 'fs_mkdir' needs approval, but")
	wantAbsent(t, filepath.Join(dir, "newdir"))
	// The server saw the allowed write and nothing else.
	require.Equal(t, []string{"fs_write"}, serverCalls(t, client, log), "the server's calls: only the allowed fs_write")
}

// TestStackedLayers is the EXAMPLES' stacking: an inner policy under a
// Registry speaks the server's names (fs_delete), the outer policy over the
// registry speaks the model's (local_fs_write, with the prefix "local"), and
// the roots keys follow the same names.
func TestStackedLayers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keep := mkfile(t, dir, "keep.txt", "keep\n")
	inner := newPolicy(t, policy.Options{
		Provider: connect(t, dir),
		Rules: []policy.Rule{
			{Tool: "fs_delete", Decision: policy.Deny, Message: "no deletes here"},
			{Tool: "*", Decision: policy.Allow},
		},
		Roots: map[string]string{"fs": dir},
		Name:  "inner",
	})
	reg := provider.NewRegistry()
	require.NoError(t, reg.Add(inner, "local"))
	human := &asker{}
	outer := newPolicy(t, policy.Options{
		Provider: reg,
		Rules: append(policy.DefaultRules(),
			policy.Rule{Tool: "local_fs_write", Decision: policy.Allow, Under: "scratch"},
			policy.Rule{Tool: "local_fs_delete", Decision: policy.Allow},
		),
		Roots: map[string]string{"local": dir},
		OnAsk: human.ask,
		Name:  "outer",
	})
	rs := execute(t, outer,
		mkcall("r", "local_fs_read", map[string]string{"path": "keep.txt"}),
		mkcall("w", "local_fs_write", map[string]string{"path": "scratch/n", "content": "n"}),
		mkcall("d", "local_fs_delete", map[string]string{"path": "keep.txt"}),
		mkcall("u", "fs_write", map[string]string{"path": "scratch/m", "content": "m"}),
	)
	wantOK(t, rs[0]) // read-only by the annotation, which the registry keeps
	require.Equal(t, "keep\n", rs[0].Content, "read")
	wantOK(t, rs[1])
	wantFile(t, filepath.Join(dir, "scratch", "n"), "n")
	wantError(t, rs[2], "Denied by inner: 'fs_delete' is not allowed")
	wantError(t, rs[2], "no deletes here")
	wantFile(t, keep, "keep\n")
	// An unprefixed name is no tool of the registry's: the outer policy asks
	// (no rule names it), the human allows once, the registry refuses it.
	wantError(t, rs[3], "unknown tool 'fs_write'")
	wantAbsent(t, filepath.Join(dir, "scratch", "m"))
	qs := human.asked()
	require.Len(t, qs, 1, "questions %+v, want one about fs_write", qs)
	require.Equal(t, "fs_write", qs[0].Tool, "questions %+v", qs)
}
