package policy

import (
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/verdict"
)

// The names a program that embeds the policy writes rules and reads
// decisions with. They are the engine's own types (internal/rules), named
// here so that an importer needs this package alone: a Rule written here
// is the rule the engine matches, not a copy converted on the way.

// Rule is one static rule, or one grant (an always-answer remembered):
// which tool, what decision, and where it applies (under a directory, on
// a host, with arguments or a command line). docs/rules.md is its schema.
type Rule = rules.Rule

// Verdict is one of the three answers a rule or a decision gives: Allow,
// Deny or Ask.
type Verdict = verdict.Decision

// The three verdicts.
const (
	Allow = rules.Allow
	Deny  = rules.Deny
	Ask   = rules.Ask
)

// Decision is a call's decision with what made it. Its fields:
//
//	Decision   Verdict // allow, deny or ask
//	Reason     Reason  // why: a rule, the floor, no match, an unevaluable path, a grant
//	Rule       *Rule   // the rule that decided (a module's entry: its tool, decision, message)
//	Grant      *Rule   // the grant that decided an ask
//	Paths      []string // the paths the call was read to name, resolved
//	Hosts      []string // the hosts it names
//	Suggestion *Rule   // what an "always" answer would remember; nil when no one rule fits
//
// and two the JSON form leaves out, which say whether an allow grant may
// answer the ask: Floor (the danger floor took part) and Might (the
// decision were every unreadable path what might match it).
type Decision = rules.Decision

// Reason says why a call got its decision.
type Reason = rules.Reason

// The reasons a Decision carries.
const (
	ReasonRule        = rules.ReasonRule        // a rule or a module's entry decided
	ReasonNoMatch     = rules.ReasonNoMatch     // nothing matched: asked
	ReasonUnevaluable = rules.ReasonUnevaluable // a path or URL could not be evaluated, and it mattered: asked
	ReasonFloor       = rules.ReasonFloor       // the danger floor decided
	ReasonGrant       = rules.ReasonGrant       // a grant decided an ask
)

// Module is a Rego module a team writes beside the data rules
// (docs/rules.md, "Writing and testing a rule in Rego").
type Module = rules.Module

// ArgumentSpec says how one tool's arguments name paths, directories,
// URLs and text, beyond what is read by default (docs/arguments.md).
type ArgumentSpec = rules.ArgumentSpec

// ValidationError names the rule and the field that is wrong.
type ValidationError = rules.ValidationError

// ParseRules decodes a JSON array of rules, as a rules file holds them,
// and validates each; what names the source ("rules.json") in errors.
func ParseRules(data []byte, what string) ([]Rule, error) { return rules.ParseRules(data, what) }

// ParseArgumentSpecs decodes a JSON array of argument specs strictly and
// validates it; what names the source in errors.
func ParseArgumentSpecs(data []byte, what string) ([]ArgumentSpec, error) {
	return rules.ParseArgumentSpecs(data, what)
}

// ServerArguments returns the shipped argument specs of the named
// reference servers (filesystem, git, fetch, memory), in the order named;
// an unknown name is an error that lists the known ones.
func ServerArguments(names ...string) ([]ArgumentSpec, error) { return rules.ServerArguments(names...) }
