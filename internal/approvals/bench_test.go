package approvals_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/approvals"
	"github.com/mcp-policy/mcp-policy/internal/rules"
)

// BenchmarkPageRender: the page with 10 pending questions and 200 grants,
// served over HTTP as a browser's reload fetches it.
func BenchmarkPageRender(b *testing.B) {
	file := filepath.Join(b.TempDir(), "grants.json")
	store, _ := grants.Open(file)
	q, _ := approvals.Open(file)
	var gs []rules.Rule
	for i := range 200 {
		gs = append(gs, rules.Rule{Tool: "write_file", Decision: rules.Allow, Under: fmt.Sprintf("/srv/p%d", i)})
	}
	if err := store.Add(gs...); err != nil {
		b.Fatal(err)
	}
	for i := range 10 {
		d, _ := approvals.Digest("write_file", fmt.Sprintf(`{"path":"/srv/%d"}`, i))
		if err := q.Put(approvals.Question{ID: approvals.NewID(), Digest: d, Tool: "write_file", Message: strings.Repeat("line\n", 10),
			Options: []approvals.Option{{Action: "allow-once", Title: "Allow once"}}, Arguments: "{}", Asked: time.Now(), Deadline: time.Now().Add(time.Hour)}); err != nil {
			b.Fatal(err)
		}
	}
	srv := httptest.NewUnstartedServer(nil)
	page := approvals.NewPage(q, store, srv.Listener.Addr().String())
	srv.Config.Handler = page
	srv.Start()
	defer srv.Close()
	login, _ := http.NewRequest(http.MethodGet, page.NewLink(strings.TrimPrefix(srv.URL, "http://")), nil)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(login)
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	cookie := resp.Cookies()[0]
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/", nil)
		req.AddCookie(cookie)
		resp, err := client.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatal(err, resp.StatusCode)
		}
		resp.Body.Close()
	}
}
