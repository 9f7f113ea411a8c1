//go:build unix

package approvals_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
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
				done, err := approver.Settled(qu)
				assert.True(t, done)
				assert.ErrorContains(t, err, "took the answer, then stopped before it could act on it")
				pending, err := approver.Pending()
				require.NoError(t, err)
				assert.Empty(t, pending)
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

// deadAsker is a proxy of this machine whose process has ended.
func deadAsker(t *testing.T) approvals.Asker {
	t.Helper()
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	host, err := os.Hostname()
	require.NoError(t, err)
	return approvals.Asker{Machine: host, PID: cmd.Process.Pid}
}
