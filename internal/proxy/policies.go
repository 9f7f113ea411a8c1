package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/toolslist"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// policySet is the proxy's policy, twice: one that asks the human through
// the host, and a headless one for a host that cannot be asked (or
// --ask refuse). Both share the grants store, and so one ask lock.
type policySet struct {
	interactive, headless *policy.Policy
	roots                 map[string]string
	// hostRoot is the host's root the policies resolve relative paths
	// against ("*"), "" when they have none of the host's.
	hostRoot string
	// loaded is the catalogue version each policy last listed.
	loadedInteractive, loadedHeadless atomic.Uint64
}

// buildPolicies compiles the policies with roots.
func (p *Proxy) buildPolicies(roots map[string]string) (*policySet, error) {
	p.mu.Lock()
	arguments := append(slices.Clone(p.opt.cfg.Arguments), p.serverSpecs...)
	p.mu.Unlock()
	o := policy.Options{
		Provider: serverProvider{p: p}, Rules: p.opt.cfg.Rules, Modules: p.opt.cfg.Modules, Roots: roots, Home: p.opt.cfg.Home, ResolveLinks: p.opt.cfg.ResolveLinks,
		Protected: p.opt.cfg.Protected, GrantsStore: p.opt.store, Name: "mcp-policy",
		Arguments: arguments, DecisionTimeout: p.opt.cfg.DecisionTimeout(), Source: p.opt.source,
		PinnedCatalogue: p.opt.pins != nil,
	}
	o.OnDecision = p.decisionSinks()
	headless, err := policy.New(o)
	if err != nil {
		return nil, err
	}
	o.OnAsk = p.questionsOf(nil) // a server's question with no call of the host's at the server
	interactive, err := policy.New(o)
	if err != nil {
		_ = headless.Close()
		return nil, err
	}
	return &policySet{interactive: interactive, headless: headless, roots: roots}, nil
}

// useServerSpecs applies the shipped argument specs of the server by the
// name it gave in initialize, when --arguments named none: every policy
// set is built again with them (calls decided meanwhile kept the sets they
// had). Building is no I/O, so it happens under the roots' lock, which
// comes before p.mu (see the package doc).
func (p *Proxy) useServerSpecs(serverName string) {
	if len(p.opt.cfg.Arguments) > 0 {
		return // what a person said is all there is
	}
	name, ok := rules.ServerArgumentsNamed(serverName)
	if !ok {
		return
	}
	specs, err := rules.ServerArguments(name)
	if err != nil {
		p.warnf("the %s argument specs: %v", name, err)
		return
	}
	p.mu.Lock()
	p.serverSpecs = specs
	p.mu.Unlock()
	rs := &p.roots
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for dir, old := range rs.sets {
		set, err := p.buildPolicies(old.roots)
		if err != nil {
			p.warnf("the %s argument specs: %v; the server's arguments are read without them", name, err)
			return
		}
		set.hostRoot = old.hostRoot
		rs.sets[dir] = set
		old.close() // no longer fed: calls deciding on it finish with the rules they have
		if dir == rs.dir {
			p.pols.Store(set)
		}
	}
	p.warnf("the server calls itself %q: its arguments are read with the %s argument specs (--arguments %s)", serverName, name, name)
}

// close stops the set's policies listening to the rules' source.
func (s *policySet) close() {
	_ = s.interactive.Close()
	_ = s.headless.Close()
}

// decisionSinks is the OnDecision that tells each decision to the local
// log, OPA's decision-log plugin and telemetry, those of them there are;
// nil for none.
func (p *Proxy) decisionSinks() func(policy.Record) {
	var sinks []func(policy.Record)
	if p.opt.log != nil {
		sinks = append(sinks, p.opt.log.Log)
	}
	if p.opt.decisions != nil {
		sinks = append(sinks, p.opt.decisions)
	}
	if p.opt.telemetry != nil {
		sinks = append(sinks, p.opt.telemetry.Record)
	}
	switch len(sinks) {
	case 0:
		return nil
	case 1:
		return sinks[0]
	}
	return func(r policy.Record) {
		for _, sink := range sinks {
			sink(r)
		}
	}
}

// forCall is the policy that decides hc: headless when no one can be
// asked (see route), seen through hc's own provider and asker, which hand
// hc to forwardCall, listTools and onAsk.
func (s *policySet) forCall(p *Proxy, hc *hostCall) *policy.Policy {
	via := policy.Via{Provider: serverProvider{p: p, hc: hc}}
	if p.route(hc.caps) == toNobody {
		return s.headless.With(via)
	}
	via.OnAsk = p.questionsOf(hc)
	return s.interactive.With(via)
}

// questionsOf is the question callback for hc's questions (nil: a server's
// question with no call of the host's behind it).
func (p *Proxy) questionsOf(hc *hostCall) policy.AskFunc {
	ask := p.approvingAsk(func(ctx context.Context, q policy.Question) policy.Answer { return p.onAsk(ctx, hc, q) })
	if p.opt.telemetry != nil {
		return p.opt.telemetry.Asking(ask)
	}
	return ask
}

// elicitHook is the hook a server's question goes through: the human's,
// when the host can elicit (whatever --ask says: it is the server's
// question, not a permission), else the headless policy's, which declines.
func (s *policySet) elicitHook(p *Proxy, hc *hostCall) provider.ElicitFunc {
	can := p.session().caps.anyElicit
	if hc != nil && hc.modern {
		can = hc.caps.anyElicit
	}
	if can && hc != nil {
		return s.interactive.With(policy.Via{OnAsk: p.questionsOf(hc)}).ElicitHook()
	}
	if can {
		return s.interactive.ElicitHook()
	}
	return s.headless.ElicitHook()
}

// refresh has pol list the catalogue again if it changed since it last did.
func (s *policySet) refresh(ctx context.Context, p *Proxy, pol *policy.Policy) {
	loaded := &s.loadedHeadless
	if pol.Interactive() {
		loaded = &s.loadedInteractive
	}
	v := p.cat.currentVersion()
	if loaded.Load() == v && !p.cat.due() {
		return
	}
	if _, err := pol.ToolsForLLM(ctx); err == nil {
		loaded.Store(v)
	}
}

// ---- the catalogue

// catalogue is the server's tools as last listed, for the policy's
// annotations and schemas.
type catalogue struct {
	mu    sync.Mutex
	tools []provider.Tool
	fresh bool
	// pending is closed when the pins check of the host's last listing
	// ends (checking); nil when none is under way. A call waits for it
	// rather than decide by tools whose pins are not known yet, and the
	// server's messages are not held up behind the pins store meanwhile.
	pending chan struct{}
	// retryAt, when not 0, is when (Unix nanoseconds) tools suspended
	// because the pins or the listing failed are listed again: a store
	// out of reach for a moment must not suspend them for the session.
	// Every call reads it (due), without the lock.
	retryAt atomic.Int64
	// version moves on every listing and every change notice, under mu;
	// every call reads it (refresh), without the lock.
	version atomic.Uint64
}

func (c *catalogue) currentVersion() uint64 { return c.version.Load() }

func (c *catalogue) set(tools []provider.Tool) {
	c.mu.Lock()
	c.tools, c.fresh = tools, true
	c.retryAt.Store(0)
	c.version.Add(1)
	c.mu.Unlock()
}

// retryAfter has the catalogue listed again d from now: what it holds
// was decided by a pins store or a listing that failed.
func (c *catalogue) retryAfter(d time.Duration) { c.retryAt.Store(time.Now().Add(d).UnixNano()) }

// due says the catalogue is to be listed again (retryAfter).
func (c *catalogue) due() bool {
	at := c.retryAt.Load()
	return at != 0 && time.Now().UnixNano() >= at
}

// pinsRetry is how long tools stay suspended after the pins or the
// listing failed before they are listed again.
const pinsRetry = 2 * time.Second

// checking starts the pins check of a listing: until checked, the
// catalogue is not fresh, and calls wait for it.
func (c *catalogue) checking() chan struct{} {
	done := make(chan struct{})
	c.mu.Lock()
	c.pending, c.fresh = done, false
	c.version.Add(1)
	c.mu.Unlock()
	return done
}

// checked ends the pins check done: its tools are the catalogue, unless a
// change notice or a later listing came meanwhile.
func (c *catalogue) checked(done chan struct{}, tools []provider.Tool) {
	c.mu.Lock()
	if c.pending == done {
		c.tools, c.fresh, c.pending = tools, true, nil
		c.version.Add(1)
	}
	c.mu.Unlock()
	close(done)
}

func (c *catalogue) invalidate() {
	c.mu.Lock()
	c.pending = nil
	c.fresh = false
	c.version.Add(1)
	c.mu.Unlock()
}

// errNoTools: the server answered tools/list with "method not found".
var errNoTools = errors.New("the server has no tools")

// listTools is the catalogue: as the host's last full tools/list saw it,
// or listed by the proxy itself.
func (p *Proxy) listTools(ctx context.Context, hc *hostCall) ([]provider.Tool, error) {
	for {
		p.cat.mu.Lock()
		if p.cat.fresh && !p.cat.due() {
			tools := append([]provider.Tool(nil), p.cat.tools...)
			p.cat.mu.Unlock()
			return tools, nil
		}
		pending := p.cat.pending
		p.cat.mu.Unlock()
		if pending == nil {
			break
		}
		p.waitStarts() // the host's other messages are read meanwhile
		select {
		case <-pending: // pinsWait bounds it
		case <-ctx.Done():
		}
		p.waitEnds()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	var meta json.RawMessage
	if hc != nil && hc.modern {
		meta = hc.meta // a 2026-07-28 request declares its version and capabilities
	}
	var all toolslist.Page
	cursor := ""
	for n := 0; n < 1000; n++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		if meta != nil {
			params["_meta"] = meta
		}
		r, err := p.request(ctx, &p.srvPeer, methodToolsList, params)
		if err != nil {
			p.listFailed()
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		if r.err != nil {
			if code := member(r.err, "code"); string(code) == "-32601" {
				return nil, fmt.Errorf("tools/list: %s: %w", r.err, errNoTools)
			}
			p.listFailed()
			return nil, fmt.Errorf("tools/list: %s", r.err)
		}
		page, err := toolslist.Decode(r.result)
		if err != nil {
			p.unreadableList(err)
			return nil, err
		}
		all.Tools = append(all.Tools, page.Tools...)
		all.Definitions = append(all.Definitions, page.Definitions...)
		if page.Next == "" {
			tools := p.pinned(all)
			p.cat.set(tools)
			p.checkRootKeys(tools)
			return append([]provider.Tool(nil), tools...), nil
		}
		cursor = page.Next
	}
	return nil, fmt.Errorf("tools/list: more than 1000 pages")
}

// readToolsPage reads the server's answer to a tools/list of the host's
// (first: the first page, asked with no cursor): when it is the whole
// catalogue, the policy decides by it once its pins are checked; with
// pins, any other page is seen by them (a change on it marked), and the
// catalogue is then listed whole by the proxy.
func (p *Proxy) readToolsPage(result []byte, first bool) {
	if p.opt.pins == nil {
		if !first {
			return
		}
		page, err := toolslist.Decode(result)
		if err == nil && page.Next == "" {
			p.cat.set(page.Tools)
			p.checkRootKeys(page.Tools)
		}
		return
	}
	// Off the server's reader: the pins store may take up to pinsWait,
	// and the server's other messages must not wait. The catalogue is not
	// fresh from now (before the host has the listing: serverAnswered
	// reads it first) until the check ends, so no call is decided by the
	// tools as they were.
	result = bytes.Clone(result) // the reader's buffer is reused
	done := p.cat.checking()
	go func() {
		page, err := toolslist.Decode(result)
		switch {
		case err != nil:
			p.cat.checked(done, nil)
			p.unreadableList(err)
		case !first || page.Next != "":
			p.pinned(page)
			p.cat.invalidate()       // listed whole by the next call,
			p.cat.checked(done, nil) // which the waiting calls now make
		default:
			tools := p.pinned(page)
			p.cat.checked(done, tools)
			p.checkRootKeys(tools)
		}
	}()
}

// checkRootKeys warns, the first time the whole catalogue is known, of
// each --root KEY that names none of the server's tools: its DIR is
// then no tool's root (the official filesystem server's tools are
// read_file, write_file, …, so --root fs=DIR is nothing to them).
func (p *Proxy) checkRootKeys(tools []provider.Tool) {
	if !p.opt.rootsFixed || !p.rootsChecked.CompareAndSwap(false, true) {
		return
	}
	keys := make([]string, 0, len(p.opt.cfg.Roots))
	for k := range p.opt.cfg.Roots {
		if k != "*" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if slices.ContainsFunc(tools, func(t provider.Tool) bool {
			n := t.Function.Name
			return n == k || strings.HasPrefix(n, k+"_")
		}) {
			continue
		}
		names := make([]string, 0, 4)
		for _, t := range tools {
			if len(names) == 3 {
				names = append(names, "…")
				break
			}
			names = append(names, t.Function.Name)
		}
		p.warnf("--root %s=%s: no tool of the server's is named %s or %s_* (its tools: %.200s); KEY is a tool-name prefix, or * for every tool",
			k, p.opt.cfg.Roots[k], k, k, strings.Join(names, ", "))
	}
}
