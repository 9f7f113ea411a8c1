package approvals

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/policy/rules"
)

//go:embed page.html
var pageHTML string

//go:embed page.css
var pageCSS []byte

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"ago":  func(t time.Time) string { return time.Since(t).Round(time.Second).String() },
	"left": func(t time.Time) string { return time.Until(t).Round(time.Second).String() },
	"kind": optionKind,
}).Parse(pageHTML))

// Page is the approvals web page: the pending questions with their
// answers, and the grants in force with revoke. It is reached by a URL
// holding a random token, which becomes a cookie on the first visit; every
// form carries a CSRF token, a request is refused unless its Host is an
// IP address or localhost (a DNS-rebinding page names its own host), and
// a form posted from another origin is refused.
type Page struct {
	queue  *Queue
	grants *grants.Store
	token  string // in the printed URL, then the cookie
	csrf   string // in every form
	cookie string // the cookie's name: one per server, so two on one machine do not evict each other
}

// NewPage returns the page for queue and store, with a fresh token.
func NewPage(queue *Queue, store *grants.Store) *Page {
	p := &Page{queue: queue, grants: store, token: randomToken(), csrf: randomToken()}
	sum := sha256.Sum256([]byte(p.token))
	p.cookie = "mcp-policy-approvals-" + hex.EncodeToString(sum[:4])
	return p
}

func randomToken() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// URL is the page's address on a server listening at addr: the one to
// open, which carries the token.
func (p *Page) URL(addr string) string {
	return "http://" + addr + "/?token=" + p.token
}

// ServeHTTP serves the page, its style sheet and its two forms.
func (p *Page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	// Not no-referrer: under it a browser sends "Origin: null" with the
	// page's own forms, and the origin check could not tell them from
	// another site's. The token never stays in an address to leak.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	if !directHost(r.Host) {
		http.Error(w, "mcp-policy approvals answers only to an IP address or localhost in the URL (Host "+r.Host+" refused)", http.StatusMisdirectedRequest)
		return
	}
	if r.URL.Path == "/page.css" {
		h.Set("Content-Type", "text/css; charset=utf-8")
		_, _ = w.Write(pageCSS)
		return
	}
	if t := r.URL.Query().Get("token"); t != "" {
		if !same(t, p.token) {
			http.Error(w, "this link's token is not this server's: open the URL mcp-policy approvals printed", http.StatusForbidden)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: p.cookie, Value: p.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, "/", http.StatusSeeOther) // the token leaves the address bar and the history
		return
	}
	if c, err := r.Cookie(p.cookie); err != nil || !same(c.Value, p.token) {
		http.Error(w, "open the URL mcp-policy approvals printed (it holds the page's token)", http.StatusForbidden)
		return
	}
	switch {
	case r.URL.Path == "/" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		p.show(w, r.URL.Query().Get("said"), r.URL.Query().Get("error"))
	case r.URL.Path == "/answer" && r.Method == http.MethodPost:
		p.post(w, r, p.answer)
	case r.URL.Path == "/revoke" && r.Method == http.MethodPost:
		p.post(w, r, p.revoke)
	default:
		http.NotFound(w, r)
	}
}

func same(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// directHost says the Host a request names is an IP address or localhost:
// a page of another site that rebinds its name to this address sends its
// own name.
func directHost(host string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
	return name == "localhost" || net.ParseIP(name) != nil
}

// post checks a form's origin and CSRF token, runs do, and goes back to
// the page with what was done or what went wrong.
func (p *Page) post(w http.ResponseWriter, r *http.Request, do func(*http.Request) (string, error)) {
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		http.Error(w, "a form from another site ("+o+") is refused", http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "the form: "+err.Error(), http.StatusBadRequest)
		return
	}
	if !same(r.PostForm.Get("csrf"), p.csrf) {
		http.Error(w, "the form's token is not this page's: reload the page and answer again", http.StatusForbidden)
		return
	}
	said, err := do(r)
	v := url.Values{}
	if err != nil {
		v.Set("error", err.Error())
	} else {
		v.Set("said", said)
	}
	http.Redirect(w, r, "/?"+v.Encode(), http.StatusSeeOther)
}

func (p *Page) answer(r *http.Request) (string, error) {
	id, action := r.PostForm.Get("id"), r.PostForm.Get("action")
	qu, err := p.queue.Get(id)
	if err != nil {
		return "", err
	}
	if err := p.queue.Answer(id, r.PostForm.Get("digest"), action, "the approvals page"); err != nil {
		return "", err
	}
	title := action
	for _, o := range qu.Options {
		if o.Action == action {
			title = o.Title
		}
	}
	return "Answered " + qu.Tool + ": " + title + ".", nil
}

func (p *Page) revoke(r *http.Request) (string, error) {
	var g rules.Rule
	d := json.NewDecoder(strings.NewReader(r.PostForm.Get("grant")))
	d.DisallowUnknownFields()
	if err := d.Decode(&g); err != nil {
		return "", fmt.Errorf("the grant to revoke: %w", err)
	}
	revoked, err := p.grants.Revoke(r.Context(), grants.IDOf(g))
	if err != nil {
		return "", err
	}
	if len(revoked) == 0 {
		return "That grant was not in force (revoked already?).", nil
	}
	return "Revoked " + describeGrant(g) + ".", nil
}

// grantRow is a grant as the page lists it.
type grantRow struct {
	Decision, Tool, Under, Host, Rest string
	JSON                              string // what the revoke form sends back
}

func (p *Page) show(w http.ResponseWriter, said, failed string) {
	data := struct {
		Questions       []Question
		Grants          []grantRow
		GrantsFile      string
		Said, Error     string
		CSRF            string
		QueueErr, GrErr string
	}{GrantsFile: p.grants.File(), Said: said, Error: failed, CSRF: p.csrf}
	qs, err := p.queue.Pending()
	if err != nil {
		data.QueueErr = err.Error()
	}
	data.Questions = qs
	if err := p.grants.Err(); err != nil {
		data.GrErr = err.Error()
	}
	for _, g := range p.grants.List() {
		data.Grants = append(data.Grants, rowOf(g))
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, data); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

func rowOf(g rules.Rule) grantRow {
	full, _ := json.Marshal(g)
	row := grantRow{Decision: string(g.Decision), Tool: g.Tool, Under: g.Under, Host: g.Host, JSON: string(full)}
	// The rest of the grant, whatever fields rules.Rule grows: none may
	// be hidden from the person deciding whether to revoke it.
	var rest map[string]any
	if json.Unmarshal(full, &rest) == nil {
		for _, k := range []string{"tool", "decision", "under", "host"} {
			delete(rest, k)
		}
		if len(rest) > 0 {
			b, _ := json.Marshal(rest)
			row.Rest = string(b)
		}
	}
	return row
}

func describeGrant(g rules.Rule) string {
	s := string(g.Decision) + " " + g.Tool
	if g.Under != "" {
		s += " under " + g.Under
	}
	if g.Host != "" {
		s += " on " + g.Host
	}
	return s
}

// optionKind is the class of an answer's button: allows and denies look
// different, and "always" ones stand out from "once".
func optionKind(action string) string {
	switch action {
	case "allow-once":
		return "allow"
	case "always-allow":
		return "allow always"
	case "always-deny":
		return "deny always"
	default:
		return "deny"
	}
}
