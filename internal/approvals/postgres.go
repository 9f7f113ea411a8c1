package approvals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcp-policy/mcp-policy/internal/pgschema"
)

// questionsChannel is the NOTIFY channel a question put, answered or
// withdrawn is announced on (the payload is its id).
const questionsChannel = "mcp_policy_questions"

// maxQuestionJSON bounds a question row as the file queue bounds a
// question file: a question holds the call's arguments whole.
const maxQuestionJSON = 32 << 20

// PostgresOptions tune a PostgresQueue queue; the zero value is the default.
type PostgresOptions struct {
	// Heartbeat is how often a waiting proxy marks its question alive;
	// StaleAfter how long unmarked a question is taken for a dead
	// proxy's. Defaults Heartbeat and StaleAfter.
	Heartbeat, StaleAfter time.Duration
}

// PostgresQueue is the approvals queue in PostgreSQL, beside the grants: the
// questions of every proxy pointed at the database, answered by
// `mcp-policy approvals` or `approve` on any machine. The answer is
// written in the transaction that reads the question (FOR UPDATE), so of
// two approvers answering at once one wins and the other is told; a
// NOTIFY wakes the waiting proxy.
type PostgresQueue struct {
	pool   *pgxpool.Pool
	cfg    *pgx.ConnConfig
	grants string // the URL, redacted
	o      PostgresOptions

	mu      sync.Mutex
	changed chan struct{} // closed (and replaced) on every notification

	stop context.CancelFunc
	done chan struct{}
}

var _ Queue = (*PostgresQueue)(nil)

// OpenPostgres connects to the database at connString, creates or
// migrates the schema (the grants' and the queue's are one), and listens
// for the queue's notifications. Close it when done.
func OpenPostgres(ctx context.Context, connString string, o PostgresOptions) (*PostgresQueue, error) {
	if o.Heartbeat <= 0 {
		o.Heartbeat = Heartbeat
	}
	if o.StaleAfter <= 0 {
		o.StaleAfter = StaleAfter
	}
	pool, pcfg, err := pgschema.Open(ctx, connString, 4, "approvals")
	if err != nil {
		return nil, err
	}
	rctx, cancel := context.WithCancel(context.Background())
	q := &PostgresQueue{pool: pool, cfg: pcfg.ConnConfig.Copy(), grants: pgschema.Redact(connString), o: o,
		changed: make(chan struct{}), stop: cancel, done: make(chan struct{})}
	go q.listen(rctx)
	return q, nil
}

// Close stops listening and closes the connections.
func (q *PostgresQueue) Close() {
	q.stop()
	<-q.done
	q.pool.Close()
}

// Grants is the database's URL, its password hidden.
func (q *PostgresQueue) Grants() string { return q.grants }

// listen wakes the waiting proxies on every notification, and also when
// the connection breaks (a notification may have been lost with it), in
// which case it reconnects, backing off up to a second. Await re-reads
// every Heartbeat in any case.
func (q *PostgresQueue) listen(ctx context.Context) {
	defer close(q.done)
	backoff := 50 * time.Millisecond
	for ctx.Err() == nil {
		c, err := pgx.ConnectConfig(ctx, q.cfg)
		if err == nil {
			if _, err = c.Exec(ctx, "LISTEN "+questionsChannel); err == nil {
				backoff = 50 * time.Millisecond
				q.wake()
				for err == nil {
					_, err = c.WaitForNotification(ctx)
					q.wake()
				}
			}
			c.Close(context.Background())
		}
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

func (q *PostgresQueue) wake() {
	q.mu.Lock()
	close(q.changed)
	q.changed = make(chan struct{})
	q.mu.Unlock()
}

func (q *PostgresQueue) changes() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.changed
}

// opContext bounds one of the queue's statements: a database out of
// reach is an error, not a hang.
func opContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 10*time.Second)
}

func (q *PostgresQueue) notify(ctx context.Context, tx pgx.Tx, id string) error {
	_, err := tx.Exec(ctx, "SELECT pg_notify($1, $2)", questionsChannel, id)
	return err
}

// Put adds the question and announces it. Its deadline is kept by the
// database's clock (now plus the time it has left by the proxy's), so an
// approver whose clock is off is refused as too late exactly when the
// proxy gives up.
func (q *PostgresQueue) Put(qu Question) error {
	if err := CheckQuestion(qu); err != nil {
		return err
	}
	data, err := json.Marshal(qu)
	if err != nil {
		return fmt.Errorf("approvals: %w", err)
	}
	ctx, cancel := opContext()
	defer cancel()
	err = pgx.BeginFunc(ctx, q.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO mcp_policy_questions (id, digest, question_json, deadline_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))",
			qu.ID, qu.Digest, data, time.Until(qu.Deadline).Seconds()); err != nil {
			return err
		}
		return q.notify(ctx, tx, qu.ID)
	})
	if err != nil {
		return fmt.Errorf("approvals: postgres: %w", err)
	}
	return nil
}

// Withdraw removes the question and its answer, and announces it.
func (q *PostgresQueue) Withdraw(id string) {
	ctx, cancel := opContext()
	defer cancel()
	_ = pgx.BeginFunc(ctx, q.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "DELETE FROM mcp_policy_questions WHERE id = $1", id); err != nil {
			return err
		}
		return q.notify(ctx, tx, id)
	})
}

// alive is the condition a question of a living proxy meets.
const alive = "heartbeat >= now() - make_interval(secs => $2)"

func (q *PostgresQueue) stale() float64 { return q.o.StaleAfter.Seconds() }

// Get reads one pending question: not one answered already, nor one
// whose proxy is gone.
func (q *PostgresQueue) Get(id string) (Question, error) {
	if err := CheckID(id); err != nil {
		return Question{}, err
	}
	ctx, cancel := opContext()
	defer cancel()
	var data []byte
	err := q.pool.QueryRow(ctx, "SELECT question_json FROM mcp_policy_questions WHERE id = $1 AND answer_json IS NULL AND "+alive, id, q.stale()).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return Question{}, NotPending(id)
	}
	if err != nil {
		return Question{}, fmt.Errorf("approvals: postgres: %w", err)
	}
	return decodeQuestion(id, data)
}

// decodeQuestion reads a question row as the file queue reads a question
// file: bounded, its id the row's, its answers the five known ones.
func decodeQuestion(id string, data []byte) (Question, error) {
	if len(data) > maxQuestionJSON {
		return Question{}, fmt.Errorf("approvals: question %s is too big (%d bytes, at most %d)", id, len(data), maxQuestionJSON)
	}
	var qu Question
	if err := json.Unmarshal(data, &qu); err != nil {
		return Question{}, fmt.Errorf("approvals: question %s: %w", id, err)
	}
	if qu.ID != id {
		return Question{}, fmt.Errorf("approvals: row %s holds question %.40q", id, qu.ID)
	}
	if err := CheckQuestion(qu); err != nil {
		return Question{}, fmt.Errorf("approvals: question %s: %w", id, err)
	}
	return qu, nil
}

// Pending lists the questions waiting for an answer, oldest first, after
// removing those of proxies gone; a row that is not a question is
// skipped.
func (q *PostgresQueue) Pending() ([]Question, error) {
	ctx, cancel := opContext()
	defer cancel()
	if _, err := q.pool.Exec(ctx, "DELETE FROM mcp_policy_questions WHERE heartbeat < now() - make_interval(secs => $1)", q.stale()); err != nil {
		return nil, fmt.Errorf("approvals: postgres: %w", err)
	}
	rows, err := q.pool.Query(ctx, "SELECT id, question_json FROM mcp_policy_questions WHERE answer_json IS NULL ORDER BY seq")
	if err != nil {
		return nil, fmt.Errorf("approvals: postgres: %w", err)
	}
	var out []Question
	var id string
	var data []byte
	_, err = pgx.ForEachRow(rows, []any{&id, &data}, func() error {
		if qu, err := decodeQuestion(id, data); err == nil {
			out = append(out, qu)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("approvals: postgres: %w", err)
	}
	return out, nil
}

// Used says whether a question was ever put in this database.
func (q *PostgresQueue) Used() (bool, error) {
	ctx, cancel := opContext()
	defer cancel()
	var used bool
	if err := q.pool.QueryRow(ctx, "SELECT is_called FROM mcp_policy_questions_seq_seq").Scan(&used); err != nil {
		return false, fmt.Errorf("approvals: postgres: %w", err)
	}
	return used, nil
}

// Answer answers the question id, as shown with digest, in one
// transaction holding the question's row: refused when it is not pending
// (answered first by someone else included), out of time, another call,
// or not offering action.
func (q *PostgresQueue) Answer(id, digest, action, by string) error {
	if err := CheckID(id); err != nil {
		return err
	}
	ctx, cancel := opContext()
	defer cancel()
	return pgx.BeginFunc(ctx, q.pool, func(tx pgx.Tx) error {
		var data []byte
		var answered bool
		var left float64 // seconds, by the database's clock
		err := tx.QueryRow(ctx, "SELECT question_json, answer_json IS NOT NULL, extract(epoch FROM deadline_at - now())::float8 FROM mcp_policy_questions WHERE id = $1 AND "+alive+" FOR UPDATE",
			id, q.stale()).Scan(&data, &answered, &left)
		if errors.Is(err, pgx.ErrNoRows) {
			return NotPending(id)
		}
		if err != nil {
			return fmt.Errorf("approvals: postgres: %w", err)
		}
		if answered {
			return AnsweredAlready(id)
		}
		qu, err := decodeQuestion(id, data)
		if err != nil {
			return err
		}
		a, err := NewAnswer(qu, time.Duration(left*float64(time.Second)), digest, action, by)
		if err != nil {
			return err
		}
		adata, err := json.Marshal(a)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE mcp_policy_questions SET answer_json = $2 WHERE id = $1", id, adata); err != nil {
			return fmt.Errorf("approvals: postgres: %w", err)
		}
		if err := q.notify(ctx, tx, id); err != nil {
			return fmt.Errorf("approvals: postgres: %w", err)
		}
		return nil
	})
}

// Settle marks the answer with what came of it (answer_json's "settled",
// "failed" or "parked") and keeps the row for the approver to read: a row
// gone says nothing of its answer. The stale sweep removes it, as it
// removes any row whose proxy stopped beating.
func (q *PostgresQueue) Settle(id string, failed error) {
	mark := `jsonb_build_object('settled', true)`
	var arg any = ""
	switch {
	case errors.Is(failed, ErrOnRetry):
		mark = `jsonb_build_object('parked', true)`
	case failed != nil:
		mark, arg = `jsonb_build_object('failed', $2::text)`, failureText(failed)
	}
	ctx, cancel := opContext()
	defer cancel()
	_ = pgx.BeginFunc(ctx, q.pool, func(tx pgx.Tx) error {
		sql := "UPDATE mcp_policy_questions SET answer_json = answer_json || " + mark + " WHERE id = $1 AND answer_json IS NOT NULL"
		args := []any{id}
		if failed != nil && !errors.Is(failed, ErrOnRetry) {
			args = append(args, arg)
		}
		if _, err := tx.Exec(ctx, sql, args...); err != nil {
			return err
		}
		return q.notify(ctx, tx, id)
	})
}

// Beat marks qu alive while its proxy acts on the answer it took; a row
// removed meanwhile is not put back (its answer is taken).
func (q *PostgresQueue) Beat(qu Question) error {
	ctx, cancel := opContext()
	defer cancel()
	_, err := q.pool.Exec(ctx, "UPDATE mcp_policy_questions SET heartbeat = now() WHERE id = $1", qu.ID)
	return err
}

// Retract clears qu's answer unless the proxy marked it taken first, in
// one statement: the proxy's take (answerOf) and this cannot both win.
func (q *PostgresQueue) Retract(qu Question) (bool, error) {
	ctx, cancel := opContext()
	defer cancel()
	tag, err := q.pool.Exec(ctx, `UPDATE mcp_policy_questions SET answer_json = NULL
		WHERE id = $1 AND answer_json IS NOT NULL AND NOT coalesce((answer_json->'taken')::text = 'true', false)`, qu.ID)
	if err != nil {
		return false, fmt.Errorf("approvals: postgres: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// Settled reads what the proxy marked in the answer (Settle; "taken" by
// answerOf). A row gone was withdrawn before the proxy acted on the
// answer (its call ended); a proxy gone (its process, on this machine;
// its heartbeat three beats old, on any) has its question removed, and
// the error says whether it had taken the answer.
func (q *PostgresQueue) Settled(qu Question) (Progress, error) {
	id := qu.ID
	ctx, cancel := opContext()
	defer cancel()
	var silent float64 // seconds since its proxy's last heartbeat
	var answered, taken, settled, parked bool
	var failed *string
	err := q.pool.QueryRow(ctx, `SELECT extract(epoch FROM now() - heartbeat)::float8, answer_json IS NOT NULL,
		coalesce((answer_json->'taken')::text = 'true', false), coalesce((answer_json->'settled')::text = 'true', false),
		coalesce((answer_json->'parked')::text = 'true', false), answer_json->>'failed'
		FROM mcp_policy_questions WHERE id = $1`, id).Scan(&silent, &answered, &taken, &settled, &parked, &failed)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return Done, withdrawnUntaken(qu)
	case err != nil:
		return Waiting, fmt.Errorf("approvals: postgres: %w", err)
	case failed != nil:
		return Done, failure(qu, *failed)
	case parked:
		return Done, ErrOnRetry
	case settled:
		return Done, nil
	case taken && qu.Asker.gone():
		q.Withdraw(id)
		return Done, TookThenGone(qu)
	case taken && silent > 3*q.o.Heartbeat.Seconds():
		// Silent, but not known dead: a proxy stopped while it saves
		// the grant goes on and carries the answer out when it resumes.
		return Done, TookThenSilent(qu)
	case silent > 3*q.o.Heartbeat.Seconds() || qu.Asker.gone():
		q.Withdraw(id)
		return Done, AskerGone(qu)
	case taken:
		return Applying, nil
	case !answered:
		return Done, fmt.Errorf("question %s: the answer was withdrawn before its proxy took it: nothing was approved", id)
	}
	return Waiting, nil
}

// Await waits for qu's answer until ctx ends: woken by the queue's
// notifications, and re-reading at every heartbeat besides (a
// notification lost with a connection is then late, not lost). An answer
// that is not qu's (CheckAnswer: only a hand-written row can
// be) is cleared and reported to warn. A question removed under it (a
// reader took it for dead after a long stop) is put back.
func (q *PostgresQueue) Await(ctx context.Context, qu Question, warn func(error)) (Answer, error) {
	beat := time.NewTicker(q.o.Heartbeat)
	defer beat.Stop()
	for {
		woken := q.changes() // before reading: no notification falls between
		if a, ok := q.answerOf(qu, warn); ok {
			return a, nil
		}
		select {
		case <-ctx.Done():
			// An answer given before the deadline, or before the host
			// gave the call up, counts even when it landed after the last
			// read: Answer refuses any later one.
			if a, ok := q.answerOf(qu, warn); ok {
				return a, nil
			}
			return Answer{}, context.Cause(ctx)
		case <-woken:
		case <-beat.C:
			if err := q.heartbeat(qu); err != nil {
				return Answer{}, err
			}
		}
	}
}

// answerOf reads qu's answer and marks it taken (answer_json's "taken":
// an approver told the proxy is gone can then say whether it had the
// answer); false while there is none, while its row is gone (taken for a
// dead proxy's), or while the database cannot say: the call waits on, and
// is refused at its deadline.
func (q *PostgresQueue) answerOf(qu Question, warn func(error)) (Answer, bool) {
	ctx, cancel := opContext()
	defer cancel()
	var data []byte
	err := q.pool.QueryRow(ctx, "SELECT answer_json FROM mcp_policy_questions WHERE id = $1 AND answer_json IS NOT NULL", qu.ID).Scan(&data)
	if err != nil {
		return Answer{}, false
	}
	var a Answer
	err = json.Unmarshal(data, &a)
	if err != nil {
		err = fmt.Errorf("%w: %v", ErrBadAnswer, err)
	} else {
		err = CheckAnswer(qu, a)
	}
	if err != nil {
		_, _ = q.pool.Exec(ctx, "UPDATE mcp_policy_questions SET answer_json = NULL WHERE id = $1", qu.ID)
		warn(err)
		return Answer{}, false
	}
	tag, err := q.pool.Exec(ctx, `UPDATE mcp_policy_questions SET answer_json = answer_json || '{"taken": true}' WHERE id = $1 AND answer_json IS NOT NULL`, qu.ID)
	if err != nil || tag.RowsAffected() == 0 {
		return Answer{}, false
	}
	return a, true
}

// heartbeat marks qu alive, putting it back if it was removed.
func (q *PostgresQueue) heartbeat(qu Question) error {
	ctx, cancel := opContext()
	defer cancel()
	tag, err := q.pool.Exec(ctx, "UPDATE mcp_policy_questions SET heartbeat = now() WHERE id = $1", qu.ID)
	if err != nil {
		return nil // out of reach: the next beat tries again
	}
	if tag.RowsAffected() == 0 {
		return q.Put(qu)
	}
	return nil
}
