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
// its approvals queue. Each one's host makes a mix of calls, one at a
// time: reads the default rules allow, deletes a rule denies, and writes
// nobody allowed, which wait for an approver. An approver in another
// process (`mcp-policy approve`, run again and again, as a human at a
// terminal would) answers each write as its file's name says: allow once,
// deny, or always allow. Counted: every call answered, no decision other
// than the one due (a denied or unanswered write that ran, an allowed one
// that did not), and exactly one grant for each always-answer.

// loadWrite is one write and the answer its file's name asks for.
type loadWrite struct {
	dir, answer string // answer: allow, deny or always-allow
}

func runLoad(t *testing.T, proxies, rounds int) (reads []time.Duration) {
	db := pgtest.NewDatabase(t)
	rules := filepath.Join(t.TempDir(), "rules.json")
	require.NoError(t, os.WriteFile(rules, []byte(`[{"tool":"fs_delete","decision":"deny"}]`), 0o600))

	ctx, stopApprover := context.WithCancel(context.Background())
	approverDone := make(chan []string, 1)
	bin := proxyBinary(t)
	go func() { approverDone <- approveAsNamed(ctx, bin, db) }()

	var mu sync.Mutex
	t.Run("proxies", func(t *testing.T) {
		for i := range proxies {
			t.Run(fmt.Sprint("proxy ", i), func(t *testing.T) {
				t.Parallel()
				mine := loadOneProxy(t, db, rules, rounds)
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
	assert.Equal(t, proxies*rounds, always, "a grant for each always-answer, none lost")
	return reads
}

// loadOneProxy drives one proxy: each round a read, a delete, and three
// writes, one for each answer; it checks each call's fate and returns the
// reads' latencies.
func loadOneProxy(t *testing.T, db, rules string, rounds int) []time.Duration {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o600))
	h := startRaw(t, []string{"--root", "fs=" + dir, "--grants", db, "--rules", rules, "--ask-timeout", "60s"}, []string{fsserver, dir}, nil)
	h.initialize(map[string]any{})
	var reads []time.Duration
	id := 0
	call := func(tool string, args map[string]any) (string, bool) {
		id++
		h.callTool(id, tool, args)
		return resultText(t, h.response(float64(id), 60*time.Second))
	}
	for r := range rounds {
		start := time.Now()
		text, isError := call("fs_read", map[string]any{"path": "a.txt"})
		reads = append(reads, time.Since(start))
		assert.False(t, isError, "a read the default rules allow: %s", text)

		_, isError = call("fs_delete", map[string]any{"path": "a.txt"})
		assert.True(t, isError, "a delete the rules deny")

		for _, w := range []loadWrite{{fmt.Sprintf("allow-%d", r), "allow"}, {fmt.Sprintf("deny-%d", r), "deny"}, {fmt.Sprintf("always-allow-%d", r), "always-allow"}} {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, w.dir), 0o700))
			path := filepath.Join(w.dir, "x.md")
			text, isError := call("fs_write", map[string]any{"path": path, "content": w.answer})
			_, err := os.Stat(filepath.Join(dir, path))
			ran := err == nil
			if w.answer == "deny" {
				assert.True(t, isError && !ran, "a write answered deny: error %v, ran %v: %s", isError, ran, text)
			} else {
				assert.True(t, !isError && ran, "a write answered %s: error %v, ran %v: %s", w.answer, isError, ran, text)
			}
		}
	}
	_, err := os.Stat(filepath.Join(dir, "a.txt"))
	assert.NoError(t, err, "the denied deletes deleted nothing")
	return reads
}

// approveAsNamed answers every question in the queue, until ctx ends, as
// the directory of the file it writes says, each answer by a run of
// `mcp-policy approve`, as a human would. It returns what went wrong.
func approveAsNamed(ctx context.Context, bin, db string) []string {
	var problems []string
	for ctx.Err() == nil {
		out, err := exec.Command(bin, "approve", "--grants", db, "--json", "list").Output()
		if err != nil {
			problems = append(problems, fmt.Sprintf("approve list: %v", err))
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
// MCP_POLICY_LOAD=PROXIES,ROUNDS runs a bigger load; the reads' latencies
// (calls that need no question, among calls that wait for an approver)
// are logged.
func TestLoadOnASharedDatabase(t *testing.T) {
	proxies, rounds := 2, 2
	if v := os.Getenv("MCP_POLICY_LOAD"); v != "" {
		_, err := fmt.Sscanf(v, "%d,%d", &proxies, &rounds)
		require.NoError(t, err, "MCP_POLICY_LOAD=PROXIES,ROUNDS")
	}
	reads := runLoad(t, proxies, rounds)
	slices.Sort(reads)
	t.Logf("%d proxies x %d rounds: %d reads, p50 %v, p99 %v", proxies, rounds, len(reads), reads[len(reads)/2], reads[len(reads)*99/100])
}
