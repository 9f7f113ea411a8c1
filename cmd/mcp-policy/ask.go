package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/policy/rules"
	"github.com/mcp-policy/mcp-policy/provider"
)

// askKey is the input request of the proxy's own questions in a round.
const askKey = "mcp-policy/ask"

// onAsk is the policy's human: the host, asked by elicitation.
func (p *proxy) onAsk(ctx context.Context, q policy.Question) policy.Answer {
	hc, _ := ctx.Value(hostCallKey{}).(*hostCall)
	if q.Kind == policy.KindServerElicit {
		res, err := p.elicitHost(ctx, hc, q.Request.Params)
		if err != nil {
			p.warnf("the server's question did not reach the human: %v", err)
			return policy.Answer{Action: policy.Cancel}
		}
		return policy.Answer{Action: policy.Action(res.Action), Content: res.Content}
	}
	protocol := p.hostInfo().protocol
	if hc != nil && hc.protocol != "" {
		protocol = hc.protocol
	}
	form := newPermissionForm(q, protocol)
	res, err := p.elicitHost(ctx, hc, form.params)
	if err != nil {
		p.warnf("asking about %s: %v (taken as deny once)", q.Tool, err)
		return policy.Answer{Action: policy.DenyOnce}
	}
	return form.answer(res)
}

// elicitHost asks the host: by an input-required round on the call when it
// speaks 2026-07-28, else by an elicitation/create of the proxy's own.
func (p *proxy) elicitHost(ctx context.Context, hc *hostCall, params any) (provider.ElicitResult, error) {
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
		r, err := p.hostRequest(ctx, methodElicit, params)
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

func newPermissionForm(q policy.Question, protocol string) permissionForm {
	type option struct {
		value policy.Action
		title string
	}
	opts := []option{{policy.AllowOnce, "Allow once"}}
	if q.AllowGrantable && q.Suggestion != nil {
		opts = append(opts, option{policy.AlwaysAllow, "Always allow " + scope(*q.Suggestion)})
	}
	opts = append(opts, option{policy.DenyOnce, "Deny once"})
	if q.Suggestion != nil {
		opts = append(opts, option{policy.AlwaysDeny, "Always deny " + scope(*q.Suggestion)})
	}
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

// scope says what an always- answer covers.
func scope(r rules.Rule) string {
	switch {
	case r.Under != "":
		return r.Tool + " under " + r.Under
	case r.Host != "":
		return r.Tool + " on " + r.Host
	default:
		return "every " + r.Tool + " call"
	}
}

// permissionMessage is the question in words a person reads at a glance.
func permissionMessage(q policy.Question) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The agent wants to run %s.\n", q.Tool)
	keys := make([]string, 0, len(q.Arguments))
	for k := range q.Arguments {
		if k != rules.ReasonArgument {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	const maxArgs = 12
	for i, k := range keys {
		if i == maxArgs {
			fmt.Fprintf(&b, "  … and %d more\n", len(keys)-maxArgs)
			break
		}
		fmt.Fprintf(&b, "  %s: %s\n", k, compact(q.Arguments[k]))
	}
	if r, ok := q.Arguments[rules.ReasonArgument].(string); ok && r != "" {
		fmt.Fprintf(&b, "Its reason: %s\n", clip(r, 300))
	}
	switch q.Reason {
	case rules.ReasonNoMatch:
		b.WriteString("Asked because no rule covers this call.\n")
	case rules.ReasonUnevaluable:
		b.WriteString("Asked because a path or address in it cannot be checked (~, $VAR, a relative path with no root, …).\n")
	case rules.ReasonFloor:
		b.WriteString("Asked because it touches a protected place (.git, .ssh, shell start-up files, .env, the policy's own files, or a whole root). This is asked every time.\n")
	case rules.ReasonRule:
		if q.Rule != nil {
			fmt.Fprintf(&b, "Asked every time by the rule %s.\n", ruleText(*q.Rule))
		}
	}
	if q.AllowGrantable && q.Suggestion != nil {
		fmt.Fprintf(&b, "\"Always allow\" would allow %s from now on.", scope(*q.Suggestion))
	}
	return strings.TrimRight(b.String(), "\n")
}

func ruleText(r rules.Rule) string {
	r.Message = ""
	b, _ := json.Marshal(r)
	return string(b)
}

// compact renders an argument value in one short line: strings whole when
// short, else their start and their length.
func compact(v any) string {
	if s, ok := v.(string); ok {
		if utf8.RuneCountInString(s) <= 80 && !strings.ContainsAny(s, "\n\r") {
			return s
		}
		q, _ := json.Marshal(clip(s, 60))
		return fmt.Sprintf("%s (%d characters)", q, utf8.RuneCountInString(s))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clip(string(b), 120)
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
