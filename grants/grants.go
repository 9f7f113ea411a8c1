// Package grants is the grant book a fleet of policies shares: a parent
// agent and the children it spawned, each with its own policy, hand the same
// Store to all of them, so the human answers a question once rather than
// once per child. A Store opened on a file (Open) is shared the same way by
// several processes: proxies, one per server in a host's configuration, or
// one per agent.
//
// A grant is a rules.Rule whose decision is allow or deny — what an
// always-allow or always-deny answer leaves behind. "ask" is refused: a
// grant that asks again records nothing the human said. A grant's "under"
// is absolute: policies sharing a store may have different roots, and a
// relative directory would mean a different place to each of them.
package grants

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/realpath"
	"github.com/mcp-policy/mcp-policy/policy/rules"
)

// Store holds grants. It is safe for concurrent use: every policy wired to
// it reads it on every asked decision while an answer elsewhere may be
// adding to it. Use NewStore or Open; the zero Store is not ready.
type Store struct {
	mu      sync.RWMutex // guards set (the pointer), version, seen, loadErr
	set     *rules.GrantSet
	version uint64

	// file is the file the store is backed by ("" for none), and seen what
	// it was when last read, so a read notices another process's save.
	file    string
	seen    fileStamp
	reads   uint64 // counts replace: a refresh that read the file before an Add wrote it must not put the older list back
	loadErr error  // the file's last reading failed: Add refuses until it reads again

	saveMu sync.Mutex // orders Saves, so the last Save writes the newest list

	// askLock is the fleet's one human's attention: policies wired to the
	// store take it in turn to put a question (see AskLock).
	askLock chan struct{}
}

func newStore(list []rules.Rule) *Store {
	return &Store{set: rules.NewGrantSet(list), version: 1, askLock: make(chan struct{}, 1)}
}

// NewStore returns a store holding initial, validated ("grant N" in errors),
// each grant once. Version starts at 1, so a cache can use 0 for "never
// read".
func NewStore(initial []rules.Rule) (*Store, error) {
	rs, err := validate(initial, "grant")
	if err != nil {
		return nil, err
	}
	return newStore(rs), nil
}

// Open returns a store backed by the grants file at path, which several
// processes may share. The file is read now: a missing file is an empty
// store (the file is created by the first Add), and so is an empty file
// (or one of only white space); a file that cannot be read
// or holds anything but a JSON array of valid allow and deny grants is an
// error naming it, and the file is left as it is.
//
// Every Add then takes an advisory lock (a file beside it, path + ".lock"),
// reads the file again, adds what is new to what it holds and writes the
// result atomically, so no process's grant is lost to another's save. The
// directory is made (mode 0700) if it does not exist yet. A path that goes
// through a symbolic link is the file the link leads to, read, locked and
// written there, so stores opened by the link and by the file it names are
// one store; a link to nothing is an error. Every
// read (List, Snapshot, Version, Grants) first checks whether the file
// changed since it was last read, and reads it again if it did: a grant
// another process saved is seen by the next decision here.
func Open(path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("grants: %s: %w", path, err)
	}
	if _, err := target(abs); err != nil {
		return nil, err
	}
	rs, stamp, err := readFile(abs)
	if err != nil {
		return nil, err
	}
	s := newStore(rs)
	s.file, s.seen = abs, stamp
	return s, nil
}

// File is the file the store was opened on, absolute, as it was named
// (a link is not resolved here); "" for a store made by NewStore. A policy
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

// target is the file a grants path names once its links are resolved:
// what is locked, read and replaced. Replacing the path itself would
// replace a link with a file, and a store opened by the link's target
// would never see another grant of this one's.
func target(path string) (string, error) {
	t, err := realpath.Resolve(path)
	if err != nil {
		return "", fmt.Errorf("grants: %s: %w", path, err)
	}
	return t, nil
}

// AskLock is the ask lock of the policies wired to the store: a channel
// of one, held by whoever is putting a question to the human. A fleet that
// shares grants shares the human who made them, so it puts its questions
// one at a time, and a question waiting behind an always- answer is
// decided by the grant it left.
func (s *Store) AskLock() chan struct{} { return s.askLock }

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
// their position in rs. Adding nothing new changes nothing. In memory, an
// Add costs what the new grants cost, however many the store holds.
//
// On a store opened on a file, the file is locked, read again and written
// with the grants added, before Add returns; if it cannot be read (another
// process or a human broke it) or written, nothing is added and the file is
// left as it was.
func (s *Store) Add(rs ...rules.Rule) error {
	if len(rs) == 0 {
		return nil
	}
	v, err := validate(rs, "grant")
	if err != nil {
		return err
	}
	if s.file == "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.set.Add(v...) > 0 {
			s.version++
		}
		return nil
	}
	return s.addToFile(v)
}

// addToFile is Add on a store backed by a file: under the file's lock,
// what the file holds now plus v, written back when v added anything.
func (s *Store) addToFile(v []rules.Rule) error {
	file, unlock, err := lockTarget(s.file)
	if err != nil {
		return err
	}
	defer unlock()
	current, stamp, err := readFile(file)
	if err != nil {
		return err // the file is not ours to repair: nothing is written
	}
	merged := rules.NewGrantSet(current)
	if merged.Add(v...) > 0 {
		if err := writeAtomic(file, merged.List()); err != nil {
			return err
		}
		if stamp, err = stampOf(file); err != nil {
			stamp = fileStamp{} // read it again next time
		}
	}
	s.mu.Lock()
	s.replace(merged, stamp)
	s.mu.Unlock()
	return nil
}

// Remove takes r (as Validate reads it) out of the store and says whether
// it held it: a human's revoke of an always- answer. The next decision
// asks again, or follows the rules. On a store opened on a file, the file
// is locked, read again and written without r, as Add writes it; a file
// that cannot be read is an error, and is left as it was.
func (s *Store) Remove(r rules.Rule) (bool, error) {
	v, err := validate([]rules.Rule{r}, "grant")
	if err != nil {
		return false, err
	}
	gone := rules.NewGrantSet(v)
	without := func(list []rules.Rule) ([]rules.Rule, bool) {
		out := make([]rules.Rule, 0, len(list))
		for _, g := range list {
			if !gone.Has(g) {
				out = append(out, g)
			}
		}
		return out, len(out) < len(list)
	}
	if s.file == "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		kept, removed := without(s.set.List())
		if removed {
			s.set = rules.NewGrantSet(kept)
			s.version++
		}
		return removed, nil
	}
	file, unlock, err := lockTarget(s.file)
	if err != nil {
		return false, err
	}
	defer unlock()
	current, stamp, err := readFile(file)
	if err != nil {
		return false, err
	}
	kept, removed := without(current)
	if removed {
		if err := writeAtomic(file, kept); err != nil {
			return false, err
		}
		if stamp, err = stampOf(file); err != nil {
			stamp = fileStamp{}
		}
	}
	s.mu.Lock()
	s.replace(rules.NewGrantSet(kept), stamp)
	s.mu.Unlock()
	return removed, nil
}

// lockTarget takes the advisory lock of the file path resolves to (see
// target), making its directory first if need be, and returns that file.
func lockTarget(path string) (file string, unlock func(), err error) {
	if file, err = target(path); err != nil {
		return "", nil, err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return "", nil, fmt.Errorf("grants: saving %s: %w", path, err)
	}
	if unlock, err = lockFile(file + ".lock"); err != nil {
		return "", nil, fmt.Errorf("grants: locking %s: %w", path, err)
	}
	return file, unlock, nil
}

// replace sets the grants, moving the version only when they changed.
// s.mu is held.
func (s *Store) replace(set *rules.GrantSet, stamp fileStamp) {
	s.reads++
	s.seen, s.loadErr = stamp, nil
	if !sameList(s.set.List(), set.List()) {
		s.set = set
		s.version++
	}
}

func sameList(a, b []rules.Rule) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// refresh reads the file again when it changed since it was last read. A
// file that cannot be read keeps the grants last read (an edit half made
// by a human must not make every decision fail) and makes Add refuse until
// it can be read again.
func (s *Store) refresh() {
	if s.file == "" {
		return
	}
	stamp, err := stampOf(s.file)
	s.mu.RLock()
	same := err == nil && stamp == s.seen
	reads := s.reads
	s.mu.RUnlock()
	if same {
		return
	}
	rs, stamp, err := readFile(s.file)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reads != reads {
		return // an Add here read and wrote the file meanwhile: what this read may be older
	}
	if err != nil {
		s.loadErr = err
		return
	}
	s.replace(rules.NewGrantSet(rs), stamp)
}

// Err is why the store's file could not be read the last time it changed,
// nil when it could (or the store has no file). The grants read before
// stay in force meanwhile; Add fails with this error.
func (s *Store) Err() error {
	s.refresh()
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.loadErr
}

// Grants is the store's grants as a policy matches them, indexed: current
// as of this call (a store on a file reads it again if it changed). The
// set may grow after it is returned; it is never changed otherwise.
func (s *Store) Grants() *rules.GrantSet {
	s.refresh()
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.set
}

// List returns a deep copy of the grants, in the order they were added.
func (s *Store) List() []rules.Rule {
	l, _ := s.Snapshot()
	return l
}

// Version increases on every change (Add with new rules, Load, another
// process's save of the file), so a host can cache what it derived from
// List and rebuild only when Version moves.
func (s *Store) Version() uint64 {
	s.refresh()
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.version
}

// Snapshot returns List and Version read together, so a cache cannot pair
// one version with another version's list.
func (s *Store) Snapshot() ([]rules.Rule, uint64) {
	s.refresh()
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := s.set.List()
	if out == nil {
		out = []rules.Rule{}
	}
	return out, s.version
}

// LoadFile reads a JSON array of grants. A missing file is an error wrapping
// fs.ErrNotExist, so a host can tell "first run" from "broken file"; an
// empty file (or one of only white space) is no grants; a
// corrupt file, a file holding anything but an array (null included), an
// invalid rule, an ask or a relative under is an error naming the file (and
// the rule).
func LoadFile(path string) ([]rules.Rule, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("grants: %w", err)
	}
	return parse(data, path)
}

func parse(data []byte, path string) ([]rules.Rule, error) {
	t := bytes.TrimSpace(data)
	if len(t) == 0 {
		return []rules.Rule{}, nil // made by touch: no grants yet
	}
	if t[0] != '[' {
		return nil, fmt.Errorf("grants: %s: must be a JSON array of grants (null or an object is not)", path)
	}
	rs, err := rules.ParseRules(data, path)
	if err != nil {
		return nil, fmt.Errorf("grants: %w", err)
	}
	if err := check(rs, func(i int) string { return fmt.Sprintf("%s: rule %d", path, i+1) }); err != nil {
		return nil, fmt.Errorf("grants: %w", err)
	}
	if rs == nil {
		rs = []rules.Rule{}
	}
	return rs, nil
}

// readFile is LoadFile for a store's own file, where a missing file is no
// grants yet, with the file's stamp as it was read.
func readFile(path string) ([]rules.Rule, fileStamp, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return []rules.Rule{}, fileStamp{}, nil
	}
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("grants: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("grants: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, fileStamp{}, fmt.Errorf("grants: %s is not a regular file", path)
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, fileStamp{}, fmt.Errorf("grants: %w", err)
	}
	rs, err := parse(buf.Bytes(), path)
	if err != nil {
		return nil, fileStamp{}, err
	}
	return rs, stampFrom(info), nil
}

// fileStamp tells one version of a file from another without reading it:
// a save replaces the file (a rename), so its identity changes.
type fileStamp struct {
	exists  bool
	size    int64
	modTime time.Time
	id      fileID
}

func stampOf(path string) (fileStamp, error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileStamp{}, nil
	}
	if err != nil {
		return fileStamp{}, err
	}
	return stampFrom(info), nil
}

func stampFrom(info fs.FileInfo) fileStamp {
	return fileStamp{exists: true, size: info.Size(), modTime: info.ModTime(), id: idOf(info)}
}

// Load replaces the store's grants with the file's. It replaces rather than
// appends so that loading the same file twice, or re-loading after an edit,
// gives the file's contents rather than duplicates; a host that wants to
// merge calls LoadFile and Add. On any error the store is left unchanged.
func (s *Store) Load(path string) error {
	rs, err := LoadFile(path)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.set = rules.NewGrantSet(rs)
	s.version++
	s.mu.Unlock()
	return nil
}

// rename is os.Rename; tests replace it to interrupt a Save.
var rename = os.Rename

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
	merged := rules.NewGrantSet(current)
	merged.Add(s.List()...)
	return writeAtomic(file, merged.List())
}

// writeAtomic writes list to path as an indented JSON array, atomically
// (see Save).
func writeAtomic(path string, list []rules.Rule) error {
	if list == nil {
		list = []rules.Rule{}
	}
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return fmt.Errorf("grants: encoding: %w", err)
	}
	data = append(data, '\n')

	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("grants: saving %s: %w", path, err)
	}
	renamed := false
	defer func() {
		if !renamed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("grants: saving %s: %w", path, err)
	}
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("grants: saving %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("grants: saving %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("grants: saving %s: %w", path, err)
	}
	if err = rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("grants: saving %s: %w", path, err)
	}
	renamed = true
	if derr := syncDir(dir); derr != nil {
		// The new file is in place; only its durability is in doubt.
		return fmt.Errorf("grants: saved %s, but syncing its directory failed: %w", path, derr)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
