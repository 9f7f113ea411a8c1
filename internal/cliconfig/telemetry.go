package cliconfig

import (
	"context"
	"time"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/telemetry"
)

// StartTelemetry starts OpenTelemetry as the OTEL_* variables say: a nil
// recorder when they leave it off. stop flushes what is held, bounded,
// and says on stderr what could not be sent.
func StartTelemetry(service string, say func(string)) (rec *telemetry.Recorder, stop func(), err error) {
	rec, shutdown, err := telemetry.Start(context.Background(), service, say)
	if err != nil {
		return nil, nil, err
	}
	return rec, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := shutdown(ctx); err != nil {
			say("telemetry: " + telemetry.Redact(err.Error()))
		}
	}, nil
}

// Activations is what counts the rule sets offered, nil without
// telemetry.
func Activations(rec *telemetry.Recorder) func(map[string]string, error) {
	if rec == nil {
		return nil
	}
	return rec.Activated
}

// GrantsInForce counts the store's grants in force: none while it is out
// of touch with its database.
func GrantsInForce(store *grants.Store) func(context.Context) (int, error) {
	return func(context.Context) (int, error) {
		n := store.Grants().Len()
		return n, store.Err()
	}
}
