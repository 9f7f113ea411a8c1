package grants

import "context"

// Backend is where a Store keeps its grants when they outlive the process
// or are shared beyond it: the grants file (Open) and PostgreSQL
// (package grants/pgstore) implement it, and so could another store (a
// Redis, say). The Store keeps the grants in memory, indexed, and asks
// the backend only whether they changed: a decision never waits on the
// backend's I/O beyond what Latest does.
//
// A Backend must be safe for concurrent use.
type Backend interface {
	// Latest returns every grant the backend holds (expired ones
	// included), in the order they were added, when they may have changed
	// since Latest last returned them; changed is false, and gs nil,
	// otherwise. It is called on every decision, so it must be cheap: a
	// stat of a file, or a look at what a background reader last read —
	// never a network round trip. The grants it returns include the
	// backend's own Adds as soon as Add has returned. An error means the
	// grants could not be read: the Store keeps those it has and refuses
	// Add until Latest succeeds again.
	Latest() (gs []Grant, changed bool, err error)
	// Add adds gs (valid, with IDs) all or nothing and idempotently: a
	// grant it holds already (by ID) is kept, unless it has expired,
	// when the new one replaces it. An Add that many processes make at
	// once loses none of them.
	Add(ctx context.Context, gs []Grant) error
	// Revoke removes the grants whose IDs are ids and returns those it
	// removed; an ID it does not hold is not an error.
	Revoke(ctx context.Context, ids []string) ([]Grant, error)
	// Current reports whether what Latest returned can be trusted not to
	// miss a revocation: false while the backend has been out of touch
	// with the grants' source for longer than it allows. While it is
	// false the Store's allow grants answer nothing (a call they would
	// allow is asked) and its deny grants go on answering.
	Current() bool
	// Close releases the backend, writing what it still owes if it can.
	Close() error
}
