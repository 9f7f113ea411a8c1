package cliconfig

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/approvals"
)

// OpenQueue opens the approvals queue where the grants are: a table of
// their PostgreSQL database, or the directory beside their file, which it
// adds to c.Protected (whoever can write an answer there approves calls).
// Grants kept in memory have no queue: nil, and no error. closeQueue
// closes what it opened; store is what OpenGrants returned.
func (c *Config) OpenQueue(store *grants.Store) (q approvals.Queue, closeQueue func(), err error) {
	switch {
	case IsPostgres(c.GrantsFile):
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		pq, err := approvals.OpenPostgres(ctx, c.GrantsFile, approvals.PostgresOptions{})
		if err != nil {
			return nil, nil, err
		}
		return pq, pq.Close, nil
	case store.File() != "":
		fq, err := approvals.Open(store.File())
		if err != nil {
			return nil, nil, err
		}
		c.Protected = append(c.Protected, fq.Dir())
		return fq, func() {}, nil
	}
	return nil, func() {}, nil
}

// OpenGrantsAndQueue opens the grants at path (a file, ~ expanded, or a
// postgres:// URL) and the queue beside them, for the commands that answer
// the proxies' questions. A grants file that cannot be read (a human's
// edit half made, a corrupt file) does not keep its questions from being
// answered: store is then nil, grantsErr says why, and the queue is open.
// done closes what was opened.
func OpenGrantsAndQueue(path string) (store *grants.Store, q approvals.Queue, done func(), grantsErr, err error) {
	if path, err = GrantsLocation(path); err != nil {
		return nil, nil, nil, nil, err
	}
	if path == "" {
		return nil, nil, nil, nil, errors.New("give --grants FILE or postgres:// URL: the grants the proxies were started with (their questions wait there)")
	}
	c := &Config{GrantsFile: path}
	if store, err = c.OpenGrants(); err != nil {
		if IsPostgres(path) {
			return nil, nil, nil, nil, fmt.Errorf("--grants: %w", err)
		}
		fq, qerr := approvals.Open(path)
		if qerr != nil {
			return nil, nil, nil, nil, fmt.Errorf("--grants: %w", err)
		}
		return nil, fq, func() {}, fmt.Errorf("--grants: %w", err), nil
	}
	q, closeQueue, err := c.OpenQueue(store)
	if err != nil {
		store.Close()
		return nil, nil, nil, nil, fmt.Errorf("--grants: %w", err)
	}
	return store, q, func() { closeQueue(); store.Close() }, nil, nil
}
