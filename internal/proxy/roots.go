package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// The host's root and the policy's.
//
// A relative path means what the server makes of it, so the policy must
// never resolve one against another root than the server does. The
// policy's root therefore follows the roots the server was given — the
// proxy sees the server's own roots/list requests and relays the host's
// answers — never a roots/list of the proxy's own, which could be answered
// otherwise, or at another moment.
//
//   - A server that never asked for roots uses its own directories: the
//     policy has none of the host's, and a relative path is asked about.
//   - The host's answer names a root only when it names exactly one, a
//     file:// URI every reader takes for the same local directory, which
//     exists (rootBase); the policy takes its real path. Any other answer
//     leaves the policy with no root (the reference server would use
//     several roots, or reject the list and keep what it had).
//   - While a roots/list of the server's is in flight, from the moment the
//     host's notifications/roots/list_changed is read (before the next
//     message of the host's is), and after an answer that changes the root
//     until the server has been given it and rootsSettle has passed (a
//     server applies its roots asynchronously), the policy has no root. A
//     call waits for the root to settle, at most rootsWait from the event
//     that unsettled it for what the host or the server owes (an answer, a
//     roots/list), and for as long as the proxy's own settle takes (the
//     rootsSettle timer and building the policies for the new root, which
//     can take seconds on a loaded machine: a bound on it would decide the
//     call with no root, and ask, for the proxy's own slowness). After
//     that it is decided with no root.
//   - A call decided with a root is sent to the server only if that root is
//     still settled when it is sent (sendDecided): else it is refused, to be
//     called again. The call is counted in rs.sending, then checks the
//     roots as last published (rs.now), then is written; a host's roots
//     answer is relayed only once no call so counted is still being
//     written, so the server has every call decided with a root before any
//     answer that could change it. No lock is taken by a call whose roots
//     are settled, and rs.mu is never held across the writing itself.
//
// With --root none of this applies: the policy's roots are the flags'.

const (
	// rootsWait bounds how long a call waits for the roots to settle.
	rootsWait = 5 * time.Second
	// rootsSettle is how long a server is given to apply a new root after
	// the answer naming it was relayed.
	rootsSettle = 500 * time.Millisecond
)

// rootsState is what the proxy knows of the server's roots.
type rootsState struct {
	mu       sync.Mutex
	asked    bool              // the server has asked for roots
	inFlight map[string]uint64 // the server's roots/list at the host: the changes seen when it was relayed
	changes  uint64            // list_changed notices from the host
	stale    bool              // the host's roots changed since the server was last given them
	given    string            // the root of the answer last relayed, "" for none
	applied  string            // the root the server has had time to apply
	settling uint64            // the settle under way (its generation), 0 for none
	gen      uint64
	dir      string    // the policy's host root now, "" for none
	until    time.Time // calls wait for the roots to settle until then
	wake     chan struct{}
	sets     map[string]*policySet // by host root; "" is the set with no host root

	// now is settled() and dir as notify last published them, for the
	// calls to read without rs.mu. Every change that could settle the
	// roots or change dir ends in notify, and every change that could
	// unsettle them starts with unsettle, which ends in notify.
	now atomic.Pointer[rootsNow]
	// sending counts the calls between sendDecided's check and the end of
	// their writing to the server; draining, the roots answers waiting on
	// rs.sent (under rs.mu) for it to fall to 0, which the last of those
	// calls then signals.
	sending  atomic.Int64
	draining atomic.Int32
	sent     *sync.Cond
}

// rootsNow is the state a call reads of the roots.
type rootsNow struct {
	settled bool
	dir     string
}

func (rs *rootsState) init(base *policySet) {
	rs.inFlight = map[string]uint64{}
	rs.wake = make(chan struct{})
	rs.sent = sync.NewCond(&rs.mu)
	rs.sets = map[string]*policySet{"": base}
	rs.now.Store(&rootsNow{settled: true})
}

// settled says the policy's root is the server's: nothing in flight,
// changed, or being applied.
func (rs *rootsState) settled() bool {
	return len(rs.inFlight) == 0 && !rs.stale && rs.settling == 0
}

// notify publishes the roots' state to the calls (rs.now), and wakes
// those waiting for it.
func (rs *rootsState) notify() {
	rs.now.Store(&rootsNow{settled: rs.settled(), dir: rs.dir})
	close(rs.wake)
	rs.wake = make(chan struct{})
}

// unsettle takes the policy's root away until the server's roots are known
// again.
func (p *Proxy) unsettle() {
	rs := &p.roots
	rs.gen++
	rs.settling = 0
	rs.until = time.Now().Add(rootsWait)
	p.setHostRoot("")
}

// setHostRoot makes dir the policy's host root; its policies must have
// been built (policiesFor).
func (p *Proxy) setHostRoot(dir string) {
	rs := &p.roots
	set := rs.sets[dir]
	if set == nil {
		dir, set = "", rs.sets[""]
	}
	if rs.dir != dir {
		rs.dir = dir
		p.pols.Store(set)
	}
	rs.notify()
}

// policiesFor builds the policies with dir as the host's root, once.
func (p *Proxy) policiesFor(dir string) {
	rs := &p.roots
	rs.mu.Lock()
	_, ok := rs.sets[dir]
	rs.mu.Unlock()
	if ok {
		return
	}
	set, err := p.buildPolicies(map[string]string{"*": dir})
	if err != nil {
		p.warnf("the host's root %s: %v; relative paths are asked about", dir, err)
		return
	}
	set.hostRoot = dir
	rs.mu.Lock()
	if _, ok := rs.sets[dir]; !ok {
		rs.sets[dir] = set
	}
	rs.mu.Unlock()
}

// hostRootsChanged is the host's notifications/roots/list_changed, read
// before the host's next message and sent on to the server: from now until
// the server has been given the new roots, the policy has none.
func (p *Proxy) hostRootsChanged(msg []byte) {
	rs := &p.roots
	rs.mu.Lock()
	if rs.asked {
		rs.changes++
		rs.stale = true
		p.unsettle()
	}
	rs.mu.Unlock()
	p.toUpstream(msg)
}

// serverAsksRoots is a roots/list of the server's, relayed to the host once
// the policy's root is taken away (before the host can answer it).
func (p *Proxy) serverAsksRoots(key string, msg []byte) {
	rs := &p.roots
	rs.mu.Lock()
	rs.asked = true
	rs.inFlight[key] = rs.changes
	p.unsettle()
	rs.mu.Unlock()
	p.toHost(msg)
}

// serverDroppedRoots is a roots/list of the server's that will not be
// answered: the server cancelled it, so it keeps the roots it had.
func (p *Proxy) serverDroppedRoots(key string) {
	rs := &p.roots
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if _, ok := rs.inFlight[key]; !ok {
		return
	}
	delete(rs.inFlight, key)
	if rs.settled() {
		p.setHostRoot(rs.applied)
	}
}

// hostAnswersRoots relays the host's answer to a roots/list of the
// server's, and makes what it names the policy's root once the server has
// been given it and has had rootsSettle to apply it.
func (p *Proxy) hostAnswersRoots(key string, msg []byte, result []byte) {
	dir, why := "", "the host answered with an error"
	if result != nil {
		dir, why = rootBase(result)
	}
	rs := &p.roots
	rs.mu.Lock()
	seen, ok := rs.inFlight[key]
	if ok {
		// The request is in flight, so the root is not settled and no
		// call passes sendDecided's check: wait for those that passed
		// it before, which the server must have before this answer.
		rs.draining.Add(1)
		for rs.sending.Load() > 0 {
			rs.sent.Wait()
		}
		rs.draining.Add(-1)
	}
	delete(rs.inFlight, key)
	settle := uint64(0) // the settle to start once the server has the answer
	give := ""
	if ok {
		if seen == rs.changes {
			rs.stale = false // asked after the last change: the answer has it
		}
		rs.given = dir
		switch {
		case len(rs.inFlight) > 0 || rs.stale:
			// More to come; no root meanwhile.
		case rs.given == "" || rs.given == rs.applied:
			// No root is safe at once; the root the server has is its still.
			rs.applied = rs.given
			p.setHostRoot(rs.given)
		default:
			rs.gen++
			settle, give = rs.gen, rs.given
			rs.settling = settle
			rs.applied = ""
		}
	}
	rs.mu.Unlock()
	if ok && why != "" {
		p.warnf("the host's roots: %s; relative paths are asked about", why)
	}
	p.toUpstream(msg)
	if settle == 0 {
		return
	}
	time.AfterFunc(rootsSettle, func() {
		p.policiesFor(give)
		rs.mu.Lock()
		defer rs.mu.Unlock()
		if rs.settling != settle {
			return // something happened meanwhile
		}
		rs.settling = 0
		if rs.sets[give] != nil {
			rs.applied = give
		}
		p.setHostRoot(rs.applied)
	})
}

// awaitRoots holds a call while the policy's root is not the server's: at
// most until rootsWait after what unsettled it, or until the settle under
// way ends (it always does: its timer fires, then the build ends).
func (p *Proxy) awaitRoots(ctx context.Context) {
	rs := &p.roots
	if p.opt.rootsFixed || rs.now.Load().settled {
		return
	}
	for {
		rs.mu.Lock()
		settled, settling, until, wake := rs.settled(), rs.settling != 0, rs.until, rs.wake
		rs.mu.Unlock()
		wait := time.Until(until)
		if settled || (wait <= 0 && !settling) {
			return
		}
		if settling {
			wait = rootsSettle // woken when it ends; the timer only rechecks
		}
		p.waitStarts() // the host's answer to roots/list may be what settles them
		t := time.NewTimer(wait)
		select {
		case <-wake:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		p.waitEnds()
		if ctx.Err() != nil {
			return
		}
	}
}

// sendDecided sends a decided call to the server unless the host root it
// was decided with is no longer the server's settled root. The call is
// counted in rs.sending first, then checks, then is sent, and is counted
// until it is written; hostAnswersRoots relays no answer that could
// change the server's root before the count is 0, so no change of roots
// reaches the server between the check and the call.
//
// Counted first, then checked: the roots are unsettled (rs.now) before
// the host is sent the server's roots/list, and so before any answer to
// it is read; an answer then reads the count. A call that saw the roots
// settled was counted before they were unsettled, so the answer sees it
// counted, and waits.
func (p *Proxy) sendDecided(hc *hostCall, send func()) bool {
	if hc.root == "" {
		send()
		return true
	}
	rs := &p.roots
	rs.sending.Add(1)
	defer rs.sendingDone()
	if now := rs.now.Load(); !now.settled || now.dir != hc.root {
		return false
	}
	send()
	return true
}

// sendingDone ends a call's count in rs.sending, and wakes the roots
// answers waiting for it to fall to 0.
func (rs *rootsState) sendingDone() {
	if rs.sending.Add(-1) == 0 && rs.draining.Load() > 0 {
		rs.mu.Lock()
		rs.sent.Broadcast()
		rs.mu.Unlock()
	}
}

// rootBase is the directory relative paths resolve against, read from a
// roots/list result: the one root, when there is exactly one, its URI is
// one every reader takes for the same local directory (rootURIPath), and
// it names an existing directory (its real path, as a server that resolves
// links sees it). It says why when there is none.
func rootBase(result []byte) (dir, why string) {
	if err := rootsResultAsTheSDKReadsIt(result); err != nil {
		return "", "roots/list result: " + err.Error() + " (a server may refuse it and keep the roots it had)"
	}
	var r struct {
		Roots []struct {
			URI string `json:"uri"`
		} `json:"roots"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return "", "roots/list result: " + err.Error()
	}
	switch len(r.Roots) {
	case 0:
		return "", "none declared"
	case 1:
	default:
		return "", fmt.Sprintf("%d declared, and a server may resolve a relative path against any of them", len(r.Roots))
	}
	uri := r.Roots[0].URI
	d, err := rootURIPath(uri)
	if err != nil {
		return "", fmt.Sprintf("%.200q: %v", uri, err)
	}
	real, err := filepath.EvalSymlinks(filepath.FromSlash(d))
	if err != nil {
		return "", fmt.Sprintf("%.200q: %v", uri, err)
	}
	if info, err := os.Stat(real); err != nil || !info.IsDir() {
		return "", fmt.Sprintf("%.200q is not a directory", uri)
	}
	return filepath.Clean(real), ""
}

// The members of a roots/list result, and of one root in it.
var (
	rootsResultMembers = members("roots", "_meta")
	rootMembers        = members("uri", "name", "_meta")
)

// rootsResultAsTheSDKReadsIt refuses a roots/list result a server could
// read otherwise than the proxy, or refuse while the proxy takes it: the
// proxy cannot know which roots the server then keeps (the reference
// server keeps the directories it had), so it must not take a root from
// it. The TypeScript SDK validates the whole result (a root's "name" a
// string when present, "_meta" an object) and reads member names exactly,
// where Go's encoding/json matches them in any case and takes the last:
// {"uri": A, "URI": B} is A to the server and B to encoding/json.
func rootsResultAsTheSDKReadsIt(result []byte) error {
	if err := unambiguous(result, rootsResultMembers); err != nil {
		return err
	}
	if m := member(result, "_meta"); m != nil && !isObject(m) {
		return errors.New(`"_meta" is not an object`)
	}
	roots := member(result, "roots")
	if roots == nil {
		return errors.New(`no "roots"`)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(roots, &list); err != nil {
		return errors.New(`"roots" is not an array`)
	}
	for i, root := range list {
		if !isObject(root) {
			return fmt.Errorf("root %d is not an object", i+1)
		}
		if err := unambiguous(root, rootMembers); err != nil {
			return fmt.Errorf("root %d: %w", i+1, err)
		}
		if uri := member(root, "uri"); !isString(uri) {
			return fmt.Errorf(`root %d: "uri" is not a string`, i+1)
		}
		if name := member(root, "name"); name != nil && !isString(name) {
			return fmt.Errorf(`root %d: "name" is not a string`, i+1)
		}
		if m := member(root, "_meta"); m != nil && !isObject(m) {
			return fmt.Errorf(`root %d: "_meta" is not an object`, i+1)
		}
	}
	return nil
}

// isObject says raw is a JSON object, isString a string (null is
// neither: encoding/json would take it for an empty one).
func isObject(raw []byte) bool { return startsWith(raw, '{') }
func isString(raw []byte) bool { return startsWith(raw, '"') }

func startsWith(raw []byte, c byte) bool {
	i := skipSpace(raw, 0)
	return i < len(raw) && raw[i] == c
}

// rootURIPath is the path of a root's URI when every reader takes it for
// the same local path, an error otherwise. The TypeScript SDK refuses a
// whole roots/list whose URIs do not all start with exactly "file://" (the
// reference server then keeps the directories it had), and Node's
// fileURLToPath, which the reference server reads them with, parses the
// rest as WHATWG URL does: it drops a query and a fragment, takes a
// backslash for a slash, removes dot segments (encoded ones too), strips
// tabs and line breaks, and refuses an encoded slash. So the URI must be
// file://, then nothing or "localhost" (in any case), then an absolute
// path with none of ? # \ or control characters, no dot or empty segment,
// and percent escapes that decode to UTF-8 other than "/" and NUL.
func rootURIPath(uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, "file://")
	if !ok {
		return "", fmt.Errorf("not a URI starting with file://")
	}
	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		return "", fmt.Errorf("no path")
	}
	if host := rest[:slash]; host != "" && !strings.EqualFold(host, "localhost") {
		return "", fmt.Errorf("the host %q is not this machine", host)
	}
	raw := rest[slash:]
	for _, c := range raw {
		// "|" too: WHATWG reads "/c|" at a path's start as the Windows
		// drive "/c:" on every platform.
		if c < 0x20 || c == 0x7f || c == '?' || c == '#' || c == '\\' || c == '|' {
			return "", fmt.Errorf("%q in the path", c)
		}
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] != '%' {
			b.WriteByte(raw[i])
			continue
		}
		if i+2 >= len(raw) || digitValue(rune(raw[i+1])) < 0 || digitValue(rune(raw[i+2])) < 0 {
			return "", fmt.Errorf("a malformed percent escape")
		}
		c := byte(digitValue(rune(raw[i+1]))<<4 | digitValue(rune(raw[i+2])))
		if c == '/' || c == 0 || c == '\\' || c < 0x20 || c == 0x7f {
			return "", fmt.Errorf("an encoded %q", c)
		}
		b.WriteByte(c)
		i += 2
	}
	path := b.String()
	if !utf8.ValidString(path) {
		return "", fmt.Errorf("the path is not UTF-8")
	}
	if strings.HasPrefix(path, " ") || strings.HasSuffix(path, " ") {
		return "", fmt.Errorf("a space at an end of the path")
	}
	segs := strings.Split(strings.TrimSuffix(path[1:], "/"), "/")
	for _, seg := range segs {
		if (seg == "" && len(segs) > 1) || seg == "." || seg == ".." {
			return "", fmt.Errorf("a dot or empty segment in the path")
		}
	}
	return path, nil
}
