package approvals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/realpath"
	"github.com/mcp-policy/mcp-policy/internal/visible"
)

// How a waiting proxy shows it is alive, and when a question is taken for
// a dead proxy's.
const (
	Heartbeat  = 2 * time.Second
	StaleAfter = 10 * time.Second

	// poll is how often a waiting proxy looks for its answer: a human's
	// click is answered well within a glance.
	poll = 100 * time.Millisecond
)

// How long an approver waits for the proxy (variables only so that a test
// can shorten them).
var (
	// answerTaken bounds how long an approver waits for the proxy that
	// asked to take an answer before withdrawing it: longer than the
	// proxy's poll, and than the three heartbeats a proxy on another
	// machine may miss before it is taken for gone.
	answerTaken = 10 * time.Second
	// answerApplied bounds how long an approver waits, once the proxy has
	// taken the answer, for it to act on it: a grant saved may wait on
	// the grants file's lock (10 seconds) or the database (30).
	answerApplied = 60 * time.Second
)

// Queue is where the proxies sharing one grants store put the questions
// they hold calls on, and approvers answer them: a directory beside a
// grants file (FileQueue), or a table beside grants in PostgreSQL
// (package grants/pgstore). Whatever keeps it, an answer is bound to the
// question's id and digest, the first answer wins, an answer after the
// deadline is refused (ErrTooLate), and the questions of proxies gone
// (untouched for StaleAfter) are dropped.
type Queue interface {
	// Put adds a question, to be answered; the proxy calls Withdraw when
	// it is done with it, answered or not.
	Put(Question) error
	// Withdraw removes a question and its answer.
	Withdraw(id string)
	// Await waits for qu's answer until ctx ends, keeping qu alive.
	// Answers that do not answer qu (CheckAnswer) are removed and
	// reported to warn, and the wait goes on.
	Await(ctx context.Context, qu Question, warn func(error)) (Answer, error)
	// Answer answers question id as shown with digest (CheckAnswer), by
	// whom ("the approvals page"); only the first answer is taken. It
	// writes the answer; Deliver also waits for a proxy to act on it.
	Answer(id, digest, action, by string) error
	// Settle is the proxy that took an answer saying what came of it:
	// nil when it was carried out (an "always" remembered), ErrOnRetry
	// when it waits for the call to be made again, else why not.
	Settle(id string, failed error)
	// Beat shows the proxy is alive while it acts on an answer it took
	// (Hold): the question is not taken for a dead proxy's meanwhile.
	Beat(qu Question) error
	// Settled says how far the proxy that asked qu has come with its
	// answer: Waiting to take it, Applying it, or Done, with why it could
	// not carry it out when err is set. A proxy found gone is Done (with
	// AskerGone or TookThenGone), and its question removed. An error
	// with Waiting or Applying is the queue's own (the database out of
	// reach): worth asking again.
	Settled(qu Question) (Progress, error)
	// Retract withdraws qu's answer if the proxy has not taken it, and
	// says whether it did: false when the proxy took it first.
	Retract(qu Question) (bool, error)
	// Get reads one pending question.
	Get(id string) (Question, error)
	// Pending lists the questions waiting for an answer, oldest first.
	Pending() ([]Question, error)
	// Used says whether any proxy has put a question here yet: an
	// approver pointed at a store no proxy uses is told so.
	Used() (bool, error)
	// Grants is the --grants value that names this queue, for the
	// commands messages tell the human to run.
	Grants() string
}

// FileQueue is the pending questions of the proxies sharing one grants
// file, as files in a directory beside it.
type FileQueue struct{ dir, grants string }

var _ Queue = (*FileQueue)(nil)

// Open is the queue beside the grants file (its directory is made by the
// first question): <file>.pending, where file is the grants file with its
// links resolved, so proxies naming one file by different links share
// one queue.
func Open(grantsFile string) (*FileQueue, error) {
	if grantsFile == "" {
		return nil, errors.New("approvals need a grants file (--grants FILE): the questions wait beside it")
	}
	abs, err := filepath.Abs(grantsFile)
	if err != nil {
		return nil, err
	}
	file, err := realpath.Resolve(abs)
	if err != nil {
		return nil, fmt.Errorf("approvals: %s: %w", grantsFile, err)
	}
	return &FileQueue{dir: file + ".pending", grants: grantsFile}, nil
}

// Grants is the grants file as it was named.
func (q *FileQueue) Grants() string { return q.grants }

// Used says whether the queue's directory exists: the first question
// makes it.
func (q *FileQueue) Used() (bool, error) {
	if err := q.checkDir(); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	return true, nil
}

// Dir is the queue's directory. The policy protects it as it protects the
// grants file: an agent that could write an answer there could approve
// its own calls.
func (q *FileQueue) Dir() string { return q.dir }

func (q *FileQueue) questionFile(id string) string { return filepath.Join(q.dir, id+".json") }
func (q *FileQueue) answerFile(id string) string   { return filepath.Join(q.dir, id+".answer") }

// takenFile is where a proxy that took its answer says so: the answer
// file, renamed. It outlives the question's withdrawal (the stale sweep
// removes it), so an approver can tell an answer taken from a question
// withdrawn for another reason.
func (q *FileQueue) takenFile(id string) string { return filepath.Join(q.dir, id+".taken") }

// failedFile is where a proxy that took an answer and could not carry it
// out says why (Settle); parkedFile, that it keeps it for the same call
// made again. Like takenFile, they outlive the question.
func (q *FileQueue) failedFile(id string) string { return filepath.Join(q.dir, id+".failed") }
func (q *FileQueue) parkedFile(id string) string { return filepath.Join(q.dir, id+".parked") }

// Put writes the question's file.
func (q *FileQueue) Put(qu Question) error {
	if err := CheckID(qu.ID); err != nil {
		return err
	}
	// The grants file's directory too, as the grants make it: a proxy
	// whose host cannot be asked may put its first question before
	// anything was remembered.
	if err := os.MkdirAll(filepath.Dir(q.dir), 0o700); err != nil {
		return fmt.Errorf("approvals: %w", err)
	}
	if err := os.Mkdir(q.dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("approvals: %w", err)
	}
	if err := q.checkDir(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(qu, "", "  ")
	if err != nil {
		return fmt.Errorf("approvals: %w", err)
	}
	return writeNew(q.questionFile(qu.ID), data)
}

// Withdraw removes a question and its answer.
func (q *FileQueue) Withdraw(id string) {
	if CheckID(id) != nil {
		return
	}
	os.Remove(q.answerFile(id))
	os.Remove(q.questionFile(id))
}

// Get reads one pending question.
func (q *FileQueue) Get(id string) (Question, error) {
	if err := CheckID(id); err != nil {
		return Question{}, err
	}
	return q.read(q.questionFile(id))
}

func (q *FileQueue) read(file string) (Question, error) {
	if err := q.checkDir(); err != nil {
		return Question{}, err
	}
	data, err := readSafe(file, maxQuestion)
	if errors.Is(err, fs.ErrNotExist) {
		return Question{}, NotPending(strings.TrimSuffix(filepath.Base(file), ".json"))
	}
	if err != nil {
		return Question{}, fmt.Errorf("approvals: %w", err)
	}
	var qu Question
	if err := json.Unmarshal(data, &qu); err != nil {
		return Question{}, fmt.Errorf("approvals: %s: %w", file, err)
	}
	if filepath.Base(file) != qu.ID+".json" {
		return Question{}, fmt.Errorf("approvals: %s holds question %q", file, qu.ID)
	}
	if err := qu.known(); err != nil {
		return Question{}, fmt.Errorf("approvals: %s: %w", file, err)
	}
	return qu, nil
}

// Pending lists the questions waiting for an answer, oldest first. The
// questions of proxies gone (untouched for StaleAfter) are removed; an
// unreadable file is skipped (a proxy may be writing it).
func (q *FileQueue) Pending() ([]Question, error) {
	if err := q.checkDir(); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	es, err := os.ReadDir(q.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("approvals: %w", err)
	}
	var out []Question
	for _, e := range es {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || CheckID(id) != nil {
			q.removeOrphan(e)
			continue
		}
		if info, err := e.Info(); err != nil || time.Since(info.ModTime()) > StaleAfter {
			if q.applying(id, info) {
				continue
			}
			q.Withdraw(id)
			continue
		}
		if _, err := os.Stat(q.answerFile(id)); err == nil {
			continue // answered: its proxy is about to take it
		}
		if _, err := os.Lstat(q.takenFile(id)); err == nil {
			continue // answered and taken
		}
		qu, err := q.read(filepath.Join(q.dir, e.Name()))
		if err != nil {
			continue
		}
		if qu.Asker.gone() {
			q.Withdraw(id) // its proxy died: nothing waits for an answer
			continue
		}
		out = append(out, qu)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Asked.Before(out[j].Asked) })
	return out, nil
}

// applying says a silent question's proxy took its answer and may be
// acting on it still (stopped, or waiting on a lock): it is not taken for a
// dead proxy's while its process lives (on this machine) and for twice
// the time an approver waits for it, lest an approver be told nothing was
// approved of an answer the proxy then carries out.
func (q *FileQueue) applying(id string, info fs.FileInfo) bool {
	if _, err := os.Lstat(q.takenFile(id)); err != nil || info == nil || time.Since(info.ModTime()) > 2*answerApplied {
		return false
	}
	qu, err := q.read(q.questionFile(id))
	return err == nil && !qu.Asker.gone()
}

// removeOrphan removes, once it is StaleAfter old, an answer whose
// question is gone (its proxy withdrew it as the approver wrote) or a
// temporary file a crash left: nothing reads them.
func (q *FileQueue) removeOrphan(e fs.DirEntry) {
	name := e.Name()
	id, isAnswer := strings.CutSuffix(name, ".answer")
	for _, mark := range []string{".taken", ".failed", ".parked"} {
		if marked, ok := strings.CutSuffix(name, mark); ok {
			id, isAnswer = marked, true
		}
	}
	switch {
	case isAnswer && CheckID(id) == nil:
		if _, err := os.Stat(q.questionFile(id)); err == nil {
			return
		}
	case strings.HasPrefix(name, ".tmp-"):
	default:
		return // not the queue's: left alone
	}
	if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > StaleAfter {
		os.Remove(filepath.Join(q.dir, name))
	}
}

// Answer answers the question id, as shown with digest: it is refused when
// the question is no longer pending, when its digest is not the one shown
// (it is another call), when action is not one of its answers, or when
// someone answered first.
func (q *FileQueue) Answer(id, digest, action, by string) error {
	qu, err := q.Get(id)
	if err != nil {
		return err
	}
	a, err := NewAnswer(qu, time.Until(qu.Deadline), digest, action, by)
	if err != nil {
		return err
	}
	data, err := json.Marshal(a)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(q.takenFile(id)); err == nil {
		return AnsweredAlready(id)
	}
	if err := writeNew(q.answerFile(id), data); errors.Is(err, fs.ErrExist) {
		return AnsweredAlready(id)
	} else if err != nil {
		return err
	}
	// The proxy may have taken another approver's answer between the
	// look above and the write (renaming it away, so the write found no
	// file): this answer came second, and is no one's.
	if _, err := os.Lstat(q.takenFile(id)); err == nil {
		os.Remove(q.answerFile(id))
		return AnsweredAlready(id)
	}
	return nil
}

// Settle writes why the answer to id could not be carried out, when it
// could not, and withdraws the question.
func (q *FileQueue) Settle(id string, failed error) {
	if CheckID(id) != nil {
		return
	}
	switch {
	case errors.Is(failed, ErrOnRetry):
		_ = writeNew(q.parkedFile(id), nil)
	case failed != nil:
		_ = writeNew(q.failedFile(id), []byte(failureText(failed)))
	}
	q.Withdraw(id)
}

// Beat marks qu's question file alive.
func (q *FileQueue) Beat(qu Question) error {
	if err := CheckID(qu.ID); err != nil {
		return err
	}
	now := time.Now()
	return os.Chtimes(q.questionFile(qu.ID), now, now)
}

// Retract removes qu's answer unless the proxy took it (renamed it to
// takenFile) first: the rename that would take it finds none after.
func (q *FileQueue) Retract(qu Question) (bool, error) {
	if err := CheckID(qu.ID); err != nil {
		return false, err
	}
	away := q.answerFile(qu.ID) + ".retracted"
	if err := os.Rename(q.answerFile(qu.ID), away); errors.Is(err, fs.ErrNotExist) {
		return false, nil // taken, or withdrawn: Settled says which
	} else if err != nil {
		return false, err
	}
	os.Remove(away)
	return true, nil
}

// Settled says what came of qu's answer. The proxy marks an answer taken
// (takenFile) and withdraws the question once it acted on it (Settle),
// saying why when it could not (failedFile). A question withdrawn unmarked
// was not taken; a proxy of this machine whose process is gone before it
// took the answer, or before it acted on it, never will: its question is
// removed, and the error says so.
func (q *FileQueue) Settled(qu Question) (Progress, error) {
	// The question first: the proxy marks the answer taken, and what came
	// of it, before it withdraws the question, so a question found gone
	// here has its marks in place when they are read next.
	_, err := os.Stat(q.questionFile(qu.ID))
	withdrawn := errors.Is(err, fs.ErrNotExist)
	_, err = os.Lstat(q.takenFile(qu.ID))
	taken := err == nil
	if data, err := readSafe(q.failedFile(qu.ID), 4*maxFailure); err == nil {
		return Done, failure(qu, string(data))
	}
	if _, err := os.Lstat(q.parkedFile(qu.ID)); err == nil {
		return Done, ErrOnRetry
	}
	switch {
	case taken && withdrawn:
		return Done, nil
	case withdrawn:
		// Withdrawn with its answer untaken: its call ended first, or a
		// reader took it for a dead proxy's.
		return Done, withdrawnUntaken(qu)
	case qu.Asker.gone():
		q.Withdraw(qu.ID)
		if taken {
			return Done, TookThenGone(qu)
		}
		return Done, AskerGone(qu)
	case taken:
		return Applying, nil
	}
	return Waiting, nil
}

// withdrawnUntaken is the error for a question withdrawn with its answer
// untaken.
func withdrawnUntaken(qu Question) error {
	return fmt.Errorf("question %s was withdrawn before its proxy took the answer (its call ended, or its proxy stopped showing it is alive): nothing was approved", qu.ID)
}

// Progress is how far a proxy has come with an answer (Queue.Settled).
type Progress int

const (
	Waiting  Progress = iota // the answer is not taken yet
	Applying                 // taken, being acted on
	Done                     // acted on, or never will be
)

// ErrOnRetry is how a proxy that parked a question (--ask-wait) settles
// an answer it keeps for the same call made again: nothing is carried out
// before then.
var ErrOnRetry = errors.New("the proxy keeps the answer for when the agent makes the same call again; nothing is carried out or remembered before then")

// AppliesOnRetry is what an approver is told of an answer a proxy keeps
// for the same call made again (ErrOnRetry).
const AppliesOnRetry = "The agent was told to make the same call again: the answer applies then, and nothing is carried out or remembered before."

// Hold keeps qu alive (Queue.Beat, every Heartbeat) while the proxy acts
// on the answer it took, and returns the function that settles it: a
// grant saved may wait on a lock or the database longer than a reader
// waits before taking a silent question for a dead proxy's.
func Hold(q Queue, qu Question, every time.Duration) (settle func(failed error)) {
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				_ = q.Beat(qu) // out of reach: the next beat tries again
			}
		}
	}()
	var once sync.Once
	return func(failed error) {
		once.Do(func() {
			close(stop)
			<-stopped
			q.Settle(qu.ID, failed)
		})
	}
}

// Deliver answers question id (Queue.Answer), then waits for the proxy
// that asked to take the answer and act on it, so that an approver is told
// "answered" only when a living proxy carried it out (an "always" is
// remembered by then): a proxy found gone meanwhile has its question and
// the answer removed (AskerGone, TookThenGone), one that could not carry
// it out says why (NotCarriedOut), and one that does neither within
// answerSettled is said to be stopped. What the approvals page and
// `approve` answer with.
func Deliver(q Queue, id, digest, action, by string) (Question, error) {
	qu, err := q.Get(id)
	if err != nil {
		return Question{}, err
	}
	if err := q.Answer(id, digest, action, by); err != nil {
		return qu, err
	}
	start := time.Now()
	for {
		p, err := q.Settled(qu)
		waited := time.Since(start)
		switch {
		case p == Done:
			return qu, err
		case waited > answerApplied && err != nil:
			return qu, fmt.Errorf("question %s: the answer is written, but what came of it cannot be read: %w", qu.ID, err)
		case p == Applying && waited > answerApplied:
			return qu, fmt.Errorf("question %s: the proxy that asked (process %d on %s) took the answer and is still acting on it after %s "+
				"(saving a grant waits on the grants store): `mcp-policy grants list` shows what it has kept", qu.ID, qu.Asker.PID, visible.Whole(qu.Asker.Machine), answerApplied)
		case p == Waiting && err == nil && waited > answerTaken:
			// Not taken: a stopped proxy could take it when it goes on,
			// after the approver was told it did not. Withdrawn instead;
			// if the proxy took it meanwhile, the wait goes on.
			retracted, rerr := q.Retract(qu)
			if rerr == nil && retracted {
				return qu, fmt.Errorf("question %s: the proxy that asked (process %d on %s) did not take the answer within %s: it is stopped or overloaded. "+
					"The answer is withdrawn and nothing was approved; the question waits for another answer while its proxy lives",
					qu.ID, qu.Asker.PID, visible.Whole(qu.Asker.Machine), answerTaken)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// AskerGone is the error for an answer to a proxy that died before it
// could take it: the call was not run, and nothing was remembered.
func AskerGone(qu Question) error {
	return fmt.Errorf("question %s: the proxy that asked (process %d on %s) is gone (or stopped for three heartbeats): the answer was not taken, the call was not run, and nothing was remembered",
		qu.ID, qu.Asker.PID, visible.Whole(qu.Asker.Machine))
}

// NewAnswer is the answer to qu as shown with digest, or why there can be
// none: its time ran out (left, the time it has left by the clock of
// whatever keeps the queue, is not positive: ErrTooLate), digest is
// another call's, or action is not one of its answers. Every queue
// answers through it.
func NewAnswer(qu Question, left time.Duration, digest, action, by string) (Answer, error) {
	if left <= 0 {
		return Answer{}, fmt.Errorf("%w: question %s was refused unanswered at %s, when its time ran out", ErrTooLate, qu.ID, qu.Deadline.Local().Format(time.TimeOnly))
	}
	if qu.Digest != digest {
		return Answer{}, fmt.Errorf("question %s is not the call you were shown (its arguments' digest differs): not answered", qu.ID)
	}
	if !qu.offers(action) {
		return Answer{}, fmt.Errorf("question %s does not offer %q (its answers: %s)", qu.ID, action, actions(qu))
	}
	return Answer{ID: qu.ID, Digest: digest, Action: action, By: by, At: time.Now().UTC()}, nil
}

// TookThenGone is the error for an answer whose proxy took it and died
// before it acted on it: the call did not run, and an "always" is
// remembered only if the proxy got that far.
func TookThenGone(qu Question) error {
	return fmt.Errorf("question %s: the proxy that asked (process %d on %s) took the answer, then stopped before it could act on it: the call was not run, "+
		"and an always-answer may not be remembered (`mcp-policy grants list` shows what is)",
		qu.ID, qu.Asker.PID, visible.Whole(qu.Asker.Machine))
}

// keptMark starts what a proxy says of an answer it carried out but whose
// grant its database did not take yet (grants.ErrQueued).
const keptMark = "kept by the proxy: "

// failureText is what Settle keeps of why an answer was not carried out.
func failureText(failed error) string {
	if errors.Is(failed, grants.ErrQueued) {
		return keptMark + visible.Shown(failed.Error(), maxFailure)
	}
	return visible.Shown(failed.Error(), maxFailure)
}

// failure is the error for the text Settle kept.
func failure(qu Question, text string) error {
	if why, ok := strings.CutPrefix(text, keptMark); ok {
		return KeptByProxy(qu, why)
	}
	return NotCarriedOut(qu, text)
}

// KeptByProxy is the error for an answer carried out (the call ran) whose
// grant the proxy could not write to its database: it keeps it, and
// writes it when the database answers; it is lost if the proxy stops first.
func KeptByProxy(qu Question, why string) error {
	return fmt.Errorf("question %s: the proxy that asked carried the answer out, but the grant is not written yet (%s): "+
		"`mcp-policy grants list` shows when it is", qu.ID, visible.Whole(why))
}

// TookThenSilent is the error for an answer whose proxy took it and then
// stopped showing it is alive, on another machine (or not known dead): it
// may be dead, or stopped, and carry the answer out if it goes on.
func TookThenSilent(qu Question) error {
	return fmt.Errorf("question %s: the proxy that asked (process %d on %s) took the answer, then stopped showing it is alive: "+
		"it is dead, or stopped and carries the answer out if it goes on. `mcp-policy grants list` shows whether an always-answer was remembered",
		qu.ID, qu.Asker.PID, visible.Whole(qu.Asker.Machine))
}

// NotCarriedOut is the error for an answer its proxy took and could not
// carry out (an "always" it could not save): the call was refused, and
// nothing was remembered.
func NotCarriedOut(qu Question, why string) error {
	return fmt.Errorf("question %s: the proxy that asked took the answer but could not carry it out: %s", qu.ID, visible.Whole(why))
}

// AnsweredAlready is the error for an answer that came second.
func AnsweredAlready(id string) error { return fmt.Errorf("question %s was answered already", id) }

// NotPending is the error for a question that is not (or no longer)
// waiting.
func NotPending(id string) error {
	return fmt.Errorf("no question %s is pending: too late (its time ran out and the call was refused), answered already, or its proxy is gone", id)
}

// CheckAnswer says whether a is an answer to qu — its id, its digest, one
// of its actions — wrapping ErrBadAnswer when it is not: a waiting proxy
// takes no other.
func CheckAnswer(qu Question, a Answer) error {
	switch {
	case a.ID != qu.ID:
		return fmt.Errorf("%w: it answers question %.40q", ErrBadAnswer, a.ID)
	case a.Digest != qu.Digest:
		return fmt.Errorf("%w: it was given for another call (digest %.16s…, this call's %.16s…)", ErrBadAnswer, a.Digest, qu.Digest)
	case !qu.offers(a.Action):
		return fmt.Errorf("%w: %.40q is not one of its answers", ErrBadAnswer, a.Action)
	}
	return nil
}

// CheckQuestion refuses a question read from a queue that offers an
// answer that is none of the five.
func CheckQuestion(qu Question) error {
	if err := CheckID(qu.ID); err != nil {
		return err
	}
	return qu.known()
}

func actions(qu Question) string {
	var s []string
	for _, o := range qu.Options {
		s = append(s, o.Action)
	}
	return strings.Join(s, ", ")
}

// ErrBadAnswer is wrapped by the warning Await gives for an answer file
// that is not an answer to its question (another question's id or digest,
// an action not offered, not JSON): the answer is removed and the wait
// goes on.
var ErrBadAnswer = errors.New("an answer that does not answer this question")

// Await waits for qu's answer until ctx ends, keeping qu alive
// (Heartbeat). Answers that are not to qu — its id and digest, one of its
// actions — are removed and reported to warn, and the wait goes on.
func (q *FileQueue) Await(ctx context.Context, qu Question, warn func(error)) (Answer, error) {
	tick := time.NewTicker(poll)
	defer tick.Stop()
	lastBeat := time.Now()
	for {
		if a, err := q.take(qu); err == nil {
			return a, nil
		} else if errors.Is(err, ErrBadAnswer) {
			os.Remove(q.answerFile(qu.ID))
			warn(err)
		}
		select {
		case <-ctx.Done():
			// An answer given before the deadline, or before the host
			// gave the call up, counts even when it landed after the last
			// poll: Answer refuses any later one, so an approver is never
			// told "answered" in vain, and an "always" is kept.
			if a, err := q.take(qu); err == nil {
				return a, nil
			}
			return Answer{}, context.Cause(ctx)
		case now := <-tick.C:
			if now.Sub(lastBeat) >= Heartbeat {
				lastBeat = now
				if err := os.Chtimes(q.questionFile(qu.ID), now, now); errors.Is(err, fs.ErrNotExist) {
					// Removed under us (a reader took us for dead after a
					// long stop): put it back, it is still waiting.
					if err := q.Put(qu); err != nil {
						return Answer{}, err
					}
				}
			}
		}
	}
}

// take reads qu's answer and marks it taken (takenFile): an approver is
// told "answered" only then. An answer removed before it could be marked
// (its question taken for a dead proxy's) is not taken.
func (q *FileQueue) take(qu Question) (Answer, error) {
	a, err := q.answerOf(qu)
	if err != nil {
		return Answer{}, err
	}
	if err := os.Rename(q.answerFile(qu.ID), q.takenFile(qu.ID)); err != nil {
		return Answer{}, fmt.Errorf("approvals: taking the answer to %s: %w", qu.ID, err)
	}
	return a, nil
}

// answerOf reads qu's answer: fs.ErrNotExist while there is none.
func (q *FileQueue) answerOf(qu Question) (Answer, error) {
	data, err := readSafe(q.answerFile(qu.ID), maxAnswer)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		// A link, a FIFO, a file too big: planted, not written by Answer.
		return Answer{}, fmt.Errorf("%w: %v", ErrBadAnswer, err)
	}
	if err != nil {
		return Answer{}, err
	}
	var a Answer
	if err := json.Unmarshal(data, &a); err != nil {
		return Answer{}, fmt.Errorf("%w: %v", ErrBadAnswer, err)
	}
	if err := CheckAnswer(qu, a); err != nil {
		return Answer{}, err
	}
	return a, nil
}

// ErrTooLate is wrapped by Answer's error for a question whose deadline
// has passed: its proxy refused the call, or is about to.
var ErrTooLate = errors.New("too late")

// checkDir refuses a queue directory that is not a directory of the
// user's own, closed to others (see checkOwner): a queue another user
// made beforehand would let them read every question and answer them.
func (q *FileQueue) checkDir() error {
	info, err := os.Lstat(q.dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("approvals: %s is not a directory (a link or a file stands where the queue goes): remove it", q.dir)
	}
	return checkOwner(q.dir, info)
}

// How big a queue file may be: a question holds the call's arguments
// whole, an answer a few words, a failure a sentence.
const (
	maxQuestion = 32 << 20
	maxAnswer   = 64 << 10
	maxFailure  = 4 << 10
)

var (
	errNotRegular = errors.New("not a regular file")
	errTooBig     = errors.New("too big")
)

// readSafe reads a queue file that may have been planted: never through a
// link, never blocking on a FIFO or a device, a regular file only, and at
// most max bytes.
func readSafe(file string, max int64) ([]byte, error) {
	f, err := os.OpenFile(file, openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", file, errNotRegular)
	}
	if info.Size() > max {
		return nil, fmt.Errorf("%s: %w (%d bytes, at most %d)", file, errTooBig, info.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w (grew past %d bytes)", file, errTooBig, max)
	}
	return data, nil
}

// writeNew writes data to file (mode 0600) whole or not at all, and only
// if file does not exist yet (fs.ErrExist): the first answer wins, and a
// reader never sees half a file.
func writeNew(file string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), ".tmp-*")
	if err != nil {
		return fmt.Errorf("approvals: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("approvals: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("approvals: %w", err)
	}
	if err := os.Link(tmp.Name(), file); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return err
		}
		return fmt.Errorf("approvals: %w", err)
	}
	return nil
}
