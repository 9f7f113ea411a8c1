package e2e_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-policy/mcp-policy/mcpclient"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/policy/rules"
	"github.com/mcp-policy/mcp-policy/provider"
)

// synopsisRules are the SYNOPSIS's rules. fsserver names its tools fs_read,
// fs_write, … — the names the SYNOPSIS's rules use — so the policy sits
// directly over the client, as in the SYNOPSIS, and rules and the roots key
// "fs" name tools exactly as the server does. (Under a Registry the names
// would gain a prefix; TestStackedLayers shows that layering.)
func synopsisRules() []rules.Rule {
	return append(policy.DefaultRules(),
		rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: "scratch"},
		rules.Rule{Tool: "fs_delete", Decision: rules.Deny},
	)
}

// TestSynopsis: reads pass by the default rules (the server's readOnlyHint),
// a write under scratch lands, a delete is denied and changes nothing, a
// write elsewhere is asked about, and an always-allow answer lets the next
// such write through without asking.
func TestSynopsis(t *testing.T) {
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
	if !p.Interactive() {
		t.Fatal("a policy with OnAsk is not interactive")
	}

	// The catalogue passes through unshortened (mcp-go's server lists tools
	// by name), annotations kept.
	tools, err := p.ToolsForLLM(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Function.Name)
		if tl.Function.Name == "fs_read" && (tl.Annotations == nil || tl.Annotations.ReadOnlyHint == nil || !*tl.Annotations.ReadOnlyHint) {
			t.Fatalf("fs_read lost its readOnlyHint: %+v", tl.Annotations)
		}
	}
	if got, want := strings.Join(names, ","), "fs_delete,fs_edit,fs_list,fs_mkdir,fs_move,fs_read,fs_write"; got != want {
		t.Fatalf("catalogue = %s, want %s", got, want)
	}

	// The read is allowed by the default read-only rule, on the strength of
	// the server's own readOnlyHint.
	d, err := p.Decide(t.Context(), mkcall("read", "fs_read", map[string]string{"path": "README.md"}))
	if err != nil {
		t.Fatal(err)
	}
	if d.Decision != rules.Allow || d.Reason != rules.ReasonRule || d.Rule == nil || !d.Rule.Annotations["readOnlyHint"] {
		t.Fatalf("fs_read decision = %+v (rule %+v), want allow by the default read-only rule", d, d.Rule)
	}

	// One batch: decided first, the allowed calls forwarded together, the
	// results in the caller's order.
	rs := execute(t, p,
		mkcall("read", "fs_read", map[string]string{"path": "README.md"}),
		mkcall("write", "fs_write", map[string]string{"path": "scratch/notes.md", "content": "# notes\n"}),
		mkcall("delete", "fs_delete", map[string]string{"path": "keep.txt"}),
	)
	wantOK(t, rs[0])
	if rs[0].Content != "hello from the sandbox\n" {
		t.Fatalf("fs_read = %q", rs[0].Content)
	}
	wantOK(t, rs[1])
	wantFile(t, filepath.Join(dir, "scratch", "notes.md"), "# notes\n")
	wantError(t, rs[2], "Denied by mcp-policy: 'fs_delete' is not allowed by rule")
	wantFile(t, keep, "do not delete\n")
	// The denied delete never reached the server.
	if got := serverCalls(t, client, log); len(got) != 2 || slices.Contains(got, "fs_delete") {
		t.Fatalf("the server was called with %q, want the read and the write only", got)
	}
	if q := human.asked(); len(q) != 0 {
		t.Fatalf("nothing in the first batch should ask; asked %+v", q)
	}

	// A write elsewhere is asked about; the always-allow answer remembers
	// the suggestion (the directory of the write).
	rs = execute(t, p, mkcall("w1", "fs_write", map[string]string{"path": "docs/a.md", "content": "A"}))
	wantOK(t, rs[0])
	wantFile(t, filepath.Join(dir, "docs", "a.md"), "A")
	qs := human.asked()
	if len(qs) != 1 {
		t.Fatalf("asked %d questions, want 1: %+v", len(qs), qs)
	}
	q := qs[0]
	docs := filepath.Join(dir, "docs")
	if q.Kind != policy.KindPermission || q.Tool != "fs_write" || q.Reason != rules.ReasonNoMatch || q.Call.ID != "w1" {
		t.Fatalf("question = %+v", q)
	}
	if len(q.Paths) != 1 || q.Paths[0] != filepath.Join(docs, "a.md") {
		t.Fatalf("question paths = %q, want [%s]", q.Paths, filepath.Join(docs, "a.md"))
	}
	if q.Suggestion == nil || q.Suggestion.Tool != "fs_write" || q.Suggestion.Under != docs || q.Suggestion.Host != "" {
		t.Fatalf("suggestion = %+v, want {fs_write under %s}", q.Suggestion, docs)
	}
	if q.Arguments["path"] != "docs/a.md" {
		t.Fatalf("question arguments = %v", q.Arguments)
	}
	if g := p.Grants(); len(g) != 1 || g[0].Tool != "fs_write" || g[0].Under != docs || g[0].Decision != rules.Allow {
		t.Fatalf("grants = %+v, want one allow fs_write under %s", g, docs)
	}

	// The next write there, and one deeper, go through on the grant.
	rs = execute(t, p,
		mkcall("w2", "fs_write", map[string]string{"path": "docs/b.md", "content": "B"}),
		mkcall("w3", "fs_write", map[string]string{"path": filepath.Join(docs, "deep", "c.md"), "content": "C"}),
	)
	wantOK(t, rs[0])
	wantOK(t, rs[1])
	wantFile(t, filepath.Join(docs, "b.md"), "B")
	wantFile(t, filepath.Join(docs, "deep", "c.md"), "C")
	if n := len(human.asked()); n != 1 {
		t.Fatalf("writes under the granted directory asked again (%d questions)", n)
	}
	if d, ok := p.GrantDecision(mkcall("w4", "fs_write", map[string]string{"path": "docs/d.md"})); !ok || d != rules.Allow {
		t.Fatalf("GrantDecision = %q, %v; want allow, true", d, ok)
	}

	// The grant is that directory, not the sandbox: a write next to it asks,
	// and a deny-once leaves nothing on disk.
	human.mu.Lock()
	human.answer = func(policy.Question) policy.Answer { return policy.Answer{Action: policy.DenyOnce} }
	human.mu.Unlock()
	rs = execute(t, p, mkcall("w5", "fs_write", map[string]string{"path": "other/x.md", "content": "X"}))
	wantError(t, rs[0], "The user declined 'fs_write'")
	wantAbsent(t, filepath.Join(dir, "other"))
	if n := len(human.asked()); n != 2 {
		t.Fatalf("a write outside the grant asked %d questions in all, want 2", n)
	}
}

// TestHeadlessRefusal: with no one to ask, a write outside scratch is
// refused before the server sees it, and the disk is untouched; the calls
// around it are unaffected.
func TestHeadlessRefusal(t *testing.T) {
	dir := t.TempDir()
	log := newLineWatch("fsserver: call fs_list")
	client := connect(t, dir, mcpclient.WithStderr(log))
	p := newPolicy(t, policy.Options{
		Provider: client,
		Rules:    synopsisRules(),
		Roots:    map[string]string{"fs": dir},
	})
	if p.Interactive() {
		t.Fatal("a policy without OnAsk is interactive")
	}
	rs := execute(t, p,
		mkcall("1", "fs_write", map[string]string{"path": "x", "content": "x"}),
		mkcall("2", "fs_write", map[string]string{"path": "scratch/y", "content": "y"}),
		mkcall("3", "fs_mkdir", map[string]string{"path": "newdir"}),
	)
	wantError(t, rs[0], "Permission required: 'fs_write' needs approval, but")
	if !strings.Contains(rs[0].Content, "no one is available to approve it") {
		t.Fatalf("headless refusal does not say no one can approve it: %s", rs[0].Content)
	}
	wantAbsent(t, filepath.Join(dir, "x"))
	wantOK(t, rs[1])
	wantFile(t, filepath.Join(dir, "scratch", "y"), "y")
	wantError(t, rs[2], "Permission required: 'fs_mkdir' needs approval, but")
	wantAbsent(t, filepath.Join(dir, "newdir"))
	// The server saw the allowed write and nothing else.
	if got := serverCalls(t, client, log); !slices.Equal(got, []string{"fs_write"}) {
		t.Fatalf("the server was called with %q, want only the allowed fs_write", got)
	}
}

// TestStackedLayers is the EXAMPLES' stacking: an inner policy under a
// Registry speaks the server's names (fs_delete), the outer policy over the
// registry speaks the model's (local_fs_write, with the prefix "local"), and
// the roots keys follow the same names.
func TestStackedLayers(t *testing.T) {
	dir := t.TempDir()
	keep := mkfile(t, dir, "keep.txt", "keep\n")
	inner := newPolicy(t, policy.Options{
		Provider: connect(t, dir),
		Rules: []rules.Rule{
			{Tool: "fs_delete", Decision: rules.Deny, Message: "no deletes here"},
			{Tool: "*", Decision: rules.Allow},
		},
		Roots: map[string]string{"fs": dir},
		Name:  "inner",
	})
	reg := provider.NewRegistry()
	if err := reg.Add(inner, "local"); err != nil {
		t.Fatal(err)
	}
	human := &asker{}
	outer := newPolicy(t, policy.Options{
		Provider: reg,
		Rules: append(policy.DefaultRules(),
			rules.Rule{Tool: "local_fs_write", Decision: rules.Allow, Under: "scratch"},
			rules.Rule{Tool: "local_fs_delete", Decision: rules.Allow},
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
	if rs[0].Content != "keep\n" {
		t.Fatalf("read = %q", rs[0].Content)
	}
	wantOK(t, rs[1])
	wantFile(t, filepath.Join(dir, "scratch", "n"), "n")
	wantError(t, rs[2], "Denied by inner: 'fs_delete' is not allowed")
	wantError(t, rs[2], "no deletes here")
	wantFile(t, keep, "keep\n")
	// An unprefixed name is no tool of the registry's: the outer policy asks
	// (no rule names it), the human allows once, the registry refuses it.
	wantError(t, rs[3], "unknown tool 'fs_write'")
	wantAbsent(t, filepath.Join(dir, "scratch", "m"))
	if qs := human.asked(); len(qs) != 1 || qs[0].Tool != "fs_write" {
		t.Fatalf("questions = %+v, want one about fs_write", qs)
	}
}
