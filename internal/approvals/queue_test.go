package approvals_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/approvals"
)

func newQueue(t *testing.T) *approvals.FileQueue {
	t.Helper()
	q, err := approvals.Open(filepath.Join(t.TempDir(), "grants.json"))
	require.NoError(t, err)
	return q
}

// The first question of a proxy whose grants directory does not exist yet
// makes it, as the grants would (mode 0700), and waits there.
func TestFirstQuestionMakesTheGrantsDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "config", "mcp-policy")
	q, err := approvals.Open(filepath.Join(dir, "grants.json"))
	require.NoError(t, err)
	qu := question(t, "fs_write", `{"path":"/srv/a"}`)
	require.NoError(t, q.Put(qu))
	info, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), info.Mode().Perm())
	pending, err := q.Pending()
	require.NoError(t, err)
	require.Len(t, pending, 1)
	assert.Equal(t, qu.ID, pending[0].ID)
}

func question(t *testing.T, tool, args string) approvals.Question {
	t.Helper()
	d, err := approvals.Digest(tool, args)
	require.NoError(t, err)
	now := time.Now().UTC()
	return approvals.Question{ID: approvals.NewID(), Digest: d, Tool: tool, Message: "The agent wants to run " + tool + ".",
		Options:   []approvals.Option{{Action: "allow-once", Title: "Allow once"}, {Action: "deny-once", Title: "Deny once"}},
		Arguments: args, Asked: now, Deadline: now.Add(time.Minute)}
}

// await runs Await in the background and collects its warnings.
type await struct {
	done     chan struct{}
	answer   approvals.Answer
	err      error
	mu       sync.Mutex
	warnings []error
}

func startAwait(ctx context.Context, q *approvals.FileQueue, qu approvals.Question) *await {
	a := &await{done: make(chan struct{})}
	go func() {
		defer close(a.done)
		a.answer, a.err = q.Await(ctx, qu, func(err error) { a.mu.Lock(); a.warnings = append(a.warnings, err); a.mu.Unlock() })
	}()
	return a
}

func (a *await) warned() []error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]error(nil), a.warnings...)
}

func TestAnswerReachesTheWaitingProxy(t *testing.T) {
	q := newQueue(t)
	qu := question(t, "write_file", `{"path":"/srv/a.md","content":"hi"}`)
	require.NoError(t, q.Put(qu))
	info, err := os.Stat(q.Dir())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), info.Mode().Perm(), "the queue is the user's alone")

	pending, err := q.Pending()
	require.NoError(t, err)
	require.Len(t, pending, 1)
	assert.Equal(t, qu.ID, pending[0].ID)
	assert.Equal(t, qu.Message, pending[0].Message)

	a := startAwait(context.Background(), q, qu)
	require.NoError(t, q.Answer(qu.ID, qu.Digest, "deny-once", "test"))
	select {
	case <-a.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the answer did not reach Await")
	}
	require.NoError(t, a.err)
	assert.Equal(t, "deny-once", a.answer.Action)

	pending, err = q.Pending()
	require.NoError(t, err)
	assert.Empty(t, pending, "an answered question is not shown again")
	assert.ErrorContains(t, q.Answer(qu.ID, qu.Digest, "allow-once", "test"), "answered already", "the first answer wins")

	q.Withdraw(qu.ID)
	_, err = q.Get(qu.ID)
	assert.ErrorContains(t, err, "no question "+qu.ID+" is pending")
}

func TestAnswerIsRefusedForAnotherCallOrAnAnswerNotOffered(t *testing.T) {
	q := newQueue(t)
	qu := question(t, "write_file", `{"path":"/srv/a.md"}`)
	require.NoError(t, q.Put(qu))
	other, err := approvals.Digest("write_file", `{"path":"/home/me/.bashrc"}`)
	require.NoError(t, err)
	assert.ErrorContains(t, q.Answer(qu.ID, other, "allow-once", "test"), "not the call you were shown")
	assert.ErrorContains(t, q.Answer(qu.ID, qu.Digest, "always-allow", "test"), `does not offer "always-allow"`)
	assert.ErrorContains(t, q.Answer("../../etc/passwd", qu.Digest, "allow-once", "test"), "not a question id")
	pending, err := q.Pending()
	require.NoError(t, err)
	assert.Len(t, pending, 1, "still waiting")
}

// An answer file written for another question — copied from an earlier
// call's, or made up — is removed and reported, and the proxy waits on
// for an answer to its own question.
func TestAwaitRefusesAReplayedAnswer(t *testing.T) {
	q := newQueue(t)
	first := question(t, "write_file", `{"path":"/srv/a.md"}`)
	second := question(t, "write_file", `{"path":"/home/me/.ssh/authorized_keys"}`)
	require.NoError(t, q.Put(second))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := startAwait(ctx, q, second)

	for _, forged := range []approvals.Answer{
		{ID: first.ID, Digest: first.Digest, Action: "allow-once"},  // another question's answer
		{ID: second.ID, Digest: first.Digest, Action: "allow-once"}, // this id, another call
		{ID: second.ID, Digest: second.Digest, Action: "allow-all"}, // no such answer
	} {
		data, err := json.Marshal(forged)
		require.NoError(t, err)
		n := len(a.warned())
		require.NoError(t, os.WriteFile(filepath.Join(q.Dir(), second.ID+".answer"), data, 0o600))
		require.Eventually(t, func() bool { return len(a.warned()) > n }, 5*time.Second, 10*time.Millisecond, "%+v", forged)
		assert.ErrorIs(t, a.warned()[n], approvals.ErrBadAnswer)
	}
	select {
	case <-a.done:
		t.Fatalf("a forged answer was taken: %+v", a.answer)
	default:
	}
	require.NoError(t, q.Answer(second.ID, second.Digest, "deny-once", "test"))
	<-a.done
	require.NoError(t, a.err)
	assert.Equal(t, "deny-once", a.answer.Action)
}

func TestAwaitEndsWithItsContext(t *testing.T) {
	q := newQueue(t)
	qu := question(t, "write_file", `{}`)
	require.NoError(t, q.Put(qu))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := q.Await(ctx, qu, func(error) {})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// A proxy that died while waiting leaves its question behind: untouched
// past StaleAfter, it is taken away by the next reader.
func TestStaleQuestionsAreRemoved(t *testing.T) {
	q := newQueue(t)
	gone, alive := question(t, "write_file", `{"a":1}`), question(t, "write_file", `{"a":2}`)
	require.NoError(t, q.Put(gone))
	require.NoError(t, q.Put(alive))
	old := time.Now().Add(-approvals.StaleAfter - time.Second)
	require.NoError(t, os.Chtimes(filepath.Join(q.Dir(), gone.ID+".json"), old, old))
	pending, err := q.Pending()
	require.NoError(t, err)
	require.Len(t, pending, 1)
	assert.Equal(t, alive.ID, pending[0].ID)
	_, err = os.Stat(filepath.Join(q.Dir(), gone.ID+".json"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	// An answer whose question was withdrawn as it was written, and a
	// crash's temporary file, go too once as old; a fresh one and a file
	// that is not the queue's stay.
	for name, age := range map[string]time.Duration{
		approvals.NewID() + ".answer": 2 * approvals.StaleAfter, ".tmp-123": 2 * approvals.StaleAfter,
		"notes.txt": 2 * approvals.StaleAfter,
	} {
		file := filepath.Join(q.Dir(), name)
		require.NoError(t, os.WriteFile(file, []byte("{}"), 0o600))
		at := time.Now().Add(-age)
		require.NoError(t, os.Chtimes(file, at, at))
	}
	fresh := approvals.NewID() + ".answer"
	require.NoError(t, os.WriteFile(filepath.Join(q.Dir(), fresh), []byte("{}"), 0o600))
	_, err = q.Pending()
	require.NoError(t, err)
	var left []string
	es, err := os.ReadDir(q.Dir())
	require.NoError(t, err)
	for _, e := range es {
		left = append(left, e.Name())
	}
	assert.ElementsMatch(t, []string{alive.ID + ".json", fresh, "notes.txt"}, left)
}

func TestOpenNeedsAGrantsFile(t *testing.T) {
	_, err := approvals.Open("")
	assert.ErrorContains(t, err, "--grants FILE")
}

// Proxies naming the grants file by a link share the queue of the file
// it leads to.
func TestOpenResolvesLinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real", "grants.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(real), 0o700))
	require.NoError(t, os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link")))
	a, err := approvals.Open(real)
	require.NoError(t, err)
	b, err := approvals.Open(filepath.Join(dir, "link", "grants.json"))
	require.NoError(t, err)
	assert.Equal(t, a.Dir(), b.Dir())
}

// deadlineCtx is a context whose deadline passes when the test says.
type deadlineCtx struct {
	context.Context
	done chan struct{}
}

func (c deadlineCtx) Done() <-chan struct{} { return c.done }
func (c deadlineCtx) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// TestAnAnswerJustBeforeTheDeadlineCounts: an answer that lands after the
// proxy's last poll but before its deadline is taken (the approver was
// told "answered"), not dropped.
func TestAnAnswerJustBeforeTheDeadlineCounts(t *testing.T) {
	q := newQueue(t)
	qu := question(t, "write_file", `{}`)
	require.NoError(t, q.Put(qu))
	ctx := deadlineCtx{Context: context.Background(), done: make(chan struct{})}
	a := startAwait(ctx, q, qu)
	time.Sleep(20 * time.Millisecond) // its first look found nothing
	require.NoError(t, q.Answer(qu.ID, qu.Digest, "allow-once", "test"))
	close(ctx.done) // the deadline passes before its next poll
	<-a.done
	require.NoError(t, a.err)
	assert.Equal(t, "allow-once", a.answer.Action)
}

// A queue no proxy has put a question in says so (approve and the page
// then warn that their --grants may not be the proxies'); the first
// question, even withdrawn since, makes it used.
func TestQueueIsUsedOnceAQuestionWasPut(t *testing.T) {
	q := newQueue(t)
	used, err := q.Used()
	require.NoError(t, err)
	assert.False(t, used)
	qu := question(t, "write_file", `{"path":"/srv/a"}`)
	require.NoError(t, q.Put(qu))
	q.Withdraw(qu.ID)
	used, err = q.Used()
	require.NoError(t, err)
	assert.True(t, used)
}

// An approver is told "answered" only when the proxy took the answer:
// one whose question is withdrawn first (its call ended, or a reader took
// its proxy for dead) is told nothing was approved, and a second answer
// after a taken one is refused.
func TestDeliverSaysAnsweredOnlyWhenTaken(t *testing.T) {
	q := newQueue(t)
	qu := question(t, "write_file", `{"path":"/srv/a"}`)
	require.NoError(t, q.Put(qu))
	done := make(chan error, 1)
	go func() {
		_, err := approvals.Deliver(q, qu.ID, qu.Digest, "allow-once", "t")
		done <- err
	}()
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(q.Dir(), qu.ID+".answer"))
		return err == nil
	}, 5*time.Second, 5*time.Millisecond, "the answer is written")
	q.Withdraw(qu.ID) // the call ended before the proxy looked
	assert.ErrorContains(t, <-done, "withdrawn before its proxy took the answer")

	qu = question(t, "write_file", `{"path":"/srv/b"}`)
	require.NoError(t, q.Put(qu))
	go func() {
		_, err := approvals.Deliver(q, qu.ID, qu.Digest, "allow-once", "t")
		done <- err
	}()
	a, err := q.Await(context.Background(), qu, func(err error) { t.Error(err) })
	require.NoError(t, err)
	assert.Equal(t, "allow-once", a.Action)
	q.Withdraw(qu.ID)
	assert.NoError(t, <-done, "taken")
	assert.Error(t, q.Answer(qu.ID, qu.Digest, "deny-once", "t"), "answered, taken, gone")
}
