package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcp-policy/mcp-policy/decisionlog"
	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
	"github.com/mcp-policy/mcp-policy/internal/managed"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/strictjson"
	"github.com/mcp-policy/mcp-policy/internal/verdict"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
	"github.com/mcp-policy/mcp-policy/telemetry"
)

// output is one line of decide's answer.
type output struct {
	ID         string           `json:"id"`
	Tool       string           `json:"tool"`
	Decision   verdict.Decision `json:"decision"`
	Reason     rules.Reason     `json:"reason"`
	Rule       *rules.Rule      `json:"rule"`
	Grant      *rules.Rule      `json:"grant"`
	Paths      []string         `json:"paths"`
	Hosts      []string         `json:"hosts"`
	Suggestion *rules.Rule      `json:"suggestion"`
	// Read is what the reader found, with --explain: each path and host,
	// the argument it came from and where in the arguments.
	Read []reading `json:"read,omitempty"`
}

// reading is one path or host of a call, as --explain shows it.
type reading struct {
	Kind     string `json:"kind"` // "path" or "host"
	Arg      string `json:"arg"`
	Pointer  string `json:"at"`
	Raw      any    `json:"raw"`
	Resolved string `json:"resolved"` // "" for unknown
	Dir      bool   `json:"dir,omitempty"`
}

type failure struct {
	ID    *string `json:"id"`
	Error string  `json:"error"`
}

type decider struct {
	explain bool
	// engine decides; a rule source (--config's bundles) swaps it while
	// lines are being decided, each line by the one in force when it
	// starts. revisions name the bundles it was built from.
	engine    atomic.Pointer[revisioned]
	grants    *grants.Set
	tools     map[string]*provider.Tool
	decisions func(policy.Record) // OPA's decision-log plugin; nil for none
	telemetry *telemetry.Recorder // nil when the OTEL_* variables leave it off
	protected []string
}

type revisioned struct {
	engine    *rules.Engine
	revisions map[string]string
}

// maxLine bounds one line of calls: the arguments a call may have, written
// as a JSON string (every byte escaped at worst), and the rest of the call.
const maxLine = 6*rules.MaxArgumentsBytes + 1<<16

func decide(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("decide", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var pf cliconfig.Flags
	pf.Register(fs)
	toolsFile := fs.String("tools", "", "a tools/list result or a []Tool, for annotations and schemas")
	explain := fs.Bool("explain", false, "show each path and host read, the argument it came from and where in the arguments")
	wait := fs.Duration("wait", 30*time.Second, "with --config's bundles: how long to wait for the first to be active before giving up")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK // asked for, and printed
		}
		return exitUsage
	}
	if fs.NArg() > 1 {
		fmt.Fprintln(stderr, "policy-eval decide: at most one CALL (give several as JSON lines on stdin)")
		return exitUsage
	}
	say := func(line string) { fmt.Fprintf(stderr, "policy-eval decide: %s\n", line) }
	tel, stopTelemetry, err := cliconfig.StartTelemetry("policy-eval", say)
	if err != nil {
		say(err.Error())
		return exitUsage
	}
	defer stopTelemetry()
	d, live, err := newDecider(pf, *toolsFile, *wait, tel, say, stderr)
	if err != nil {
		say(err.Error())
		return exitUsage
	}
	defer func() {
		// The decisions OPA's plugin still holds go up before exiting.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		live.Stop(ctx)
	}()
	d.explain = *explain
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	code := exitOK
	decideLine := func(line []byte) {
		v := d.decideLine(line)
		if _, bad := v.(failure); bad {
			code = exitMalformed
		}
		_ = enc.Encode(v)
	}
	if fs.NArg() == 1 {
		decideLine([]byte(fs.Arg(0)))
		return code
	}
	r := bufio.NewReader(stdin)
	for {
		line, tooLong, err := readLine(r, maxLine)
		switch {
		case tooLong:
			code = exitMalformed
			_ = enc.Encode(failure{Error: fmt.Sprintf("malformed call: the line is longer than %d bytes", maxLine)})
			_ = out.Flush()
		case len(bytes.TrimSpace(line)) > 0:
			decideLine(line)
			// Answer each line as it is decided: a caller may be waiting
			// on a pipe for it.
			_ = out.Flush()
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintf(stderr, "policy-eval decide: reading stdin: %v\n", err)
				return exitMalformed
			}
			return code
		}
	}
}

// readLine reads one line, newline included, of at most limit bytes; a
// longer one is read to its end and dropped (tooLong).
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}

// newDecider loads the flags and, with --config, starts OPA's plugins:
// the rules then come from the bundles, the first awaited for wait, and
// decisions go to the decision-log service. The files of --rules and
// --policy are read once: decide is not a daemon.
func newDecider(pf cliconfig.Flags, toolsFile string, wait time.Duration, tel *telemetry.Recorder, say func(string), stderr io.Writer) (*decider, *managed.Managed, error) {
	cfg, err := pf.Load()
	if err != nil {
		return nil, nil, err
	}
	d, err := loadDecider(cfg, toolsFile)
	if err != nil {
		return nil, nil, err
	}
	d.telemetry = tel
	live := &managed.Managed{}
	if cfg.OPAConfigFile == "" {
		return d, live, nil
	}
	if live, err = managed.Start(context.Background(), cfg, false, say, stderr, decisionlog.Options{}, cliconfig.Activations(tel)); err != nil {
		return nil, nil, err
	}
	d.decisions = live.Decisions()
	if live.Plane == nil || !live.Plane.HasBundles() {
		return d, live, nil
	}
	base := d.engine.Load().engine
	live.Plane.Watch(func(set policy.RuleSet) error {
		e, err := base.Reload(context.Background(), rules.Config{
			Rules: append(slices.Clone(cfg.Rules), set.Rules...), Modules: append(slices.Clone(cfg.Modules), set.Modules...),
			Roots: cfg.Roots, Home: cfg.HomeFor(""), ResolveLinks: cfg.LinksFor(false), Protected: d.protected, Arguments: cfg.Arguments, DecisionTimeout: cfg.Timeout,
		})
		if err != nil {
			return err
		}
		d.engine.Store(&revisioned{engine: e, revisions: set.Revisions})
		return nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := live.Plane.Ready(ctx); err != nil {
		live.Stop(context.Background())
		return nil, nil, fmt.Errorf("--config %s: %v within --wait %v: nothing is decided without the team's rules", cfg.OPAConfigFile, err, wait)
	}
	return d, live, nil
}

// loadDecider is the decider for the rules, grants and tools the flags
// name.
func loadDecider(cfg *cliconfig.Config, toolsFile string) (*decider, error) {
	gs, err := cfg.LoadGrants()
	if err != nil {
		return nil, err
	}
	protected := cfg.Protected
	tools := map[string]*provider.Tool{}
	if toolsFile, err = cliconfig.ExpandPath("--tools", toolsFile); err != nil {
		return nil, err
	}
	if toolsFile != "" {
		if tools, err = loadTools(toolsFile); err != nil {
			return nil, err
		}
		// The schemas say which arguments are paths: the policy's too.
		protected = append(protected, absPath(toolsFile))
	}
	engine, err := rules.NewEngine(context.Background(), rules.Config{
		Rules: cfg.Rules, Modules: cfg.Modules, Roots: cfg.Roots, Home: cfg.HomeFor(""), ResolveLinks: cfg.LinksFor(false), Protected: protected, Arguments: cfg.Arguments,
		DecisionTimeout: cfg.Timeout,
	})
	if err != nil {
		return nil, err
	}
	d := &decider{grants: grants.NewSet(gs), tools: tools, protected: protected}
	d.engine.Store(&revisioned{engine: engine})
	return d, nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// loadTools reads a tools/list result ({"tools":[...]}, MCP's shape) or an
// array of provider.Tool (optionally with "annotations" beside "function").
func loadTools(file string) (map[string]*provider.Tool, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if err := strictjson.Check(data); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	var list []json.RawMessage
	var wrapped struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(data, &list) != nil {
		if err := json.Unmarshal(data, &wrapped); err != nil || wrapped.Tools == nil {
			return nil, fmt.Errorf("%s: want a tools/list result or an array of tools", file)
		}
		list = wrapped.Tools
	}
	out := map[string]*provider.Tool{}
	for i, raw := range list {
		var t struct {
			Name        string                 `json:"name"`
			Description string                 `json:"description"`
			InputSchema json.RawMessage        `json:"inputSchema"`
			Annotations *provider.Annotations  `json:"annotations"`
			Function    *provider.ToolFunction `json:"function"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("%s: tool %d: %v", file, i+1, err)
		}
		tool := &provider.Tool{Type: "function", Annotations: t.Annotations}
		if t.Function != nil {
			tool.Function = *t.Function
		} else {
			tool.Function = provider.ToolFunction{Name: t.Name, Description: t.Description, Parameters: t.InputSchema}
		}
		if tool.Function.Name == "" {
			return nil, fmt.Errorf("%s: tool %d has no name", file, i+1)
		}
		if tool.Annotations == nil {
			// Listed without annotations: the server said nothing, which is
			// known, not unknown.
			tool.Annotations = &provider.Annotations{}
		}
		if _, dup := out[tool.Function.Name]; dup {
			return nil, fmt.Errorf("%s: tool %q listed twice", file, tool.Function.Name)
		}
		out[tool.Function.Name] = tool
	}
	return out, nil
}

// decideLine returns an output or a failure for one JSON call.
func (d *decider) decideLine(line []byte) (out any) {
	call, err := parseCall(line)
	if err != nil {
		return failure{ID: idOf(line), Error: err.Error()}
	}
	defer func() {
		// A failure inside the engine is this call's error line, as the
		// library's is that call's refusal: the other lines are decided.
		if v := recover(); v != nil {
			out = failure{ID: &call.ID, Error: fmt.Sprintf("could not decide '%s' (internal error: %v)", call.Function.Name, v)}
		}
	}()
	current := d.engine.Load()
	started := time.Now()
	dec, in, err := current.engine.Decide(context.Background(), call, d.tools[call.Function.Name])
	if err != nil {
		d.log(policy.Record{Call: call, Revisions: current.revisions, Error: err.Error(), Started: started, Deciding: time.Since(started)})
		return failure{ID: &call.ID, Error: err.Error()}
	}
	dec = grants.Apply(dec, in, d.grants)
	// decide answers for a caller that runs the call itself: "allowed"
	// in the log means the answer let it.
	d.log(policy.Record{Call: call, Revisions: current.revisions, Arguments: in.Arguments(), Decision: &dec,
		Allowed: dec.Decision == rules.Allow, Started: started, Deciding: time.Since(started)})
	o := output{ID: call.ID, Tool: call.Function.Name, Decision: dec.Decision, Reason: dec.Reason,
		Rule: dec.Rule, Grant: dec.Grant, Paths: dec.Paths, Hosts: dec.Hosts, Suggestion: dec.Suggestion}
	if d.explain {
		o.Read = []reading{} // shown empty: nothing was read
		for kind, vs := range map[string][]rules.Value{"path": in.Paths, "host": in.Hosts} {
			for _, v := range vs {
				o.Read = append(o.Read, reading{Kind: kind, Arg: v.Arg, Pointer: v.Pointer, Raw: v.Raw(), Resolved: v.Resolved, Dir: v.Dir})
			}
		}
		slices.SortStableFunc(o.Read, func(a, b reading) int { return strings.Compare(a.Kind+a.Pointer, b.Kind+b.Pointer) })
	}
	return o
}

// log sends rec to OPA's decision-log plugin, when --config has one, and
// to telemetry, when it is on.
func (d *decider) log(rec policy.Record) {
	if d.decisions == nil && d.telemetry == nil {
		return
	}
	rec.ID, rec.Time, rec.Policy = policy.NewID(), time.Now(), "policy-eval"
	if d.decisions != nil {
		d.decisions(rec)
	}
	if d.telemetry != nil {
		d.telemetry.Record(rec)
	}
}

// parseCall reads {"id", "function": {"name", "arguments"}}, arguments a
// JSON string or object.
func parseCall(line []byte) (provider.Call, error) {
	if err := strictjson.Check(line); err != nil {
		return provider.Call{}, fmt.Errorf("malformed call: %v", err)
	}
	var c struct {
		ID       json.RawMessage `json:"id"`
		Type     string          `json:"type"`
		Function *struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	if err := json.Unmarshal(line, &c); err != nil {
		return provider.Call{}, fmt.Errorf("malformed call: %v", err)
	}
	if c.Function == nil || c.Function.Name == "" {
		return provider.Call{}, errors.New(`malformed call: want {"id":…, "function":{"name":…, "arguments":…}}`)
	}
	call := provider.Call{Type: c.Type, Function: provider.CallFunction{Name: c.Function.Name}}
	if len(c.ID) > 0 && string(c.ID) != "null" {
		var id string
		if err := json.Unmarshal(c.ID, &id); err != nil {
			call.ID = string(c.ID) // a number, as written
		} else {
			call.ID = id
		}
	}
	args := bytes.TrimSpace(c.Function.Arguments)
	switch {
	case len(args) == 0 || string(args) == "null":
		call.Function.Arguments = ""
	case args[0] == '"':
		if err := json.Unmarshal(args, &call.Function.Arguments); err != nil {
			return provider.Call{}, fmt.Errorf("malformed call: arguments: %v", err)
		}
	case args[0] == '{':
		call.Function.Arguments = string(args)
	default:
		return provider.Call{}, errors.New("malformed call: arguments must be a JSON object or a string holding one")
	}
	return call, nil
}

// idOf recovers a malformed line's id where it can, so the caller can tell
// which call failed.
func idOf(line []byte) *string {
	var c struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(line, &c) != nil || c.ID == nil {
		return nil
	}
	s, ok := c.ID.(string)
	if !ok {
		b, _ := json.Marshal(c.ID)
		s = string(b)
	}
	return &s
}
