//go:build unix

package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/grants/pgstore"
	"github.com/mcp-policy/mcp-policy/internal/pgtest"
)

// The load test: several proxies share one PostgreSQL grants database and
// its approvals queue. Each one's host makes two streams of calls at once:
// one of writes nobody allowed, which wait for an approver, and deletes a
// rule denies; the other of reads the default rules allow, which need no
// question and must not wait behind one. An approver in another process
// (`mcp-policy approve`, run again and again, as a human at a terminal
// would) answers each write as its file's name says: allow once, deny, or
// always allow. Counted: every call answered, no decision other than the
// one due (a denied or unanswered write that ran, an allowed one that did
// not), and exactly one grant for each always-answer. The reads' latencies
// are returned, to compare with the same load where a rule allows the
// writes and nothing is asked.

// loadWrite is one write and the answer its file's name asks for.
type loadWrite struct {
	dir, answer string // answer: allow, deny or always-allow
}

func runLoad(t *testing.T, proxies, rounds int, asks bool) (reads []time.Duration) {
	db := pgtest.NewDatabase(t)
	rules := filepath.Join(t.TempDir(), "rules.json")
	ruleText := `[{"tool":"fs_delete","decision":"deny"}]`
	if !asks {
		ruleText = `[{"tool":"fs_delete","decision":"deny"},{"tool":"fs_write","decision":"allow"}]`
	}
	require.NoError(t, os.WriteFile(rules, []byte(ruleText), 0o600))

	ctx, stopApprover := context.WithCancel(context.Background())
	approverDone := make(chan []string, 1)
	bin := proxyBinary(t)
	go func() { approverDone <- approveAsNamed(ctx, bin, db) }()

	var mu sync.Mutex
	t.Run("proxies", func(t *testing.T) {
		for i := range proxies {
			t.Run(fmt.Sprint("proxy ", i), func(t *testing.T) {
				t.Parallel()
				mine := loadOneProxy(t, db, rules, rounds, asks)
				mu.Lock()
				reads = append(reads, mine...)
				mu.Unlock()
			})
		}
	})
	stopApprover()
	for _, e := range <-approverDone {
		t.Error(e)
	}

	store, err := pgstore.Open(context.Background(), db, pgstore.Options{})
	require.NoError(t, err)
	defer store.Close()
	unders := map[string]int{}
	for _, g := range store.List() {
		unders[g.Under]++
	}
	always := 0
	for under, n := range unders {
		assert.True(t, strings.Contains(under, "always-allow-"), "a grant nobody gave: %s", under)
		assert.Equal(t, 1, n, "one grant for %s", under)
		always++
	}
	if asks {
		assert.Equal(t, proxies*rounds, always, "a grant for each always-answer, none lost")
	}
	return reads
}

// loadOneProxy drives one proxy: each round a delete and three writes, one
// for each answer, while readsPerRound reads per round go on beside them,
// a millisecond apart (a busy agent, not a flood). Writes allowed once go
// on until the reads are done, so that every read has writes beside it.
// It checks each call's fate and returns the reads' latencies.
func loadOneProxy(t *testing.T, db, rules string, rounds int, asks bool) []time.Duration {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o600))
	h := startRaw(t, []string{"--root", "fs=" + dir, "--grants", db, "--rules", rules, "--ask-timeout", "60s"}, []string{fsserver, dir}, nil)
	h.initialize(map[string]any{})
	m := newCallMux(t, h)
	read := func() (time.Duration, error) {
		start := time.Now()
		text, isError, err := m.call("fs_read", map[string]any{"path": "a.txt"})
		if err == nil && isError {
			err = fmt.Errorf("a read the default rules allow: %s", text)
		}
		return time.Since(start), err
	}
	_, err := read() // the first call lists the tools: not a read's time
	require.NoError(t, err)

	readsDone := make(chan []time.Duration, 1)
	go func() {
		var reads []time.Duration
		for range rounds * readsPerRound {
			took, err := read()
			if err != nil {
				t.Error(err)
				break
			}
			reads = append(reads, took)
			time.Sleep(time.Millisecond)
		}
		readsDone <- reads
	}()

	var reads []time.Duration
	for r := 0; reads == nil; r++ {
		writes := []loadWrite{{fmt.Sprintf("allow-%d", r), "allow"}}
		if r < rounds {
			_, isError, err := m.call("fs_delete", map[string]any{"path": "a.txt"})
			require.NoError(t, err)
			assert.True(t, isError, "a delete the rules deny")
			writes = append(writes, loadWrite{fmt.Sprintf("deny-%d", r), "deny"}, loadWrite{fmt.Sprintf("always-allow-%d", r), "always-allow"})
		}
		for _, w := range writes {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, w.dir), 0o700))
			path := filepath.Join(w.dir, "x.md")
			text, isError, err := m.call("fs_write", map[string]any{"path": path, "content": w.answer})
			require.NoError(t, err)
			_, err = os.Stat(filepath.Join(dir, path))
			ran := err == nil
			if w.answer == "deny" && asks {
				assert.True(t, isError && !ran, "a write answered deny: error %v, ran %v: %s", isError, ran, text)
			} else {
				assert.True(t, !isError && ran, "a write answered %s: error %v, ran %v: %s", w.answer, isError, ran, text)
			}
		}
		if r >= rounds-1 {
			select {
			case reads = <-readsDone:
			default:
			}
		}
	}
	_, err = os.Stat(filepath.Join(dir, "a.txt"))
	assert.NoError(t, err, "the denied deletes deleted nothing")
	return reads
}

// readsPerRound is how many reads go beside each round of writes.
const readsPerRound = 50

// callMux lets two streams of calls share one host: each call waits for
// its own response, whatever order the proxy answers in.
type callMux struct {
	h       *rawHost
	mu      sync.Mutex
	next    int
	waiting map[float64]chan map[string]any
	closed  bool
}

func newCallMux(t *testing.T, h *rawHost) *callMux {
	m := &callMux{h: h, next: 1000, waiting: map[float64]chan map[string]any{}}
	go func() {
		for msg := range h.lines {
			id, ok := msg["id"].(float64)
			if !ok || msg["method"] != nil {
				continue // progress and other notifications
			}
			m.mu.Lock()
			c := m.waiting[id]
			delete(m.waiting, id)
			m.mu.Unlock()
			if c != nil {
				c <- msg
			}
		}
		m.mu.Lock()
		m.closed = true
		for _, c := range m.waiting {
			close(c)
		}
		m.mu.Unlock()
	}()
	return m
}

// call makes one tools/call and waits for its result, at most a minute.
func (m *callMux) call(tool string, args map[string]any) (text string, isError bool, err error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return "", false, fmt.Errorf("the proxy closed stdout\n%s", m.h.stderr)
	}
	m.next++
	id := m.next
	c := make(chan map[string]any, 1)
	m.waiting[float64(id)] = c
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	if err == nil {
		_, err = m.h.in.Write(append(b, '\n'))
	}
	m.mu.Unlock()
	if err != nil {
		return "", false, err
	}
	select {
	case r, ok := <-c:
		if !ok {
			return "", false, fmt.Errorf("the proxy closed stdout\n%s", m.h.stderr)
		}
		res, _ := r["result"].(map[string]any)
		if res == nil {
			return "", false, fmt.Errorf("%s: no result: %v", tool, r)
		}
		content, _ := res["content"].([]any)
		var parts []string
		for _, c := range content {
			if block, ok := c.(map[string]any); ok {
				parts = append(parts, fmt.Sprint(block["text"]))
			}
		}
		isError, _ := res["isError"].(bool)
		return strings.Join(parts, "\n"), isError, nil
	case <-time.After(time.Minute):
		return "", false, fmt.Errorf("%s: no answer within a minute\n%s", tool, m.h.stderr)
	}
}

// approveAsNamed answers every question in the queue, until ctx ends, as
// the directory of the file it writes says, each answer by a run of
// `mcp-policy approve`, as a human would. It returns what went wrong.
func approveAsNamed(ctx context.Context, bin, db string) []string {
	var problems []string
	for ctx.Err() == nil {
		out, err := exec.Command(bin, "approve", "--grants", db, "--json", "list").Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			problems = append(problems, fmt.Sprintf("approve list: %v: %s", err, stderr))
			time.Sleep(100 * time.Millisecond)
			continue
		}
		var qs []struct {
			ID        string `json:"id"`
			Arguments string `json:"arguments"`
		}
		if err := json.Unmarshal(out, &qs); err != nil {
			problems = append(problems, fmt.Sprintf("approve --json list: %v: %s", err, out))
			continue
		}
		for _, q := range qs {
			word := ""
			for _, answer := range []string{"always-allow", "deny", "allow"} {
				if strings.Contains(q.Arguments, answer+"-") {
					word = answer
					break
				}
			}
			if word == "" {
				problems = append(problems, "a question no write of the test's asks: "+q.Arguments)
				continue
			}
			if out, err := exec.Command(bin, "approve", "--grants", db, word, q.ID).CombinedOutput(); err != nil &&
				!strings.Contains(string(out), "answered already") && !strings.Contains(string(out), "is pending") {
				problems = append(problems, fmt.Sprintf("approve %s %s: %v: %s", word, q.ID, err, out))
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return problems
}

// TestLoadOnASharedDatabase: two proxies, two rounds each, on one
// PostgreSQL: every call answered as due, a grant for each always-answer.
// MCP_POLICY_LOAD=PROXIES,ROUNDS runs a bigger load, then the same load
// with the writes allowed by a rule (nothing asked), and logs the reads'
// latencies in each (calls that need no question, beside calls that wait
// for an approver, or beside calls that do not): a measurement, not a
// pass mark.
func TestLoadOnASharedDatabase(t *testing.T) {
	t.Parallel()
	proxies, rounds := 2, 2
	v := os.Getenv("MCP_POLICY_LOAD")
	if v != "" {
		_, err := fmt.Sscanf(v, "%d,%d", &proxies, &rounds)
		require.NoError(t, err, "MCP_POLICY_LOAD=PROXIES,ROUNDS")
	}
	p99 := func(what string, reads []time.Duration) time.Duration {
		slices.Sort(reads)
		q := reads[len(reads)*99/100]
		t.Logf("%s: %d proxies x %d rounds: %d reads, p50 %v, p99 %v", what, proxies, rounds, len(reads), reads[len(reads)/2], q)
		return q
	}
	withAsks := p99("with asks", runLoad(t, proxies, rounds, true))
	if v == "" {
		return
	}
	without := p99("without asks", runLoad(t, proxies, rounds, false))
	t.Logf("reads' p99 with asks / without: %.2f", float64(withAsks)/float64(without))
}
