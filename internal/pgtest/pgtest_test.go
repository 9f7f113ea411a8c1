package pgtest_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/mcp-policy/mcp-policy/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// Each test gets its own empty database on the one server, and a killed
// server (one of the test's own) comes back with what was committed before.
func TestDatabasePerTestSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	s := pgtest.Own(t)
	a, b := s.NewDatabase(t), s.NewDatabase(t)
	if a == b {
		t.Fatalf("two tests share database %s", a)
	}
	c, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "CREATE TABLE x (v int); INSERT INTO x VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)

	s.Kill(t)
	if _, err := pgx.Connect(ctx, a); err == nil {
		t.Fatal("connected to a killed server")
	}
	s.Restart(t)
	c, err = pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var v int
	if err := c.QueryRow(ctx, "SELECT v FROM x").Scan(&v); err != nil || v != 7 {
		t.Fatalf("after restart: %d, %v; want 7", v, err)
	}
	cb, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close(ctx)
	var n int
	if err := cb.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 'x'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("the other database has table x (%d, %v)", n, err)
	}
}
