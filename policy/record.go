package policy

import (
	"crypto/rand"
	"fmt"
	"time"

	"github.com/mcp-policy/mcp-policy/provider"
)

// Record is what Options.OnDecision is told of one call: what the rules
// and grants decided, what the human was asked and answered, and whether
// the call went on to the provider. It is the material of a decision log;
// package decisionlog writes it as OPA's decision log does.
type Record struct {
	// ID is unique to this decision (a random UUID).
	ID string
	// Time is when the call's fate was settled (the record was made);
	// Started when the policy took the call, and Deciding how long the
	// rules and grants took to decide it, before anyone was asked.
	Time     time.Time
	Started  time.Time
	Deciding time.Duration
	// Asked is when the question was put to the human (zero when nobody
	// was), and Waited how long the answer took.
	Asked  time.Time
	Waited time.Duration
	// Policy is the policy's Name.
	Policy string
	// Revisions name the rule sets the call was decided under: each
	// bundle's name and revision, as Options.Source gave them; nil
	// without a Source.
	Revisions map[string]string
	Call      provider.Call
	// Arguments is the parsed copy of the call's arguments, reason
	// included; nil when the call could not be read.
	Arguments map[string]any
	// Decision is the rules' and grants' decision, before anyone was
	// asked (Decision.Reason "grant" when a grant decided); nil when the
	// call could not be decided (see Error).
	Decision *Decision
	// Question and Answer are what the human was asked and answered;
	// nil when nobody was asked.
	Question *Question
	Answer   *Answer
	// Remembered is what the answer left as grants.
	Remembered []Rule
	// Allowed says the call was forwarded; Refusal is what the model was
	// told when it was not.
	Allowed bool
	Refusal string
	// Error is why the call could not be decided or answered, "" when it
	// could.
	Error string
	// Warnings are failures that did not change the call's fate: an
	// OnGrant callback that panicked (the grant is kept all the same).
	Warnings []string
}

// record completes rec and hands it to OnDecision. A panic there is
// contained: the call's fate is already decided.
func (p *Policy) record(rec *Record) {
	if rec == nil || p.opts.OnDecision == nil {
		return
	}
	rec.ID, rec.Time, rec.Policy = NewID(), time.Now(), p.name
	defer func() { _ = recover() }()
	p.opts.OnDecision(*rec)
}

// NewID is a random (version 4) UUID, as Record.ID is: for a caller that
// records decisions of its own in the same shape.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
