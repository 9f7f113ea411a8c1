package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/visible"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
	"github.com/mcp-policy/mcp-policy/reasons"
)

// askKey is the input request of the proxy's own questions in a round.
const askKey = "mcp-policy/ask"

// onAsk is the policy's human: the host, asked by elicitation, or an
// approver, asked through the approvals queue (see route).
func (p *Proxy) onAsk(ctx context.Context, hc *hostCall, q policy.Question) policy.Answer {
	if q.Kind == policy.KindServerElicit {
		res, err := p.elicitHost(ctx, hc, q.Request.Params)
		if err != nil {
			p.warnf("the server's question did not reach the human: %v", err)
			return policy.Answer{Action: policy.Cancel}
		}
		return policy.Answer{Action: policy.Action(res.Action), Content: res.Content}
	}
	protocol := p.session().protocol
	if hc != nil && hc.protocol != "" {
		protocol = hc.protocol
	}
	caps := p.session().caps
	if hc != nil {
		caps = hc.caps
	}
	if s := p.opt.store; s != nil && s.Err() != nil {
		err := s.Err()
		// Said where the human will look while the question waits: an
		// "always" answer will not be remembered until this is fixed.
		p.warnf("the grants cannot be read (%v): the grants read before stay in force, and an \"always\" answer is not remembered until they can be", err)
	}
	if p.route(caps) == toApprovers {
		return p.askApprovers(ctx, hc, q)
	}
	form := newPermissionForm(q, protocol)
	// One bound for every protocol era: a 2026-07-28 round and an
	// elicitation/create of the proxy's own alike (the latter is withdrawn
	// with notifications/cancelled when it passes).
	ctx, cancel := context.WithTimeoutCause(ctx, p.opt.askTimeout, errAskTimeout)
	defer cancel()
	res, err := p.elicitHost(ctx, hc, form.params)
	if errors.Is(err, errAskTimeout) {
		p.warnf("asking about %s: the host did not answer within --ask-timeout %s (the call is refused, unanswered)", q.Tool, p.opt.askTimeout)
		return policy.Answer{Unanswered: fmt.Errorf("no one answered within %s", p.opt.askTimeout)}
	}
	if err != nil {
		p.warnf("asking about %s: %v (taken as deny once)", q.Tool, err)
		return policy.Answer{Action: policy.DenyOnce}
	}
	return form.answer(res)
}

// elicitHost asks the host: by an input-required round on the call when it
// speaks 2026-07-28, else by an elicitation/create of the proxy's own.
func (p *Proxy) elicitHost(ctx context.Context, hc *hostCall, params any) (provider.ElicitResult, error) {
	var raw []byte
	if hc != nil && hc.modern {
		req, err := json.Marshal(map[string]any{"method": methodElicit, "params": params})
		if err != nil {
			return provider.ElicitResult{}, err
		}
		got, err := p.hostRound(ctx, hc, map[string]json.RawMessage{askKey: req})
		if err != nil {
			return provider.ElicitResult{}, err
		}
		raw = got[askKey]
	} else {
		r, err := p.request(ctx, &p.hostPeer, methodElicit, params)
		if err != nil {
			return provider.ElicitResult{}, err
		}
		if r.err != nil {
			return provider.ElicitResult{}, fmt.Errorf("the host answered with an error: %s", r.err)
		}
		raw = r.result
	}
	var res provider.ElicitResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return provider.ElicitResult{}, fmt.Errorf("the host's answer: %w", err)
	}
	switch res.Action {
	case provider.ElicitAccept, provider.ElicitDecline, provider.ElicitCancel:
	default:
		return provider.ElicitResult{}, fmt.Errorf("the host's answer has action %q", res.Action)
	}
	return res, nil
}

// permissionForm is the question put to the human: a message, and a form
// whose one field is the answer.
type permissionForm struct {
	params  map[string]any
	options map[string]policy.Action // value → itself, and title → value
}

// answerField is the form's one field.
const answerField = "answer"

// choice is one answer a question offers.
type choice struct {
	value policy.Action
	title string
}

// choices are the answers q offers, in the order shown: the host's form
// and the approvals page offer the same ones under the same titles (the
// page all but "Allow for a day", see askApprovers). "Allow for a day" is
// an allow grant too, so it is offered exactly where "Always allow" is.
func choices(q policy.Question) []choice {
	opts := []choice{{policy.AllowOnce, "Allow once"}}
	if q.AllowGrantable && q.Suggestion != nil {
		opts = append(opts,
			choice{policy.AlwaysAllow, "Always allow " + scope(*q.Suggestion)},
			choice{policy.AllowForADay, "Allow for a day " + scope(*q.Suggestion)})
	}
	opts = append(opts, choice{policy.DenyOnce, "Deny once"})
	if q.Suggestion != nil {
		opts = append(opts, choice{policy.AlwaysDeny, "Always deny " + scope(*q.Suggestion)})
	}
	return opts
}

func newPermissionForm(q policy.Question, protocol string) permissionForm {
	opts := choices(q)
	field := map[string]any{"type": "string", "title": "Your answer", "default": policy.DenyOnce}
	lookup := map[string]policy.Action{}
	values := make([]policy.Action, len(opts))
	titles := make([]string, len(opts))
	oneOf := make([]any, len(opts))
	for i, o := range opts {
		values[i], titles[i] = o.value, o.title
		oneOf[i] = map[string]any{"const": o.value, "title": o.title}
		lookup[string(o.value)], lookup[o.title] = o.value, o.value
	}
	if protocol >= "2025-11-25" {
		field["oneOf"] = oneOf // titled single-select
	} else {
		field["enum"], field["enumNames"] = values, titles
	}
	return permissionForm{
		params: map[string]any{
			"message": permissionMessage(q),
			"requestedSchema": map[string]any{
				"type":       "object",
				"properties": map[string]any{answerField: field},
				"required":   []string{answerField},
			},
		},
		options: lookup,
	}
}

// answer reads the human's answer: decline, cancel, or anything that is
// not one of the choices offered is deny once.
func (f permissionForm) answer(res provider.ElicitResult) policy.Answer {
	if res.Action == provider.ElicitAccept {
		if s, ok := res.Content[answerField].(string); ok {
			if v, ok := f.options[s]; ok {
				return policy.Answer{Action: v}
			}
		}
	}
	return policy.Answer{Action: policy.DenyOnce}
}

// scope says what an always- answer covers. The tool's name and the
// directory or host come from the model's call: they are escaped as the
// model's words are, and never cut (visible.Whole): two tools or two
// directories sharing a long prefix must not look like one grant.
func scope(r rules.Rule) string {
	if r.Under == "" && r.Host == "" && len(r.Command) == 0 {
		return "every " + visible.Whole(r.Tool) + " call"
	}
	out := visible.Whole(r.Tool)
	if len(r.Command) > 0 {
		globs := make([]string, len(r.Command))
		for i, g := range r.Command {
			globs[i] = "'" + visible.Whole(g) + "'"
		}
		out += " running " + strings.Join(globs, ", ")
	}
	if r.Under != "" {
		out += " under " + visible.Whole(r.Under)
	}
	if r.Host != "" {
		out += " on " + visible.Whole(r.Host)
	}
	return out
}

// How much of the model's words a question shows: a name or a value, a
// path in the scope, the reason.
const (
	maxShown      = 80
	maxShownPath  = 300
	maxReason     = 300
	maxShownValue = 190 // with its key, within the 300 characters a line may take
	// maxShownChange bounds a tool's change summary, whose parts have
	// bounds of their own (grants.Pin.ChangeSummary): above their sum, so
	// the description's change, last, is never cut off.
	maxShownChange = 4000
)

// permissionMessage is the question in words a person reads at a glance.
// The proxy's own lines come first — the tool, why it is asked, what
// "Always allow" would grant — and the model's words after them, each
// argument on one line of its own and the reason on the last: a key or a
// reason cannot start a line, hide one or push the scope out of sight
// (shown escapes line breaks, bidi controls and invisible characters, and
// bounds the length).
func permissionMessage(q policy.Question) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The agent wants to run %s.\n", visible.Shown(q.Tool, maxShown))
	if q.DescriptionWarning != "" {
		// Before the reason: what the human is asked to trust is the
		// tool, and its server may be steering the agent.
		fmt.Fprintf(&b, "Warning: %s\n", visible.Shown(q.DescriptionWarning, 2000))
	}
	if q.DefinitionChange != "" {
		// The server changed what the human approved: its grants wait
		// for this answer. A line a part, each on its own bound, so no
		// part of the server's text can push another out of sight.
		b.WriteString("This tool is not the one approved: its grants and its read-only mark do not count until the change is approved; \"Always allow\" approves it. What changed:\n")
		for _, line := range strings.Split(q.DefinitionChange, "\n") {
			fmt.Fprintf(&b, "  %s\n", visible.Shown(line, maxShownChange))
		}
	}
	switch q.Reason {
	case rules.ReasonNoMatch:
		b.WriteString("Asked because no rule covers this call.\n")
	case rules.ReasonUnevaluable:
		b.WriteString("Asked because a path or address in it cannot be checked (~, $VAR, a relative path with no root, …).\n")
	case rules.ReasonFloor:
		b.WriteString("Asked because it touches a protected place (.git, .ssh, shell start-up files, .env, the policy's own files, or a whole root) or reads a file that holds secrets (keys, credentials, .env, histories). This is asked every time.\n")
	case rules.ReasonRule:
		if q.Rule != nil {
			fmt.Fprintf(&b, "Asked every time by the rule %s.\n", ruleText(*q.Rule))
		}
	}
	for _, g := range q.Near {
		fmt.Fprintf(&b, "A grant allows %s, but it did not answer this call (another place, expired, or the grants store is out of reach).\n", scope(g))
	}
	if q.AllowGrantable && q.Suggestion != nil {
		fmt.Fprintf(&b, "\"Always allow\" would allow %s from now on; \"Allow for a day\", for the next 24 hours.\n", scope(*q.Suggestion))
	}
	// What the decision is about, as the policy read it (a relative path
	// resolved), before any argument: extra arguments the model adds
	// cannot push a path out of the list, nor a protected one out of sight.
	reach(&b, "It acts on", "paths", q.Paths)
	reach(&b, "It reaches", "hosts", q.Hosts)
	keys := make([]string, 0, len(q.Arguments))
	for k := range q.Arguments {
		if k != reasons.Argument {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) > 0 {
		b.WriteString("Its arguments:\n")
	}
	const maxArgs = 12
	for i, k := range keys {
		if i == maxArgs {
			fmt.Fprintf(&b, "  … and %d more\n", len(keys)-maxArgs)
			break
		}
		fmt.Fprintf(&b, "  %s: %s\n", visible.Shown(k, maxShown), compact(q.Arguments[k]))
	}
	if r, ok := q.Arguments[reasons.Argument].(string); ok && r != "" {
		fmt.Fprintf(&b, "Its reason: %s\n", visible.Shown(r, maxReason))
	}
	return strings.TrimRight(b.String(), "\n")
}

// maxReach is how many paths (or hosts) a question lists one by one;
// past it, it says how many and the directory holding them all.
const maxReach = 20

// reach writes the paths or hosts of a call: each on its line up to
// maxReach, else their number and what holds them all, so that no path is
// hidden among others.
func reach(b *strings.Builder, lead, what string, list []string) {
	shown := func(s string) string { return visible.Shown(s, maxShown) }
	if what == "paths" {
		shown = func(s string) string { return visible.ShownPath(s, maxShown) } // the file name kept in sight
	}
	switch {
	case len(list) == 0:
	case len(list) == 1:
		fmt.Fprintf(b, "%s %s\n", lead, shown(list[0]))
	case len(list) <= maxReach:
		fmt.Fprintf(b, "%s:\n", lead)
		for _, p := range list {
			fmt.Fprintf(b, "  %s\n", shown(p))
		}
	case what == "paths":
		var clean []string
		for _, p := range list {
			if strings.HasPrefix(p, "/") {
				clean = append(clean, p)
			}
		}
		where := "some of which cannot be checked"
		if len(clean) == len(list) {
			where = "under " + visible.ShownPath(lexical.CommonDir(clean), maxShown)
		}
		fmt.Fprintf(b, "%s %d paths, %s.\n", lead, len(list), where)
	default:
		fmt.Fprintf(b, "%s %d hosts.\n", lead, len(list))
	}
}

func ruleText(r rules.Rule) string {
	r.Message = ""
	b, _ := json.Marshal(r)
	return visible.JSON(string(b))
}

// compact renders an argument value on one line: a short plain string as
// it is, anything else as a JSON string or JSON text with what cannot be
// seen escaped, whole up to maxShownValue characters as shown (a small
// write can be reviewed in full), and past that its head and its tail
// with its length after them.
func compact(v any) string {
	if s, ok := v.(string); ok {
		if utf8.RuneCountInString(s) <= maxShown && visible.Plain(s) {
			return s
		}
		return quoteEnds(s, maxShownValue)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return quoteEnds(fmt.Sprint(v), maxShownValue)
	}
	pieces := strings.Split(visible.JSON(string(b)), "")
	if len(pieces) <= maxShownValue {
		return strings.Join(pieces, "")
	}
	return ends(pieces, maxShownValue) + fmt.Sprintf(" (%d characters)", len(pieces))
}

// quoteEnds is s as quote writes it, whole when it is at most n characters
// as shown, else its head and its tail, with the length of s after it.
func quoteEnds(s string, n int) string {
	pieces := visible.Pieces(s)
	if width(pieces) <= n {
		return `"` + strings.Join(pieces, "") + `"`
	}
	return fmt.Sprintf(`"%s" (%d characters)`, ends(pieces, n), len(pieces))
}

func width(pieces []string) int {
	w := 0
	for _, piece := range pieces {
		w += utf8.RuneCountInString(piece)
	}
	return w
}

// ends is the first pieces within two thirds of n characters, "…", and the
// last pieces within the other third: the start of a write and its end
// are where a reviewer looks first.
func ends(pieces []string, n int) string {
	head, w := 0, 0
	for ; head < len(pieces) && w+utf8.RuneCountInString(pieces[head]) <= n*2/3; head++ {
		w += utf8.RuneCountInString(pieces[head])
	}
	tail := len(pieces)
	for w = 0; tail > head && w+utf8.RuneCountInString(pieces[tail-1]) <= n/3; tail-- {
		w += utf8.RuneCountInString(pieces[tail-1])
	}
	return strings.Join(pieces[:head], "") + "…" + strings.Join(pieces[tail:], "")
}
