//go:build unix

package e2e_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/pgtest"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/testkit"
)

// chromium is the browser the approvals page is tested in: Debian's
// chromium (.ci/run installs it), or $CHROMIUM. Outside CI a machine
// without it skips the test; in CI its absence fails.
func chromium(t *testing.T) string {
	t.Helper()
	for _, c := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium: the approvals page's browser test needs it (apt-get install chromium, or set CHROMIUM)")
	}
	t.Skip("no chromium on this machine: apt-get install chromium (or set CHROMIUM) to test the approvals page in a browser")
	return ""
}

// approvalsPage is a running `mcp-policy approvals --grants FILE`.
type approvalsPage struct {
	link  string         // the first link it printed
	links chan string    // the links it prints next
	enter io.WriteCloser // its stdin: a line asks for a new link
}

// newLink presses Enter in the approvals terminal and returns the fresh
// link it prints.
func (a *approvalsPage) newLink(t *testing.T) string {
	t.Helper()
	_, err := io.WriteString(a.enter, "\n")
	require.NoError(t, err)
	select {
	case u := <-a.links:
		return u
	case <-time.After(30 * time.Second):
		t.Fatal("no new link printed after Enter")
		return ""
	}
}

// startApprovals runs `mcp-policy approvals --grants FILE` and returns it,
// with the link it printed.
func startApprovals(t *testing.T, grantsFile string) *approvalsPage {
	t.Helper()
	cmd := exec.Command(proxyBinary(t), "approvals", "--grants", grantsFile)
	stderr := &testkit.SyncBuffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	a := &approvalsPage{links: make(chan string, 10), enter: in}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			a.links <- sc.Text()
		}
		close(a.links)
	}()
	select {
	case u, ok := <-a.links:
		require.True(t, ok, "mcp-policy approvals printed no URL\n%s", stderr)
		require.True(t, strings.HasPrefix(u, "http://127."), "loopback by default: %s", u)
		require.False(t, strings.HasPrefix(u, "http://127.0.0.1:"), "an address of its own, not the one every local service shares: %s", u)
		require.Contains(t, u, "token=")
		a.link = u
		return a
	case <-time.After(30 * time.Second):
		t.Fatalf("mcp-policy approvals printed no URL in 30s\n%s", stderr)
		return nil
	}
}

// browser is a headless chromium, closed when the test ends.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox, // CI runs as root, where chromium's sandbox refuses to start
		chromedp.WindowSize(1100, 900),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	require.NoError(t, chromedp.Do(ctx), "start chromium")
	return ctx
}

// bounded runs a browser action with a bound, so a page that broke fails
// the test rather than hanging it.
func bounded[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(sctx, a)
	require.NoError(t, err, what)
	return v
}

// steps runs browser actions in order, bounded.
func steps(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	bounded(t, ctx, what, chromedp.Steps(actions...))
}

// screenshot saves the page as a PNG in the temporary directory.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png := bounded(t, ctx, "screenshot", chromedp.FullScreenshot(100))
	file := filepath.Join(os.TempDir(), name)
	require.NoError(t, os.WriteFile(file, png, 0o644))
	t.Logf("screenshot: %s", file)
}

// TestApprovalsPageInABrowser: a host that cannot elicit calls the
// official filesystem server through the proxy; the call is held, and a
// human approves it in a real browser on the page `mcp-policy approvals`
// serves: the question shows the tool and its arguments (the model's
// markup as text), "Always allow" lets the held call finish and leaves a
// grant the page lists, revoke takes it away, and the next call is held
// again — and "Deny once" refuses it.
func TestApprovalsPageInABrowser(t *testing.T) {
	t.Parallel()
	server, dir := officialFSServer(t)
	grantsFile := filepath.Join(t.TempDir(), "grants.json")
	url := startApprovals(t, grantsFile).link
	page := strings.SplitN(url, "?", 2)[0]                                         // the address once the token is a cookie
	ph := startProxied(t, []string{"--grants", grantsFile}, server, hostOptions{}) // no elicitation capability
	assert.Contains(t, ph.stderr.String(), "questions: to the host, or to `mcp-policy approvals` if it cannot elicit")
	ctx := browser(t)

	notes := filepath.Join(dir, "notes", "todo.md")
	mkdir(t, dir, "notes")
	held := make(chan *mcp.CallToolResult, 1)
	go func() {
		held <- ph.call("write_file", map[string]any{"path": notes, "content": "buy <b>milk</b>"})
	}()

	steps(t, ctx, "open the printed URL and see the question",
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(`article.question`)))
	assert.Equal(t, "(1) mcp-policy approvals", bounded(t, ctx, "title", chromedp.Title()))
	question := bounded(t, ctx, "the question", chromedp.Text(chromedp.CSS(`article.question`)))
	assert.Contains(t, question, "write_file")
	assert.Contains(t, question, "The agent wants to run write_file.", "the elicitation form's text")
	assert.Contains(t, question, notes, "the path it writes")
	assert.Contains(t, question, `"content": "buy <b>milk</b>"`, "the arguments, the model's markup shown as text")
	assert.Contains(t, question, "process ", "which proxy asked")
	buttons := bounded(t, ctx, "the answers", chromedp.Evaluate[[]string](`[...document.querySelectorAll("article.question button")].map(b => b.textContent)`))
	scope := "write_file under " + filepath.Dir(notes)
	assert.Equal(t, []string{"Allow once", "Always allow " + scope, "Allow for a day " + scope, "Deny once", "Always deny " + scope}, buttons,
		"the same five answers as the elicitation form")
	screenshot(t, ctx, "approvals.png")

	select {
	case r := <-held:
		t.Fatalf("the call was not held for the approver: %s", text(r))
	default:
	}
	steps(t, ctx, "click Always allow",
		chromedp.Click(chromedp.CSS(`article.question button[value="always-allow"]`)),
		chromedp.WaitVisible(chromedp.CSS(`p.notice, p.error`)))
	require.Empty(t, bounded(t, ctx, "no error", chromedp.Evaluate[string](`document.querySelector("p.error")?.textContent ?? ""`)))
	assert.Equal(t, "Answered write_file: Always allow "+scope+".", bounded(t, ctx, "notice", chromedp.Text(chromedp.CSS(`p.notice`))))
	select {
	case r := <-held:
		wantCallOK(t, r)
	case <-time.After(30 * time.Second):
		t.Fatalf("the held call did not finish after the answer\n%s", ph.stderr)
	}
	wantFile(t, notes, "buy <b>milk</b>")
	store, err := grants.Open(grantsFile)
	require.NoError(t, err)
	grant := rules.Rule{Tool: "write_file", Decision: rules.Allow, Under: filepath.Dir(notes)}
	assert.Equal(t, []rules.Rule{grant}, store.List(), "the grant the answer named, written by the proxy")

	steps(t, ctx, "see the grant",
		chromedp.Navigate(page+"grants"),
		chromedp.WaitVisible(chromedp.CSS(`#grants table`)))
	grantsText := bounded(t, ctx, "the grants", chromedp.Text(chromedp.CSS(`#grants table`)))
	assert.Contains(t, grantsText, "write_file")
	assert.Contains(t, grantsText, filepath.Dir(notes))
	screenshot(t, ctx, "approvals-grants.png")

	// While the grant is in force, the next write there is not asked.
	wantCallOK(t, ph.call("write_file", map[string]any{"path": filepath.Join(dir, "notes", "more.md"), "content": "x"}))

	steps(t, ctx, "revoke it",
		chromedp.Click(chromedp.CSS(`#grants button.revoke`)),
		chromedp.WaitVisible(chromedp.CSS(`p.notice`)))
	assert.Equal(t, "Revoked allow "+scope+".", bounded(t, ctx, "notice", chromedp.Text(chromedp.CSS(`p.notice`))))
	assert.Empty(t, store.List(), "revoked in the grants file")

	again := filepath.Join(dir, "notes", "again.md")
	go func() { held <- ph.call("write_file", map[string]any{"path": again, "content": "y"}) }()
	steps(t, ctx, "the next call is held again",
		chromedp.Navigate(page),
		chromedp.WaitVisible(chromedp.CSS(`article.question`)))
	assert.Contains(t, bounded(t, ctx, "the question", chromedp.Text(chromedp.CSS(`article.question`))), again)
	steps(t, ctx, "deny it once",
		chromedp.Click(chromedp.CSS(`article.question button[value="deny-once"]`)),
		chromedp.WaitVisible(chromedp.CSS(`p.notice`)))
	select {
	case r := <-held:
		wantCallError(t, r, "The user declined 'write_file' this time")
	case <-time.After(30 * time.Second):
		t.Fatalf("the denied call did not finish\n%s", ph.stderr)
	}
	wantAbsent(t, again)
	assert.Equal(t, "No question is waiting.", bounded(t, ctx, "nothing waits", chromedp.Text(chromedp.CSS(`#pending p.empty`))))
}

// TestApprovalsCredentialStaysWithThePage: in a real browser, the page's
// cookie does not reach another local service on 127.0.0.1 (a dev server
// the agent wrote, another user's program): the page has an address of
// its own, and cookies are kept apart by host. Its link opens the page
// once — the copy in the history opens nothing — and Enter in the
// approvals terminal gives a fresh one.
func TestApprovalsCredentialStaysWithThePage(t *testing.T) {
	t.Parallel()
	grantsFile := filepath.Join(t.TempDir(), "grants.json")
	a := startApprovals(t, grantsFile)
	ctx := browser(t)
	steps(t, ctx, "open the link",
		chromedp.Navigate(a.link),
		chromedp.WaitVisible(chromedp.CSS(`#pending`)))

	// A local service on 127.0.0.1, on the page's own port if it is free
	// there, that logs every cookie it gets; its page loads an image from
	// itself, as the red team's did.
	var mu sync.Mutex
	var cookies []string
	svc := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		cookies = append(cookies, r.Header.Get("Cookie"))
		mu.Unlock()
		if r.URL.Path == "/" {
			_, _ = io.WriteString(w, `<!doctype html><title>dev server</title><img id="i" src="/img.png"><p id="done">dev server</p>`)
		}
	})}
	port := a.link[strings.LastIndex(a.link, ":")+1 : strings.Index(a.link, "/?")]
	ln, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
	}
	go func() { _ = svc.Serve(ln) }()
	t.Cleanup(func() { _ = svc.Close() })
	steps(t, ctx, "visit the local service",
		chromedp.Navigate("http://"+ln.Addr().String()+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#done`)),
		chromedp.Poll[chromedp.Void](`document.getElementById("i").complete`))
	mu.Lock()
	got := append([]string(nil), cookies...)
	mu.Unlock()
	require.NotEmpty(t, got, "the local service was visited")
	for _, c := range got {
		assert.NotContains(t, c, "mcp-policy-approvals", "the page's cookie reached a local service on 127.0.0.1")
	}

	page := strings.SplitN(a.link, "?", 2)[0]
	steps(t, ctx, "the page still opens in its session",
		chromedp.Navigate(page),
		chromedp.WaitVisible(chromedp.CSS(`#pending`)))

	// The link as the history keeps it, opened in another profile.
	other := browser(t)
	steps(t, other, "open the used link", chromedp.Navigate(a.link))
	body := bounded(t, other, "the refusal", chromedp.Text(chromedp.CSS(`body`)))
	assert.Contains(t, body, "this link was opened already")
	steps(t, other, "a fresh link",
		chromedp.Navigate(a.newLink(t)),
		chromedp.WaitVisible(chromedp.CSS(`#pending`)))
}

// TestApprovalsPageAnswersThroughPostgres: with --grants postgres://, the
// page `mcp-policy approvals` serves (another process, on another machine
// as far as the database knows) shows the proxy's held question; Always
// allow lets the call finish, the proxy logs that the page answered, and
// the grant is in the database.
func TestApprovalsPageAnswersThroughPostgres(t *testing.T) {
	t.Parallel()
	server, dir := officialFSServer(t)
	db := pgtest.NewDatabase(t)
	url := startApprovals(t, db).link
	ph := startProxied(t, []string{"--grants", db}, server, hostOptions{}) // no elicitation capability
	ctx := browser(t)
	notes := filepath.Join(dir, "notes.md")
	held := make(chan *mcp.CallToolResult, 1)
	go func() { held <- ph.call("write_file", map[string]any{"path": notes, "content": "hi"}) }()

	steps(t, ctx, "open the printed URL and see the question",
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(`article.question`)))
	assert.Contains(t, bounded(t, ctx, "the question", chromedp.Text(chromedp.CSS(`article.question`))), notes)
	steps(t, ctx, "click Always allow",
		chromedp.Click(chromedp.CSS(`article.question button[value="always-allow"]`)),
		chromedp.WaitVisible(chromedp.CSS(`p.notice, p.error`)))
	require.Empty(t, bounded(t, ctx, "no error", chromedp.Evaluate[string](`document.querySelector("p.error")?.textContent ?? ""`)))
	select {
	case r := <-held:
		wantCallOK(t, r)
	case <-time.After(30 * time.Second):
		t.Fatalf("the held call did not finish after the answer\n%s", ph.stderr)
	}
	wantFile(t, notes, "hi")
	assert.Contains(t, ph.stderr.String(), "answered always-allow by the approvals page")
	out, err := exec.Command(proxyBinary(t), "grants", "list", "--grants", db).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "write_file", "the grant, in the database")
}
