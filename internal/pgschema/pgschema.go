// Package pgschema is the PostgreSQL schema the grants store and the tool
// pins (grants/pgstore) and the approvals queue (internal/approvals)
// share: one database holds them all, migrated once, under one version.
package pgschema

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrations are the schema's versions, in order: migrations[i] takes a
// database at version i to version i+1. A change to the schema is a new
// entry, never an edit of one that has shipped.
var migrations = [...]string{
	// 1: one row per grant, as the grants file writes it, with the columns
	// the store matches on (id) and a human's queries filter on. seq is
	// the order grants were added in.
	`CREATE TABLE mcp_policy_grants (
		id         text PRIMARY KEY,
		seq        bigserial NOT NULL,
		grant_json jsonb NOT NULL,
		granted_at timestamptz NOT NULL,
		expires_at timestamptz
	);
	CREATE INDEX mcp_policy_grants_seq ON mcp_policy_grants (seq);`,
	// 2: the approvals queue (approvals.PostgresQueue): one row per pending question,
	// the question as approvals.Question writes it, the digest its answer
	// must name, its answer once given (NULL until then: the first answer
	// wins), its deadline and when its proxy last showed it is alive
	// (both by the database's clock, so the machines' clocks need not
	// agree).
	`CREATE TABLE mcp_policy_questions (
		id            text PRIMARY KEY,
		seq           bigserial NOT NULL,
		digest        text NOT NULL,
		question_json jsonb NOT NULL,
		deadline_at   timestamptz NOT NULL,
		heartbeat     timestamptz NOT NULL DEFAULT now(),
		answer_json   jsonb
	);
	CREATE INDEX mcp_policy_questions_seq ON mcp_policy_questions (seq);`,
	// 3: tool pins (grants.Pins): one row per server and tool, the pin as
	// grants.Pin writes it (the approved definition, and the changed one
	// a server offers while no human has approved it). Text, not jsonb:
	// jsonb rewrites numbers (1e2 is 100), and a pin's digest is of the
	// definition's numbers as the server wrote them.
	`CREATE TABLE mcp_policy_pins (
		server   text NOT NULL,
		tool     text NOT NULL,
		pin_json text NOT NULL,
		PRIMARY KEY (server, tool)
	);`,
}

// Open connects a pool of at most maxConns to the database at connString
// and brings its schema to Version (Migrate): what every store in it does
// first. Errors start with what, the store's name ("grants", "pins",
// "approvals"), and never show the connection string's password.
func Open(ctx context.Context, connString string, maxConns int32, what string) (*pgxpool.Pool, *pgxpool.Config, error) {
	pcfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: postgres: %s: %w", what, Redact(connString), err)
	}
	pcfg.MaxConns = maxConns
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: postgres: %w", what, err)
	}
	if err := Migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, nil, err
	}
	return pool, pcfg, nil
}

// Version is the version of the schema this program writes.
const Version = len(migrations)

// migrateLock is the advisory lock key that makes one process at a time
// create or migrate the schema.
const migrateLock = 0x6d63707067 // "mcppg"

// Migrate brings the schema (in the connection's search_path, so a role
// given a schema of its own keeps it there) to Version, in one
// transaction under an advisory lock, so processes starting together
// migrate it once. A schema newer than this program's is refused: this
// program would not know what the newer one's grants mean.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrateLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "CREATE TABLE IF NOT EXISTS mcp_policy_schema (version integer NOT NULL)"); err != nil {
			return err
		}
		var version int
		err := tx.QueryRow(ctx, "SELECT version FROM mcp_policy_schema").Scan(&version)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			if _, err := tx.Exec(ctx, "INSERT INTO mcp_policy_schema VALUES (0)"); err != nil {
				return err
			}
		case err != nil:
			return err
		}
		if version > Version {
			return &NewerSchemaError{Have: version, Want: Version}
		}
		for v := version; v < Version; v++ {
			if _, err := tx.Exec(ctx, migrations[v]); err != nil {
				return fmt.Errorf("migrating the schema to version %d: %w", v+1, err)
			}
		}
		_, err = tx.Exec(ctx, "UPDATE mcp_policy_schema SET version = $1", Version)
		return err
	})
	var newer *NewerSchemaError
	if errors.As(err, &newer) {
		return err
	}
	if err != nil {
		return fmt.Errorf("grants: postgres: %w", err)
	}
	return nil
}

// NewerSchemaError is a database whose grants schema a newer program
// wrote.
type NewerSchemaError struct{ Have, Want int }

func (e *NewerSchemaError) Error() string {
	return fmt.Sprintf("grants: postgres: the database's grants schema is version %d, newer than this program's %d: "+
		"upgrade mcp-policy (an older one would misread the grants)", e.Have, e.Want)
}

// userinfoPassword is the password of a URL's userinfo, after "user:".
var userinfoPassword = regexp.MustCompile(`(^|[/:\s])([^:@/?#\s]*:)[^@]*@`)

// passwordParam is a password given as a parameter (?password=..., or a
// key=value connection string's), which pgx takes too.
var passwordParam = regexp.MustCompile(`(?i)(password\s*=\s*)('[^']*'|[^&\s]*)`)

// Redact is a connection URL (or string) without its password, for
// messages: the userinfo's, and a password parameter's.
func Redact(s string) string {
	out := s
	if u, err := url.Parse(s); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		out = u.String()
	} else {
		// Not a URL Go reads as one with a user (a stray character, a bad
		// port, a typo of the scheme): hide what stands where a password
		// would, between "user:" and "@".
		out = userinfoPassword.ReplaceAllString(s, "${1}${2}xxxxx@")
	}
	return passwordParam.ReplaceAllString(out, "${1}xxxxx")
}
