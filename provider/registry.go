package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Registry is a Provider made of several, each under its own prefix, the way
// an http.ServeMux is a Handler made of several.
//
// A model sees one flat catalogue, so names from different servers must not
// collide: every tool is published as prefix_name ("fs" and "read" become
// "fs_read"), and the prefix is stripped again before a call is passed on,
// so each provider only ever sees its own names. A policy under a registry
// therefore names tools without the prefix; a policy over it, with.
//
// A Registry is safe for concurrent use, including Add while calls are in
// flight (a call is routed by the providers registered when it arrived).
type Registry struct {
	mu      sync.RWMutex
	entries []*registryEntry          // in Add order, which is catalogue order
	byName  map[string]registeredTool // the last listed catalogue; see route
}

type registryEntry struct {
	prefix string
	p      Provider
}

type registeredTool struct {
	e    *registryEntry
	name string // the provider's own name
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry { return &Registry{} }

// Add registers p under prefix.
//
// The prefix must be non-empty: an unprefixed provider could shadow or be
// shadowed by any other, which is exactly what a registry exists to prevent.
// It may contain "_" ("my_fs" publishes "my_fs_read"); the one ambiguity that
// allows — prefixes "a" and "a_b" can both claim "a_b_c" — is caught by
// ToolsForLLM as a duplicate name rather than forbidden here, because it only
// matters if the catalogues really collide. A second provider under the same
// prefix, or a nil provider, is an error now rather than a confusing failure
// at the first call.
func (r *Registry) Add(p Provider, prefix string) error {
	if p == nil {
		return fmt.Errorf("registry: provider for prefix %q is nil", prefix)
	}
	if prefix == "" {
		return errors.New("registry: prefix must not be empty")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.entries {
		if e.prefix == prefix {
			return fmt.Errorf("registry: prefix %q is already registered", prefix)
		}
	}
	r.entries = append(r.entries, &registryEntry{prefix: prefix, p: p})
	return nil
}

// ToolsForLLM lists every provider, concurrently, and publishes their tools
// as prefix_name, in registration order.
//
// It errors if any provider fails to list (each failure wrapped with its
// prefix, all of them joined): a shorter catalogue would leave the model
// wondering where a capability went. It also errors when two tools would be
// published under one name, since no call to that name could be routed
// honestly. The published Tools are copies; Annotations are kept.
func (r *Registry) ToolsForLLM(ctx context.Context) ([]Tool, error) {
	r.mu.RLock()
	entries := append([]*registryEntry(nil), r.entries...)
	r.mu.RUnlock()

	lists := make([][]Tool, len(entries))
	errs := make([]error, len(entries))
	var wg sync.WaitGroup
	for i, e := range entries {
		wg.Go(func() {
			// A panic on another goroutine cannot be recovered by our caller,
			// so it becomes this provider's listing error instead.
			defer func() {
				if v := recover(); v != nil {
					errs[i] = fmt.Errorf("registry: provider %q: listing tools: panic: %v", e.prefix, v)
				}
			}()
			tools, err := e.p.ToolsForLLM(ctx)
			if err != nil {
				errs[i] = fmt.Errorf("registry: provider %q: listing tools: %w", e.prefix, err)
				return
			}
			lists[i] = tools
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	var out []Tool
	byName := make(map[string]registeredTool)
	for i, e := range entries {
		for _, t := range lists[i] {
			name := e.prefix + "_" + t.Function.Name
			if prev, dup := byName[name]; dup {
				return nil, fmt.Errorf("registry: tool %q is published twice: by %q (its tool %q) and by %q (its tool %q)",
					name, prev.e.prefix, prev.name, e.prefix, t.Function.Name)
			}
			byName[name] = registeredTool{e: e, name: t.Function.Name}
			out = append(out, publish(t, name))
		}
	}
	if out == nil {
		out = []Tool{}
	}
	r.mu.Lock()
	r.byName = byName
	r.mu.Unlock()
	return out, nil
}

// publish copies t under its published name, so nothing a caller does to the
// catalogue can reach back into a provider's own.
func publish(t Tool, name string) Tool {
	if t.Type == "" {
		t.Type = "function"
	}
	t.Function.Name = name
	if t.Function.Parameters != nil {
		t.Function.Parameters = append([]byte(nil), t.Function.Parameters...)
	}
	if a := t.Annotations; a != nil {
		t.Annotations = &Annotations{
			ReadOnlyHint:    cloneBool(a.ReadOnlyHint),
			DestructiveHint: cloneBool(a.DestructiveHint),
			IdempotentHint:  cloneBool(a.IdempotentHint),
			OpenWorldHint:   cloneBool(a.OpenWorldHint),
		}
	}
	return t
}

func cloneBool(b *bool) *bool {
	if b == nil {
		return nil
	}
	v := *b
	return &v
}

// route finds the provider for a published name and the provider's own name.
//
// A name the last listed catalogue published goes where it was published
// from: that is the only way to tell "a" + "b_c" from "a_b" + "c". Any other
// name goes to the longest registered prefix followed by "_", so a provider
// can still be called before the catalogue was listed, or for a tool it
// serves but does not list. A name with nothing after the prefix is unknown.
func (r *Registry) route(name string) (*registryEntry, string, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if t, ok := r.byName[name]; ok {
		return t.e, t.name, true
	}
	var best *registryEntry
	for _, e := range r.entries {
		if strings.HasPrefix(name, e.prefix+"_") && len(name) > len(e.prefix)+1 &&
			(best == nil || len(e.prefix) > len(best.prefix)) {
			best = e
		}
	}
	if best == nil {
		return nil, "", false
	}
	return best, name[len(best.prefix)+1:], true
}

// ExecuteToolCalls routes each call by its prefix, strips the prefix, sends
// the calls for one provider as one batch (the providers concurrently, so a
// slow server does not hold up a fast one) and puts the results back in the
// caller's order, each carrying the caller's call id.
//
// A call no provider claims gets an is_error result "unknown tool 'NAME'".
// A provider that panics or answers with the wrong number of results gets
// is_error results for its own calls; the other providers' results stand.
func (r *Registry) ExecuteToolCalls(ctx context.Context, calls []Call) []Result {
	out := make([]Result, len(calls))
	type batch struct {
		e     *registryEntry
		calls []Call
		index []int    // position of each call in the caller's batch
		names []string // each call's name as the caller wrote it, for error results
	}
	var batches []*batch
	byEntry := make(map[*registryEntry]*batch)
	for i, c := range calls {
		e, name, ok := r.route(c.Function.Name)
		if !ok {
			out[i] = ErrorResult(c.ID, fmt.Sprintf("unknown tool '%s'", c.Function.Name))
			continue
		}
		b := byEntry[e]
		if b == nil {
			b = &batch{e: e}
			byEntry[e] = b
			batches = append(batches, b)
		}
		b.names = append(b.names, c.Function.Name)
		c.Function.Name = name
		b.calls = append(b.calls, c)
		b.index = append(b.index, i)
	}
	var wg sync.WaitGroup
	for _, b := range batches {
		wg.Go(func() {
			results := forward(ctx, b.e.p, b.calls, b.names)
			for j, res := range results {
				out[b.index[j]] = res
			}
		})
	}
	wg.Wait()
	return out
}

// Forward sends calls to p as one batch and holds p to the Provider
// contract on its caller's behalf: a panic, or a wrong number of results,
// becomes an is_error result for every call of the batch; each result's
// ToolCallID is set to its call's id and its Role to "tool". It is what a
// composer (a Registry, Reasons, Leases) uses to keep its own promise never
// to panic whatever sits below it. An empty batch is not forwarded.
func Forward(ctx context.Context, p Provider, calls []Call) []Result {
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Function.Name
	}
	return forward(ctx, p, calls, names)
}

// forward is Forward naming each call in error results as names says, so a
// Registry reports the name the model used, not the stripped one.
func forward(ctx context.Context, p Provider, calls []Call, names []string) (results []Result) {
	if len(calls) == 0 {
		return []Result{}
	}
	failAll := func(msg string) []Result {
		out := make([]Result, len(calls))
		for i, c := range calls {
			out[i] = ErrorResult(c.ID, fmt.Sprintf("tool '%s' failed: %s", names[i], msg))
		}
		return out
	}
	defer func() {
		if v := recover(); v != nil {
			results = failAll(fmt.Sprintf("the provider panicked: %v", v))
		}
	}()
	got := p.ExecuteToolCalls(ctx, append([]Call(nil), calls...))
	if len(got) != len(calls) {
		return failAll(fmt.Sprintf("the provider returned %d results for %d calls", len(got), len(calls)))
	}
	out := make([]Result, len(calls))
	for i, res := range got {
		res.Role = "tool"
		res.ToolCallID = calls[i].ID
		out[i] = res
	}
	return out
}
