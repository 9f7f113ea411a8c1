package cliconfig

import (
	"fmt"
	"os"
	"strings"
)

// ExpandPath expands a leading ~, ~/, $HOME or ${HOME} in a path flag's
// value to the user's home directory. A host starts the proxy without a
// shell, so nothing else expands them, and a literal ~ would otherwise
// name a directory "~" in whatever directory the host runs in. Anything
// else (~user, $OTHER, a ~ or $HOME past the start) is left as given.
// flag names the flag in the error when there is no home directory.
func ExpandPath(flag, p string) (string, error) {
	var rest string
	switch {
	case p == "~" || p == "$HOME" || p == "${HOME}":
	case strings.HasPrefix(p, "~/"), strings.HasPrefix(p, `~\`) && os.PathSeparator == '\\':
		rest = p[1:]
	case strings.HasPrefix(p, "$HOME/"), strings.HasPrefix(p, `$HOME\`) && os.PathSeparator == '\\':
		rest = p[len("$HOME"):]
	case strings.HasPrefix(p, "${HOME}/"), strings.HasPrefix(p, `${HOME}\`) && os.PathSeparator == '\\':
		rest = p[len("${HOME}"):]
	default:
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", fmt.Errorf("%s %s: no home directory to expand it with ($HOME is not set)", flag, p)
	}
	if rest == "" {
		return home, nil
	}
	return strings.TrimRight(home, `/\`) + rest, nil
}
