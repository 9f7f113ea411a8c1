package cliconfig_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
	"github.com/mcp-policy/mcp-policy/internal/pgschema"
)

// --grants takes a file or a PostgreSQL URL. Any other URL, a typo of the
// scheme above all, is refused rather than taken for a file named after
// the database's password, and the refusal hides that password, even in a
// URL Go cannot parse.
func TestGrantsLocation(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for in, want := range map[string]string{
		"postgres://u:secret@db/grants":   "postgres://u:secret@db/grants",
		"postgresql://u:secret@db/grants": "postgresql://u:secret@db/grants",
		"~/grants.json":                   home + "/grants.json",
		"grants.json":                     "grants.json",
		"./x://y.json":                    "./x://y.json", // a file whose name holds "://"
	} {
		got, err := cliconfig.GrantsLocation(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{
		"postgress://u:secret@db/grants",
		"http://u:secret@db/grants",
		"POSTGRES://u:secret@db/grants",
		"postgress://u:sec%ret@db:port/grants", // not a URL Go reads
		"postgres:/u:secret@db/grants",
		"postgres//u:secret@db/grants",
		"postgres:u:secret@db/grants",
		" postgres://u:secret@db/grants",
		"postgres ://u:secret@db/grants",
		"postgress://db/grants?password=secret",
	} {
		_, err := cliconfig.GrantsLocation(in)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), "postgres://", in)
		assert.NotContains(t, err.Error(), "secret", "the password is hidden: %v", err)
		assert.NotContains(t, err.Error(), "sec%ret", "the password is hidden: %v", err)
	}
	_, err := (&cliconfig.Flags{Grants: "postgress://u:secret@db/g"}).Load()
	assert.ErrorContains(t, err, "only URLs --grants takes", "the proxy's flags are read the same way")
}

// A password given as a parameter is hidden too, in any message that
// names the database.
func TestRedactHidesAPasswordParameter(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u@db/g?password=secret&sslmode=require": "postgres://u@db/g?password=xxxxx&sslmode=require",
		"postgres://u:secret@db/g":                          "postgres://u:xxxxx@db/g",
		"host=db password='se cret' user=u":                 "host=db password=xxxxx user=u",
	} {
		assert.Equal(t, want, pgschema.Redact(in), in)
	}
}
