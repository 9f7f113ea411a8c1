// Package rulefiles is a policy.RuleSource over local files — the --rules
// file and the --policy modules — read at start and read again when one of
// them changes (watched with fsnotify) or when Reload is called (the
// proxy calls it on SIGHUP). An edit takes effect on the next call; an
// edit that does not parse, validate or compile is refused, with a message
// naming the file and line, and the rules in force stay.
package rulefiles

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/policy"
)

// settle is how long a burst of file events is let finish before the
// files are read: an editor's save is a write, a rename and a chmod, and
// reading between them would see half a file.
const settle = 100 * time.Millisecond

// Source is the files' rule set, kept current. Safe for concurrent use.
type Source struct {
	rulesFile string   // "" for none
	policies  []string // files and directories of modules
	say       func(string)
	// OnActivation, when set before Start, is told of each reload: err is
	// nil when the edited rules were taken, else why they were refused.
	OnActivation func(revisions map[string]string, err error)

	mu       sync.Mutex
	current  policy.RuleSet
	watchers map[int]func(policy.RuleSet) error
	nextID   int

	watcher *fsnotify.Watcher
	reload  chan struct{}
	done    chan struct{}
	stopped sync.Once
}

// Open reads the files: an error here is the same error the command
// gives at start. say gets one line per reload, taken or refused (the
// proxy writes it to stderr).
func Open(rulesFile string, policies []string, say func(string)) (*Source, error) {
	s := newSource(rulesFile, policies, say)
	set, err := s.read()
	if err != nil {
		return nil, err
	}
	return s, s.start(set)
}

// OpenRead is Open for files the caller has just read as set (its rules
// the rules file's, its modules the policies'): they are not read a
// second time, which at 100,000 rules is a second of start-up.
func OpenRead(rulesFile string, policies []string, set policy.RuleSet, say func(string)) (*Source, error) {
	s := newSource(rulesFile, policies, say)
	return s, s.start(set)
}

func newSource(rulesFile string, policies []string, say func(string)) *Source {
	if say == nil {
		say = func(string) {}
	}
	return &Source{rulesFile: rulesFile, policies: slices.Clone(policies), say: say,
		watchers: map[int]func(policy.RuleSet) error{}, reload: make(chan struct{}, 1), done: make(chan struct{})}
}

func (s *Source) start(set policy.RuleSet) error {
	if err := validate(set); err != nil {
		return err
	}
	s.current = set
	return nil
}

// Files are the files and directories watched.
func (s *Source) Files() []string {
	var out []string
	if s.rulesFile != "" {
		out = append(out, s.rulesFile)
	}
	return append(out, s.policies...)
}

// Start watches the files until Stop. Editors save by writing a new file
// and renaming it over the old, so each file's directory is watched, and
// events are filtered to the files named.
func (s *Source) Start() error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watching the rule files: %w", err)
	}
	dirs := map[string]bool{}
	watched := map[string]bool{}
	for _, f := range s.Files() {
		abs, err := filepath.Abs(f)
		if err != nil {
			_ = w.Close()
			return err
		}
		watched[abs] = true
		dir := filepath.Dir(abs)
		if info, err := os.Stat(abs); err == nil && info.IsDir() {
			dir = abs // a directory of modules: its own events
			// Its subdirectories too, as LoadModules walks them.
			_ = filepath.WalkDir(abs, func(p string, e os.DirEntry, err error) error {
				if err == nil && e.IsDir() {
					dirs[p] = true
				}
				return nil
			})
		}
		dirs[dir] = true
	}
	for dir := range dirs {
		if err := w.Add(dir); err != nil {
			_ = w.Close()
			return fmt.Errorf("watching %s: %w", dir, err)
		}
	}
	s.watcher = w
	go s.loop(watched)
	return nil
}

// loop reads the files again after each settled burst of events that
// touch them, and on each Reload.
func (s *Source) loop(watched map[string]bool) {
	var timer <-chan time.Time
	// A watched file, or anything under a watched directory of modules.
	relevant := func(name string) bool {
		for f := range watched {
			if rel, err := filepath.Rel(f, name); err == nil && (rel == "." || !strings.HasPrefix(rel, "..")) {
				return true
			}
		}
		return false
	}
	for {
		select {
		case <-s.done:
			return
		case ev, ok := <-s.watcher.Events:
			if !ok {
				return
			}
			if relevant(ev.Name) {
				timer = time.After(settle)
			}
		case err, ok := <-s.watcher.Errors:
			if !ok {
				return
			}
			s.say(fmt.Sprintf("watching the rule files: %v; send SIGHUP to reload them", err))
		case <-timer:
			timer = nil
			s.Reload()
		case <-s.reload:
			s.apply()
		}
	}
}

// Reload reads the files again now (SIGHUP). Without Start it reads them
// on the caller's goroutine.
func (s *Source) Reload() {
	if s.watcher == nil {
		s.apply()
		return
	}
	select {
	case s.reload <- struct{}{}:
	default: // one is pending: it will read the files as they are then
	}
}

// Stop stops watching; the rules in force stay.
func (s *Source) Stop() {
	s.stopped.Do(func() {
		close(s.done)
		if s.watcher != nil {
			_ = s.watcher.Close()
		}
	})
}

// Current is policy.RuleSource's: the files' set in force.
func (s *Source) Current() (policy.RuleSet, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current, true
}

// Watch is policy.RuleSource's.
func (s *Source) Watch(activate func(policy.RuleSet) error) (stop func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.nextID
	s.nextID++
	s.watchers[id] = activate
	_ = activate(s.current) // validated when it was read
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.watchers, id)
	}
}

// apply reads, validates and hands out the files' set; a set that fails
// leaves the one in force.
func (s *Source) apply() {
	set, err := s.read()
	if err == nil {
		err = validate(set)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		for _, id := range slices.Sorted(maps.Keys(s.watchers)) {
			if werr := s.watchers[id](set); werr != nil {
				err = werr
				break
			}
		}
	}
	if s.OnActivation != nil {
		s.OnActivation(set.Revisions, err)
	}
	if err != nil {
		s.say(fmt.Sprintf("the edited rules were refused: %v; the rules in force stay", err))
		return
	}
	s.current = set
	s.say(fmt.Sprintf("rules reloaded from %s", strings.Join(s.Files(), ", ")))
}

// read reads every file, errors naming the file and the line at fault.
func (s *Source) read() (policy.RuleSet, error) {
	var set policy.RuleSet
	if s.rulesFile != "" {
		data, err := os.ReadFile(s.rulesFile)
		if err != nil {
			return set, fmt.Errorf("--rules %s: %w", s.rulesFile, errors.Unwrap(err))
		}
		if set.Rules, err = cliconfig.ParseRulesFile(s.rulesFile, data); err != nil {
			return set, err
		}
	}
	modules, err := cliconfig.LoadModules(s.policies)
	if err != nil {
		return set, fmt.Errorf("--policy: %w", err)
	}
	set.Modules = modules
	return set, nil
}

// validate compiles set's modules on their own: a module that does not
// compile is refused with its file and line before any policy is handed
// it. (The rules were validated as they were parsed; compiling them too
// would cost a second at 100,000, for nothing.)
func validate(set policy.RuleSet) error {
	if len(set.Modules) == 0 {
		return nil
	}
	_, err := rules.NewEngine(context.Background(), rules.Config{Modules: set.Modules})
	return err
}
