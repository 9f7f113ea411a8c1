package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/grants/grantstest"
	"github.com/mcp-policy/mcp-policy/grants/pgstore"
	"github.com/mcp-policy/mcp-policy/internal/pgschema"
	"github.com/mcp-policy/mcp-policy/internal/pgtest"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/testkit"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func open(t *testing.T, url string, o pgstore.Options) *grants.Store {
	t.Helper()
	if o.Logf == nil {
		o.Logf = t.Logf
	}
	s, err := pgstore.Open(context.Background(), url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// PostgreSQL owes what every backend owes; a change made through one store
// reaches the others by NOTIFY, well within a second.
func TestPostgresBackend(t *testing.T) {
	grantstest.Run(t, func(t *testing.T) grantstest.Opener {
		url := pgtest.NewDatabase(t)
		return func(t *testing.T) *grants.Store { return open(t, url, pgstore.Options{}) }
	}, grantstest.Eventually(time.Second))
}

// The pins in the grants database owe what every pins backend owes; two
// handles are two proxies of a fleet.
func TestPostgresPins(t *testing.T) {
	grantstest.RunPins(t, func(t *testing.T) grantstest.PinsOpener {
		url := pgtest.NewDatabase(t)
		return func(t *testing.T) *grants.Pins {
			p, err := pgstore.OpenPins(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			return p
		}
	})
}

func allow(tool string) rules.Rule {
	return rules.Rule{Tool: tool, Decision: rules.Allow, Under: "/srv"}
}
func deny(tool string) rules.Rule { return rules.Rule{Tool: tool, Decision: rules.Deny} }

// With the database killed, deny grants go on answering, allow grants stop
// after StaleAfter (a call they would allow is asked), and answers given
// meanwhile answer here and are written once it is back: none lost, none
// doubled.
func TestDatabaseDownFailsClosedAndQueuesAnswers(t *testing.T) {
	srv := pgtest.Own(t)
	url := srv.NewDatabase(t)
	o := pgstore.Options{StaleAfter: 300 * time.Millisecond}
	a, b := open(t, url, o), open(t, url, o)
	if err := a.Add(allow("write"), deny("rm")); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 15*time.Second, "b never saw a's grants", func() bool { return b.Grants().Has(allow("write")) })

	srv.Kill(t)
	restarted := false
	defer func() {
		if !restarted {
			srv.Restart(t)
		}
	}()
	testkit.Eventually(t, 15*time.Second, "an allow grant still answers with the database down past StaleAfter", func() bool {
		return !a.Grants().Has(allow("write")) && !b.Grants().Has(allow("write"))
	})
	if !a.Grants().Has(deny("rm")) || !b.Grants().Has(deny("rm")) {
		t.Fatal("a deny grant stopped answering with the database down")
	}
	// Answers given meanwhile are queued, and say so; deny ones answer at
	// once.
	if err := b.Add(deny("dd"), allow("queued_write")); !errors.Is(err, grants.ErrQueued) {
		t.Fatalf("an answer given with the database down is queued, and says so: %v", err)
	}
	if !b.Grants().Has(deny("dd")) {
		t.Fatal("a queued deny answer does not answer here")
	}
	if _, err := a.Revoke(context.Background(), grants.IDOf(deny("rm"))); err == nil {
		t.Fatal("a revocation with the database down reported success")
	}

	srv.Restart(t)
	restarted = true
	for _, s := range []*grants.Store{a, b} {
		testkit.Eventually(t, 15*time.Second, "grants did not come back with the database", func() bool {
			g := s.Grants()
			return g.Has(allow("write")) && g.Has(deny("dd")) && g.Has(allow("queued_write")) && g.Has(deny("rm"))
		})
	}
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var n int
	if err := c.QueryRow(context.Background(), "SELECT count(*) FROM mcp_policy_grants").Scan(&n); err != nil || n != 4 {
		t.Fatalf("rows after the outage: %d (%v), want 4: none lost, none doubled", n, err)
	}
}

// The database killed and restarted while answers keep coming: every
// answer is written once, none lost or doubled, and while it is down no
// allow grant answers past StaleAfter.
func TestDatabaseKilledMidRunLosesNoAnswer(t *testing.T) {
	srv := pgtest.Own(t)
	url := srv.NewDatabase(t)
	o := pgstore.Options{StaleAfter: 200 * time.Millisecond}
	a, b := open(t, url, o), open(t, url, o)
	if err := a.Add(allow("write")); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 15*time.Second, "b never saw a's grant", func() bool { return b.Grants().Has(allow("write")) })

	const answers = 120
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range answers {
			if err := a.Add(deny(fmt.Sprintf("live_%d", i))); err != nil && !errors.Is(err, grants.ErrQueued) {
				t.Errorf("answer %d: %v", i, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	time.Sleep(300 * time.Millisecond)
	srv.Kill(t)
	testkit.Eventually(t, 15*time.Second, "an allow grant answered past StaleAfter with the database down", func() bool {
		return !a.Grants().Has(allow("write")) && !b.Grants().Has(allow("write"))
	})
	srv.Restart(t)
	<-done
	for _, s := range []*grants.Store{a, b} {
		testkit.Eventually(t, 15*time.Second, "answers lost across the restart", func() bool {
			return len(s.List()) == answers+1 && s.Grants().Has(allow("write"))
		})
	}
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var rows int
	if err := c.QueryRow(context.Background(), "SELECT count(*) FROM mcp_policy_grants").Scan(&rows); err != nil || rows != answers+1 {
		t.Fatalf("%d rows (%v), want %d: every answer once", rows, err, answers+1)
	}
}

// 8 processes × 200 concurrent always-deny answers, on one database at
// once: every one is kept, once.
func TestManyProcessesAddingAtOnceLoseNoDeny(t *testing.T) {
	url := pgtest.NewDatabase(t)
	const procs = 8
	cmds := make([]*exec.Cmd, procs)
	for i := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAddDenies$")
		cmd.Env = append(os.Environ(), "PGSTORE_HELPER_URL="+url, fmt.Sprintf("PGSTORE_HELPER_PROC=%d", i))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("process %d: %v", i, err)
		}
	}
	s := open(t, url, pgstore.Options{})
	if n := len(s.List()); n != procs*helperAdds {
		t.Fatalf("%d grants, want %d", n, procs*helperAdds)
	}
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var rows int
	if err := c.QueryRow(context.Background(), "SELECT count(*) FROM mcp_policy_grants").Scan(&rows); err != nil || rows != procs*helperAdds {
		t.Fatalf("%d rows (%v), want %d", rows, err, procs*helperAdds)
	}
}

const helperAdds = 200

// TestHelperAddDenies is one process of TestManyProcessesAddingAtOnceLoseNoDeny:
// helperAdds always-deny answers at once, through one store.
func TestHelperAddDenies(t *testing.T) {
	url := os.Getenv("PGSTORE_HELPER_URL")
	if url == "" {
		t.Skip("a helper process")
	}
	proc := os.Getenv("PGSTORE_HELPER_PROC")
	s := open(t, url, pgstore.Options{})
	var wg sync.WaitGroup
	for j := range helperAdds {
		wg.Go(func() {
			if err := s.Add(deny(fmt.Sprintf("p%s_%d", proc, j))); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// A database whose schema a newer program wrote is refused, naming both
// versions; the schema is left as it is.
func TestNewerSchemaIsRefused(t *testing.T) {
	url := pgtest.NewDatabase(t)
	open(t, url, pgstore.Options{}) // creates the schema
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), "UPDATE mcp_policy_schema SET version = 99"); err != nil {
		t.Fatal(err)
	}
	_, err = pgstore.Open(context.Background(), url, pgstore.Options{})
	var newer *pgstore.NewerSchemaError
	if !errors.As(err, &newer) || newer.Have != 99 || newer.Want != pgschema.Version {
		t.Fatalf("opening a newer schema: %v", err)
	}
}

// A store cannot start without its grants: an unreachable database is an
// error at Open, not an empty grant set.
func TestOpenWithTheDatabaseDownIsAnError(t *testing.T) {
	url := pgtest.Get(t).URL("no_such_database")
	if _, err := pgstore.Open(context.Background(), url, pgstore.Options{}); err == nil {
		t.Fatal("opened a store on a database that does not exist")
	}
}
