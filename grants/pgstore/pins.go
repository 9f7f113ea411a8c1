package pgstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/pgschema"
)

// OpenPins is the tool pins (grants.Pins) kept in the database at url,
// beside its grants: the first definition of a tool any proxy of the fleet
// sees is the fleet's pin, and a change approved on one machine is
// approved on all. Pins are read and written when a server lists its
// tools, never on a decision; a database out of reach is an error there
// (the proxy then suspends the listed tools' allow grants).
func OpenPins(ctx context.Context, connString string) (*grants.Pins, error) {
	pool, _, err := pgschema.Open(ctx, connString, 2, "pins")
	if err != nil {
		return nil, err
	}
	return grants.NewPins(&pinsBackend{pool: pool}), nil
}

// pinsBackend keeps one row per pin: the server and tool it names, and
// the pin as grants.Pin writes it.
type pinsBackend struct{ pool *pgxpool.Pool }

func (b *pinsBackend) List(ctx context.Context) ([]grants.Pin, error) {
	rows, err := b.pool.Query(ctx, "SELECT pin_json FROM mcp_policy_pins")
	if err != nil {
		return nil, fmt.Errorf("pins: postgres: %w", err)
	}
	list, _, err := readPinRows(rows)
	return list, err
}

// Update reads the server's pins in a transaction that holds the
// server's advisory lock (so two proxies seeing one server's tools at
// once pin each once, and neither loses the other's change), and writes
// what change made of them: the rows of the pins it changed or added,
// and the removal of those it dropped (a listing that pins one new tool
// of two thousand writes one row).
func (b *pinsBackend) Update(ctx context.Context, server string, change func([]grants.Pin) ([]grants.Pin, bool, error)) error {
	return pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended('mcp_policy_pins:' || $1, 0))", server); err != nil {
			return fmt.Errorf("pins: postgres: %w", err)
		}
		rows, err := tx.Query(ctx, "SELECT pin_json FROM mcp_policy_pins WHERE server = $1", server)
		if err != nil {
			return fmt.Errorf("pins: postgres: %w", err)
		}
		mine, stored, err := readPinRows(rows)
		if err != nil {
			return err
		}
		after, changed, err := change(mine)
		if err != nil || !changed {
			return err
		}
		kept := make(map[string]bool, len(after))
		for _, p := range after {
			kept[p.Tool] = true
			b, err := json.Marshal(p)
			if err != nil {
				return fmt.Errorf("pins: encoding: %w", err)
			}
			if js := string(b); stored[p.Tool] != js {
				if _, err := tx.Exec(ctx, `INSERT INTO mcp_policy_pins (server, tool, pin_json) VALUES ($1, $2, $3)
					ON CONFLICT (server, tool) DO UPDATE SET pin_json = EXCLUDED.pin_json`, p.Server, p.Tool, js); err != nil {
					return fmt.Errorf("pins: postgres: %w", err)
				}
			}
		}
		for tool := range stored {
			if !kept[tool] {
				if _, err := tx.Exec(ctx, "DELETE FROM mcp_policy_pins WHERE server = $1 AND tool = $2", server, tool); err != nil {
					return fmt.Errorf("pins: postgres: %w", err)
				}
			}
		}
		return nil
	})
}

func (b *pinsBackend) Close() error {
	b.pool.Close()
	return nil
}

// readPinRows reads pin_json rows, each checked against its digests as a
// pins file's are, and each row's text by its tool (what Update compares
// to write only what changed).
func readPinRows(rows pgx.Rows) ([]grants.Pin, map[string]string, error) {
	raws, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, nil, fmt.Errorf("pins: postgres: %w", err)
	}
	list := make([]grants.Pin, 0, len(raws))
	stored := make(map[string]string, len(raws))
	for _, raw := range raws {
		var p grants.Pin
		if err := json.Unmarshal([]byte(raw), &p); err != nil {
			return nil, nil, fmt.Errorf("pins: postgres: a row is not a pin: %w", err)
		}
		list = append(list, p)
		stored[p.Tool] = raw
	}
	if err := grants.CheckPins(list); err != nil {
		return nil, nil, fmt.Errorf("pins: postgres: %w", err)
	}
	return list, stored, nil
}
