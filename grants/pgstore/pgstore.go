// Package pgstore keeps grants in PostgreSQL, so every process that points
// at one database — on any machine — shares one grant set: an always-allow
// or always-deny answered on one machine answers the same question on
// every other, and a revocation takes effect everywhere.
//
// The store is a grants.Backend. Decisions never wait for the database: a
// background reader keeps the grants in memory, told of every change by
// LISTEN/NOTIFY (and re-reading every Backstop as well, should a
// notification be lost), so a change made anywhere is seen everywhere
// within a few milliseconds. Adds are one transaction each, idempotent
// (a grant's ID is derived from its rule), so many processes adding at
// once lose nothing and an add retried after a lost acknowledgement is not
// doubled.
//
// When the database cannot be reached it fails closed. Deny grants go on
// answering from the last grants read. Allow grants stop answering
// StaleAfter after the database last answered (the call is asked, or
// refused headless), since one of them may have been revoked where this
// process cannot see — a network cut that gives no error included, since
// the reader checks the connection every StaleAfter/3; they answer again
// once the grants are read again. An answer given meanwhile is queued in
// memory (a deny answers here at once) and written when the database
// returns; Close reports any answer it still could not write.
//
// The approvals queue (the questions proxies hold calls on) lives in the
// same database, migrated with the grants, but is the approvals package's.
package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/pgschema"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcp-policy/mcp-policy/grants"
)

// Options tune a store; the zero Options are the defaults.
type Options struct {
	// StaleAfter is how long after the database last answered allow
	// grants go on answering. Default 5 s; negative: they stop as soon as
	// the connection is seen to fail.
	StaleAfter time.Duration
	// Backstop is how often the grants are read again without being
	// told of a change. Default 30 s.
	Backstop time.Duration
	// Logf reports the database going and coming back. Default log.Printf.
	Logf func(format string, a ...any)
}

// channel is the NOTIFY channel every change is announced on.
const channel = "mcp_policy_grants"

// Open connects to the database at url (a postgres:// or postgresql://
// URL, or a key=value connection string), creates or migrates the schema,
// reads the grants and returns a store on them. The database must be
// reachable now: a store that starts without its grants would ask about
// everything and forget nothing. A database whose schema is newer than
// this program's is refused.
func Open(ctx context.Context, url string, o Options) (*grants.Store, error) {
	b, err := OpenBackend(ctx, url, o)
	if err != nil {
		return nil, err
	}
	s, err := grants.New(b)
	if err != nil {
		b.Close()
		return nil, err
	}
	return s, nil
}

// Backend is the grants.Backend on PostgreSQL.
type Backend struct {
	pool *pgxpool.Pool
	cfg  *pgx.ConnConfig // the listener's
	o    Options

	mu       sync.Mutex
	snapshot []grants.Grant // as last read
	overlay  []pending      // this process's adds a read may not have seen yet
	gen      uint64         // counts this process's committed adds
	changed  bool
	readErr  error

	// healthy is whether the listener is connected and has read the
	// grants since; lastOK (unix nanos) when the database last answered
	// it: a notification, a read or a liveness check.
	healthy atomic.Bool
	lastOK  atomic.Int64

	wake   chan struct{} // asks the reader to read (or flush) now
	stop   context.CancelFunc
	done   chan struct{}
	closed atomic.Bool
}

// pending is one of this process's adds: committed (at gen) or, while the
// database is out of reach, queued.
type pending struct {
	g      grants.Grant
	queued bool
	gen    uint64
}

// OpenBackend is Open's backend, for a caller that builds the store itself.
func OpenBackend(ctx context.Context, connString string, o Options) (*Backend, error) {
	if o.StaleAfter == 0 {
		o.StaleAfter = 5 * time.Second
	}
	if o.Backstop <= 0 {
		o.Backstop = 30 * time.Second
	}
	if o.Logf == nil {
		o.Logf = log.Printf
	}
	pool, pcfg, err := pgschema.Open(ctx, connString, 4, "grants")
	if err != nil {
		return nil, err
	}
	b := &Backend{pool: pool, cfg: pcfg.ConnConfig.Copy(), o: o, wake: make(chan struct{}, 1), done: make(chan struct{})}
	listener, err := b.listen(ctx)
	if err != nil {
		pool.Close()
		return nil, err
	}
	if err := b.read(ctx, nil); err != nil {
		listener.Close(ctx)
		pool.Close()
		return nil, err
	}
	b.healthy.Store(true)
	b.touch()
	rctx, cancel := context.WithCancel(context.Background())
	b.stop = cancel
	go b.run(rctx, listener)
	return b, nil
}

func (b *Backend) listen(ctx context.Context) (*pgx.Conn, error) {
	c, err := pgx.ConnectConfig(ctx, b.cfg)
	if err != nil {
		return nil, fmt.Errorf("grants: postgres: %w", err)
	}
	if _, err := c.Exec(ctx, "LISTEN "+channel); err != nil {
		c.Close(ctx)
		return nil, fmt.Errorf("grants: postgres: LISTEN: %w", err)
	}
	return c, nil
}

// run is the background reader. It waits for notifications and reads
// the grants they name; every tick with none it checks the connection is
// alive (a partitioned network gives no error by itself), and every
// Backstop it reads all the grants again. When the connection breaks it
// marks the store out of touch and reconnects, backing off up to a
// second, and reads everything again before it is back in touch.
func (b *Backend) run(ctx context.Context, listener *pgx.Conn) {
	defer close(b.done)
	backoff := 50 * time.Millisecond
	tick := b.o.Backstop
	if b.o.StaleAfter > 0 {
		tick = min(tick, b.o.StaleAfter/3) // heard from at least twice per StaleAfter
	}
	lastFull := time.Now()
	for ctx.Err() == nil {
		if listener == nil {
			c, err := b.listen(ctx)
			if err == nil {
				err = b.read(ctx, nil)
			}
			if err != nil {
				if c != nil {
					c.Close(context.Background())
				}
				select {
				case <-ctx.Done():
				case <-time.After(backoff):
				}
				backoff = min(2*backoff, time.Second)
				continue
			}
			listener, backoff, lastFull = c, 50*time.Millisecond, time.Now()
			b.healthy.Store(true)
			b.touch()
			b.o.Logf("grants: postgres: back in touch; grants read again")
		}
		b.flush(ctx)
		ids, full, err := b.wait(ctx, listener, tick)
		if ctx.Err() != nil {
			break
		}
		if err == nil && !full && ids == nil { // a quiet tick
			if time.Since(lastFull) >= b.o.Backstop {
				full = true
			} else {
				pctx, cancel := context.WithTimeout(ctx, max(tick, time.Second))
				_, err = listener.Exec(pctx, "SELECT 1")
				cancel()
			}
		}
		if err == nil && (full || ids != nil) {
			if full {
				ids, lastFull = nil, time.Now()
			}
			err = b.read(ctx, ids)
		}
		if err != nil {
			b.down(err)
			listener.Close(context.Background())
			listener = nil
			continue
		}
		b.touch()
	}
	if listener != nil {
		listener.Close(context.Background())
	}
}

// wait waits up to tick for notifications, or a Wake, and returns the IDs
// they name (full when one names none: read everything). A quiet tick is
// no IDs, not full, no error.
func (b *Backend) wait(ctx context.Context, listener *pgx.Conn, tick time.Duration) (ids []string, full bool, err error) {
	wctx, cancel := context.WithTimeout(ctx, tick)
	defer cancel()
	waitDone := make(chan struct{})
	woken := make(chan struct{})
	go func() {
		select {
		case <-b.wake:
			close(woken)
			cancel()
		case <-waitDone:
		}
	}()
	n, err := listener.WaitForNotification(wctx)
	close(waitDone)
	select {
	case <-woken:
		return nil, true, nil
	default:
	}
	if err != nil {
		if wctx.Err() != nil && ctx.Err() == nil && !listener.IsClosed() {
			return nil, false, nil // the tick ran out
		}
		return nil, false, err
	}
	add := func(n *pgconn.Notification) {
		if n.Payload == "" {
			full = true
			return
		}
		ids = append(ids, strings.Split(n.Payload, ",")...)
	}
	add(n)
	// Take what else has arrived, and read once for all of it.
	for {
		pctx, pcancel := context.WithTimeout(ctx, time.Millisecond)
		n, err := listener.WaitForNotification(pctx)
		pcancel()
		if err != nil {
			if listener.IsClosed() {
				return nil, false, err
			}
			return ids, full, nil
		}
		add(n)
	}
}

func (b *Backend) down(err error) {
	if b.healthy.Swap(false) {
		b.o.Logf("grants: postgres: out of reach (%v); deny grants go on answering, allow grants stop %v after it last answered", err, b.o.StaleAfter)
	}
}

// read reads the grants with ids (all of them when ids is nil) and puts
// what it finds in the snapshot: a grant found is held (added, or
// replaced), one named but not found was revoked. A full read is the
// snapshot, and this process's adds committed before it began are in it
// (or were revoked since), so they leave the overlay; a read by IDs takes
// its own IDs out of the overlay.
func (b *Backend) read(ctx context.Context, ids []string) error {
	b.mu.Lock()
	gen := b.gen
	b.mu.Unlock()
	var rows pgx.Rows
	var err error
	if ids == nil {
		rows, err = b.pool.Query(ctx, "SELECT grant_json FROM mcp_policy_grants ORDER BY seq")
	} else {
		rows, err = b.pool.Query(ctx, "SELECT grant_json FROM mcp_policy_grants WHERE id = ANY($1) ORDER BY seq", ids)
	}
	if err != nil {
		return fmt.Errorf("grants: postgres: reading grants: %w", err)
	}
	raws, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		return fmt.Errorf("grants: postgres: reading grants: %w", err)
	}
	arr := []byte{'['}
	for i, r := range raws {
		if i > 0 {
			arr = append(arr, ',')
		}
		arr = append(arr, r...)
	}
	gs, err := grants.ParseGrants(append(arr, ']'), "grants in postgres")
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		// Not a connection fault: someone wrote a bad row. Keep the grants
		// read before, and refuse adds until it is mended (Latest says why).
		b.readErr, b.changed = fmt.Errorf("grants: postgres: %w", err), true
		return nil
	}
	b.readErr, b.changed = nil, true
	if ids == nil {
		b.snapshot = gs
		b.overlay = slices.DeleteFunc(b.overlay, func(p pending) bool { return !p.queued && p.gen <= gen })
		return nil
	}
	found := make(map[string]grants.Grant, len(gs))
	for _, g := range gs {
		found[g.ID] = g
	}
	next := make([]grants.Grant, 0, len(b.snapshot)+len(gs))
	for _, g := range b.snapshot {
		if f, ok := found[g.ID]; ok {
			next = append(next, f)
			delete(found, g.ID)
		} else if !slices.Contains(ids, g.ID) {
			next = append(next, g)
		}
	}
	for _, g := range gs {
		if _, ok := found[g.ID]; ok {
			next = append(next, g)
		}
	}
	b.snapshot = next
	b.overlay = slices.DeleteFunc(b.overlay, func(p pending) bool { return !p.queued && slices.Contains(ids, p.g.ID) })
	return nil
}

// Latest returns the grants last read plus this process's adds, when
// either changed. It never touches the database.
func (b *Backend) Latest() ([]grants.Grant, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.readErr != nil {
		b.changed = false
		return nil, false, b.readErr
	}
	if !b.changed {
		return nil, false, nil
	}
	b.changed = false
	out := slices.Clone(b.snapshot)
	held := make(map[string]bool, len(out))
	for _, g := range out {
		held[g.ID] = true
	}
	for _, p := range b.overlay {
		if !held[p.g.ID] {
			held[p.g.ID] = true
			out = append(out, p.g)
		}
	}
	return out, true, nil
}

// Current is whether allow grants may answer: the database answered the
// reader less than StaleAfter ago. The reader hears from it at least
// every StaleAfter/3 while it is there, so a database gone, or a network
// cut that gives no error, stops allow grants within StaleAfter.
func (b *Backend) Current() bool {
	if b.o.StaleAfter < 0 {
		return b.healthy.Load()
	}
	return time.Since(time.Unix(0, b.lastOK.Load())) < b.o.StaleAfter
}

func (b *Backend) touch() { b.lastOK.Store(time.Now().UnixNano()) }

// Add writes gs in one transaction and announces it. When the database
// cannot be reached the grants are queued (see the package doc) and Add
// says so (grants.ErrQueued): they answer here, but are not written yet;
// an error the database itself gives (a permission, a bad row) is
// returned, and nothing is added.
func (b *Backend) Add(ctx context.Context, gs []grants.Grant) error {
	if b.closed.Load() {
		return errors.New("grants: postgres: the store is closed")
	}
	err := b.insert(ctx, gs)
	switch {
	case err == nil:
		b.mu.Lock()
		b.gen++
		for _, g := range gs {
			b.overlay = append(b.overlay, pending{g: g, gen: b.gen})
		}
		b.changed = true
		b.mu.Unlock()
		return nil
	case !outOfReach(err):
		return fmt.Errorf("grants: postgres: adding grants: %w", err)
	default:
		b.mu.Lock()
		for _, g := range gs {
			b.overlay = append(b.overlay, pending{g: g, queued: true})
		}
		b.changed = true
		b.mu.Unlock()
		b.o.Logf("grants: postgres: %d grant(s) queued until the database is back: %v", len(gs), err)
		b.wakeReader() // the database may only have been busy: try again soon
		return fmt.Errorf("%w: %v", grants.ErrQueued, err)
	}
}

// insert is one transaction adding gs. A grant held already stays as it
// is, unless it expired, when the new one replaces it: the same rule is
// the same grant, so an add retried, or made on two machines, is one.
func (b *Backend) insert(ctx context.Context, gs []grants.Grant) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		batch := &pgx.Batch{}
		ids := make([]string, len(gs))
		for i, g := range gs {
			ids[i] = g.ID
			j, err := json.Marshal(g)
			if err != nil {
				return err
			}
			var expires *time.Time
			if !g.Expires.IsZero() {
				expires = &g.Expires
			}
			batch.Queue(`INSERT INTO mcp_policy_grants (id, grant_json, granted_at, expires_at)
				VALUES ($1, $2, $3, $4)
				ON CONFLICT (id) DO UPDATE SET grant_json = EXCLUDED.grant_json,
					granted_at = EXCLUDED.granted_at, expires_at = EXCLUDED.expires_at, seq = nextval('mcp_policy_grants_seq_seq')
				WHERE mcp_policy_grants.expires_at IS NOT NULL AND mcp_policy_grants.expires_at <= now()
					AND (EXCLUDED.expires_at IS NULL OR EXCLUDED.expires_at > now())`,
				g.ID, j, g.GrantedAt, expires)
		}
		batch.Queue("SELECT pg_notify($1, $2)", channel, payload(ids))
		return tx.SendBatch(ctx, batch).Close()
	})
}

// flush writes the queued grants, oldest first, once the database is
// back.
func (b *Backend) flush(ctx context.Context) {
	b.mu.Lock()
	var queued []grants.Grant
	for _, p := range b.overlay {
		if p.queued {
			queued = append(queued, p.g)
		}
	}
	b.mu.Unlock()
	if len(queued) == 0 {
		return
	}
	if err := b.insert(ctx, queued); err != nil {
		b.o.Logf("grants: postgres: writing %d queued grant(s): %v", len(queued), err)
		return
	}
	b.mu.Lock()
	b.gen++
	for i := range b.overlay {
		if b.overlay[i].queued && slices.ContainsFunc(queued, func(g grants.Grant) bool { return g.ID == b.overlay[i].g.ID }) {
			b.overlay[i].queued, b.overlay[i].gen = false, b.gen
		}
	}
	b.mu.Unlock()
	b.o.Logf("grants: postgres: wrote %d queued grant(s)", len(queued))
}

// Revoke deletes the grants with ids, announces it and returns them. It
// needs the database: a revocation that cannot be written is an error,
// never queued, so whoever revokes knows it did not happen.
func (b *Backend) Revoke(ctx context.Context, ids []string) ([]grants.Grant, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var raws [][]byte
	err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "DELETE FROM mcp_policy_grants WHERE id = ANY($1) RETURNING grant_json", ids)
		if err != nil {
			return err
		}
		if raws, err = pgx.CollectRows(rows, pgx.RowTo[[]byte]); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "SELECT pg_notify($1, $2)", channel, payload(ids))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("grants: postgres: revoking: %w", err)
	}
	var removed []grants.Grant
	for _, r := range raws {
		gs, err := grants.ParseGrants(append(append([]byte("["), r...), ']'), "revoked grant")
		if err == nil {
			removed = append(removed, gs...)
		}
	}
	// This process's own adds of these grants are revoked too, and the
	// next Latest must not answer with them before the reader reads.
	b.mu.Lock()
	b.overlay = slices.DeleteFunc(b.overlay, func(p pending) bool { return slices.Contains(ids, p.g.ID) })
	b.snapshot = slices.DeleteFunc(slices.Clone(b.snapshot), func(g grants.Grant) bool { return slices.Contains(ids, g.ID) })
	b.changed = true
	b.mu.Unlock()
	return removed, nil
}

// Close stops the reader, writes what is still queued if the database is
// there, and says how many answers it could not write.
func (b *Backend) Close() error {
	if b.closed.Swap(true) {
		return nil
	}
	b.stop()
	<-b.done
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b.flush(ctx)
	b.pool.Close()
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, p := range b.overlay {
		if p.queued {
			n++
		}
	}
	if n > 0 {
		return fmt.Errorf("grants: postgres: %d answer(s) given while the database was out of reach were never written, and are lost", n)
	}
	return nil
}

// wakeReader asks the reader to read and write what is queued now rather
// than at its next tick.
func (b *Backend) wakeReader() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// payload is a notification naming the grants changed, by ID, so the
// readers read those rows only; "" (read everything) when they would not
// fit in a notification (PostgreSQL's limit is 8000 bytes).
func payload(ids []string) string {
	p := strings.Join(ids, ",")
	if len(p) > 7000 || len(ids) == 0 {
		return ""
	}
	return p
}

// outOfReach reports whether err says the database could not be reached
// or could not take the add now — worth queuing and trying again — rather
// than that it refused the add (a permission, a constraint): a connection
// that failed (even with the server's own error, "the database system is
// starting up"), a connection lost, or an error of the classes
// PostgreSQL gives for those and for a transaction to retry.
func outOfReach(err error) bool {
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && len(pgErr.Code) == 5 {
		switch pgErr.Code[:2] {
		case "08", // connection exception
			"40", // transaction rollback: serialization failure, deadlock
			"53", // insufficient resources: too many connections
			"57": // operator intervention: shutdown, cannot connect now
			return true
		}
		return false
	}
	return true // no answer from the server at all
}

// NewerSchemaError is a database whose grants schema a newer program
// wrote: this program would misread its grants and refuses it.
type NewerSchemaError = pgschema.NewerSchemaError
