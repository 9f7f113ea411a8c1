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
	"strings"
	"sync"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/strictjson"
)

// PinsFileFor is the pins file beside a grants file: grants.json's is
// grants.pins.json, any other name's is NAME.pins.json. It is one of the
// policy's own files, which the floor keeps every tool from writing.
func PinsFileFor(grantsFile string) string {
	if strings.HasSuffix(grantsFile, ".json") {
		return strings.TrimSuffix(grantsFile, ".json") + ".pins.json"
	}
	return grantsFile + ".pins.json"
}

// OpenPinsFile is the pins kept in the file at path (created with the
// first pin), which several processes may share: each change is made
// under the file's lock (the grants file's kind, on its own lock file) and
// written atomically. The file is read when a server lists its tools and
// it changed since this process last read or wrote it, never on a
// decision.
func OpenPinsFile(path string) (*Pins, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("pins: %s: %w", path, err)
	}
	return NewPins(&pinsFile{path: abs}), nil
}

type pinsFile struct {
	path string
	// The pins as this process last read or wrote them, and the file's
	// stamp then: a listing whose file did not change since (the common
	// case) is not read and checked again. Under mu, taken inside the
	// file's lock.
	mu    sync.Mutex
	stamp fileStamp
	list  []Pin
}

func (f *pinsFile) List(context.Context) ([]Pin, error) {
	file, err := target(f.path)
	if err != nil {
		return nil, err
	}
	return readPins(file)
}

func (f *pinsFile) Update(ctx context.Context, server string, change func([]Pin) ([]Pin, bool, error)) error {
	wait := lockWait
	if d, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(d))
	}
	file, unlock, err := lockTargetWithin(f.path, wait, ctx.Done())
	if err != nil {
		return err
	}
	defer unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	st, err := stampOf(file)
	if err != nil {
		return fmt.Errorf("pins: %w", err)
	}
	all := f.list
	if !st.exists || st != f.stamp {
		if all, err = readPins(file); err != nil {
			f.list, f.stamp = nil, fileStamp{}
			return err
		}
		f.list, f.stamp = all, st
	}
	mine, others := byServer(all, server)
	after, changed, err := change(mine)
	if err != nil || !changed {
		return err
	}
	list := append(others, after...)
	if list == nil {
		list = []Pin{} // the last pin forgotten: an empty array, not null
	}
	sortPins(list)
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return fmt.Errorf("pins: encoding: %w", err)
	}
	f.list, f.stamp = nil, fileStamp{} // read again unless the write's stamp is known
	if err := writeBytesAtomic(file, append(data, '\n')); err != nil {
		return err
	}
	if st, err := stampOf(file); err == nil {
		f.list, f.stamp = list, st
	}
	return nil
}

func (f *pinsFile) Close() error { return nil }

// readPins reads a pins file: a JSON array of pins, each matching its
// definitions' digests, no tool pinned twice. A missing or empty file is
// no pins; anything else that is not a pins file is an error naming it
// (the proxy then suspends every tool, as it does when the store is out
// of reach).
func readPins(path string) ([]Pin, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pins: %w", err)
	}
	return parsePins(data, path)
}

// parsePins reads the text of the pins file at path.
func parsePins(data []byte, path string) ([]Pin, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	if err := strictjson.Check(data); err != nil {
		return nil, fmt.Errorf("pins: %s: %v", path, err)
	}
	var list []Pin
	if err := json.Unmarshal(data, &list); err != nil || list == nil {
		return nil, fmt.Errorf("pins: %s: not a JSON array of pins", path)
	}
	if err := CheckPins(list); err != nil {
		return nil, fmt.Errorf("pins: %s: %w", path, err)
	}
	return list, nil
}

// CheckPins refuses pins that do not match their definitions (a digest
// edited by hand) or a tool pinned twice.
func CheckPins(list []Pin) error {
	seen := map[[2]string]bool{}
	for i, p := range list {
		offerBad := func(o Offer) bool { return o.Digest != o.Definition.Digest() || o.Definition.Name != p.Tool }
		if p.Server == "" || p.Tool == "" || p.Tool != p.Definition.Name || p.Digest != p.Definition.Digest() ||
			(p.Changed != nil && offerBad(*p.Changed)) || (p.Changed == nil && len(p.Earlier) > 0) || slices.ContainsFunc(p.Earlier, offerBad) {
			return fmt.Errorf("pin %d (%.80q on %.200q) is not a pin this program writes: its digests do not match its definitions, or it names no tool (edit or forget it with mcp-policy pins)", i+1, p.Tool, p.Server)
		}
		k := [2]string{p.Server, p.Tool}
		if seen[k] {
			return fmt.Errorf("%s on %s is pinned twice", p.Tool, p.Server)
		}
		seen[k] = true
	}
	return nil
}

// byServer splits list into server's pins and the others, in new slices
// (list is not changed).
func byServer(list []Pin, server string) (mine, others []Pin) {
	for _, p := range list {
		if p.Server == server {
			mine = append(mine, p)
		} else {
			others = append(others, p)
		}
	}
	return mine, others
}

// MemoryPins is pins kept for as long as the process runs: a proxy with
// no grants store still holds a server to the definitions it first
// offered.
func MemoryPins() *Pins { return NewPins(&pinsMemory{}) }

type pinsMemory struct {
	mu   sync.Mutex
	list []Pin
}

func (m *pinsMemory) List(context.Context) ([]Pin, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.list), nil
}

func (m *pinsMemory) Update(_ context.Context, server string, change func([]Pin) ([]Pin, bool, error)) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	mine, others := byServer(m.list, server)
	after, changed, err := change(mine)
	if err == nil && changed {
		m.list = append(others, after...)
	}
	return err
}

func (m *pinsMemory) Close() error { return nil }
