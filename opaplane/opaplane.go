// Package opaplane runs OPA's management plane for mcp-policy: an OPA
// configuration file (services, bundles, decision_logs, status, keys,
// labels) read and run by OPA's own plugin manager, with its bundle,
// decision-log and status plugins. Nothing here downloads, verifies,
// batches or uploads: OPA's plugins do, as they do for OPA.
//
// A Plane is a policy.RuleSource: each bundle activation is read out of
// the manager's store — the Rego modules, and the data rules at
// data.mcp.rules — validated and compiled, and swapped in; a set that
// does not validate is refused and the rules in force stay. Its Log is a
// policy.Options.OnDecision: each decision goes to OPA's decision-log
// plugin in OPA's event shape, its arguments masked as package
// decisionlog masks them.
//
//	plane, err := opaplane.New(ctx, opaplane.Options{Config: raw})
//	…
//	p, err := policy.New(policy.Options{…, Source: plane, OnDecision: plane.Log})
package opaplane

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/plugins"
	"github.com/open-policy-agent/opa/v1/plugins/bundle"
	"github.com/open-policy-agent/opa/v1/plugins/discovery"
	"github.com/open-policy-agent/opa/v1/plugins/logs"
	"github.com/open-policy-agent/opa/v1/server"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/util"

	"github.com/mcp-policy/mcp-policy/decisionlog"
	"github.com/mcp-policy/mcp-policy/internal/regoeval"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
)

// rulesPath is where in a bundle's data the data rules live: a JSON array
// of rules, in the shape of a --rules file, at data.mcp.rules (the file
// mcp/rules/data.json of the bundle's directory, or "rules" in
// mcp/data.json).
var rulesPath = storage.Path{"mcp", "rules"}

// statusName is the name this package reports under in OPA's status
// plugin: OK with the revisions in force, or an error saying why a bundle
// OPA activated was refused by the policy.
const statusName = "mcp-policy"

// Options configure a Plane.
type Options struct {
	// Config is the OPA configuration, YAML or JSON, in OPA's schema.
	Config []byte
	// Manager, instead of Config, is a plugin manager the caller runs,
	// built with OPA's plugins.New and its plugins registered (as OPA's
	// SDK or runtime does): the rules come from every bundle of its bundle
	// plugin, decisions go to its decision-log plugin. The caller starts
	// and stops it; the plane's Stop then only hands over the decisions
	// it holds. Register the plane before starting it; a bundle already
	// active is taken at the plugin's next download attempt.
	Manager *plugins.Manager
	// ID names this instance to the services (OPA's instance id); a random
	// one when empty.
	ID string
	// Stderr gets the plugins' messages and the plane's own (a bundle
	// refused, and why). Default os.Stderr.
	Stderr io.Writer
	// Log configures the decision-log events as decisionlog.Options
	// configures the local log: arguments masked unless FullArguments.
	// Labels are OPA's (the config's labels, id and version).
	Log decisionlog.Options
	// OnActivation, when set, is told of each set of bundles OPA
	// activated — err is nil when the rules were taken, else why they
	// were refused — and of each download or activation of a bundle that
	// OPA itself failed (unsigned, forged, corrupt, uncompilable, the
	// service down), with that bundle's name and an empty revision.
	// Telemetry counts both.
	OnActivation func(revisions map[string]string, err error)
}

// Plane is OPA's plugin manager running one configuration. It is safe for
// concurrent use.
type Plane struct {
	manager *plugins.Manager
	owned   bool // made here from Options.Config: started and stopped here
	metrics metrics.Metrics
	logs    *logs.Plugin // nil without decision_logs
	// queue hands decisions to the one goroutine that gives them to the
	// logs plugin, in order: its Log masks, runs the mask and drop
	// policies and encodes each event, which costs several times a
	// decision, so the decision does not wait for it.
	queue    chan policy.Record
	quit     chan struct{}
	drained  chan struct{}
	stopOnce sync.Once
	masker   *decisionlog.Logger
	stderr   io.Writer
	bundles  []string // configured bundle names, sorted
	onActive func(revisions map[string]string, err error)

	mu       sync.Mutex
	current  *policy.RuleSet      // nil until every bundle has been activated once
	seen     map[string]time.Time // each bundle's activation last read
	failed   map[string]time.Time // each bundle's failed request last told
	watchers map[int]func(policy.RuleSet) error
	nextID   int
	stopped  bool
}

// New parses the configuration, starts OPA's plugins and returns at once:
// bundles download in the background (Ready says when the first set is
// active). An invalid configuration is an error naming what is wrong.
func New(ctx context.Context, o Options) (*Plane, error) {
	regoeval.Register() // a bundle's modules may call the policy's builtins: OPA's compiler must know them
	stderr := &lockedWriter{w: o.Stderr}
	if o.Stderr == nil {
		stderr.w = os.Stderr
	}
	id := o.ID
	if id == "" {
		id = policy.NewID()
	}
	m := metrics.New()
	manager, owned := o.Manager, o.Manager == nil
	if owned {
		var err error
		if manager, err = newManager(o.Config, id, stderr, m); err != nil {
			return nil, err
		}
	}
	p := &Plane{manager: manager, owned: owned, metrics: m, logs: logs.Lookup(manager), masker: decisionlog.New(io.Discard, o.Log), stderr: stderr, onActive: o.OnActivation,
		seen: map[string]time.Time{}, failed: map[string]time.Time{}, watchers: map[int]func(policy.RuleSet) error{}}
	if b := bundle.Lookup(manager); b != nil {
		p.bundles = slices.Sorted(maps.Keys(b.Config().Bundles))
		manager.UpdatePluginStatus(statusName, &plugins.Status{State: plugins.StateNotReady, Message: "no bundle activated yet"})
		b.RegisterBulkListener(p, p.bundlesChanged)
	}
	if owned {
		if err := manager.Start(ctx); err != nil {
			return nil, fmt.Errorf("opa plugins: %w", err)
		}
	}
	p.quit, p.drained = make(chan struct{}), make(chan struct{})
	if p.logs != nil {
		p.queue = make(chan policy.Record, queueLength)
		go p.drain()
	} else {
		close(p.drained)
	}
	return p, nil
}

// newManager is OPA's plugin manager for config, its plugins registered
// and not yet started.
func newManager(config []byte, id string, stderr io.Writer, m metrics.Metrics) (*plugins.Manager, error) {
	var boot map[string]any
	if err := util.Unmarshal(config, &boot); err != nil {
		return nil, fmt.Errorf("opa config: %w", err)
	}
	logger := newLineLogger(stderr)
	manager, err := plugins.New(config, id, inmem.New(), plugins.Logger(logger), plugins.ConsoleLogger(logger))
	if err != nil {
		return nil, fmt.Errorf("opa config: %w", err)
	}
	// Discovery without a discovery service registers the plugins the boot
	// configuration names, exactly as the opa binary and OPA's SDK do.
	// One metrics registry for every plugin: the status plugin reports it,
	// the decision-log plugin's dropped-event counters included.
	d, err := discovery.New(manager, discovery.BootConfig(boot), discovery.Metrics(m))
	if err != nil {
		return nil, fmt.Errorf("opa config: %w", err)
	}
	manager.Register(discovery.Name, d)
	return manager, nil
}

// Manager is OPA's plugin manager the plane runs, for a caller that adds
// plugins of its own or reads their status.
func (p *Plane) Manager() *plugins.Manager { return p.manager }

// HasBundles reports whether the configuration names bundles: then the
// rules come from them, and a policy fed by the plane refuses every call
// until they are active.
func (p *Plane) HasBundles() bool { return len(p.bundles) > 0 }

// HasDecisionLogs reports whether the configuration sends decisions
// somewhere (decision_logs with a service, the console or a plugin).
func (p *Plane) HasDecisionLogs() bool { return p.logs != nil }

// DroppedDecisions is how many decision-log events OPA's plugin dropped
// because its buffer was full (buffer_size_limit_bytes or
// buffer_size_limit_events) or its rate limit exceeded: the collector was
// down or slow for longer than the buffer holds. The status plugin reports
// the same counters.
func (p *Plane) DroppedDecisions() uint64 {
	var n uint64
	for name, v := range p.metrics.All() {
		if c, ok := v.(uint64); ok && strings.HasPrefix(name, "counter_decision_logs_dropped_") {
			n += c
		}
	}
	return n
}

// Stop stops the plugins, uploading what the decision-log buffer holds
// first, as OPA does on shutdown; ctx bounds the wait.
func (p *Plane) Stop(ctx context.Context) {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
	p.stopOnce.Do(func() { close(p.quit) })
	select {
	case <-p.drained: // every queued decision is in the plugin's buffer
	case <-ctx.Done():
	}
	if p.owned {
		p.manager.Stop(ctx)
	}
}

// Watch is policy.RuleSource's: activate gets the current set, if every
// bundle has been activated, and each set after. Calls are made one at a
// time, in the order of activation.
func (p *Plane) Watch(activate func(policy.RuleSet) error) (stop func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	id := p.nextID
	p.nextID++
	p.watchers[id] = activate
	if p.current != nil {
		_ = activate(*p.current) // validated once already: the plane's own check passed
	}
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(p.watchers, id)
	}
}

// Current is the rule set in force, and false until every bundle has been
// activated once.
func (p *Plane) Current() (policy.RuleSet, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.current == nil {
		return policy.RuleSet{}, false
	}
	return *p.current, true
}

// Ready returns once a rule set is in force, or with ctx's error.
func (p *Plane) Ready(ctx context.Context) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, ok := p.Current(); ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no rule bundle activated: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// bundlesChanged is the bundle plugin's listener, called after each
// download attempt with every bundle's status. When every bundle has been
// activated and one of them anew, the set is read from the store,
// validated, and handed to the watchers.
func (p *Plane) bundlesChanged(status map[string]*bundle.Status) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.tellFailures(status)
	fresh := false
	revisions := map[string]string{}
	for _, name := range p.bundles {
		s := status[name]
		if s == nil || s.LastSuccessfulActivation.IsZero() {
			return // not every bundle yet: the policy keeps refusing
		}
		revisions[name] = s.ActiveRevision
		if !s.LastSuccessfulActivation.Equal(p.seen[name]) {
			fresh = true
		}
	}
	if !fresh {
		return
	}
	for _, name := range p.bundles {
		p.seen[name] = status[name].LastSuccessfulActivation
	}
	set, err := p.readSet(revisions)
	if err == nil {
		err = validate(set)
	}
	if err != nil {
		p.refused(revisions, err)
		return
	}
	for _, id := range slices.Sorted(maps.Keys(p.watchers)) {
		if werr := p.watchers[id](set); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		p.refused(revisions, err)
		return
	}
	p.current = &set
	if p.onActive != nil {
		p.onActive(revisions, nil)
	}
	p.manager.UpdatePluginStatus(statusName, &plugins.Status{State: plugins.StateOK,
		Message: "rules in force: " + describeRevisions(revisions)})
	fmt.Fprintf(p.stderr, "mcp-policy: rules in force from bundle %s\n", describeRevisions(revisions))
}

// tellFailures tells OnActivation of each bundle whose last request
// failed, once per request (OPA's status plugin and stderr already say
// why).
func (p *Plane) tellFailures(status map[string]*bundle.Status) {
	if p.onActive == nil {
		return
	}
	for _, name := range p.bundles {
		s := status[name]
		if s == nil || s.Code == "" || s.LastRequest.Equal(p.failed[name]) {
			continue
		}
		p.failed[name] = s.LastRequest
		p.onActive(map[string]string{name: ""}, fmt.Errorf("bundle %s: %s: %s", name, s.Code, s.Message))
	}
}

// refused says, on stderr and through OPA's status plugin, that the
// bundles OPA activated were not taken, and why.
func (p *Plane) refused(revisions map[string]string, err error) {
	stay := "no rules: every call is refused until a bundle validates"
	if p.current != nil {
		stay = "the rules of " + describeRevisions(p.current.Revisions) + " stay in force"
	}
	if p.onActive != nil {
		p.onActive(revisions, err)
	}
	msg := fmt.Sprintf("bundle %s refused: %v; %s", describeRevisions(revisions), err, stay)
	fmt.Fprintf(p.stderr, "mcp-policy: %s\n", msg)
	p.manager.UpdatePluginStatus(statusName, &plugins.Status{State: plugins.StateErr, Message: msg})
}

// readSet reads every module and the data rules out of the store, as the
// bundle plugin left it.
func (p *Plane) readSet(revisions map[string]string) (policy.RuleSet, error) {
	set := policy.RuleSet{Revisions: revisions}
	ctx := context.Background()
	err := storage.Txn(ctx, p.manager.Store, storage.TransactionParams{}, func(txn storage.Transaction) error {
		ids, err := p.manager.Store.ListPolicies(ctx, txn)
		if err != nil {
			return err
		}
		sort.Strings(ids)
		for _, id := range ids {
			src, err := p.manager.Store.GetPolicy(ctx, txn, id)
			if err != nil {
				return err
			}
			set.Modules = append(set.Modules, rules.Module{Name: id, Source: string(src)})
		}
		data, err := p.manager.Store.Read(ctx, txn, rulesPath)
		if storage.IsNotFound(err) {
			return nil // modules only
		}
		if err != nil {
			return err
		}
		if v, ok := data.(ast.Value); ok {
			if data, err = ast.JSON(v); err != nil {
				return err
			}
		}
		raw, err := json.Marshal(data)
		if err != nil {
			return err
		}
		set.Rules, err = rules.ParseRules(raw, "data."+strings.Join(rulesPath, "."))
		return err
	})
	return set, err
}

// validate compiles set on its own, so that a set that cannot decide is
// refused once, before any policy is handed it.
func validate(set policy.RuleSet) error {
	_, err := rules.NewEngine(context.Background(), rules.Config{Rules: set.Rules, Modules: set.Modules})
	return err
}

func describeRevisions(revisions map[string]string) string {
	if len(revisions) == 0 {
		return "(none)"
	}
	parts := make([]string, 0, len(revisions))
	for _, name := range slices.Sorted(maps.Keys(revisions)) {
		r := revisions[name]
		if r == "" {
			r = "(no revision)"
		}
		parts = append(parts, fmt.Sprintf("%s revision %s", name, r))
	}
	return strings.Join(parts, ", ")
}

// queueLength is how many decisions wait for the decision-log plugin
// before more are dropped (and counted as
// decision_logs_dropped_queue_full).
const queueLength = 4096

// Log sends rec to OPA's decision-log plugin: the function to give
// policy.Options.OnDecision. It only queues the decision: a goroutine hands
// it to the plugin, which batches, compresses and uploads in the
// background, and drops (and counts) what its buffer cannot hold, so a
// collector down or slow never holds a decision up. Without decision_logs
// it does nothing.
func (p *Plane) Log(rec policy.Record) {
	if p.queue == nil {
		return
	}
	select {
	case p.queue <- rec:
	default:
		p.metrics.Counter("decision_logs_dropped_queue_full").Incr()
	}
}

// drain gives queued decisions to the plugin until Stop, and then those
// still queued.
func (p *Plane) drain() {
	defer close(p.drained)
	for {
		select {
		case rec := <-p.queue:
			p.send(rec)
		case <-p.quit:
			for {
				select {
				case rec := <-p.queue:
					p.send(rec)
				default:
					return
				}
			}
		}
	}
}

// send gives rec to the plugin.
func (p *Plane) send(rec policy.Record) {
	info, err := p.event(rec)
	if err == nil {
		err = p.logs.Log(context.Background(), info)
	}
	if err != nil {
		fmt.Fprintf(p.stderr, "mcp-policy: decision %s not logged: %v\n", rec.ID, err)
	}
}

// event is rec as OPA's decision log carries it: the input (the call,
// arguments masked), the result (the rules' and grants' decision
// document), the bundles' revisions, and this project's fields — the
// question, answer, grants remembered, whether the call ran — under
// "custom".
func (p *Plane) event(rec policy.Record) (*server.Info, error) {
	e := p.masker.Entry(rec)
	input, err := roundTrip(e.Input)
	if err != nil {
		return nil, err
	}
	custom := map[string]any{"allowed": e.Allowed, "policy": rec.Policy}
	add := func(k string, v any, present bool) {
		if present {
			custom[k] = v
		}
	}
	add("erased", e.Erased, len(e.Erased) > 0)
	add("question", e.Question, e.Question != nil)
	add("answer", e.Answer, e.Answer != nil)
	add("remembered", e.Remembered, len(e.Remembered) > 0)
	add("refusal", e.Refusal, e.Refusal != "")
	add("error", e.Error, e.Error != "")
	add("warnings", e.Warnings, len(e.Warnings) > 0)
	cv, err := roundTrip(custom)
	if err != nil {
		return nil, err
	}
	info := &server.Info{DecisionID: rec.ID, Path: decisionlog.Path, Timestamp: rec.Time, Input: &input,
		Custom: cv.(map[string]any)}
	if e.Result != nil {
		result, err := roundTrip(e.Result)
		if err != nil {
			return nil, err
		}
		info.Results = &result
	}
	if len(e.Bundles) > 0 {
		info.Bundles = make(map[string]server.BundleInfo, len(e.Bundles))
		for name, b := range e.Bundles {
			info.Bundles[name] = server.BundleInfo{Revision: b.Revision}
		}
	}
	return info, nil
}

// roundTrip is v as JSON decodes it: what OPA's event encoder and mask
// policies read.
func roundTrip(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := util.UnmarshalJSON(raw, &out); err != nil {
		return nil, err
	}
	return out, nil
}
