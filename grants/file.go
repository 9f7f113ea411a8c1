package grants

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/realpath"
	"github.com/mcp-policy/mcp-policy/internal/rules"
)

// fileBackend is a grants file that several processes share (see Open).
type fileBackend struct {
	path string // absolute, as named (a link is not resolved)

	mu   sync.Mutex
	seen fileStamp // the file as Latest last returned it
}

// Latest reads the file again when its stamp moved since it was last
// returned.
func (f *fileBackend) Latest() ([]Grant, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	stamp, err := stampOf(f.path)
	if err == nil && stamp == f.seen {
		return nil, false, nil
	}
	gs, stamp, err := readFile(f.path)
	if err != nil {
		return nil, false, err
	}
	f.seen = stamp
	return gs, true, nil
}

// Add locks the file, reads it again, merges gs into what it holds and
// writes the result when that added anything.
func (f *fileBackend) Add(_ context.Context, gs []Grant) error {
	return f.update(func(current []Grant) []Grant { return merge(current, gs, time.Now()) })
}

// Revoke locks the file, reads it again and writes it without ids.
func (f *fileBackend) Revoke(_ context.Context, ids []string) ([]Grant, error) {
	var removed []Grant
	err := f.update(func(current []Grant) []Grant {
		removed = nil
		return slices.DeleteFunc(current, func(g Grant) bool {
			if slices.Contains(ids, g.ID) {
				removed = append(removed, g)
				return true
			}
			return false
		})
	})
	return removed, err
}

// update replaces the file's grants with change(them), under its lock; a
// file that cannot be read is left as it is.
func (f *fileBackend) update(change func([]Grant) []Grant) error {
	file, unlock, err := lockTarget(f.path)
	if err != nil {
		return err
	}
	defer unlock()
	current, _, err := readFile(file)
	if err != nil {
		return err // the file is not ours to repair: nothing is written
	}
	n := len(current)
	next := change(slices.Clone(current))
	if len(next) == n && slices.EqualFunc(next, current, sameGrant) {
		return nil
	}
	return writeAtomic(file, next)
}

func sameGrant(a, b Grant) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// Current is always true: a file on this machine is never out of touch.
func (f *fileBackend) Current() bool { return true }

func (f *fileBackend) Close() error { return nil }

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

// lockWait bounds the wait for another process's lock on the grants: a
// process stopped holding it (or a hand-run flock) must not hang every
// call that saves a grant; the error names the lock file.
const lockWait = 10 * time.Second

// lockTarget takes the advisory lock of the file path resolves to (see
// target), making its directory first if need be, and returns that file.
// It waits for another process's lock at most lockWait.
func lockTarget(path string) (file string, unlock func(), err error) {
	return lockTargetWithin(path, lockWait, nil)
}

// lockTargetWithin is lockTarget waiting at most wait, and not once stop
// is closed.
func lockTargetWithin(path string, wait time.Duration, stop <-chan struct{}) (file string, unlock func(), err error) {
	if file, err = target(path); err != nil {
		return "", nil, err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return "", nil, fmt.Errorf("grants: saving %s: %w", path, err)
	}
	if unlock, err = lockFile(file+".lock", wait, stop); err != nil {
		return "", nil, fmt.Errorf("grants: locking %s: %w", path, err)
	}
	return file, unlock, nil
}

// LoadFile reads a JSON array of grants as the rules that answer now
// (a store keeps their records): a grant whose "expires" has passed
// answers nothing and is left out, as a store leaves it out. A missing
// file is an error wrapping fs.ErrNotExist, so a host can tell "first run"
// from "broken file"; an empty file (or one of only white space) is no
// grants; a corrupt file, a file holding anything but an array (null
// included), an invalid rule or record, an ask or a relative under is an
// error naming the file (and the rule).
func LoadFile(path string) ([]rules.Rule, error) {
	gs, err := loadRecords(path)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	live := gs[:0]
	for _, g := range gs {
		if g.Expires.IsZero() || now.Before(g.Expires) {
			live = append(live, g)
		}
	}
	return rulesOf(live), nil
}

// loadRecords is LoadFile with each grant's record, expired ones too.
func loadRecords(path string) ([]Grant, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("grants: %w", err)
	}
	return parse(data, path)
}

func parse(data []byte, path string) ([]Grant, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return []Grant{}, nil // made by touch: no grants yet
	}
	gs, err := ParseGrants(data, path)
	if err != nil {
		return nil, fmt.Errorf("grants: %w", err)
	}
	return gs, nil
}

// readFile is loadRecords for a store's own file, where a missing file
// is no grants yet, with the file's stamp as it was read.
func readFile(path string) ([]Grant, fileStamp, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return []Grant{}, fileStamp{}, nil
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
	gs, err := parse(buf.Bytes(), path)
	if err != nil {
		return nil, fileStamp{}, err
	}
	return gs, stampFrom(info), nil
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

// rename is os.Rename; tests replace it to interrupt a Save.
var rename = os.Rename

// writeAtomic writes list to path as an indented JSON array, atomically
// (see Save).
func writeAtomic(path string, list []Grant) error {
	if list == nil {
		list = []Grant{}
	}
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return fmt.Errorf("grants: encoding: %w", err)
	}
	return writeBytesAtomic(path, append(data, '\n'))
}

// writeBytesAtomic replaces path with data: a temporary file beside it,
// synced, renamed over it, its directory synced. A reader sees the old
// file or the new one, never a part.
func writeBytesAtomic(path string, data []byte) error {
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
