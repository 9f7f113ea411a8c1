//go:build unix

package approvals_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/approvals"
	"github.com/mcp-policy/mcp-policy/internal/pgtest"
)

// Each queue, told what came of an answer: an approver hears "answered"
// only once the proxy that asked carried it out; one that took the answer
// and could not carry it out (an "always" it could not save) is reported
// with why; one that took it and then died is reported as gone after
// taking it, for the grant may or may not have been saved. Both queues
// behave alike: the proxy and the approver are separate handles, as they
// are separate processes.
func TestDeliverTellsWhatCameOfTheAnswer(t *testing.T) {
	queues := map[string]func(t *testing.T) (proxy, approver approvals.Queue){
		"file": func(t *testing.T) (approvals.Queue, approvals.Queue) {
			q := newQueue(t)
			again, err := approvals.Open(q.Grants())
			require.NoError(t, err)
			return q, again
		},
		"postgres": func(t *testing.T) (approvals.Queue, approvals.Queue) {
			url := pgtest.NewDatabase(t)
			return openQuestions(t, url, approvals.PostgresOptions{}), openQuestions(t, url, approvals.PostgresOptions{})
		},
	}
	for name, open := range queues {
		t.Run(name, func(t *testing.T) {
			t.Run("carried out", func(t *testing.T) {
				proxy, approver := open(t)
				err := answerAndSettle(t, proxy, approver, nil)
				assert.NoError(t, err)
			})
			t.Run("not carried out", func(t *testing.T) {
				proxy, approver := open(t)
				err := answerAndSettle(t, proxy, approver, errors.New("the grants cannot be read"))
				assert.ErrorContains(t, err, "the proxy that asked took the answer but could not carry it out: the grants cannot be read")
				_, err = approver.Pending()
				require.NoError(t, err)
			})
			t.Run("taken, then the proxy died", func(t *testing.T) {
				proxy, approver := open(t)
				qu := pgQuestion(time.Minute)
				qu.Asker = deadAsker(t)
				require.NoError(t, proxy.Put(qu))
				require.NoError(t, approver.Answer(qu.ID, qu.Digest, "allow-once", "t"))
				_, err := proxy.Await(context.Background(), qu, func(err error) { t.Error(err) })
				require.NoError(t, err, "taken")
				p, err := approver.Settled(qu)
				assert.Equal(t, approvals.Done, p)
				assert.ErrorContains(t, err, "took the answer, then stopped before it could act on it")
				pending, err := approver.Pending()
				require.NoError(t, err)
				assert.Empty(t, pending)
			})
			t.Run("kept for the call made again", func(t *testing.T) {
				proxy, approver := open(t)
				err := answerAndSettle(t, proxy, approver, approvals.ErrOnRetry)
				assert.ErrorIs(t, err, approvals.ErrOnRetry)
			})
			t.Run("withdrawn before it was taken", func(t *testing.T) {
				// The host gave the call up as the approver answered: a
				// question gone says nothing was approved, whatever keeps it.
				proxy, approver := open(t)
				qu := pgQuestion(time.Minute)
				require.NoError(t, proxy.Put(qu))
				require.NoError(t, approver.Answer(qu.ID, qu.Digest, "allow-once", "t"))
				proxy.Withdraw(qu.ID)
				p, err := approver.Settled(qu)
				assert.Equal(t, approvals.Done, p)
				assert.ErrorContains(t, err, "nothing was approved")
			})
			t.Run("not taken in time: the answer is withdrawn", func(t *testing.T) {
				// A stopped proxy must not take an answer its approver was
				// told came to nothing.
				defer approvals.SetAnswerWaits(200*time.Millisecond, time.Minute)()
				proxy, approver := open(t)
				qu := pgQuestion(time.Minute)
				qu.Asker = approvals.Asker{Machine: "elsewhere", PID: 1}
				require.NoError(t, proxy.Put(qu))
				stop := beating(t, proxy, qu) // alive, but never takes it
				_, err := approvals.Deliver(approver, qu.ID, qu.Digest, "allow-once", "t")
				stop()
				assert.ErrorContains(t, err, "did not take the answer within")
				assert.ErrorContains(t, err, "The answer is withdrawn and nothing was approved")
				ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
				defer cancel()
				_, err = proxy.Await(ctx, qu, func(err error) { t.Error(err) })
				assert.ErrorIs(t, err, context.DeadlineExceeded, "the proxy, going on, finds no answer")
				require.NoError(t, approver.Answer(qu.ID, qu.Digest, "deny-once", "t"), "the question waits for another answer")
			})
			t.Run("a slow grant keeps the question alive", func(t *testing.T) {
				proxy, approver := open(t)
				qu := pgQuestion(time.Minute)
				require.NoError(t, proxy.Put(qu))
				require.NoError(t, approver.Answer(qu.ID, qu.Digest, "allow-once", "t"))
				_, err := proxy.Await(context.Background(), qu, func(err error) { t.Error(err) })
				require.NoError(t, err)
				settle := approvals.Hold(proxy, qu, 10*time.Millisecond)
				p, err := approver.Settled(qu)
				require.NoError(t, err)
				assert.Equal(t, approvals.Applying, p, "taken, being acted on")
				settle(nil)
				p, err = approver.Settled(qu)
				assert.Equal(t, approvals.Done, p)
				assert.NoError(t, err)
			})
			t.Run("not taken, the proxy died", func(t *testing.T) {
				proxy, approver := open(t)
				qu := pgQuestion(time.Minute)
				qu.Asker = deadAsker(t)
				require.NoError(t, proxy.Put(qu))
				_, err := approvals.Deliver(approver, qu.ID, qu.Digest, "allow-once", "t")
				assert.ErrorContains(t, err, "the answer was not taken, the call was not run, and nothing was remembered")
			})
		})
	}
}

// answerAndSettle answers a question through Deliver while the proxy
// takes the answer and settles it with failed; Deliver's error.
func answerAndSettle(t *testing.T, proxy, approver approvals.Queue, failed error) error {
	t.Helper()
	qu := pgQuestion(time.Minute)
	require.NoError(t, proxy.Put(qu))
	delivered := make(chan error, 1)
	go func() {
		_, err := approvals.Deliver(approver, qu.ID, qu.Digest, "allow-once", "t")
		delivered <- err
	}()
	a, err := proxy.Await(context.Background(), qu, func(err error) { t.Error(err) })
	require.NoError(t, err)
	assert.Equal(t, "allow-once", a.Action)
	time.Sleep(5 * 20 * time.Millisecond) // five of Deliver's looks
	select {
	case err := <-delivered:
		t.Fatalf("Deliver returned before the proxy acted on the answer: %v", err)
	default:
	}
	proxy.Settle(qu.ID, failed)
	return <-delivered
}

// beating keeps qu alive as a waiting proxy would, without taking its
// answer, until the returned function is called.
func beating(t *testing.T, q approvals.Queue, qu approvals.Question) (stop func()) {
	t.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
				_ = q.Beat(qu)
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// deadAsker is a proxy of this machine whose process has ended.
func deadAsker(t *testing.T) approvals.Asker {
	t.Helper()
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	host, err := os.Hostname()
	require.NoError(t, err)
	return approvals.Asker{Machine: host, PID: cmd.Process.Pid}
}

// A proxy that took an answer and went silent while it saves the grant
// (stopped, or waiting on a lock) is not taken for a dead one by the next
// reader's sweep: the approver goes on being told it is acting on it, not
// that nothing was approved of an answer it then carries out.
func TestASilentProxyActingOnAnAnswerIsNotSwept(t *testing.T) {
	q := newQueue(t)
	host, err := os.Hostname()
	require.NoError(t, err)
	qu := pgQuestion(time.Minute)
	qu.Asker = approvals.Asker{Machine: host, PID: os.Getpid()} // alive
	require.NoError(t, q.Put(qu))
	require.NoError(t, q.Answer(qu.ID, qu.Digest, "allow-once", "t"))
	_, err = q.Await(context.Background(), qu, func(err error) { t.Error(err) })
	require.NoError(t, err, "taken")
	old := time.Now().Add(-2 * approvals.StaleAfter)
	require.NoError(t, os.Chtimes(filepath.Join(q.Dir(), qu.ID+".json"), old, old))
	_, err = q.Pending() // a reader's sweep
	require.NoError(t, err)
	p, err := q.Settled(qu)
	require.NoError(t, err)
	assert.Equal(t, approvals.Applying, p, "still being acted on, not withdrawn")
	q.Settle(qu.ID, nil)
	p, err = q.Settled(qu)
	assert.Equal(t, approvals.Done, p)
	assert.NoError(t, err)
}
