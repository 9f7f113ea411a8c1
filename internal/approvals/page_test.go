package approvals_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/approvals"
	"github.com/mcp-policy/mcp-policy/policy/rules"
)

// served is the page on a real HTTP server, and a browser-like client
// that keeps cookies and does not follow redirects by itself.
type served struct {
	srv    *httptest.Server
	page   *approvals.Page
	queue  *approvals.Queue
	store  *grants.Store
	client *http.Client
}

func serve(t *testing.T) *served {
	t.Helper()
	file := filepath.Join(t.TempDir(), "grants.json")
	store, err := grants.Open(file)
	require.NoError(t, err)
	queue, err := approvals.Open(file)
	require.NoError(t, err)
	s := &served{page: approvals.NewPage(queue, store), queue: queue, store: store}
	s.srv = httptest.NewServer(s.page)
	t.Cleanup(s.srv.Close)
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	s.client = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return s
}

func (s *served) addr() string { return strings.TrimPrefix(s.srv.URL, "http://") }

func (s *served) do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := s.client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

func (s *served) get(t *testing.T, path string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.srv.URL+path, nil)
	require.NoError(t, err)
	return s.do(t, req)
}

func (s *served) post(t *testing.T, path string, form url.Values, origin string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.srv.URL+path, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	return s.do(t, req)
}

// login opens the printed URL: the token becomes a cookie, and the page
// sends the browser on to an address without it.
func (s *served) login(t *testing.T) {
	t.Helper()
	resp, _ := s.do(t, mustRequest(t, s.page.URL(s.addr())))
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Equal(t, "/", resp.Header.Get("Location"), "the token leaves the address bar")
}

func mustRequest(t *testing.T, u string) *http.Request {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	require.NoError(t, err)
	return req
}

var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

func TestThePageNeedsItsToken(t *testing.T) {
	s := serve(t)
	resp, body := s.get(t, "/")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Contains(t, body, "open the URL mcp-policy approvals printed")
	resp, _ = s.get(t, "/?token=0123")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "a wrong token")
	resp, _ = s.post(t, "/answer", url.Values{}, "")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "no form without the cookie")

	s.login(t)
	resp, body = s.get(t, "/")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, "No question is waiting.")
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'none'")
	assert.Equal(t, "DENY", resp.Header.Get("X-Frame-Options"))
}

// A page of another site whose name was rebound to 127.0.0.1 reaches the
// server with its own name in Host: refused, token or not.
func TestAnotherSitesNameIsRefused(t *testing.T) {
	s := serve(t)
	s.login(t)
	req := mustRequest(t, s.srv.URL+"/")
	req.Host = "attacker.example:" + s.srv.URL[strings.LastIndex(s.srv.URL, ":")+1:]
	resp, _ := s.do(t, req)
	assert.Equal(t, http.StatusMisdirectedRequest, resp.StatusCode)
	req = mustRequest(t, s.srv.URL+"/")
	req.Host = "localhost"
	resp, _ = s.do(t, req)
	assert.NotEqual(t, http.StatusMisdirectedRequest, resp.StatusCode, "localhost is this machine")
}

func TestAnsweringNeedsTheFormsTokenAndThisOrigin(t *testing.T) {
	s := serve(t)
	s.login(t)
	qu := question(t, "write_file", `{"path":"/srv/a.md"}`)
	require.NoError(t, s.queue.Put(qu))
	_, body := s.get(t, "/")
	m := csrfField.FindStringSubmatch(body)
	require.NotNil(t, m, "the form carries a CSRF token\n%s", body)
	form := url.Values{"id": {qu.ID}, "digest": {qu.Digest}, "action": {"allow-once"}}

	resp, _ := s.post(t, "/answer", form, "")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "no CSRF token")
	form.Set("csrf", m[1])
	resp, body = s.post(t, "/answer", form, "http://attacker.example")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "another origin")
	assert.Contains(t, body, "another site")
	pending, err := s.queue.Pending()
	require.NoError(t, err)
	require.Len(t, pending, 1, "not answered")

	resp, _ = s.post(t, "/answer", form, "http://"+s.addr())
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	_, body = s.get(t, resp.Header.Get("Location"))
	assert.Contains(t, body, "Answered write_file: Allow once.")
	pending, err = s.queue.Pending()
	require.NoError(t, err)
	assert.Empty(t, pending, "answered")

	resp, _ = s.post(t, "/answer", form, "")
	_, body = s.get(t, resp.Header.Get("Location"))
	assert.Contains(t, body, "Not done: question "+qu.ID+" was answered already")
}

// What the model wrote reaches the page as text, never as markup.
func TestTheModelsWordsAreEscaped(t *testing.T) {
	s := serve(t)
	s.login(t)
	qu := question(t, `<img src=x onerror=alert(1)>`, `{"content":"</pre><script>alert(1)</script>"}`)
	qu.Message = "The agent wants to run <b>x</b>.\nIts arguments:\n  content: </pre><script>alert(1)</script>"
	require.NoError(t, s.queue.Put(qu))
	_, body := s.get(t, "/")
	assert.NotContains(t, body, "<script>")
	assert.NotContains(t, body, "<img")
	assert.NotContains(t, body, "<b>x</b>")
	assert.Contains(t, body, "&lt;script&gt;alert(1)&lt;/script&gt;")
}

func TestRevokeRemovesTheGrant(t *testing.T) {
	s := serve(t)
	s.login(t)
	keep := rules.Rule{Tool: "read_file", Decision: rules.Allow, Under: "/srv"}
	gone := rules.Rule{Tool: "write_file", Decision: rules.Allow, Under: "/srv/docs"}
	require.NoError(t, s.store.Add(keep, gone))
	_, body := s.get(t, "/")
	assert.Contains(t, body, "Grants in force (2)")
	assert.NotContains(t, body, `{&#34;tool&#34;:&#34;&#34;}`, "no empty field listed as more")
	csrf := csrfField.FindStringSubmatch(body)[1]
	resp, _ := s.post(t, "/revoke", url.Values{"csrf": {csrf}, "grant": {`{"tool":"write_file","decision":"allow","under":"/srv/docs"}`}}, "")
	_, body = s.get(t, resp.Header.Get("Location"))
	assert.Contains(t, body, "Revoked allow write_file under /srv/docs.")
	assert.Contains(t, body, "Grants in force (1)")
	assert.Equal(t, []rules.Rule{keep}, s.store.List())

	resp, _ = s.post(t, "/revoke", url.Values{"csrf": {csrf}, "grant": {`{"tool":"x","decision":"allow","sneaky":1}`}}, "")
	_, body = s.get(t, resp.Header.Get("Location"))
	assert.Contains(t, body, "Not done: the grant to revoke")
}
