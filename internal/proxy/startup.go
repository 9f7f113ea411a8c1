package proxy

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/approvals"
	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
	"github.com/mcp-policy/mcp-policy/internal/managed"
	"github.com/mcp-policy/mcp-policy/internal/pgschema"
)

// StartupLine is what the proxy says on stderr as it starts: the rules,
// grants, decision log, roots, home and links it runs with, and where its
// questions go (ask is --ask; queue nil for none).
func StartupLine(cfg *cliconfig.Config, live *managed.Managed, store *grants.Store, logFile, ask string, queue approvals.Queue) string {
	var rules []string
	if cfg.Defaults {
		rules = append(rules, "default")
	}
	if cfg.RulesFile != "" {
		rules = append(rules, absPath(cfg.RulesFile))
	}
	for _, p := range cfg.PolicyPaths {
		rules = append(rules, absPath(p))
	}
	switch {
	case live.Plane != nil && live.Plane.HasBundles():
		rules = append(rules, "the bundles of "+absPath(cfg.OPAConfigFile)+" (every call refused until they are active)")
	case live.Files != nil:
		rules[len(rules)-1] += " (watched)"
	}
	if len(rules) == 0 {
		rules = append(rules, "none")
	}
	grantsText := "in memory until the proxy exits (no --grants)"
	if f := store.File(); f != "" {
		grantsText = fmt.Sprintf("%s (%d held)", f, len(store.List()))
	} else if cliconfig.IsPostgres(cfg.GrantsFile) {
		grantsText = fmt.Sprintf("%s (%d held)", pgschema.Redact(cfg.GrantsFile), len(store.List()))
	}
	if cfg.GrantTTL > 0 {
		grantsText += fmt.Sprintf(", each for %v", cfg.GrantTTL)
	}
	logText := "none"
	switch logFile {
	case "":
	case "-":
		logText = "stderr"
	default:
		logText = absPath(logFile)
	}
	if live.Decisions() != nil {
		logText += " + OPA decision logs (" + absPath(cfg.OPAConfigFile) + ")"
	}
	rootsText := "the host's"
	if len(cfg.Roots) > 0 {
		keys := make([]string, 0, len(cfg.Roots))
		for k := range cfg.Roots {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			keys[i] = k + "=" + cfg.Roots[k]
		}
		rootsText = strings.Join(keys, ", ")
	}
	homeText := cfg.Home
	if homeText == "" {
		homeText = "unknown"
	}
	linksText := "as written"
	if cfg.ResolveLinks {
		linksText = "resolved"
	}
	return fmt.Sprintf("rules: %s; grants: %s; log: %s; roots: %s; home: %s; links: %s; questions: %s", strings.Join(rules, " + "), grantsText, logText,
		rootsText, homeText, linksText, questionsGo(ask, queue))
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// questionsGo says where the proxy's questions go, for the start-up line.
func questionsGo(ask string, queue approvals.Queue) string {
	switch {
	case ask == AskRefuse:
		return "refused (--ask refuse)"
	case queue == nil && ask == AskElicit:
		return "to the host (refused if it cannot elicit)"
	case queue == nil:
		return "to the host (refused if it cannot elicit; give --grants FILE to approve with `mcp-policy approvals` instead)"
	case ask == AskApprovals:
		return "to `mcp-policy approvals` (--ask approvals)"
	case ask == AskElicit:
		return "to the host (refused if it cannot elicit)"
	default:
		return "to the host, or to `mcp-policy approvals` if it cannot elicit"
	}
}

// OwnFiles are the proxy's files beyond its rules and grants, which the
// floor guards too: its own program, by the name the host started it by and
// the file that is (an agent that could replace it would be the policy
// next time), and the decision log (an agent could erase what it did).
func OwnFiles(logFile string) []string {
	var out []string
	if exe, err := os.Executable(); err == nil {
		out = append(out, exe)
	}
	if filepath.IsAbs(os.Args[0]) {
		out = append(out, os.Args[0])
	}
	if logFile != "" && logFile != "-" {
		out = append(out, absPath(logFile))
	}
	return out
}
