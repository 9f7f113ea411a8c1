package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// policySet is the proxy's policy, twice: one that asks the human through
// the host, and a headless one for a host that cannot be asked (or
// --ask refuse). Both share the grants store, and so one ask lock.
type policySet struct {
	interactive, headless *policy.Policy
	roots                 map[string]string
	// loaded is the catalogue version each policy last listed.
	loadedInteractive, loadedHeadless atomic.Uint64
}

// buildPolicies compiles the policies with roots.
func (p *proxy) buildPolicies(roots map[string]string) (*policySet, error) {
	o := policy.Options{
		Provider: serverProvider{p}, Rules: p.opt.cfg.Rules, Modules: p.opt.cfg.Modules, Roots: roots,
		Protected: p.opt.cfg.Protected, GrantsStore: p.opt.store, Name: "mcp-policy",
		Arguments: p.opt.cfg.Arguments, DecisionTimeout: p.opt.cfg.DecisionTimeout(),
	}
	if p.opt.log != nil {
		o.OnDecision = p.opt.log.Log
	}
	headless, err := policy.New(o)
	if err != nil {
		return nil, err
	}
	o.OnAsk = p.onAsk
	interactive, err := policy.New(o)
	if err != nil {
		return nil, err
	}
	return &policySet{interactive: interactive, headless: headless, roots: roots}, nil
}

// forCall is the policy that decides hc: headless when the host cannot be
// asked.
func (s *policySet) forCall(p *proxy, hc *hostCall) *policy.Policy {
	if p.opt.askMode == askRefuse || !hc.canElicit {
		return s.headless
	}
	return s.interactive
}

// elicitHook is the hook a server's question goes through: the human's,
// when the host can elicit (whatever --ask says: it is the server's
// question, not a permission), else the headless policy's, which declines.
func (s *policySet) elicitHook(p *proxy, hc *hostCall) provider.ElicitFunc {
	can := p.hostInfo().anyElicit
	if hc != nil && hc.modern {
		can = hc.anyElicit
	}
	if can {
		return s.interactive.ElicitHook()
	}
	return s.headless.ElicitHook()
}

// refresh has pol list the catalogue again if it changed since it last did.
func (s *policySet) refresh(ctx context.Context, p *proxy, pol *policy.Policy) {
	loaded := &s.loadedHeadless
	if pol == s.interactive {
		loaded = &s.loadedInteractive
	}
	v := p.cat.currentVersion()
	if loaded.Load() == v {
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
	mu      sync.Mutex
	tools   []provider.Tool
	fresh   bool
	version uint64 // moves on every listing and every change notice
}

func (c *catalogue) currentVersion() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

func (c *catalogue) set(tools []provider.Tool) {
	c.mu.Lock()
	c.tools, c.fresh = tools, true
	c.version++
	c.mu.Unlock()
}

func (c *catalogue) invalidate() {
	c.mu.Lock()
	c.fresh = false
	c.version++
	c.mu.Unlock()
}

// listTools is the catalogue: as the host's last full tools/list saw it,
// or listed by the proxy itself.
func (p *proxy) listTools(ctx context.Context) ([]provider.Tool, error) {
	p.cat.mu.Lock()
	if p.cat.fresh {
		tools := append([]provider.Tool(nil), p.cat.tools...)
		p.cat.mu.Unlock()
		return tools, nil
	}
	p.cat.mu.Unlock()
	var meta json.RawMessage
	if hc, _ := ctx.Value(hostCallKey{}).(*hostCall); hc != nil && hc.modern {
		meta = hc.meta // a 2026-07-28 request declares its version and capabilities
	}
	var all []provider.Tool
	cursor := ""
	for page := 0; page < 1000; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		if meta != nil {
			params["_meta"] = meta
		}
		r, err := p.upstreamRequest(ctx, methodToolsList, params)
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		if r.err != nil {
			return nil, fmt.Errorf("tools/list: %s", r.err)
		}
		tools, next, err := decodeTools(r.result)
		if err != nil {
			return nil, err
		}
		all = append(all, tools...)
		if next == "" {
			p.cat.set(all)
			return append([]provider.Tool(nil), all...), nil
		}
		cursor = next
	}
	return nil, fmt.Errorf("tools/list: more than 1000 pages")
}

// readToolsList reads the server's answer to the host's first-page
// tools/list: when it is the whole catalogue, the policy decides by it.
func (p *proxy) readToolsList(result []byte) {
	tools, next, err := decodeTools(result)
	if err != nil || next != "" {
		return
	}
	p.cat.set(tools)
}

// decodeTools reads a tools/list result.
func decodeTools(result []byte) ([]provider.Tool, string, error) {
	var r struct {
		Tools []struct {
			Name        string                `json:"name"`
			Description string                `json:"description"`
			InputSchema json.RawMessage       `json:"inputSchema"`
			Annotations *provider.Annotations `json:"annotations"`
		} `json:"tools"`
		NextCursor string `json:"nextCursor"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return nil, "", fmt.Errorf("tools/list result: %w", err)
	}
	out := make([]provider.Tool, 0, len(r.Tools))
	for _, t := range r.Tools {
		a := t.Annotations
		if a == nil {
			a = &provider.Annotations{} // listed without hints: known to have none
		}
		out = append(out, provider.Tool{Type: "function", Annotations: a,
			Function: provider.ToolFunction{Name: t.Name, Description: t.Description, Parameters: t.InputSchema}})
	}
	return out, r.NextCursor, nil
}

// ---- roots

// rootsWait bounds how long a call waits for the host's roots at start.
const rootsWait = 5 * time.Second

// awaitRoots holds a call until the host's roots are known, when they are
// to be the policy's and the host has some.
func (p *proxy) awaitRoots(ctx context.Context) {
	if p.opt.rootsFixed || !p.hostInfo().roots {
		return
	}
	t := time.NewTimer(rootsWait)
	defer t.Stop()
	select {
	case <-p.rootsReady:
	case <-ctx.Done():
	case <-t.C:
	}
}

// fetchRoots asks the host for its roots and makes the first of them the
// policy's root for every tool ("*"), relative paths resolving against it,
// when it is the one a server resolves them against too (rootBase).
// Otherwise, or when the roots cannot be had, the policy has no root, and
// a relative path is unevaluable: the call is asked.
func (p *proxy) fetchRoots() {
	defer p.wg.Done()
	defer p.rootsOnce.Do(func() { close(p.rootsReady) })
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	roots := map[string]string{}
	r, err := p.hostRequest(ctx, methodRootsList, nil)
	if err != nil || r.err != nil {
		p.warnf("roots/list: %v%s; relative paths are asked about", err, r.err)
	} else if dir, why := rootBase(r.result); why != "" {
		p.warnf("the host's roots: %s; relative paths are asked about", why)
	} else {
		roots["*"] = dir
	}
	set, err := p.buildPolicies(roots)
	if err != nil {
		p.warnf("the host's roots: %v", err)
		return
	}
	p.pols.Store(set)
}

// rootBase is the directory relative paths resolve against, read from a
// roots/list result: the one root, when there is exactly one, it is a
// local file: URI, and it is a directory (its real path, as a server that
// resolves links sees it). It says why when there is none. The reference
// filesystem server drops a root that is not a directory and tries a
// relative path against each root in turn, so with a root it skips, or a
// second one, the policy could judge a path the server does not act on.
func rootBase(result []byte) (dir, why string) {
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
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && !strings.EqualFold(u.Host, "localhost")) ||
		u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Sprintf("%q is not a local file: URI", uri)
	}
	d := filepath.FromSlash(u.Path)
	if !filepath.IsAbs(d) {
		return "", fmt.Sprintf("%q is not an absolute path", uri)
	}
	real, err := filepath.EvalSymlinks(d)
	if err != nil {
		return "", fmt.Sprintf("%q: %v", uri, err)
	}
	if info, err := os.Stat(real); err != nil || !info.IsDir() {
		return "", fmt.Sprintf("%q is not a directory", uri)
	}
	return filepath.Clean(real), ""
}
