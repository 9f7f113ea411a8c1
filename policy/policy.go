// Package policy puts per-directory permissions in front of any
// provider.Provider: every tool call is decided allow, deny or ask by the
// static rules (Rule, evaluated by OPA), asks go to one human one
// question at a time, and "always" answers are remembered as grants.
//
// A Policy is itself a Provider, the way net/http middleware is itself a
// Handler: it stacks over an MCP client, a Registry, or another Policy.
// ExecuteToolCalls never panics and never errors: every failure is one
// is_error result in the caller's order.
package policy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/lexical"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/provider"
)

// AskFunc answers one question. It is a leaf: it runs while the ask lock
// is held, so it must not start policy-mediated work of its own with the
// ctx it was handed (such a call is refused rather than deadlocked).
type AskFunc func(ctx context.Context, q Question) Answer

// Kind is what a question is about.
type Kind string

// Question kinds.
const (
	KindPermission   Kind = "permission"    // may this tool call run?
	KindServerElicit Kind = "server-elicit" // a server's own question (MCP elicitation), passed on
)

// Question is what the human is asked.
type Question struct {
	Kind      Kind           // KindPermission or KindServerElicit
	Tool      string         // as this policy sees it
	Arguments map[string]any // the parsed copy, reason included
	Call      provider.Call  // a copy of the original
	Rule      *Rule          // the rule that asked, if one did
	Reason    Reason         // rule, no-match, unevaluable-path or floor
	Paths     []string
	Hosts     []string
	// Suggestion is the narrowest honest scope for "always", naming every
	// dimension the call names: under a directory (possibly as wide as
	// "/") for its paths, on a host for its URLs, both for a call naming
	// both; else the bare tool.
	Suggestion *Rule
	// AllowGrantable says an allow grant could answer this question: it
	// was asked because no rule matched or a path could not be evaluated,
	// not by an ask rule or the danger floor, which mean "ask me every
	// time". A host offers "always allow" only when it is true; an
	// always-allow answer to any other question allows the call once and
	// remembers nothing. "Always deny" can always be remembered.
	AllowGrantable bool
	// Near are allow grants for this tool that did not answer the call
	// (at most maxNear): a grant for another directory or host, or one
	// that does not answer now (it expired, or the grants store is out of
	// touch). A host shows them so the human knows why the agent asks
	// again about what they thought they had allowed.
	Near []Rule
	// DescriptionWarning says the tool's definition carries text aimed at
	// the model, not the user ("This tool's description contains
	// instructions to the model: an <IMPORTANT> tag; ..."); "" for none.
	// A host shows it before the question: the human is asked to trust
	// a tool whose server may be steering the agent.
	DescriptionWarning string
	// DefinitionChange says the tool's definition changed since a human
	// approved it, and how (grants.Pin.ChangeSummary); "" when it did
	// not. Its allow grants and annotations are suspended meanwhile; an
	// "always" answer to this question approves the change.
	DefinitionChange string
	Request          *provider.ElicitRequest // server-elicit only
}

// Action is what the human answered.
type Action string

// Answer actions to a permission question.
const (
	AllowOnce   Action = "allow-once"
	DenyOnce    Action = "deny-once"
	AlwaysAllow Action = "always-allow" // and remember a grant
	AlwaysDeny  Action = "always-deny"  // and remember a grant
	// AllowForADay is AlwaysAllow whose grant expires after ADay (sooner
	// when the store's TTL is shorter): "yes to this, for today's work".
	// Offered and refused exactly where AlwaysAllow is (AllowGrantable),
	// and, like it, only allows once where no allow grant can answer. It
	// needs Options.GrantsStore: a policy's own grant list keeps no expiry,
	// so without a store the answer is refused rather than kept for ever.
	AllowForADay Action = "allow-for-a-day"
)

// ADay is how long an AllowForADay grant lasts.
const ADay = 24 * time.Hour

// Answer actions to a server's question: MCP's elicitation actions.
const (
	Accept  = Action(provider.ElicitAccept)
	Decline = Action(provider.ElicitDecline)
	Cancel  = Action(provider.ElicitCancel)
)

// Answer is the human's answer. For a permission question, Action is one
// of AllowOnce, DenyOnce, AlwaysAllow, AllowForADay, AlwaysDeny; Rule (default: the
// suggestion) or Rules say what "always" covers, their decision taken from
// the action. For a server elicitation, Action is Accept, Decline or Cancel
// and Content the form's values.
type Answer struct {
	Action  Action
	Rule    *Rule
	Rules   []Rule
	Content map[string]any
	// Unanswered, when set, says no one answered (the question timed out,
	// or could not be put): the call is refused with these words, not as
	// the human's "deny", and nothing is remembered. Action is then
	// ignored.
	Unanswered error
	// Applied, when set, is told what came of the answer, once, after the
	// policy acted on it and before the call runs: nil when it was carried
	// out (an "always" kept as a grant), grants.ErrQueued when it was but
	// the grant waits in this process for its database, else why not (the
	// call was then refused and nothing remembered). A host that answers for a human who
	// is elsewhere (an approvals queue) reports it back, so no one is told
	// "remembered" in vain.
	Applied func(failed error)
}

// Options configure a Policy.
type Options struct {
	// Provider is what allowed calls are forwarded to. Required.
	Provider provider.Provider
	// Rules are the static rules, in order; DefaultRules are not included
	// unless listed.
	Rules []Rule
	// Modules are Rego modules a security team adds (package mcp.custom),
	// or a replacement floor (package mcp.floor).
	Modules []Module
	// Roots maps tool names (or prefixes before "_", or "*") to the
	// directories relative paths resolve against.
	Roots map[string]string
	// Home is the directory "~" names where the tools run:
	// the home of the user a local server runs as; "" when unknown.
	Home string
	// ResolveLinks says the tools run on this machine: each path is also
	// read as the file system resolves it.
	ResolveLinks bool
	// Arguments say how tools' arguments name paths and URLs beyond the
	// names read by default: which hold paths, directories, URLs, paths
	// relative to another argument, or nothing to check (see
	// ArgumentSpec; ServerArguments has the reference servers').
	Arguments []ArgumentSpec
	// DecisionTimeout bounds one call's decision (the Rego evaluation):
	// past it the call is refused. Default DefaultDecisionTimeout; a
	// negative value leaves only the caller's ctx.
	DecisionTimeout time.Duration
	// Protected are files the danger floor guards, whatever the rules say:
	// a change to one, or to a directory holding one, is always asked. The
	// policy's own files are protected without being listed: the
	// GrantsStore's file and its lock, and each of Modules whose Name is a
	// file that exists. List here the rule files Rules were read from.
	Protected []string
	// OnAsk is the human. Nil makes the policy headless: anything not
	// allowed is refused.
	OnAsk AskFunc
	// OnGrant is told the whole effective grant list each time an answer
	// remembered something, before the call is decided. A leaf, like OnAsk.
	OnGrant func(grants []Rule)
	// OnDecision is told of every call ExecuteToolCalls decides, once it
	// is decided and before the allowed calls are forwarded: the material
	// of a decision log. A leaf, like OnAsk; it runs outside the ask lock.
	OnDecision func(Record)
	// Grants are this policy's own grants to start with.
	Grants []Rule
	// ListDeniedTools keeps in ToolsForLLM the tools a rule or grant
	// denies outright (DeniesOutright), which are left out by default: a
	// model need not be offered a tool every call of which is refused.
	ListDeniedTools bool
	// PinnedCatalogue says the provider's catalogue entries are held to
	// the definitions a human approved (the proxy's tool pins set
	// Tool.DefinitionChange): then a tool the catalogue does not list, or
	// lists twice, is one whose definition no human approved either, and
	// no allow grant answers it.
	PinnedCatalogue bool
	// GrantsStore, when set, is where always- answers go, and every
	// decision reads it: one grant set for a fleet of policies.
	// Policies wired to one store also share one ask lock, because they
	// share one human: the fleet's questions are put one at a time, and a
	// question waiting behind an always- answer is decided by its grant.
	GrantsStore *grants.Store
	// ClaimElicits puts server elicitations provoked by this policy's calls
	// to this policy's OnAsk, whichever policy the client was wired to.
	ClaimElicits bool
	// Name says who refused, in messages. Default "mcp-policy".
	Name string
	// Source, when set, feeds rule sets while the policy runs: each set it
	// activates is added after Rules and Modules, replacing the one before.
	// Until the first set arrives every call is refused (see
	// ErrNotLoaded). Package opaplane's Plane (OPA bundles) is one; Close
	// stops listening to it.
	Source RuleSource
}

// Policy is the stateful wrapper. It is safe for concurrent use.
type Policy struct {
	*shared
	// via is what this policy's batches go through in place of
	// Options.Provider and Options.OnAsk (With); zero for the policy New
	// made.
	via Via
}

// Via is what a batch of calls goes through in place of the policy's own
// Options.Provider and Options.OnAsk: for a program whose calls each
// belong to someone that the provider below, or the human asked, must
// know (a host's request, a conversation), passed as a value rather than
// carried in a context. A nil field keeps the policy's own.
type Via struct {
	// Provider forwards the batch's allowed calls, and lists the catalogue
	// when it is listed through this view.
	Provider provider.Provider
	// OnAsk is the human for the batch's questions, a server's question
	// included (ElicitHook); set on a headless policy, it makes the view
	// interactive.
	OnAsk AskFunc
}

// With returns p seen through via: the same policy (its rules, grants,
// catalogue, ask lock and decision log are shared, and Close closes it)
// whose calls are forwarded to via.Provider and whose questions go to
// via.OnAsk. It costs an allocation: make one per batch.
func (p *Policy) With(via Via) *Policy {
	v := p.via
	if via.Provider != nil {
		v.Provider = via.Provider
	}
	if via.OnAsk != nil {
		v.OnAsk = via.OnAsk
	}
	return &Policy{shared: p.shared, via: v}
}

// provider is what allowed calls are forwarded to.
func (p *Policy) provider() provider.Provider {
	if p.via.Provider != nil {
		return p.via.Provider
	}
	return p.opts.Provider
}

// onAsk is the human, nil for none.
func (p *Policy) onAsk() AskFunc {
	if p.via.OnAsk != nil {
		return p.via.OnAsk
	}
	return p.opts.OnAsk
}

// shared is a policy's own, shared by its views (With).
type shared struct {
	opts Options
	name string

	// current decides by the static rules. SetRules and the Source swap it
	// whole; a batch is decided by the one it started with.
	current atomic.Pointer[ruleState]
	// reload orders SetRules and the Source's sets, and guards base and fed.
	reload sync.Mutex
	// base are the rules and modules SetRules (or Options) gave; fed is
	// the Source's latest set, nil until it has given one.
	base      RuleSet
	fed       *RuleSet
	stopWatch func()

	// askLock is the one human's attention: permission questions and server
	// elicitations take it in turn, a channel of one so waiting can honour
	// ctx. Policies sharing a GrantsStore share it too (Store.AskLock).
	askLock chan struct{}

	// own are this policy's own grants (those of a store are the store's),
	// indexed and growing one answer at a time.
	own *grants.Set
	// tools is the catalogue by name, nil until it is listed: swapped whole
	// by ToolsForLLM, read by every call without a lock.
	tools atomic.Pointer[map[string]*provider.Tool]
}

// New validates the options, compiles the rules and returns the policy in
// front of o.Provider. Invalid rules, grants, roots or Rego are errors.
func New(o Options) (*Policy, error) {
	if o.Provider == nil {
		return nil, errors.New("policy: Options.Provider is required")
	}
	cfg := engineConfig(o)
	var initial *RuleSet
	if o.Source != nil {
		if set, ok := o.Source.Current(); ok {
			initial = &set
			cfg = engineConfig(withSet(o, set))
		}
	}
	engine, err := rules.NewEngine(context.Background(), cfg)
	if err != nil {
		if initial != nil {
			return nil, fmt.Errorf("policy: with the source's rules: %w", err)
		}
		return nil, fmt.Errorf("policy: %w", err)
	}
	own, err := validateGrants(o.Grants)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	name := o.Name
	if name == "" {
		name = "mcp-policy"
	}
	p := &Policy{shared: &shared{opts: o, name: name, own: grants.NewSet(own), askLock: make(chan struct{}, 1),
		base: RuleSet{Rules: o.Rules, Modules: o.Modules}}}
	if o.GrantsStore != nil {
		// A fleet sharing a store shares one human, so it shares one lock:
		// otherwise each policy would put the same question at once, and a
		// waiting question would not be answered by the grant the first
		// answer left.
		p.askLock = o.GrantsStore.AskLock()
	}
	state := &ruleState{engine: engine, loaded: o.Source == nil || initial != nil}
	if initial != nil {
		p.fed = initial
		state.revisions = cloneMap(initial.Revisions)
	}
	p.current.Store(state)
	if o.Source != nil {
		// Watch hands over the current set again (taken as the one New
		// compiled, unless it changed meanwhile), and every set after.
		stop := o.Source.Watch(p.activate)
		p.reload.Lock()
		p.stopWatch = stop
		p.reload.Unlock()
	}
	return p, nil
}

// engineConfig is what the engine is built from.
func engineConfig(o Options) rules.Config {
	t := o.DecisionTimeout
	switch {
	case t == 0:
		t = DefaultDecisionTimeout
	case t < 0:
		t = 0 // none but the caller's ctx
	}
	return rules.Config{Rules: o.Rules, Modules: o.Modules, Roots: o.Roots, Home: o.Home, ResolveLinks: o.ResolveLinks, Protected: protectedFiles(o), Arguments: o.Arguments,
		DecisionTimeout: t}
}

// SetRules replaces the static rules and modules, as Options.Rules and
// Options.Modules would give them (DefaultRules included only if listed),
// without a new policy: the session's own grants, the store, the ask lock
// and questions being asked are untouched. The new set is validated and
// compiled first; one that fails is refused and the old one kept. Calls
// decided after SetRules returns use the new rules; a batch already being
// decided finishes on the rules it started with.
//
// With a Source, rs and modules replace Rules and Modules: the Source's
// set still follows them.
func (p *Policy) SetRules(rs []Rule, modules []Module) error {
	p.reload.Lock()
	defer p.reload.Unlock()
	if err := p.swap(RuleSet{Rules: rs, Modules: modules}, p.fed); err != nil {
		return fmt.Errorf("policy: rules not changed: %w", err)
	}
	return nil
}

// protectedFiles are Options.Protected and the policy's own files, absolute.
func protectedFiles(o Options) []string {
	var out []string
	add := func(f string) {
		if abs, err := filepath.Abs(f); err == nil {
			out = append(out, abs)
		}
	}
	for _, f := range o.Protected {
		add(f)
	}
	if s := o.GrantsStore; s != nil && s.File() != "" {
		add(s.File())
		add(s.LockFile())
		// The tool pins beside it: a tool that could write them could
		// approve its own server's change.
		pins := grants.PinsFileFor(s.File())
		add(pins)
		add(pins + ".lock")
	}
	for _, m := range o.Modules {
		if info, err := os.Stat(m.Name); m.Name != "" && err == nil && info.Mode().IsRegular() {
			add(m.Name)
		}
	}
	return out
}

func validateGrants(gs []Rule) ([]Rule, error) {
	out, err := rules.ValidateAll(gs, "grant")
	if err != nil {
		return nil, err
	}
	for i, g := range out {
		if g.Decision == Ask {
			return nil, &rules.ValidationError{Rule: fmt.Sprintf("grant %d", i+1), Field: "decision",
				Msg: `a grant remembers an answer: "allow" or "deny", not "ask"`}
		}
		if len(g.Data) > 0 {
			return nil, &rules.ValidationError{Rule: fmt.Sprintf("grant %d", i+1), Field: "data",
				Msg: "a grant remembers an answer: what a tool's arguments hold is said in the rules"}
		}
	}
	return out, nil
}

// DefaultDecisionTimeout bounds a decision unless Options.DecisionTimeout
// says otherwise: a team's module that loops must not hang every call.
const DefaultDecisionTimeout = 5 * time.Second

// DefaultRules returns the rules of the embedded default.rego: reads by
// read-only tools on local paths, user_ask / *_user_ask, and the MCP
// requests prompts/get and completion/complete.
func DefaultRules() []Rule { return rules.DefaultRules() }

// Interactive reports whether there is someone to ask (OnAsk is set).
// Wire a client's elicitation hook only when it is true: declaring the
// capability invites the server to ask.
func (p *Policy) Interactive() bool { return p.onAsk() != nil }

// ToolsForLLM passes the provider's catalogue through, unshortened, and
// keeps it for the annotations and schemas decisions read. A name listed
// twice is decided as a tool whose catalogue entry is unknown.
func (p *Policy) ToolsForLLM(ctx context.Context) ([]provider.Tool, error) {
	tools, err := p.provider().ToolsForLLM(ctx)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]*provider.Tool, len(tools))
	for i := range tools {
		t := tools[i]
		if _, dup := byName[t.Function.Name]; dup {
			// Two entries, two sets of annotations and schemas: which one
			// the call is for cannot be told, so the tool is unknown.
			byName[t.Function.Name] = nil
			continue
		}
		byName[t.Function.Name] = &t
	}
	p.tools.Store(&byName)
	if p.opts.ListDeniedTools {
		return tools, nil
	}
	shown := tools[:0:0]
	for _, t := range tools {
		if !p.DeniesOutright(t) {
			shown = append(shown, t)
		}
	}
	return shown, nil
}

// DeniesOutright says a rule or a grant denies every call of the tool,
// whatever the call names: a deny whose only conditions are the tool's
// name and annotations it has. ToolsForLLM leaves such tools out (unless
// Options.ListDeniedTools); a call to one is still decided, and denied.
// A team's Rego module may deny more, by what a call names: that is not
// read here.
func (p *Policy) DeniesOutright(t provider.Tool) bool {
	set := p.current.Load()
	if set == nil || !set.loaded {
		return false
	}
	if set.engine.DeniesOutright(t.Function.Name, t.Annotations) {
		return true
	}
	for _, g := range p.grantSets() {
		if g.DeniesOutright(t.Function.Name, t.Annotations) {
			return true
		}
	}
	return false
}

// tool returns the catalogue entry of a tool, listing the catalogue once
// if nobody has yet. nil means unknown: annotation rules then never match.
// With PinnedCatalogue an unknown tool is an entry whose definition no
// human approved.
func (p *Policy) tool(ctx context.Context, name string) *provider.Tool {
	tools := p.tools.Load()
	if tools == nil {
		if _, err := p.ToolsForLLM(ctx); err == nil {
			tools = p.tools.Load()
		}
	}
	var t *provider.Tool
	if tools != nil {
		t = (*tools)[name]
	}
	if t != nil || !p.opts.PinnedCatalogue {
		return t
	}
	return &provider.Tool{Type: "function", Function: provider.ToolFunction{Name: name}, DefinitionChange: unlistedChange}
}

// unlistedChange is the DefinitionChange of a tool a pinned catalogue does
// not list once: the server may offer the model a definition no pin saw.
const unlistedChange = "it is not in the server's tool list as the proxy read it (not listed, listed twice, or a list the proxy could not read)"

// Grants returns the effective grants: this policy's own, then the
// store's. A copy.
func (p *Policy) Grants() []Rule {
	out := p.own.List()
	if s := p.opts.GrantsStore; s != nil {
		out = append(out, s.List()...)
	}
	return out
}

// maxNear bounds Question.Near: enough to explain, not a listing.
const maxNear = 3

// near are the allow grants for tool (up to maxNear) that did not answer
// the call just asked about: see Question.Near. It runs only when a human
// is about to be asked, so reading every grant is cheap beside it.
func (p *Policy) near(tool string) []Rule {
	var out []Rule
	for _, g := range p.Grants() {
		if g.Decision == Allow && lexical.MatchTool(g.Tool, tool) {
			out = append(out, g)
			if len(out) == maxNear {
				break
			}
		}
	}
	return out
}

// grantSets are the grants an asked call is answered by, in order: this
// policy's own, then the store's (as of now: a store on a file is read
// again if another process changed it).
func (p *Policy) grantSets() []*grants.Set {
	if s := p.opts.GrantsStore; s != nil {
		return []*grants.Set{p.own, s.Grants()}
	}
	return []*grants.Set{p.own}
}

// remember adds the grants an answer to q left, expiring after ttl (0:
// the store's TTL): to the store when there is one (which records q), else
// to this policy's own list, which keeps no expiry. All or nothing.
func (p *Policy) remember(q *grants.Question, ttl time.Duration, gs []Rule) error {
	if s := p.opts.GrantsStore; s != nil {
		return s.RememberFor(q, ttl, gs...)
	}
	if ttl > 0 {
		return fmt.Errorf("a grant that expires needs a grants store (Options.GrantsStore); without one nothing expires")
	}
	p.own.Add(gs...)
	return nil
}

// Decide is the static decision plus the grants, as a call would get it
// before anyone is asked. It never asks.
func (p *Policy) Decide(ctx context.Context, call provider.Call) (Decision, error) {
	set := p.current.Load()
	if !set.loaded {
		return Decision{}, ErrNotLoaded
	}
	d, _, err := p.decide(ctx, set.engine, call)
	return d, err
}

// decide is the static decision by engine, plus the grants when it asks:
// an allowed or denied call never looks at them.
func (p *Policy) decide(ctx context.Context, engine *rules.Engine, call provider.Call) (Decision, *rules.Input, error) {
	d, in, err := engine.Decide(ctx, call, p.tool(ctx, call.Function.Name))
	if err != nil {
		return Decision{}, nil, err
	}
	if d.Decision != Ask {
		return d, in, nil
	}
	return grants.Apply(d, in, p.grantSets()...), in, nil
}

// GrantDecision says how the grants alone would decide a call that the
// static rules ask about: what a host that asks the human itself checks
// before opening a dialog. ok is false when the grants have nothing to say
// (or the call is not an ask at all).
func (p *Policy) GrantDecision(call provider.Call) (decision Verdict, ok bool) {
	d, err := p.Decide(context.Background(), call)
	if err != nil || d.Reason != ReasonGrant {
		return "", false
	}
	return d.Decision, true
}
