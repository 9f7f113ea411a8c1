//go:build unix

package approvals_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/approvals"
)

// TestAQueueOthersCanWriteIsRefused: a queue directory made beforehand by
// someone else, or open to others, is not used: whoever can write it
// could answer the questions.
func TestAQueueOthersCanWriteIsRefused(t *testing.T) {
	q := newQueue(t)
	require.NoError(t, os.Mkdir(q.Dir(), 0o777))
	require.NoError(t, os.Chmod(q.Dir(), 0o777)) // past the umask
	qu := question(t, "write_file", `{}`)
	err := q.Put(qu)
	require.Error(t, err)
	assert.Contains(t, err.Error(), q.Dir())
	assert.Contains(t, err.Error(), "chmod 700")
	_, err = q.Pending()
	assert.Error(t, err, "readers refuse it too")

	require.NoError(t, os.Chmod(q.Dir(), 0o700))
	require.NoError(t, q.Put(qu))
	if os.Getuid() == 0 { // only root can give it away
		require.NoError(t, os.Chown(q.Dir(), 65534, 65534))
		_, err = q.Pending()
		require.Error(t, err)
		assert.Contains(t, err.Error(), "not to you")
	}
}

func TestANewQueueIsTheUsersAlone(t *testing.T) {
	q := newQueue(t)
	require.NoError(t, q.Put(question(t, "write_file", `{}`)))
	info, err := os.Stat(q.Dir())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), info.Mode().Perm())
}

// TestPlantedFilesDoNotHangOrFool: a FIFO where an answer or a question
// goes hangs nothing, and a link is not followed.
func TestPlantedFilesDoNotHangOrFool(t *testing.T) {
	q := newQueue(t)
	qu := question(t, "write_file", `{"path":"/srv/a"}`)
	require.NoError(t, q.Put(qu))
	require.NoError(t, syscall.Mkfifo(filepath.Join(q.Dir(), qu.ID+".answer"), 0o600))
	other := approvals.NewID()
	require.NoError(t, syscall.Mkfifo(filepath.Join(q.Dir(), other+".json"), 0o600))

	listed := make(chan []approvals.Question, 1)
	go func() { qs, _ := q.Pending(); listed <- qs }()
	select {
	case qs := <-listed:
		assert.Empty(t, qs, "answered (something stands as its answer), and a FIFO is no question")
	case <-time.After(10 * time.Second):
		t.Fatal("a FIFO in the queue hangs Pending")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	a := startAwait(ctx, q, qu)
	select {
	case <-a.done:
		require.ErrorIs(t, a.err, context.DeadlineExceeded, "no answer: a FIFO is none")
		require.NotEmpty(t, a.warned())
		assert.ErrorIs(t, a.warned()[0], approvals.ErrBadAnswer)
	case <-time.After(10 * time.Second):
		t.Fatal("a FIFO as the answer hangs the waiting proxy past its deadline")
	}

	// A link to a real answer, elsewhere, is not one.
	data, err := json.Marshal(approvals.Answer{ID: qu.ID, Digest: qu.Digest, Action: "allow-once"})
	require.NoError(t, err)
	elsewhere := filepath.Join(t.TempDir(), "answer")
	require.NoError(t, os.WriteFile(elsewhere, data, 0o600))
	os.Remove(filepath.Join(q.Dir(), qu.ID+".answer"))
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(q.Dir(), qu.ID+".answer")))
	ctx2, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	_, err = q.Await(ctx2, qu, func(error) {})
	assert.ErrorIs(t, err, context.DeadlineExceeded, "a linked answer is not taken")
}

// TestALateAnswerIsRefused: an answer at or after the deadline is told it
// came too late, not "answered": the proxy has refused the call.
func TestALateAnswerIsRefused(t *testing.T) {
	q := newQueue(t)
	qu := question(t, "write_file", `{}`)
	qu.Deadline = time.Now().Add(-time.Second)
	require.NoError(t, q.Put(qu))
	err := q.Answer(qu.ID, qu.Digest, "allow-once", "test")
	require.ErrorIs(t, err, approvals.ErrTooLate)
	_, err = os.Stat(filepath.Join(q.Dir(), qu.ID+".answer"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}
