package approvals

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/visible"
)

//go:embed page.html
var pageHTML string

//go:embed page.css
var pageCSS []byte

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"ago":   func(t time.Time) string { return time.Since(t).Round(time.Second).String() },
	"left":  func(t time.Time) string { return time.Until(t).Round(time.Second).String() },
	"kind":  optionKind,
	"whole": visible.Whole,
	"lines": visible.Lines,
}).Parse(pageHTML))

// How long the page's credentials last: a link until it is opened (or
// linkLife passes), the session it is exchanged for sessionLife.
const (
	linkLife    = time.Hour
	sessionLife = 12 * time.Hour
)

// Page is the approvals web page: the pending questions with their
// answers (/), and the grants in force with revoke (/grants).
//
// Who may use it: the holder of a link NewLink made. A link's token is
// single-use: the first visit exchanges it for a session, a different
// random value in a cookie that lasts sessionLife, so the link left in
// the browser's history opens nothing. The server listens on an address
// of its own in 127.0.0.0/8 (see Listen) and answers only requests whose
// Host is exactly that address: a browser keeps cookies apart by host,
// not by port, so a service on another port of 127.0.0.1 never receives
// the cookie, and a DNS-rebinding page, which sends its own name, is
// refused. Every form carries the session's CSRF token, and a form posted
// from another origin is refused.
type Page struct {
	queue  Queue
	grants *grants.Store
	host   string        // the one Host served; "" when listening on every address
	cookie string        // the cookie's name: one per server, so two on one machine do not evict each other
	life   time.Duration // a session's: sessionLife

	mu       sync.Mutex
	links    map[string]time.Time // unused link tokens, and when they lapse
	sessions map[string]*session  // by cookie value
}

// session is one browser's access, got by opening a link.
type session struct {
	expires time.Time
	csrf    string  // in every form
	notice  *notice // what the last form did, shown once
}

// notice is what a form did, said on the next page shown, then dropped.
// It is made here, from the question and the grant acted on, never read
// from the address: no link can make the page say something.
type notice struct {
	failed bool
	text   string
}

// NewPage returns the page for queue and store (nil when the grants could
// not be read: the questions are answered all the same), served at host
// ("127.1.2.3:4567", the listener's address; "" accepts any IP address
// or localhost, for a server listening on every address).
func NewPage(queue Queue, store *grants.Store, host string) *Page {
	return &Page{queue: queue, grants: store, host: host, cookie: "mcp-policy-approvals-" + randomToken()[:8], life: sessionLife,
		links: map[string]time.Time{}, sessions: map[string]*session{}}
}

func randomToken() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// NewLink is a fresh link to the page on a server listening at addr: it
// opens the page once, within linkLife.
func (p *Page) NewLink(addr string) string {
	token := randomToken()
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	for t, lapse := range p.links {
		if now.After(lapse) {
			delete(p.links, t)
		}
	}
	p.links[token] = now.Add(linkLife)
	return "http://" + addr + "/?token=" + token
}

// ServeHTTP serves the page, its style sheet and its forms.
func (p *Page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	// Not no-referrer: under it a browser sends "Origin: null" with the
	// page's own forms, and the origin check could not tell them from
	// another site's. No address of the page's holds a live token.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	if !p.hostServed(r.Host) {
		refuse(w, "mcp-policy approvals answers only at the address it printed (Host "+visible.Whole(r.Host)+" refused)", http.StatusMisdirectedRequest)
		return
	}
	if r.URL.Path == "/page.css" {
		h.Set("Content-Type", "text/css; charset=utf-8")
		_, _ = w.Write(pageCSS)
		return
	}
	if t := r.URL.Query().Get("token"); t != "" {
		p.open(w, r, t)
		return
	}
	s := p.session(r)
	if s == nil {
		refuse(w, "no session, or it expired: press Enter in the terminal running mcp-policy approvals for a new link, and open it", http.StatusForbidden)
		return
	}
	switch {
	case (r.URL.Path == "/" || r.URL.Path == "/grants") && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		p.show(w, s, r.URL.Path == "/grants")
	case r.URL.Path == "/answer" && r.Method == http.MethodPost:
		p.post(w, r, s, "/", p.answer)
	case r.URL.Path == "/revoke" && r.Method == http.MethodPost:
		p.post(w, r, s, "/grants", p.revoke)
	default:
		http.NotFound(w, r)
	}
}

// open exchanges a link's token, once, for a session: a cookie of another
// value, bound to this host (no Domain) and to the whole page.
func (p *Page) open(w http.ResponseWriter, r *http.Request, token string) {
	p.mu.Lock()
	lapse, ok := p.links[token]
	delete(p.links, token)
	var value string
	if ok && time.Now().Before(lapse) {
		value = randomToken()
		p.sessions[value] = &session{expires: time.Now().Add(p.life), csrf: randomToken()}
	}
	p.mu.Unlock()
	if value == "" {
		refuse(w, "this link was opened already, or is not this server's: press Enter in the terminal running mcp-policy approvals for a new link", http.StatusForbidden)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: p.cookie, Value: value, Path: "/", MaxAge: int(p.life / time.Second),
		HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// session is the request's session, nil when it has none or it expired.
func (p *Page) session(r *http.Request) *session {
	c, err := r.Cookie(p.cookie)
	if err != nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.sessions[c.Value]
	if s != nil && time.Now().After(s.expires) {
		delete(p.sessions, c.Value)
		return nil
	}
	return s
}

func same(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// hostServed says a request's Host is the page's own address exactly; on
// a server listening on every address, any IP address or localhost (a
// page of another site that rebinds its name sends its own name).
func (p *Page) hostServed(host string) bool {
	if p.host != "" {
		return host == p.host
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
	return name == "localhost" || net.ParseIP(name) != nil
}

// post checks a form's origin and CSRF token, runs do, keeps what was
// done or what went wrong as the session's notice, and goes back to the
// page at back.
func (p *Page) post(w http.ResponseWriter, r *http.Request, s *session, back string, do func(*http.Request) (string, error)) {
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		refuse(w, "a form from another site ("+visible.Whole(o)+") is refused", http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		refuse(w, "the form: "+err.Error(), http.StatusBadRequest)
		return
	}
	if !same(r.PostForm.Get("csrf"), s.csrf) {
		refuse(w, "the form's token is not this page's: reload the page and answer again", http.StatusForbidden)
		return
	}
	said, err := do(r)
	n := &notice{text: said}
	if err != nil {
		n = &notice{failed: true, text: err.Error()}
	}
	p.mu.Lock()
	s.notice = n
	p.mu.Unlock()
	http.Redirect(w, r, back, http.StatusSeeOther)
}

func (p *Page) answer(r *http.Request) (string, error) {
	id, action := r.PostForm.Get("id"), r.PostForm.Get("action")
	qu, err := Deliver(p.queue, id, r.PostForm.Get("digest"), action, "the approvals page")
	later := errors.Is(err, ErrOnRetry)
	if err != nil && !later {
		return "", err
	}
	for _, o := range qu.Options {
		if o.Action == action {
			if later {
				return "Answered " + visible.Whole(qu.Tool) + ": " + o.Label() + ". " + AppliesOnRetry, nil
			}
			return "Answered " + visible.Whole(qu.Tool) + ": " + o.Label() + ".", nil
		}
	}
	return "", fmt.Errorf("question %s does not offer %s", id, visible.Whole(action)) // Answer refused it already
}

func (p *Page) revoke(r *http.Request) (string, error) {
	var g rules.Rule
	d := json.NewDecoder(strings.NewReader(r.PostForm.Get("grant")))
	d.DisallowUnknownFields()
	if err := d.Decode(&g); err != nil {
		return "", fmt.Errorf("the grant to revoke: %w", err)
	}
	if p.grants == nil {
		return "", errors.New("the grants could not be read when this page started; restart it once they are fixed")
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
	Expires                           string // "never", or when, by this machine's clock
	JSON                              string // what the revoke form sends back
}

func (p *Page) show(w http.ResponseWriter, s *session, grantsView bool) {
	p.mu.Lock()
	n := s.notice
	s.notice = nil // said once: a reload does not say it again
	csrf := s.csrf
	p.mu.Unlock()
	data := struct {
		GrantsView      bool
		Questions       []Question
		Grants          []grantRow
		GrantsFile      string
		Said, Error     string
		CSRF            string
		QueueErr, GrErr string
	}{GrantsView: grantsView, GrantsFile: visible.Whole(p.queue.Grants()), CSRF: csrf}
	if n != nil && n.failed {
		data.Error = visible.Lines(n.text)
	} else if n != nil {
		data.Said = visible.Lines(n.text)
	}
	qs, err := p.queue.Pending()
	if err != nil {
		data.QueueErr = visible.Lines(err.Error())
	}
	data.Questions = qs
	switch {
	case p.grants == nil:
		data.GrErr = "The grants could not be read when this page started (its stderr says why); restart it once they are fixed."
	case p.grants.Err() != nil:
		data.GrErr = visible.Lines(p.grants.Err().Error())
	}
	if p.grants != nil {
		now := time.Now()
		for _, g := range p.grants.Records() {
			if !g.ExpiredAt(now) {
				data.Grants = append(data.Grants, rowOf(g.Rule, g.Expires))
			}
		}
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, data); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

func rowOf(g rules.Rule, expires time.Time) grantRow {
	full, _ := json.Marshal(g)
	// Escaped as a question escapes them: a grant made from a server's
	// tool name reads as the question read.
	row := grantRow{Decision: visible.Whole(string(g.Decision)), Tool: visible.Whole(g.Tool), JSON: visible.JSON(string(full)), Expires: "never"}
	if !expires.IsZero() {
		row.Expires = expires.Local().Format("2006-01-02 15:04")
	}
	if g.Under != "" {
		row.Under = visible.Whole(g.Under)
	}
	if g.Host != "" {
		row.Host = visible.Whole(g.Host)
	}
	// The rest of the grant, whatever fields rules.Rule grows: none may
	// be hidden from the person deciding whether to revoke it.
	var rest map[string]any
	if json.Unmarshal(full, &rest) == nil {
		for _, k := range []string{"tool", "decision", "under", "host"} {
			delete(rest, k)
		}
		if len(rest) > 0 {
			b, _ := json.Marshal(rest)
			row.Rest = visible.JSON(string(b))
		}
	}
	return row
}

func describeGrant(g rules.Rule) string {
	s := visible.Whole(string(g.Decision)) + " " + visible.Whole(g.Tool)
	if g.Under != "" {
		s += " under " + visible.Whole(g.Under)
	}
	if g.Host != "" {
		s += " on " + visible.Whole(g.Host)
	}
	return s
}

// optionKind is the class of an answer's button: allows and denies look
// different, and "always" ones stand out from "once".
func optionKind(action string) string {
	switch action {
	case "allow-once":
		return "allow"
	case "always-allow", "allow-for-a-day":
		return "allow always"
	case "always-deny":
		return "deny always"
	default:
		return "deny"
	}
}

// refuseTemplate is a refusal as a page, styled as the page is (its
// stylesheet needs no session): a browser opening a used link or a
// stale tab sees why, and what to do, not a line of plain text.
var refuseTemplate = template.Must(template.New("refuse").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mcp-policy approvals</title>
<link rel="stylesheet" href="/page.css">
</head>
<body>
<header><h1>mcp-policy approvals</h1></header>
<main><p class="error" role="alert">{{.}}</p></main>
</body>
</html>
`))

// refuse answers a request the page will not serve with why, as a page.
func refuse(w http.ResponseWriter, why string, status int) {
	var b bytes.Buffer
	if err := refuseTemplate.Execute(&b, why); err != nil {
		http.Error(w, why, status)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}
