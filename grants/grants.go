// Package grants is the grant book a fleet of policies shares: a parent
// agent and the children it spawned, each with its own policy, hand the same
// Store to all of them, so the human answers a question once rather than
// once per child. A Store opened on a file (Open) is shared the same way by
// several processes on one machine: proxies, one per server in a host's
// configuration, or one per agent; a Store on PostgreSQL (package
// grants/pgstore) by every machine that points at the database. Both sit
// behind Backend.
//
// A grant is a rules.Rule whose decision is allow or deny — what an
// always-allow or always-deny answer leaves behind — with a record of who
// made it, when, in answer to what, and until when (Grant). "ask" is
// refused: a grant that asks again records nothing the human said. A
// grant's "under" is absolute: policies sharing a store may have different
// roots, and a relative directory would mean a different place to each of
// them.
package grants

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/rules"
)

// Store holds grants. It is safe for concurrent use: every policy wired to
// it reads it on every asked decision while an answer elsewhere may be
// adding to it. Use NewStore, Open or New; the zero Store is not ready.
type Store struct {
	mu         sync.RWMutex // guards everything below it up to backend
	records    []Grant      // every grant held, expired ones too, in order
	set        *Set
	denies     *Set      // set's deny grants, built when first needed
	nextExpiry time.Time // when a grant of set expires next; zero: none does
	version    uint64
	loadErr    error // the backend's last reading failed: Add refuses until it reads again

	// backend is where the grants live beyond this process; nil for a
	// store in memory. syncMu orders reading it with replacing the grants,
	// so an older reading never replaces a newer one.
	backend Backend
	syncMu  sync.Mutex
	file    string // the grants file, "" for none

	stampMu sync.RWMutex
	labels  map[string]string
	ttl     time.Duration

	saveMu sync.Mutex // orders Saves, so the last Save writes the newest list

	// askLock is the fleet's one human's attention: policies wired to the
	// store take it in turn to put a question (see AskLock).
	askLock chan struct{}
}

// now is time.Now; tests of expiry move it.
var now = time.Now

func newStore(list []Grant) *Store {
	s := &Store{version: 1, askLock: make(chan struct{}, 1)}
	s.setRecords(list)
	return s
}

// NewStore returns a store in memory holding initial, validated ("grant
// N" in errors), each grant once. Version starts at 1, so a cache can use
// 0 for "never read".
func NewStore(initial []rules.Rule) (*Store, error) {
	gs, err := stamp(initial, Grant{})
	if err != nil {
		return nil, err
	}
	return newStore(merge(nil, gs, now())), nil
}

// New returns a store on b, holding what b holds now. The store owns b:
// Close closes it.
func New(b Backend) (*Store, error) {
	gs, _, err := b.Latest()
	if err != nil {
		return nil, err
	}
	s := newStore(gs)
	s.backend = b
	return s, nil
}

// Open returns a store backed by the grants file at path, which several
// processes may share. The file is read now: a missing file is an empty
// store (the file is created by the first Add), and so is an empty file
// (or one of only white space); a file that cannot be read
// or holds anything but a JSON array of valid allow and deny grants is an
// error naming it, and the file is left as it is.
//
// Every Add (and Revoke) then takes an advisory lock (a file beside it,
// path + ".lock"), reads the file again, changes what it holds and writes
// the result atomically, so no process's grant is lost to another's save.
// The directory is made (mode 0700) if it does not exist yet. A path that
// goes through a symbolic link is the file the link leads to, read, locked
// and written there, so stores opened by the link and by the file it names
// are one store; a link to nothing is an error. Every read (List,
// Snapshot, Version, Grants) first checks whether the file changed since
// it was last read, and reads it again if it did: a grant another process
// saved, or revoked, is seen by the next decision here.
func Open(path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("grants: %s: %w", path, err)
	}
	if _, err := target(abs); err != nil {
		return nil, err
	}
	s, err := New(&fileBackend{path: abs})
	if err != nil {
		return nil, err
	}
	s.file = abs
	return s, nil
}

// Close closes the store's backend (see Backend.Close); a store in memory
// has nothing to close.
func (s *Store) Close() error {
	if s.backend == nil {
		return nil
	}
	return s.backend.Close()
}

// File is the file the store was opened on, absolute, as it was named
// (a link is not resolved here); "" for a store with no file. A policy
// protects it (and its lock file), under its resolved path too: an agent
// that could edit its own grants could grant itself anything.
func (s *Store) File() string { return s.file }

// LockFile is the advisory lock file beside the file File resolves to,
// "" for none.
func (s *Store) LockFile() string {
	if s.file == "" {
		return ""
	}
	if t, err := target(s.file); err == nil {
		return t + ".lock"
	}
	return s.file + ".lock"
}

// AskLock is the ask lock of the policies wired to the store: a channel
// of one, held by whoever is putting a question to the human. A fleet that
// shares grants shares the human who made them, so it puts its questions
// one at a time, and a question waiting behind an always- answer is
// decided by the grant it left.
func (s *Store) AskLock() chan struct{} { return s.askLock }

// SetLabels sets the labels each grant this store adds from now on
// records: who asked (a proxy's --label, a config's labels).
func (s *Store) SetLabels(labels map[string]string) {
	s.stampMu.Lock()
	s.labels = maps.Clone(labels)
	s.stampMu.Unlock()
}

// SetTTL makes each grant this store adds from now on expire ttl after it
// was made (0: never), so "always" means "for a while".
func (s *Store) SetTTL(ttl time.Duration) {
	s.stampMu.Lock()
	s.ttl = ttl
	s.stampMu.Unlock()
}

// stamp validates rs as grants and gives each the record of like, its ID
// and, when like has no time, the time now.
func stamp(rs []rules.Rule, like Grant) ([]Grant, error) {
	v, err := validate(rs, "grant")
	if err != nil {
		return nil, err
	}
	if like.GrantedAt.IsZero() {
		like.GrantedAt = now().UTC().Truncate(time.Microsecond) // what PostgreSQL keeps
	}
	out := make([]Grant, len(v))
	for i, r := range v {
		g := like.Clone()
		g.Rule, g.ID = r, IDOf(r)
		out[i] = g
	}
	return out, nil
}

// validate checks grants, names them "<what> N" and refuses ask and a
// relative under.
func validate(rs []rules.Rule, what string) ([]rules.Rule, error) {
	out, err := rules.ValidateAll(rules.CloneAll(rs), what)
	if err != nil {
		return nil, err
	}
	if err := check(out, func(i int) string { return fmt.Sprintf("%s %d", what, i+1) }); err != nil {
		return nil, err
	}
	return out, nil
}

// check refuses what no grant may be: an ask, or an under that means a
// different directory to each policy reading it.
func check(rs []rules.Rule, name func(int) string) error {
	for i, r := range rs {
		if r.Decision == rules.Ask {
			return &rules.ValidationError{Rule: name(i), Field: "decision",
				Msg: `a grant must be "allow" or "deny": "ask" remembers nothing`}
		}
		if len(r.Data) > 0 {
			return &rules.ValidationError{Rule: name(i), Field: "data",
				Msg: "a grant remembers an answer: what a tool's arguments hold is said in the rules file"}
		}
		if r.Except != nil {
			return &rules.ValidationError{Rule: name(i), Field: "except",
				Msg: "a grant remembers one answer: exceptions to a rule are written in the rules file"}
		}
		if r.Under != "" && !strings.HasPrefix(r.Under, "/") {
			return &rules.ValidationError{Rule: name(i), Field: "under",
				Msg: fmt.Sprintf("%q is relative: a grant names an absolute directory, since the policies sharing it may have different roots", r.Under)}
		}
	}
	return nil
}

// Add validates rs and adds them, all or nothing: one bad rule adds none,
// because half of an answer is not what the human agreed to. A grant the
// store already holds is not added again. Rules are named "grant N" by
// their position in rs. Adding nothing new changes nothing. Each grant
// records the time, the store's labels and, with a TTL, its expiry (see
// Remember for the question). In memory, an Add costs what the new grants
// cost, however many the store holds.
//
// On a store with a backend, Add returns once the backend has them (see
// Backend.Add; a grants file is locked, read again and written before Add
// returns); if the backend's grants cannot be read (another process or a
// human broke the file) or written, nothing is added.
func (s *Store) Add(rs ...rules.Rule) error { return s.Remember(nil, rs...) }

// Remember is Add for the grants an answer left, recording the question
// they answered.
func (s *Store) Remember(q *Question, rs ...rules.Rule) error {
	return s.RememberFor(q, 0, rs...)
}

// RememberFor is Remember for grants that expire ttl after now (0: the
// store's TTL, if any): an answer that says how long it holds, such as
// "allow for a day". The store's TTL (SetTTL) still bounds it: an answer
// can shorten a grant the operator limited, never lengthen it.
func (s *Store) RememberFor(q *Question, ttl time.Duration, rs ...rules.Rule) error {
	if len(rs) == 0 {
		return nil
	}
	if ttl < 0 {
		return fmt.Errorf("grant lifetime %v is negative", ttl)
	}
	s.stampMu.RLock()
	like := Grant{Labels: s.labels, Question: q, GrantedAt: now().UTC().Truncate(time.Microsecond)} // what PostgreSQL keeps
	if ttl == 0 || (s.ttl > 0 && s.ttl < ttl) {
		ttl = s.ttl
	}
	s.stampMu.RUnlock()
	if ttl > 0 {
		like.Expires = like.GrantedAt.Add(ttl)
	}
	gs, err := stamp(rs, like)
	if err != nil {
		return err
	}
	return s.AddGrants(context.Background(), gs...)
}

// AddGrants adds grants with the records they carry (a human adding one
// by hand, a copy from another store). Each rule is validated and its ID
// derived from it, whatever ID it came with.
func (s *Store) AddGrants(ctx context.Context, gs ...Grant) error {
	if len(gs) == 0 {
		return nil
	}
	rs := rulesOf(gs)
	v, err := validate(rs, "grant")
	if err != nil {
		return err
	}
	gs = slices.Clone(gs)
	for i := range gs {
		gs[i] = gs[i].Clone()
		gs[i].Rule, gs[i].ID = v[i], IDOf(v[i])
	}
	if s.backend == nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.addInMemory(gs)
		return nil
	}
	if err := s.Err(); err != nil {
		return err
	}
	if err := s.backend.Add(ctx, gs); err != nil {
		if errors.Is(err, ErrQueued) {
			s.refresh() // held by the backend, and answering already
		}
		return err
	}
	s.refresh()
	return nil
}

// ErrQueued is what adding grants returns when the store's database is
// out of reach and the grants are kept by this process instead, to be
// written when it answers: they answer here at once, but no other
// process sees them yet, and they are lost if this one stops first.
var ErrQueued = errors.New("the grants database is out of reach: the grant is kept by this process and written when the database answers (lost if the process stops first)")

// addInMemory adds gs to a store without a backend, costing what they
// cost. s.mu is held.
func (s *Store) addInMemory(gs []Grant) {
	t := now()
	held := make(map[string]int, len(gs))
	for i, g := range s.records {
		held[g.ID] = i
	}
	changed := false
	for _, g := range gs {
		i, ok := held[g.ID]
		switch {
		case !ok:
			held[g.ID] = len(s.records)
			s.records = append(s.records, g)
			if !g.ExpiredAt(t) {
				s.set.Add(g.Rule)
				s.noteExpiry(g)
				if s.denies != nil && g.Rule.Decision == rules.Deny {
					s.denies.Add(g.Rule)
				}
			}
			changed = true
		case s.records[i].ExpiredAt(t) && !g.ExpiredAt(t):
			s.records[i] = g
			s.rebuild(t)
			changed = true
		}
	}
	if changed {
		s.version++
	}
}

// Revoke removes the grants whose IDs are ids, from the backend and so
// from every store sharing it, and returns those it removed. A revoked
// grant answers nothing from the next decision on.
func (s *Store) Revoke(ctx context.Context, ids ...string) ([]Grant, error) {
	if s.backend == nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		var removed []Grant
		s.records = slices.DeleteFunc(s.records, func(g Grant) bool {
			if slices.Contains(ids, g.ID) {
				removed = append(removed, g)
				return true
			}
			return false
		})
		if len(removed) > 0 {
			s.rebuild(now())
			s.version++
		}
		return removed, nil
	}
	removed, err := s.backend.Revoke(ctx, ids)
	s.refresh()
	return removed, err
}

// setRecords replaces the grants. s.mu is held (or s is new).
func (s *Store) setRecords(list []Grant) {
	s.records = list
	s.rebuild(now())
}

// rebuild indexes the grants of records that have not expired at t.
// s.mu is held.
func (s *Store) rebuild(t time.Time) {
	s.nextExpiry = time.Time{}
	live := make([]rules.Rule, 0, len(s.records))
	for _, g := range s.records {
		if g.ExpiredAt(t) {
			continue
		}
		live = append(live, g.Rule)
		s.noteExpiry(g)
	}
	s.set = NewSet(live)
	s.denies = nil
}

func (s *Store) noteExpiry(g Grant) {
	if !g.Expires.IsZero() && (s.nextExpiry.IsZero() || g.Expires.Before(s.nextExpiry)) {
		s.nextExpiry = g.Expires
	}
}

// refresh takes what the backend has when it changed. A backend that
// cannot be read keeps the grants last read (an edit half made by a human
// must not make every decision fail) and makes Add refuse until it can be
// read again.
func (s *Store) refresh() {
	if s.backend == nil {
		return
	}
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	gs, changed, err := s.backend.Latest()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.loadErr = err
		return
	}
	s.loadErr = nil
	switch {
	case !changed || slices.EqualFunc(gs, s.records, sameGrant):
	case len(gs) > len(s.records) && slices.EqualFunc(gs[:len(s.records)], s.records, sameRecord):
		// Grants were added, as they mostly are: index the new ones
		// only, so a fleet's burst of answers does not rebuild the index
		// once per answer.
		t := now()
		for _, g := range gs[len(s.records):] {
			if !g.ExpiredAt(t) {
				s.set.Add(g.Rule)
				s.noteExpiry(g)
			}
		}
		s.records, s.denies = gs, nil
		s.version++
	default:
		s.setRecords(gs)
		s.version++
	}
}

// sameRecord reports whether a and b are one grant with one record, as
// far as answering goes.
func sameRecord(a, b Grant) bool {
	return a.ID == b.ID && a.Expires.Equal(b.Expires) && a.GrantedAt.Equal(b.GrantedAt)
}

// expire drops from the index the grants that have expired.
func (s *Store) expire() {
	s.mu.RLock()
	next := s.nextExpiry
	s.mu.RUnlock()
	if next.IsZero() || now().Before(next) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := now(); !s.nextExpiry.IsZero() && !t.Before(s.nextExpiry) {
		s.rebuild(t)
		s.version++
	}
}

// Err is why the store's backend could not be read the last time it
// changed, nil when it could (or the store has none). The grants read
// before stay in force meanwhile; Add fails with this error.
func (s *Store) Err() error {
	s.refresh()
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.loadErr
}

// Grants is the store's grants as a policy matches them, indexed: current
// as of this call (a store on a file reads it again if it changed), less
// those that have expired. While the backend is not Current, only the
// deny grants answer: an allow grant may have been revoked where this
// process cannot see. The set may grow after it is returned; it is never
// changed otherwise.
func (s *Store) Grants() *Set {
	s.refresh()
	s.expire()
	if s.backend != nil && !s.backend.Current() {
		return s.denyGrants()
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.set
}

func (s *Store) denyGrants() *Set {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.denies == nil {
		s.denies = NewSet(slices.DeleteFunc(s.set.List(), func(r rules.Rule) bool { return r.Decision != rules.Deny }))
	}
	return s.denies
}

// List returns a deep copy of the grants that answer (those that have not
// expired), in the order they were added.
func (s *Store) List() []rules.Rule {
	l, _ := s.Snapshot()
	return l
}

// Records returns a deep copy of every grant the store holds with its
// record, expired ones included, in the order they were added.
func (s *Store) Records() []Grant {
	s.refresh()
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Grant, len(s.records))
	for i, g := range s.records {
		out[i] = g.Clone()
	}
	return out
}

// Version increases on every change (Add with new rules, Revoke, Load,
// another process's change, a grant expiring), so a host can cache what
// it derived from List and rebuild only when Version moves.
func (s *Store) Version() uint64 {
	s.refresh()
	s.expire()
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.version
}

// Snapshot returns List and Version read together, so a cache cannot pair
// one version with another version's list.
func (s *Store) Snapshot() ([]rules.Rule, uint64) {
	s.refresh()
	s.expire()
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := s.set.List()
	if out == nil {
		out = []rules.Rule{}
	}
	return out, s.version
}

// Load replaces the store's grants (in memory) with the file's. It
// replaces rather than appends so that loading the same file twice, or
// re-loading after an edit, gives the file's contents rather than
// duplicates; a host that wants to merge calls LoadFile and Add. On any
// error the store is left unchanged.
func (s *Store) Load(path string) error {
	gs, err := loadRecords(path)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.setRecords(gs)
	s.version++
	s.mu.Unlock()
	return nil
}

// Save writes the grants to path, merged with what the file already holds,
// under the same advisory lock Open's stores take: the file's grants first,
// then this store's that it lacks, so a grant another process saved there
// is not lost. A file at path that cannot be read as grants is an error,
// and is not overwritten.
//
// The write is atomic: the list goes to a temporary file in the same
// directory, is synced to disk, and is renamed over path, and then the
// directory is synced so the rename itself survives a crash. A reader, or a
// crash at any moment, sees the old file or the new one, never a torn one;
// a failed Save leaves the old file as it was and removes its temporary
// file. The file is created with mode 0600: grants say what an agent may do
// without asking. A path through a symbolic link is written where the link
// leads (as Open's stores write it), and its directory made if need be.
func (s *Store) Save(path string) error {
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	file, unlock, err := lockTarget(path)
	if err != nil {
		return err
	}
	defer unlock()
	current, _, err := readFile(file)
	if err != nil {
		return fmt.Errorf("grants: not saving over %s, which cannot be read: %w", path, err)
	}
	return writeAtomic(file, merge(current, s.Records(), now()))
}
