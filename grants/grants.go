// Package grants is the grant book a fleet of policies shares: a parent
// agent and the children it spawned, each with its own policy, hand the same
// Store to all of them, so the human answers a question once rather than
// once per child.
//
// A grant is a rules.Rule whose decision is allow or deny — what an
// always-allow or always-deny answer leaves behind. "ask" is refused: a
// grant that asks again records nothing the human said.
package grants

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/mcp-policy/mcp-policy/policy/rules"
)

// Store holds grants. It is safe for concurrent use: every policy wired to
// it reads it on every decision while an answer elsewhere may be adding to
// it. Use NewStore; the zero Store is not ready.
type Store struct {
	mu      sync.RWMutex
	rules   []rules.Rule
	version uint64

	saveMu sync.Mutex // orders Saves, so the last Save writes the newest list
}

// NewStore returns a store holding initial, validated ("grant N" in errors).
// Version starts at 1, so a cache can use 0 for "never read".
func NewStore(initial []rules.Rule) (*Store, error) {
	rs, err := validate(initial, "grant")
	if err != nil {
		return nil, err
	}
	return &Store{rules: rs, version: 1}, nil
}

// validate checks grants, names them "<what> N" and refuses ask.
func validate(rs []rules.Rule, what string) ([]rules.Rule, error) {
	out, err := rules.ValidateAll(rules.CloneAll(rs), what, true)
	if err != nil {
		return nil, err
	}
	if err := refuseAsk(out, func(i int) string { return fmt.Sprintf("%s %d", what, i+1) }); err != nil {
		return nil, err
	}
	return out, nil
}

func refuseAsk(rs []rules.Rule, name func(int) string) error {
	for i, r := range rs {
		if r.Decision == rules.Ask {
			return &rules.ValidationError{Rule: name(i), Field: "decision",
				Msg: `a grant must be "allow" or "deny": "ask" remembers nothing`}
		}
	}
	return nil
}

// Add validates rs and appends them, all or nothing: one bad rule adds
// none, because half of an answer is not what the human agreed to. Rules are
// named "grant N" by their position in rs. Adding nothing changes nothing.
func (s *Store) Add(rs ...rules.Rule) error {
	if len(rs) == 0 {
		return nil
	}
	v, err := validate(rs, "grant")
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.rules = append(s.rules, v...)
	s.version++
	s.mu.Unlock()
	return nil
}

// List returns a deep copy of the grants, in the order they were added.
func (s *Store) List() []rules.Rule {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := rules.CloneAll(s.rules)
	if out == nil {
		out = []rules.Rule{}
	}
	return out
}

// Version increases on every change (Add with rules, Load), so a policy can
// cache what it derived from List and rebuild only when Version moves.
func (s *Store) Version() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.version
}

// Snapshot returns List and Version read together, so a cache cannot pair
// one version with another version's list.
func (s *Store) Snapshot() ([]rules.Rule, uint64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := rules.CloneAll(s.rules)
	if out == nil {
		out = []rules.Rule{}
	}
	return out, s.version
}

// LoadFile reads a JSON array of grants. A missing file is an error wrapping
// fs.ErrNotExist, so a host can tell "first run" from "broken file"; a
// corrupt file, an invalid rule or an ask is an error naming the file (and
// the rule).
func LoadFile(path string) ([]rules.Rule, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("grants: %w", err)
	}
	rs, err := rules.ParseRules(data, path, true)
	if err != nil {
		return nil, fmt.Errorf("grants: %w", err)
	}
	if err := refuseAsk(rs, func(i int) string { return fmt.Sprintf("%s: rule %d", path, i+1) }); err != nil {
		return nil, fmt.Errorf("grants: %w", err)
	}
	if rs == nil {
		rs = []rules.Rule{}
	}
	return rs, nil
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
	s.rules = rs
	s.version++
	s.mu.Unlock()
	return nil
}

// rename is os.Rename; tests replace it to interrupt a Save.
var rename = os.Rename

// Save writes the grants to path as an indented JSON array, atomically: the
// list goes to a temporary file in the same directory, is synced to disk,
// and is renamed over path, and then the directory is synced so the rename
// itself survives a crash. A reader, or a crash at any moment, sees the old
// file or the new one, never a torn one; a failed Save leaves the old file
// as it was and removes its temporary file. The file is created with mode
// 0600: grants say what an agent may do without asking. A symlink at path is
// replaced, not written through.
func (s *Store) Save(path string) error {
	s.saveMu.Lock()
	defer s.saveMu.Unlock()

	data, err := json.MarshalIndent(s.List(), "", "  ")
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
