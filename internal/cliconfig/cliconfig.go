// Package cliconfig loads what the commands' policy flags name — --rules,
// --no-default-rules, --policy, --root, --grants, --arguments, --timeout
// and --config — the same way for every command (policy-eval decide, mcp-policy proxy), with errors that
// name the file and, where the file has lines, the line.
package cliconfig

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/grants/pgstore"
	"github.com/mcp-policy/mcp-policy/internal/rules"
)

// Flags are the policy flags as given.
type Flags struct {
	Rules      string   // --rules FILE: a JSON array of rules, after the default rules
	NoDefaults bool     // --no-default-rules
	Policies   []string // --policy PATH (repeatable): a Rego module or a directory of them
	Roots      []string // --root KEY=DIR (repeatable)
	Home       string   // --home DIR: what "~" names where the server runs ("none": unknown)
	Links      string   // --links resolve|lexical: whether paths are also resolved through the file system
	Grants     string   // --grants FILE or postgres:// URL
	Labels     []string // --label KEY=VALUE or NAME (repeatable): recorded with each grant
	GrantTTL   time.Duration
	Arguments  []string // --arguments NAME|FILE (repeatable): argument specs
	Timeout    time.Duration
	OPAConfig  string // --config FILE: an OPA configuration (bundles, decision logs, status)
}

// repeated is a flag that may be given many times.
type repeated struct{ list *[]string }

func (r repeated) String() string {
	if r.list == nil {
		return ""
	}
	return strings.Join(*r.list, ",")
}
func (r repeated) Set(v string) error { *r.list = append(*r.list, v); return nil }

// Register defines the flags on fs, to be read into f.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Rules, "rules", "", "JSON file of rules (an array), after the default rules")
	fs.BoolVar(&f.NoDefaults, "no-default-rules", false, "leave out the embedded default rules")
	fs.Var(repeated{&f.Policies}, "policy", "a Rego module, or a directory of them (repeatable)")
	fs.Var(repeated{&f.Roots}, "root", "KEY=DIR: relative paths of the tools named KEY or KEY_* resolve against DIR; KEY is a tool-name prefix, or * for every tool (repeatable)")
	fs.StringVar(&f.Home, "home", "", `the directory "~" names where the server runs ("none": "~" is unknown); the proxy's default for a server it starts is $HOME, policy-eval's none`)
	fs.StringVar(&f.Links, "links", "", `"resolve": each path is also read as this machine's file system resolves it, its symbolic links followed; "lexical": as written; the proxy's default for a server it starts is resolve, policy-eval's lexical`)
	fs.StringVar(&f.Grants, "grants", "", "JSON file of grants (an array of allow/deny rules), or a postgres:// URL: grants shared by every process pointed at it")
	fs.Var(repeated{&f.Arguments}, "arguments", "argument specs: a reference server's name ("+strings.Join(rules.KnownServers(), ", ")+") or a JSON file of them (repeatable)")
	fs.DurationVar(&f.Timeout, "timeout", 5*time.Second, "bound on each call's decision; past it the call fails closed (0: none)")
	fs.StringVar(&f.OPAConfig, "config", "", "an OPA configuration file (services, bundles, decision_logs, status, keys, labels), run by OPA's plugins")
}

// RegisterGrantRecord defines the flags of a command that makes grants
// (the proxy): what each grant records, and how long it lasts.
func (f *Flags) RegisterGrantRecord(fs *flag.FlagSet) {
	fs.Var(repeated{&f.Labels}, "label", "KEY=VALUE (or NAME, for id=NAME): who is asking, recorded with each grant this process makes (repeatable)")
	fs.DurationVar(&f.GrantTTL, "grant-ttl", 0, "how long an 'always' answer's grant lasts, e.g. 24h (0: until revoked)")
}

// Config is what the flags name, read and validated (the Rego modules are
// read, not compiled: policy.New and rules.NewEngine compile them, naming
// file and line).
type Config struct {
	Rules   []rules.Rule
	Modules []rules.Module
	Roots   map[string]string
	// Home is --home, absolute and clean: "" when not given, "none" for
	// none (HomeFor says which a command uses).
	Home string
	// Links is --links: "", "resolve" or "lexical" (LinksFor says which a
	// command uses). ResolveLinks is what the command settled on.
	Links        string
	ResolveLinks bool
	// Protected are the rules file and every --policy path, absolute: the
	// danger floor guards them (policy.Options.Protected).
	Protected []string
	// GrantsFile is --grants as given (~ expanded), "" for none: a file,
	// or a PostgreSQL URL (IsPostgres).
	GrantsFile string
	// Labels are --label's, recorded with each grant made; GrantTTL is
	// how long one lasts (0: until revoked).
	Labels   map[string]string
	GrantTTL time.Duration
	// FileRules are the rules of RulesFile alone, as Rules holds them
	// after the default rules.
	FileRules []rules.Rule
	// RulesFile is --rules as given (~ expanded), "" for none; Defaults
	// says whether Rules start with the default rules.
	RulesFile string
	Defaults  bool
	// PolicyPaths are the --policy paths as given (~ expanded).
	PolicyPaths []string
	// Arguments are the argument specs --arguments names.
	Arguments []rules.ArgumentSpec
	// Timeout bounds a decision; 0 for none.
	Timeout time.Duration
	// OPAConfigFile is --config as given (~ expanded), "" for none;
	// OPAConfig its contents.
	OPAConfigFile string
	OPAConfig     []byte
}

// DecisionTimeout is Timeout as policy.Options.DecisionTimeout reads it
// (negative for none).
func (c *Config) DecisionTimeout() time.Duration {
	if c.Timeout == 0 {
		return -1
	}
	return c.Timeout
}

// Load reads everything f names.
func (f Flags) Load() (*Config, error) {
	if f.Timeout < 0 {
		return nil, errors.New("--timeout must not be negative")
	}
	if f.GrantTTL < 0 {
		return nil, errors.New("--grant-ttl must not be negative")
	}
	labels, err := ParseLabels(f.Labels)
	if err != nil {
		return nil, err
	}
	if err := f.expand(); err != nil {
		return nil, err
	}
	c := &Config{GrantsFile: f.Grants, RulesFile: f.Rules, Defaults: !f.NoDefaults, PolicyPaths: f.Policies,
		Roots: map[string]string{}, Timeout: f.Timeout, Labels: labels, GrantTTL: f.GrantTTL, Home: f.Home, Links: f.Links}
	switch f.Links {
	case "", "resolve", "lexical":
	default:
		return nil, fmt.Errorf("--links %q: resolve or lexical", f.Links)
	}
	if c.Home != "" && c.Home != "none" {
		if !filepath.IsAbs(c.Home) {
			return nil, fmt.Errorf("--home %q: must be an absolute directory (or none)", f.Home)
		}
		c.Home = filepath.Clean(c.Home)
	}
	if err := c.loadRules(f); err != nil {
		return nil, err
	}
	if err := c.readRoots(f.Roots); err != nil {
		return nil, err
	}
	modules, err := LoadModules(f.Policies)
	if err != nil {
		return nil, fileError("--policy", err)
	}
	c.Modules = modules
	for _, p := range f.Policies {
		c.Protected = append(c.Protected, absPath(p))
	}
	if c.Arguments, err = LoadArguments(f.Arguments); err != nil {
		return nil, err
	}
	if f.OPAConfig != "" {
		if c.OPAConfig, err = os.ReadFile(f.OPAConfig); err != nil {
			return nil, fileError("--config", err)
		}
		c.OPAConfigFile = f.OPAConfig
		// It names the keys bundles are verified with and the services'
		// credentials: an agent that could edit it could serve its own rules.
		c.Protected = append(c.Protected, absPath(f.OPAConfig))
	}
	// What says which arguments are paths is as much the policy as its
	// rules: an agent that could edit it could hide a path.
	for _, a := range f.Arguments {
		if _, err := os.Stat(a); err == nil {
			c.Protected = append(c.Protected, absPath(a))
		}
	}
	return c, nil
}

// loadRules reads the default rules (unless --no-defaults) and the
// --rules file, which the policy then guards as its own.
func (c *Config) loadRules(f Flags) error {
	if !f.NoDefaults {
		c.Rules = rules.DefaultRules()
	}
	if f.Rules == "" {
		return nil
	}
	data, err := os.ReadFile(f.Rules)
	if err != nil {
		return fileError("--rules", err)
	}
	more, err := ParseRulesFile(f.Rules, data)
	if err != nil {
		return err
	}
	c.Rules = append(c.Rules, more...)
	c.FileRules = more
	c.Protected = append(c.Protected, absPath(f.Rules))
	return nil
}

// readRoots reads the --root KEY=DIR values: each key once, each
// directory absolute.
func (c *Config) readRoots(roots []string) error {
	for _, kv := range roots {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return fmt.Errorf("--root %q: want KEY=DIR", kv)
		}
		if _, dup := c.Roots[k]; dup {
			return fmt.Errorf("--root: key %q given twice", k)
		}
		if !filepath.IsAbs(v) {
			return fmt.Errorf("--root %s: directory %q is not an absolute path", k, v)
		}
		c.Roots[k] = v
	}
	return nil
}

// expand expands ~ and $HOME in every path f holds (ExpandPath), in f's
// own copies of its lists.
func (f *Flags) expand() error {
	var err error
	one := func(flag string, p *string) {
		if err == nil {
			*p, err = ExpandPath(flag, *p)
		}
	}
	one("--rules", &f.Rules)
	if err == nil {
		f.Grants, err = GrantsLocation(f.Grants)
	}
	one("--config", &f.OPAConfig)
	if f.Home != "none" {
		one("--home", &f.Home)
	}
	f.Policies = slices.Clone(f.Policies)
	for i := range f.Policies {
		one("--policy", &f.Policies[i])
	}
	f.Arguments = slices.Clone(f.Arguments)
	for i := range f.Arguments {
		one("--arguments", &f.Arguments[i])
	}
	f.Roots = slices.Clone(f.Roots)
	for i, kv := range f.Roots {
		if k, dir, ok := strings.Cut(kv, "="); ok {
			one("--root", &dir)
			f.Roots[i] = k + "=" + dir
		}
	}
	return err
}

// fileError names the flag in an error reading the file it names:
// "--rules x.json: no such file or directory".
func fileError(flag string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s %s: %v", flag, pe.Path, pe.Err)
	}
	return fmt.Errorf("%s: %v", flag, err)
}

// CheckRootDirs refuses a --root whose DIR does not exist or is not a
// directory. The proxy checks: its roots are the directories its server
// works in. policy-eval decide does not: it may decide calls for another
// machine's directories.
func (c *Config) CheckRootDirs() error {
	keys := make([]string, 0, len(c.Roots))
	for k := range c.Roots {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		dir := c.Roots[k]
		info, err := os.Stat(dir)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return fmt.Errorf("--root %s: directory %q: %v", k, dir, err)
		}
		if !info.IsDir() {
			return fmt.Errorf("--root %s: %q is not a directory", k, dir)
		}
	}
	return nil
}

// LoadArguments reads --arguments values: a reference server's name
// (rules.KnownServers), or a file holding a JSON array of specs.
func LoadArguments(values []string) ([]rules.ArgumentSpec, error) {
	var out []rules.ArgumentSpec
	for _, v := range values {
		if data, err := os.ReadFile(v); err == nil {
			specs, err := rules.ParseArgumentSpecs(data, v)
			if err != nil {
				return nil, err
			}
			out = append(out, specs...)
			continue
		} else if strings.ContainsAny(v, `/\.`) {
			return nil, fmt.Errorf("--arguments: %v", err)
		}
		specs, err := rules.ServerArguments(v)
		if err != nil {
			return nil, fmt.Errorf("--arguments: %v", err)
		}
		out = append(out, specs...)
	}
	return out, nil
}

// IsPostgres reports whether a --grants value names a PostgreSQL database
// rather than a file.
func IsPostgres(grants string) bool {
	return strings.HasPrefix(grants, "postgres://") || strings.HasPrefix(grants, "postgresql://")
}

// ParseLabels reads --label values: KEY=VALUE, or NAME alone for
// id=NAME (OPA's name for an agent's identity label).
func ParseLabels(list []string) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, l := range list {
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			k, v = "id", l
		}
		if k == "" || v == "" {
			return nil, fmt.Errorf("--label %q: want KEY=VALUE or NAME", l)
		}
		out[k] = v
	}
	return out, nil
}

// LoadGrants reads the grants as a list, for a command that only reads
// them; nil when there are none. A grants file is added to Protected.
func (c *Config) LoadGrants() ([]rules.Rule, error) {
	if c.GrantsFile == "" {
		return nil, nil
	}
	if IsPostgres(c.GrantsFile) {
		s, err := c.OpenGrants()
		if err != nil {
			return nil, err
		}
		defer s.Close()
		return s.List(), nil
	}
	gs, err := grants.LoadFile(c.GrantsFile)
	if err != nil {
		return nil, withLine(c.GrantsFile, err, grantFault)
	}
	c.Protected = append(c.Protected, absPath(c.GrantsFile))
	return gs, nil
}

// OpenGrants opens the grants as a store several processes share: a
// file (grants.Open: a missing file is an empty store, created by the
// first grant) or a PostgreSQL database (pgstore.Open: it must be
// reachable now); with no --grants, a store in memory. The store records
// Labels with each grant and gives it GrantTTL. A policy wired to the
// store protects its file itself. The caller closes the store.
func (c *Config) OpenGrants() (*grants.Store, error) {
	var s *grants.Store
	var err error
	switch {
	case c.GrantsFile == "":
		s, err = grants.NewStore(nil)
	case IsPostgres(c.GrantsFile):
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s, err = pgstore.Open(ctx, c.GrantsFile, pgstore.Options{})
	default:
		if s, err = grants.Open(c.GrantsFile); err != nil {
			err = withLine(c.GrantsFile, err, grantFault)
		}
	}
	if err != nil {
		return nil, err
	}
	s.SetLabels(c.Labels)
	s.SetTTL(c.GrantTTL)
	return s, nil
}

// OpenPins opens the tool pins where the grants are: the pins file
// beside the grants file (grants.PinsFileFor), the grants database, or
// memory when the grants are (no grants file).
func (c *Config) OpenPins() (*grants.Pins, error) {
	switch {
	case c.GrantsFile == "":
		return grants.MemoryPins(), nil
	case IsPostgres(c.GrantsFile):
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return pgstore.OpenPins(ctx, c.GrantsFile)
	default:
		return grants.OpenPinsFile(grants.PinsFileFor(c.GrantsFile))
	}
}

// ParseRulesFile is rules.ParseRules for the contents of file, the error
// naming the line of the rule (or of the JSON syntax error) at fault:
// "rules.json:7: rule 3: field ...".
func ParseRulesFile(file string, data []byte) ([]rules.Rule, error) {
	rs, err := rules.ParseRules(data, file)
	if err != nil {
		return nil, withLine(file, err, ruleFault)
	}
	return rs, nil
}

// ruleFault and grantFault say whether one element of an array is a bad
// rule, or a bad grant.
func ruleFault(elem []byte) bool {
	_, err := rules.ParseRules(append(append([]byte("["), elem...), ']'), "")
	return err != nil
}

func grantFault(elem []byte) bool {
	_, err := grants.ParseGrants(append(append([]byte("["), elem...), ']'), "")
	return err != nil
}

// withLine puts the line of file at fault into err's message, after the
// file's name, when it can find it.
func withLine(file string, err error, bad func(elem []byte) bool) error {
	data, rerr := os.ReadFile(file)
	if rerr != nil {
		return err
	}
	line := faultLine(data, bad)
	if line == 0 {
		return err
	}
	msg := err.Error()
	if i := strings.Index(msg, file+": "); i >= 0 {
		return fmt.Errorf("%s%s:%d: %s", msg[:i], file, line, msg[i+len(file)+2:])
	}
	return fmt.Errorf("%s:%d: %s", file, line, msg)
}

// faultLine is the line of data where a JSON array of rules first goes
// wrong: a syntax error's line, else the first line of the first element
// that is bad on its own; 0 when neither finds one.
func faultLine(data []byte, bad func(elem []byte) bool) int {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return lineAt(data, int(se.Offset))
		}
		return 0
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return lineAt(data, firstNonSpace(data, 0))
	}
	for dec.More() {
		start := firstNonSpace(data, int(dec.InputOffset()))
		if start < len(data) && data[start] == ',' {
			start = firstNonSpace(data, start+1)
		}
		var elem json.RawMessage
		if err := dec.Decode(&elem); err != nil {
			return lineAt(data, start)
		}
		if bad(elem) {
			return lineAt(data, start)
		}
	}
	return 0
}

func firstNonSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

// lineAt is the 1-based line of byte offset off.
func lineAt(data []byte, off int) int {
	off = min(max(off, 0), len(data))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// LoadModules reads .rego files, and directories of them (tests left out),
// in a stable order.
func LoadModules(paths []string) ([]rules.Module, error) {
	var out []rules.Module
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		files := []string{p}
		if info.IsDir() {
			files = nil
			err := filepath.WalkDir(p, func(f string, e os.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if !e.IsDir() && strings.HasSuffix(f, ".rego") && !strings.HasSuffix(f, "_test.rego") {
					files = append(files, f)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			sort.Strings(files)
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			out = append(out, rules.Module{Name: f, Source: string(src)})
		}
	}
	return out, nil
}

// HomeFor is the home directory "~" names for a command: --home as given,
// none for "none", and else local's default (the proxy starting a server
// on this machine gives $HOME; policy-eval, deciding for any machine,
// none).
func (c *Config) HomeFor(local string) string {
	switch c.Home {
	case "none":
		return ""
	case "":
		return local
	}
	return c.Home
}

// LinksFor says whether paths are resolved through the file system for a
// command: --links as given, else local's default (the proxy starting a
// server on this machine resolves; policy-eval, deciding for any machine,
// does not).
func (c *Config) LinksFor(local bool) bool {
	switch c.Links {
	case "resolve":
		return true
	case "lexical":
		return false
	}
	return local
}
