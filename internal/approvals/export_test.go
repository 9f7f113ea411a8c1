package approvals

import "time"

// SetSessionLife shortens p's sessions, for a test to see one expire.
func SetSessionLife(p *Page, d time.Duration) { p.life = d }

// SetAnswerWaits shortens how long Deliver waits for a proxy to take an
// answer and to act on it, for a test of a proxy that does neither.
func SetAnswerWaits(taken, applied time.Duration) (restore func()) {
	t, a := answerTaken, answerApplied
	answerTaken, answerApplied = taken, applied
	return func() { answerTaken, answerApplied = t, a }
}
