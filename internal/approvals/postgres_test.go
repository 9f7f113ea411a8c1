package approvals_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/grants/pgstore"
	"github.com/mcp-policy/mcp-policy/internal/approvals"
	"github.com/mcp-policy/mcp-policy/internal/pgschema"
	"github.com/mcp-policy/mcp-policy/internal/pgtest"
	"github.com/mcp-policy/mcp-policy/internal/rules"
)

func openQuestions(t testing.TB, url string, o approvals.PostgresOptions) *approvals.PostgresQueue {
	t.Helper()
	q, err := approvals.OpenPostgres(context.Background(), url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	return q
}

func pgQuestion(deadline time.Duration) approvals.Question {
	digest, _ := approvals.Digest("write_file", `{"path":"/srv/a"}`)
	now := time.Now().UTC()
	return approvals.Question{ID: approvals.NewID(), Digest: digest, Tool: "write_file", Message: "The agent wants to run write_file.",
		Options:   []approvals.Option{{Action: "allow-once", Title: "Allow once"}, {Action: "deny-once", Title: "Deny once"}},
		Arguments: `{"path": "/srv/a"}`, Asker: approvals.Asker{Machine: "m1", PID: 1}, Asked: now, Deadline: now.Add(deadline)}
}

func pendingIDs(t *testing.T, q *approvals.PostgresQueue) []string {
	t.Helper()
	qs, err := q.Pending()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, qu := range qs {
		ids = append(ids, qu.ID)
	}
	return ids
}

// A question one proxy puts is seen by an approver on another connection
// (another machine, as far as the database knows); the approver's answer
// wakes the waiting proxy by NOTIFY alone (its heartbeat, the only other
// re-read, is an hour), and the answer is the one given.
func TestQuestionIsAnsweredFromAnotherConnection(t *testing.T) {
	url := pgtest.NewDatabase(t)
	proxy := openQuestions(t, url, approvals.PostgresOptions{Heartbeat: time.Hour})
	approver := openQuestions(t, url, approvals.PostgresOptions{})
	if used, err := approver.Used(); err != nil || used {
		t.Fatalf("a fresh database: Used = %v, %v", used, err)
	}
	qu := pgQuestion(time.Minute)
	if err := proxy.Put(qu); err != nil {
		t.Fatal(err)
	}
	defer proxy.Withdraw(qu.ID)
	if ids := pendingIDs(t, approver); len(ids) != 1 || ids[0] != qu.ID {
		t.Fatalf("pending: %v, want [%s]", ids, qu.ID)
	}
	if used, err := approver.Used(); err != nil || !used {
		t.Fatalf("after a question: Used = %v, %v", used, err)
	}
	got, err := approver.Get(qu.ID)
	if err != nil || got.Digest != qu.Digest || got.Arguments != qu.Arguments {
		t.Fatalf("Get: %+v, %v", got, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	answered := make(chan approvals.Answer, 1)
	go func() {
		a, err := proxy.Await(ctx, qu, func(err error) { t.Error(err) })
		if err != nil {
			t.Error(err)
		}
		answered <- a
	}()
	time.Sleep(200 * time.Millisecond) // let it wait
	if err := approver.Answer(qu.ID, qu.Digest, "deny-once", "the approve command"); err != nil {
		t.Fatal(err)
	}
	a := <-answered
	if a.Action != "deny-once" || a.By != "the approve command" {
		t.Fatalf("answer %+v", a)
	}
	if ids := pendingIDs(t, approver); len(ids) != 0 {
		t.Fatalf("an answered question is still listed: %v", ids)
	}
	proxy.Withdraw(qu.ID)
	if _, err := approver.Get(qu.ID); err == nil || !strings.Contains(err.Error(), "is pending") {
		t.Fatalf("Get after Withdraw: %v", err)
	}
}

// An answer naming another call's digest, or an answer not offered, is
// refused and leaves the question open; an answer after the deadline is
// too late.
func TestForgedAnswersAreRefused(t *testing.T) {
	url := pgtest.NewDatabase(t)
	q := openQuestions(t, url, approvals.PostgresOptions{})
	qu := pgQuestion(time.Minute)
	if err := q.Put(qu); err != nil {
		t.Fatal(err)
	}
	other, _ := approvals.Digest("write_file", `{"path":"/etc/passwd"}`)
	if err := q.Answer(qu.ID, other, "allow-once", "x"); err == nil || !strings.Contains(err.Error(), "digest differs") {
		t.Fatalf("wrong digest: %v", err)
	}
	if err := q.Answer(qu.ID, qu.Digest, "always-allow", "x"); err == nil || !strings.Contains(err.Error(), "does not offer") {
		t.Fatalf("an answer not offered: %v", err)
	}
	if ids := pendingIDs(t, q); len(ids) != 1 {
		t.Fatalf("refused answers closed the question: %v", ids)
	}
	late := pgQuestion(-time.Second)
	if err := q.Put(late); err != nil {
		t.Fatal(err)
	}
	if err := q.Answer(late.ID, late.Digest, "allow-once", "x"); !errors.Is(err, approvals.ErrTooLate) {
		t.Fatalf("after the deadline: %v", err)
	}
}

// An answer written into the table by hand for another call (not through
// Answer) is not taken: the waiting proxy clears it, warns, and waits on.
func TestAwaitTakesOnlyItsOwnCallsAnswer(t *testing.T) {
	url := pgtest.NewDatabase(t)
	q := openQuestions(t, url, approvals.PostgresOptions{})
	qu := pgQuestion(time.Minute)
	if err := q.Put(qu); err != nil {
		t.Fatal(err)
	}
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), `UPDATE mcp_policy_questions SET answer_json = $2 WHERE id = $1`, qu.ID,
		`{"id":"`+qu.ID+`","digest":"0000","action":"allow-once","by":"forger"}`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	var warned error
	_, err = q.Await(ctx, qu, func(err error) { warned = err })
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(warned, approvals.ErrBadAnswer) {
		t.Fatalf("Await: %v, warned %v", err, warned)
	}
	if ids := pendingIDs(t, q); len(ids) != 1 {
		t.Fatalf("the forged answer was not cleared: pending %v", ids)
	}
}

// Two approvers answering at once: one wins, the other is told it was
// answered already, and the proxy takes the winner's answer.
func TestTwoAnswersRaceOneWins(t *testing.T) {
	url := pgtest.NewDatabase(t)
	q := openQuestions(t, url, approvals.PostgresOptions{})
	a, b := openQuestions(t, url, approvals.PostgresOptions{}), openQuestions(t, url, approvals.PostgresOptions{})
	for range 20 {
		qu := pgQuestion(time.Minute)
		if err := q.Put(qu); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, approver := range []*approvals.PostgresQueue{a, b} {
			wg.Go(func() {
				errs[i] = approver.Answer(qu.ID, qu.Digest, []string{"allow-once", "deny-once"}[i], "approver")
			})
		}
		wg.Wait()
		won := -1
		for i, err := range errs {
			switch {
			case err == nil && won == -1:
				won = i
			case err == nil:
				t.Fatal("both answers were taken")
			case !strings.Contains(err.Error(), "answered already"):
				t.Fatalf("the loser was told: %v", err)
			}
		}
		if won == -1 {
			t.Fatalf("no answer won: %v", errs)
		}
		got, err := q.Await(context.Background(), qu, func(err error) { t.Error(err) })
		if err != nil || got.Action != []string{"allow-once", "deny-once"}[won] {
			t.Fatalf("the proxy took %+v (%v), the winner was %d", got, err, won)
		}
		q.Withdraw(qu.ID)
	}
}

// A proxy waiting on a question keeps it listed past StaleAfter by its
// heartbeat; killed, its question disappears from the list once
// StaleAfter passes, and can no longer be answered.
func TestQuestionOfAKilledProxyExpires(t *testing.T) {
	url := pgtest.NewDatabase(t)
	o := approvals.PostgresOptions{Heartbeat: 100 * time.Millisecond, StaleAfter: time.Second}
	approver := openQuestions(t, url, o)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWaitingProxy$")
	cmd.Env = append(os.Environ(), "PGSTORE_HELPER_URL="+url)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var id string
	require.Eventually(t, func() bool {
		ids := pendingIDs(t, approver)
		if len(ids) == 1 {
			id = ids[0]
		}
		return id != ""
	}, 15*time.Second, 10*time.Millisecond, "the helper's question was never listed")
	time.Sleep(2 * o.StaleAfter)
	if ids := pendingIDs(t, approver); len(ids) != 1 {
		t.Fatalf("a living proxy's question expired: %v", ids)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	require.Eventually(t, func() bool { return len(pendingIDs(t, approver)) == 0 },
		15*time.Second, 10*time.Millisecond, "the killed proxy's question is still listed")
	if _, err := approver.Get(id); err == nil {
		t.Fatal("the killed proxy's question can still be read")
	}
}

// TestHelperWaitingProxy is the proxy of TestQuestionOfAKilledProxyExpires:
// it puts a question and waits for an answer until killed.
func TestHelperWaitingProxy(t *testing.T) {
	url := os.Getenv("PGSTORE_HELPER_URL")
	if url == "" {
		t.Skip("a helper process")
	}
	q := openQuestions(t, url, approvals.PostgresOptions{Heartbeat: 100 * time.Millisecond, StaleAfter: time.Second})
	qu := pgQuestion(time.Hour)
	if err := q.Put(qu); err != nil {
		t.Fatal(err)
	}
	_, err := q.Await(context.Background(), qu, func(err error) { t.Error(err) })
	t.Fatalf("answered: %v", err)
}

// A database version 1 made (grants, no queue, no pins) gains the queue
// and the pins and keeps its grants.
func TestMigrationAddsTheQueueKeepingGrants(t *testing.T) {
	url := pgtest.NewDatabase(t)
	openGrants := func() *grants.Store {
		s, err := pgstore.Open(context.Background(), url, pgstore.Options{Logf: t.Logf})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, s.Close()) })
		return s
	}
	rm := rules.Rule{Tool: "rm", Decision: rules.Deny}
	require.NoError(t, openGrants().Add(rm))
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), "DROP TABLE mcp_policy_questions; DROP TABLE mcp_policy_pins; UPDATE mcp_policy_schema SET version = 1"); err != nil {
		t.Fatal(err)
	}
	q := openQuestions(t, url, approvals.PostgresOptions{})
	if err := q.Put(pgQuestion(time.Minute)); err != nil {
		t.Fatal(err)
	}
	var version int
	if err := c.QueryRow(context.Background(), "SELECT version FROM mcp_policy_schema").Scan(&version); err != nil || version != pgschema.Version {
		t.Fatalf("schema version %d (%v), want %d", version, err, pgschema.Version)
	}
	if !openGrants().Grants().Has(rm) {
		t.Fatal("the migration lost a grant")
	}
}

// The deadline that counts is the database's: a question whose time ran
// out there is too late to answer, whatever the question's own deadline
// (written by the proxy's clock) says to an approver whose clock is off.
func TestTheDeadlineIsTheDatabases(t *testing.T) {
	url := pgtest.NewDatabase(t)
	q := openQuestions(t, url, approvals.PostgresOptions{})
	qu := pgQuestion(time.Hour)
	if err := q.Put(qu); err != nil {
		t.Fatal(err)
	}
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), "UPDATE mcp_policy_questions SET deadline_at = now() - interval '1 second'"); err != nil {
		t.Fatal(err)
	}
	if err := q.Answer(qu.ID, qu.Digest, "allow-once", "x"); !errors.Is(err, approvals.ErrTooLate) {
		t.Fatalf("past the database's deadline: %v", err)
	}
}

// An approver on another machine is told "answered" only once the proxy
// took the answer. A proxy that stopped showing it is alive (three
// heartbeats missed, well before its question goes stale) is taken for
// gone: the answer is refused as not taken, and the question removed.
func TestDeliverWaitsForTheProxyToTakeTheAnswer(t *testing.T) {
	url := pgtest.NewDatabase(t)
	proxy := openQuestions(t, url, approvals.PostgresOptions{})
	approver := openQuestions(t, url, approvals.PostgresOptions{})
	qu := pgQuestion(time.Hour)
	require.NoError(t, proxy.Put(qu))
	took := make(chan string, 1)
	go func() {
		a, err := proxy.Await(context.Background(), qu, func(err error) { t.Error(err) })
		assert.NoError(t, err)
		proxy.Settle(qu.ID, nil)
		took <- a.Action
	}()
	_, err := approvals.Deliver(approver, qu.ID, qu.Digest, "allow-once", "x")
	require.NoError(t, err)
	assert.Equal(t, "allow-once", <-took)

	gone := pgQuestion(time.Hour)
	require.NoError(t, proxy.Put(gone))
	c, err := pgx.Connect(context.Background(), url)
	require.NoError(t, err)
	defer c.Close(context.Background())
	silent := 3*approvals.Heartbeat + time.Second
	require.Less(t, silent, approvals.StaleAfter, "gone is told before stale")
	_, err = c.Exec(context.Background(), "UPDATE mcp_policy_questions SET heartbeat = now() - make_interval(secs => $1)", silent.Seconds())
	require.NoError(t, err)
	_, err = approvals.Deliver(approver, gone.ID, gone.Digest, "allow-once", "x")
	require.ErrorContains(t, err, "is gone (or stopped for three heartbeats): the answer was not taken")
	assert.Empty(t, pendingIDs(t, approver), "the dead proxy's question is removed")
}

// BenchmarkQuestionAnswered: one question put, answered by another
// approver's connection, and the answer in the waiting proxy's hands,
// then withdrawn — the file queue (whose waiter polls) beside the
// PostgreSQL queue (whose waiter NOTIFY wakes).
func BenchmarkQuestionAnswered(b *testing.B) {
	for _, where := range []string{"file", "postgres"} {
		b.Run(where, func(b *testing.B) {
			var proxy, approver approvals.Queue
			if where == "file" {
				file := filepath.Join(b.TempDir(), "grants.json")
				fq, err := approvals.Open(file)
				if err != nil {
					b.Fatal(err)
				}
				proxy, approver = fq, fq
			} else {
				url := pgtest.NewDatabase(b)
				p, a := openQuestions(b, url, approvals.PostgresOptions{}), openQuestions(b, url, approvals.PostgresOptions{})
				proxy, approver = p, a
			}
			for b.Loop() {
				qu := pgQuestion(time.Minute)
				if err := proxy.Put(qu); err != nil {
					b.Fatal(err)
				}
				got := make(chan error, 1)
				go func() {
					_, err := proxy.Await(context.Background(), qu, func(err error) { b.Error(err) })
					got <- err
				}()
				if err := approver.Answer(qu.ID, qu.Digest, "allow-once", "bench"); err != nil {
					b.Fatal(err)
				}
				if err := <-got; err != nil {
					b.Fatal(err)
				}
				proxy.Withdraw(qu.ID)
			}
		})
	}
}
