// Package managed starts what feeds a command's rules while it runs and
// takes its decisions beyond --log: OPA's plugins for --config (package
// opaplane), and the --rules and --policy files watched (package
// rulefiles). mcp-policy proxy and policy-eval decide start it alike.
package managed

import (
	"context"
	"fmt"
	"io"

	"github.com/mcp-policy/mcp-policy/decisionlog"
	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
	"github.com/mcp-policy/mcp-policy/internal/rulefiles"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/opaplane"
	"github.com/mcp-policy/mcp-policy/policy"
)

// Managed is where a command's rules come from while it runs, and where
// its decisions go beyond --log: OPA's plugins (--config), the rule files
// watched, both, or neither.
type Managed struct {
	// Plane runs --config; nil without it.
	Plane *opaplane.Plane
	// Files are --rules and --policy, watched; nil with bundles, or with
	// neither flag.
	Files *rulefiles.Source
}

// Source is what feeds the policy's rules: the bundles when --config
// names some, else the files; nil for neither (the rules are the
// defaults, fixed).
func (m *Managed) Source() policy.RuleSource {
	switch {
	case m.Plane != nil && m.Plane.HasBundles():
		return m.Plane
	case m.Files != nil:
		return m.Files
	}
	return nil
}

// Decisions is the sink beside --log: OPA's decision-log plugin when
// --config has decision_logs; nil otherwise.
func (m *Managed) Decisions() func(policy.Record) {
	if m.Plane != nil && m.Plane.HasDecisionLogs() {
		return m.Plane.Log
	}
	return nil
}

// Stop stops watching and stops OPA's plugins, uploading the decisions
// they hold; ctx bounds the wait.
func (m *Managed) Stop(ctx context.Context) {
	if m.Files != nil {
		m.Files.Stop()
	}
	if m.Plane != nil {
		m.Plane.Stop(ctx)
	}
}

// Start starts OPA's plugins for --config and, when watch is set
// and the rules come from files, watches them: c's Rules and Modules then
// become the part that does not change (the default rules, if any), the
// rest coming from the Source. With bundles, --rules and
// --policy are refused: one team's rules, from one place. log says how
// decisions sent to OPA are masked; activated, when set, is told of each
// set of rules the bundles or the edited files offer, taken or refused.
func Start(ctx context.Context, c *cliconfig.Config, watch bool, say func(string), stderr io.Writer, log decisionlog.Options,
	activated func(revisions map[string]string, err error)) (*Managed, error) {
	m := &Managed{}
	if c.OPAConfigFile != "" {
		plane, err := opaplane.New(ctx, opaplane.Options{Config: c.OPAConfig, Stderr: stderr, Log: log, OnActivation: activated})
		if err != nil {
			return nil, fmt.Errorf("--config %s: %v", c.OPAConfigFile, err)
		}
		m.Plane = plane
		if plane.HasBundles() {
			if c.RulesFile != "" || len(c.PolicyPaths) > 0 {
				m.Stop(ctx)
				return nil, fmt.Errorf("--config %s names bundles: the rules come from them; leave out --rules and --policy", c.OPAConfigFile)
			}
			return m, nil
		}
	}
	if !watch || c.RulesFile == "" && len(c.PolicyPaths) == 0 {
		return m, nil // the files are read once, as c holds them
	}
	files, err := rulefiles.OpenRead(c.RulesFile, c.PolicyPaths, policy.RuleSet{Rules: c.FileRules, Modules: c.Modules}, say)
	if err != nil {
		m.Stop(ctx)
		return nil, err
	}
	files.OnActivation = activated
	if watch {
		if err := files.Start(); err != nil {
			m.Stop(ctx)
			return nil, err
		}
	}
	m.Files = files
	c.Rules, c.Modules = nil, nil
	if c.Defaults {
		c.Rules = rules.DefaultRules()
	}
	return m, nil
}
