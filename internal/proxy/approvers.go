package proxy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/approvals"
	"github.com/mcp-policy/mcp-policy/internal/notify"
	"github.com/mcp-policy/mcp-policy/internal/visible"
	"github.com/mcp-policy/mcp-policy/policy"
)

// The values of Options.Ask beyond AskElicit and AskRefuse.
const (
	AskApprovals       = "approvals"        // always ask through the approvals queue
	AskElicitApprovals = "elicit,approvals" // the host when it can elicit, else the queue
)

// ParseAsk checks an --ask value.
func ParseAsk(s string) error {
	switch s {
	case AskElicit, AskApprovals, AskElicitApprovals, AskRefuse:
		return nil
	}
	return fmt.Errorf("--ask %q: want elicit, approvals, elicit,approvals or refuse", s)
}

// asked is where a question goes.
type asked int

const (
	toNobody    asked = iota // refused: the headless policy decides
	toHost                   // an elicitation through the host
	toApprovers              // the approvals queue
)

// route says where a question of a host with caps goes, by --ask: the
// queue is there only when the proxy has one (a grants file to put it
// beside).
func (p *Proxy) route(caps capsSeen) asked {
	mode, queue := p.opt.askMode, p.opt.approvals != nil
	switch {
	case mode == AskRefuse:
		return toNobody
	case caps.elicit && (mode == AskElicit || mode == AskElicitApprovals):
		return toHost
	case queue && (mode == AskApprovals || mode == AskElicitApprovals):
		return toApprovers
	}
	return toNobody
}

// routeLine is the start-up line's word on where questions go, once the
// host said what it can do.
func (p *Proxy) routeLine(host string, caps capsSeen) string {
	switch p.route(caps) {
	case toHost:
		return fmt.Sprintf("%s can elicit: what needs asking is asked of the human", host)
	case toApprovers:
		why := "--ask approvals"
		if !caps.elicit {
			why = "it cannot elicit (no form elicitation in its capabilities)"
		}
		return fmt.Sprintf("%s: %s, so what needs asking waits for an answer at `%s` (or `%s`)",
			host, why, p.approvalsCommand("approvals"), p.approvalsCommand("approve"))
	}
	if p.opt.askMode == AskRefuse {
		return fmt.Sprintf("%s: what needs asking is refused (--ask refuse)", host)
	}
	hint := ""
	if p.opt.approvals == nil {
		hint = "; with --grants FILE, it would wait for an answer at `mcp-policy approvals --grants FILE`"
	}
	return fmt.Sprintf("%s cannot elicit (no form elicitation in its capabilities): what needs asking is refused%s", host, hint)
}

// approvalsCommand is the command that answers this proxy's questions:
// its queue's --grants (a file, or a postgres:// URL without its
// password).
func (p *Proxy) approvalsCommand(cmd string) string {
	return approvals.Command(cmd, p.opt.approvals.Grants())
}

// askApprovers puts q in the approvals queue and holds the call until an
// approver answers it, the host gives up, or --ask-timeout passes; the
// host hears progress meanwhile, when it asked to.
func (p *Proxy) askApprovers(ctx context.Context, hc *hostCall, q policy.Question) policy.Answer {
	digest, err := approvals.Digest(q.Call.Function.Name, q.Call.Function.Arguments)
	if err != nil {
		return policy.Answer{Unanswered: err}
	}
	if a, ok := p.parked.retried(p, digest); ok {
		return a // the same call, made again after the host was told to
	}
	// All the arguments, whole: the digest binds all of them, so the
	// approver sees all of them.
	aq, err := p.approversQuestion(q, digest)
	if err != nil {
		return policy.Answer{Unanswered: err}
	}
	// Putting the question, waiting for its answer and withdrawing it all
	// wait (on a file's lock, on the database, on a human): the host is
	// read meanwhile (waitStarts), a ping answered, a cancellation of this
	// very call heard.
	p.waitStarts()
	defer p.waitEnds()
	if err := p.opt.approvals.Put(aq); err != nil {
		return policy.Answer{Unanswered: fmt.Errorf("the question could not be put to the approvers: %w", err)}
	}
	// Withdrawn when the wait ends, unless the question waits on parked,
	// or its answer was taken: then the policy settles it once it acted
	// on the answer (an "always" saved, or why not), and the approver is
	// told "answered" only then.
	keep := false
	defer func() {
		if !keep {
			p.opt.approvals.Withdraw(aq.ID)
		}
	}()
	p.sayf("%s waits for an answer (question %s): `%s`", visible.Shown(q.Tool, maxShown), aq.ID, p.approvalsCommand("approvals"))
	p.opt.notify.Send(p.notice(notify.Question, aq))

	hold, holdCause := p.opt.askTimeout, errAskTimeout
	if w := p.opt.askWait; w > 0 && w < hold {
		hold, holdCause = w, errAskWait
	}
	wait, cancel := context.WithTimeoutCause(ctx, hold, holdCause)
	defer cancel()
	if hc != nil {
		hc.waitsFor.Store(ptr(fmt.Sprintf("waiting for an approver to answer about %s (question %s)", aq.Tool, aq.ID)))
		defer hc.waitsFor.Store(nil)
	}
	a, err := p.opt.approvals.Await(wait, aq, func(err error) { p.warnf("question %s: %v (removed)", aq.ID, err) })
	if errors.Is(err, errAskWait) {
		// The host is told now, and the question waits on without it:
		// the same call, made again, takes its answer.
		keep = true
		p.parked.park(p, digest, aq, p.opt.askTimeout-hold)
		return policy.Answer{Unanswered: fmt.Errorf("it waits for an approver's answer (question %s) at `%s` (or `%s`). "+
			"Once it is answered, make the same call again, with the same arguments, within %s", aq.ID,
			p.approvalsCommand("approvals"), p.approvalsCommand("approve"), p.opt.askTimeout)}
	}
	p.opt.notify.Send(p.questionEnded(aq, a, err))
	if errors.Is(err, errAskTimeout) {
		return policy.Answer{Unanswered: fmt.Errorf("no one answered within %s. To approve it, answer at `%s` (or `%s`) and make the call again",
			p.opt.askTimeout, p.approvalsCommand("approvals"), p.approvalsCommand("approve"))}
	}
	if err != nil {
		return policy.Answer{Unanswered: err}
	}
	// The wait was logged; so is its end, and who ended it.
	p.sayf("question %s answered %s by %s", aq.ID, a.Action, visible.Shown(a.By, maxShown))
	keep = true
	return p.settledAnswer(aq, a.Action)
}

// notice is aq as a webhook is told of it: what the approvals page shows,
// and, for a question put, the commands that answer it.
func (p *Proxy) notice(kind string, aq approvals.Question) notify.Event {
	e := notify.Event{Kind: kind, ID: aq.ID, Tool: aq.Tool, Server: aq.Asker.Server, Machine: aq.Asker.Machine}
	if kind != notify.Question {
		return e
	}
	// The question up to its arguments: what the rules read of the call
	// (its paths, hosts, commands), never the arguments' values (a file's
	// contents), which stay on the page and in approve.
	e.Question, _, _ = strings.Cut(aq.Message, "\nIts arguments:\n")
	e.Commands = append(e.Commands, p.approvalsCommand("approve")+" show "+aq.ID)
	for _, o := range aq.Options {
		verb := o.Action
		switch policy.Action(o.Action) {
		case policy.AllowOnce:
			verb = "allow"
		case policy.DenyOnce:
			verb = "deny"
		}
		e.Commands = append(e.Commands, p.approvalsCommand("approve")+" "+verb+" "+aq.ID)
	}
	return e
}

// questionEnded is how the wait for aq's answer ended, as a webhook is told: a,
// or err (its time passed, or the call went away); nil while it waits on
// (--ask-wait: parked, its end told by parked.go).
func (p *Proxy) questionEnded(aq approvals.Question, a approvals.Answer, err error) (e notify.Event) {
	switch {
	case err == nil:
		e = p.notice(notify.Answered, aq)
		e.Answer, e.By = a.Action, visible.Shown(a.By, maxShown)
	case errors.Is(err, errAskWait):
		e.Kind = "" // not ended: Send drops an event of no kind
	case errors.Is(err, errAskTimeout):
		e = p.notice(notify.TimedOut, aq)
	default:
		e = p.notice(notify.Cancelled, aq)
	}
	return e
}

// approversQuestion is q as the approvers see it, under digest: all the
// arguments, whole (the digest binds all of them, so the approver sees all
// of them), and the answers it offers.
func (p *Proxy) approversQuestion(q policy.Question, digest string) (approvals.Question, error) {
	arguments, err := approvals.ShowArguments(q.Call.Function.Arguments)
	if err != nil {
		return approvals.Question{}, err
	}
	now := time.Now().UTC()
	aq := approvals.Question{
		ID: approvals.NewID(), Digest: digest, Tool: visible.Whole(q.Tool),
		Message: permissionMessage(q), Arguments: arguments,
		Asker: p.asker(), Asked: now, Deadline: now.Add(p.opt.askTimeout),
	}
	for _, c := range choices(q) {
		aq.Options = append(aq.Options, approvals.Option{Action: string(c.value), Title: c.title})
	}
	return aq, nil
}

// settledAnswer is an approver's answer to aq, action, for the policy:
// the question is kept alive (approvals.Hold) while the policy carries it
// out, and settled with what came of it, which the log says.
func (p *Proxy) settledAnswer(aq approvals.Question, action string) policy.Answer {
	settle := approvals.Hold(p.opt.approvals, aq, approvals.Heartbeat)
	return policy.Answer{Action: policy.Action(action), Applied: func(failed error) {
		switch {
		case errors.Is(failed, grants.ErrQueued):
			p.sayf("question %s: answered, but the grant waits for the database: %v", aq.ID, failed)
		case failed != nil:
			p.sayf("question %s: the answer could not be carried out: %v", aq.ID, failed)
		}
		settle(failed)
	}}
}

var (
	errAskTimeout = errors.New("--ask-timeout passed")
	errAskWait    = errors.New("--ask-wait passed")
)

// asker is this proxy as an approver sees it.
func (p *Proxy) asker() approvals.Asker {
	machine, _ := os.Hostname()
	return approvals.Asker{Machine: visible.Shown(machine, maxShown), PID: os.Getpid(), Server: visible.Shown(p.opt.server, maxShownPath), Client: visible.Shown(p.session().client, maxShown)}
}
