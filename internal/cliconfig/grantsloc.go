package cliconfig

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mcp-policy/mcp-policy/internal/pgschema"
)

// urlScheme is the start of a URL: a scheme and "://".
var urlScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

// GrantsLocation reads a --grants value: a postgres:// or postgresql://
// URL as it is, anything else a file, ~ expanded. Any other URL is an
// error: a typo such as postgress:// would otherwise be taken for a file
// whose name holds the database's password, and http:// for a file too.
// The error shows the URL with its password hidden.
func GrantsLocation(s string) (string, error) {
	lower := strings.ToLower(strings.TrimSpace(s))
	switch {
	case IsPostgres(s):
		return s, nil
	case urlScheme.MatchString(strings.TrimSpace(s)):
		return "", fmt.Errorf("--grants %s: not a file, and the only URLs --grants takes are postgres:// and postgresql://", pgschema.Redact(s))
	case strings.HasPrefix(lower, "postgres"):
		// postgres:/…, postgres//…, postgres:u:…, " postgres://…": a
		// mistyped URL, not a file named after its password.
		return "", fmt.Errorf("--grants %s: not a postgres:// or postgresql:// URL, nor a file a human would name so", pgschema.Redact(s))
	case strings.TrimSpace(s) != s:
		return "", fmt.Errorf("--grants %q: spaces around it", pgschema.Redact(s))
	}
	return ExpandPath("--grants", s)
}
