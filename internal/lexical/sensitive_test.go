package lexical_test

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

// floorCase is a line of testdata/floor: an entry's id, whether its paths
// must match, and the paths.
type floorCase struct {
	id    string
	match bool
	paths []string
}

func floorCases(t testing.TB) []floorCase {
	var out []floorCase
	for _, file := range []string{"testdata/floor/entries.txt", "testdata/floor/more.txt"} {
		f, err := os.Open(file)
		require.NoError(t, err)
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			parts := strings.Split(line, "|")
			require.GreaterOrEqual(t, len(parts), 3, line)
			out = append(out, floorCase{parts[0], parts[1] == "match", parts[2:]})
		}
		require.NoError(t, sc.Err())
		f.Close()
	}
	return out
}

// Each entry of the floor's list, with the paths that must match it and
// the near misses that must not (a backup copy, a project's own etc/, the
// same name without its dot).
func TestSensitiveFiles(t *testing.T) {
	for _, c := range floorCases(t) {
		name := c.id + "/nomatch"
		if c.match {
			name = c.id + "/match"
		}
		t.Run(name, func(t *testing.T) {
			for _, p := range c.paths {
				e := lexical.SensitiveFile(lexical.FoldPath(p))
				if c.match {
					assert.NotNil(t, e, "%s must be on the floor's list", p)
				} else {
					assert.Nil(t, e, "%s is an ordinary path, but matched %+v", p, e)
				}
			}
		})
	}
}

// Every entry of the list is hit by a path of the test data: none is
// there untested.
func TestEverySensitiveEntryIsTested(t *testing.T) {
	hit := map[string]bool{}
	for _, c := range floorCases(t) {
		if !c.match {
			continue
		}
		for _, p := range c.paths {
			if e := lexical.SensitiveFile(lexical.FoldPath(p)); e != nil {
				hit[e.ID] = true
			}
		}
	}
	for _, e := range lexical.SensitiveEntries() {
		assert.True(t, hit[e.ID], "entry %s (%s) has no test path", e.ID, e.Names)
	}
}

// The list's names are as a folded path has them (lower case), and "*"
// stands for a name only where the lookup reads it so: as a whole name of
// a system directory. Anywhere else it would be a literal "*".
func TestSensitiveNames(t *testing.T) {
	for _, e := range lexical.SensitiveEntries() {
		for _, n := range e.Names {
			assert.Equal(t, strings.ToLower(n), n, "%s: %q is not lower case", e.ID, n)
			if !strings.Contains(n, "*") {
				continue
			}
			assert.True(t, e.Where == lexical.System && e.Kind == lexical.Dir, "%s: %q has a * but is not a system directory", e.ID, n)
			for _, name := range strings.Split(n, "/") {
				assert.True(t, name == "*" || !strings.Contains(name, "*"), "%s: %q has a * that is not a whole name", e.ID, n)
			}
			assert.False(t, strings.HasSuffix(n, "/*"), "%s: %q ends in a *", e.ID, n)
		}
	}
}

// Folding: another case, the NFD spelling, a character HFS+ ignores.
func TestSensitiveFilesFolded(t *testing.T) {
	for _, p := range []string{"/r/.GIT/config", "/home/u/.BashRC", "/home/u/.s\u200csh/config", "/r/.g\u200dit/hooks/x",
		"/home/u/.config/Fish/config.fish", "/ETC/Sudoers.d/x", "/home/u/.\u212Ashrc"} {
		assert.NotNil(t, lexical.SensitiveFile(lexical.FoldPath(p)), p)
	}
	assert.Nil(t, lexical.SensitiveFile("relative/.bashrc"), "a path that is not absolute matches nothing")
}

// FuzzSensitiveFile holds the map lookups to the list as one regular
// expression (the research's, testdata/floor/oracle.re), on any path.
func FuzzSensitiveFile(f *testing.F) {
	src, err := os.ReadFile("testdata/floor/oracle.re")
	if err != nil {
		f.Fatal(err)
	}
	oracle := regexp.MustCompile(strings.TrimSpace(string(src)))
	for _, c := range floorCases(f) {
		for _, p := range c.paths {
			f.Add(p)
		}
	}
	f.Fuzz(func(t *testing.T, p string) {
		if lexical.Unevaluable(p) != "" || !strings.HasPrefix(p, "/") || path.Clean(p) != p {
			return
		}
		p = lexical.FoldPath(p)
		if p != strings.ToLower(p) { // the oracle folds ASCII case only
			return
		}
		got, want := lexical.SensitiveFile(p) != nil, false
		for _, q := range aliasesOf(p) {
			want = want || oracle.MatchString(q) || envFile.MatchString(q) && !envTemplate.MatchString(q)
		}
		if got != want {
			t.Fatalf("SensitiveFile(%q) = %v, the list as a regular expression says %v", p, got, want)
		}
	})
}

// standardAliases are the floor page's directory aliases, written out
// again for the tests: pairs of names for one directory.
var standardAliases = [][2]string{{"/private/etc", "/etc"}, {"/private/var", "/var"}, {"/private/tmp", "/tmp"},
	{"/var/run", "/run"}, {"/var/lock", "/run/lock"}, {"/bin", "/usr/bin"}, {"/sbin", "/usr/sbin"}, {"/lib", "/usr/lib"},
	{"/lib32", "/usr/lib32"}, {"/lib64", "/usr/lib64"}, {"/libx32", "/usr/libx32"}, {"/usr/sbin", "/usr/bin"},
	{"/usr/local/sbin", "/usr/local/bin"}}

// aliasesOf is p under every spelling standardAliases gives it.
func aliasesOf(p string) []string {
	seen := map[string]bool{p: true}
	out := []string{p}
	for i := 0; i < len(out); i++ {
		for _, a := range standardAliases {
			for _, d := range [][2]string{{a[0], a[1]}, {a[1], a[0]}} {
				if out[i] == d[0] || strings.HasPrefix(out[i], d[0]+"/") {
					if q := d[1] + out[i][len(d[0]):]; !seen[q] {
						seen[q] = true
						out = append(out, q)
					}
				}
			}
		}
	}
	return out
}

// Every system entry, and the homes, match under every standard alias
// of their directories: /private/etc/sudoers, /var/run/systemd,
// /lib/systemd, /private/var/root/.npmrc.
func TestSensitiveFilesUnderAliases(t *testing.T) {
	for _, e := range lexical.SensitiveEntries() {
		for _, n := range e.Names {
			var p string
			switch {
			case e.Where == lexical.Home:
				p = "/var/root/" + n
			case e.Where != lexical.System:
				continue
			case e.Kind == lexical.Dir:
				p = strings.ReplaceAll(n, "*", "1000") + "/x"
			case e.Kind == lexical.Prefix:
				p = n + "x"
			default:
				p = n
			}
			for _, q := range aliasesOf(p) {
				assert.NotNil(t, lexical.SensitiveFile(q), "%s: %q is %q", e.ID, q, p)
			}
		}
	}
	assert.GreaterOrEqual(t, len(aliasesOf("/run/systemd")), 3, "/run/systemd, /var/run/systemd, /private/var/run/systemd")
}

// An environment file is a name starting .env, and not a template of one
// (.env.example): kept out of the oracle, which has no "not".
var envFile, envTemplate = regexp.MustCompile(`/\.env[^/]*$`), regexp.MustCompile(`\.(?:example|sample|template)$`)

// The lookup allocates nothing, whatever the path and whichever part of
// the index answers it.
func TestSensitiveFileAllocatesNothing(t *testing.T) {
	for _, p := range []string{"/srv/app/src/internal/handler/user_settings.go", "/home/u/.config/fish/conf.d/x.fish",
		"/home/u/go/bin/gopls", "/home/u/go", "/home/u/go/src/github.com/o/r/main.go", "/run/user/1000/systemd/user/x.service",
		"/run/user/1000/bus", "/etc/cron.d/x", "/srv/repo.git/hooks/x", "/usr/lib/python3/dist-packages/x.pth",
		"/private/var/root/.npmrc", "/var/run/user/1000/systemd/x", "/private/etc/sudoers"} {
		var hit bool
		if n := testing.AllocsPerRun(100, func() { hit = lexical.SensitiveFile(p) != nil }); n != 0 {
			t.Errorf("SensitiveFile(%q) (%v) allocates %v times", p, hit, n)
		}
	}
}

func BenchmarkSensitiveFile(b *testing.B) {
	for name, p := range map[string]string{"ordinary": "/srv/app/src/internal/handler/user_settings.go", "listed": "/home/u/.config/fish/conf.d/x.fish"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				lexical.SensitiveFile(p)
			}
		})
	}
}

var update = flag.Bool("update", false, "rewrite the floor page's tables (docs/floor.md) from lexical.SensitiveEntries and SensitiveAliases")

// The floor page's tables are the list and the aliases: made from them,
// and held to them.
func TestFloorPage(t *testing.T) {
	const page = "../../docs/floor.md"
	doc, err := os.ReadFile(page)
	require.NoError(t, err)
	text := string(doc)
	const how = " by `go test ./internal/lexical -run FloorPage -update` -->"
	text = generated(t, text, "<!-- floor table: made from lexical.SensitiveEntries"+how, "<!-- end of floor table -->", entryTable(lexical.SensitiveEntries()))
	text = generated(t, text, "<!-- secrets table: made from lexical.SecretEntries"+how, "<!-- end of secrets table -->", entryTable(lexical.SecretEntries()))
	var b strings.Builder
	b.Reset()
	b.WriteString("\n| alias | is the directory | where |\n|---|---|---|\n")
	for _, a := range lexical.SensitiveAliases() {
		where := "merged `/usr` (Debian, Ubuntu, Fedora, Arch, openSUSE, ...)"
		switch {
		case strings.HasPrefix(a[0], "/private/"):
			where = "macOS"
		case strings.HasPrefix(a[0], "/var/"):
			where = "Linux (the FHS's `/var/run` and `/var/lock`)"
		case a[0] == "/usr/sbin":
			where = "Arch, Fedora 42 (`sbin` merged into `bin`)"
		case strings.HasPrefix(a[0], "/usr/"):
			where = "Arch (`sbin` merged into `bin`)"
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", a[0], a[1], where)
	}
	b.WriteString("\n")
	text = generated(t, text, "<!-- alias table: made from lexical.SensitiveAliases"+how, "<!-- end of alias table -->", b.String())
	if *update {
		require.NoError(t, os.WriteFile(page, []byte(text), 0o644))
		return
	}
	assert.Equal(t, string(doc), text, "the floor page's tables differ from the list: run go test ./internal/lexical -run FloorPage -update")
	assert.Equal(t, standardAliases, lexical.SensitiveAliases(), "the tests' copy of the aliases is the table")
}

// entryTable is the floor page's table of a list's entries.
func entryTable(entries []lexical.SensitiveEntry) string {
	var b strings.Builder
	b.WriteString("\n| entry | why | where | names |\n|---|---|---|---|\n")
	for _, e := range entries {
		where := map[lexical.Where]string{lexical.Anywhere: "anywhere", lexical.Home: "in a home directory", lexical.System: "system"}[e.Where]
		kind := map[lexical.Kind]string{lexical.File: "", lexical.Dir: " (and everything in it)", lexical.Prefix: " (a name starting so)",
			lexical.Suffix: " (a name ending so)", lexical.Infix: " (a name with this in it)", lexical.InDirSuffix: " (a name ending so, in that directory)",
			lexical.UnderSuffix: " (the second name, and everything in it, directly in a directory whose name ends with the first: repo.git/hooks)"}[e.Kind]
		names := make([]string, len(e.Names))
		var except []string
		for i, n := range e.Names {
			names[i] = "`" + n + "`"
			if e.Kind == lexical.Prefix {
				for _, t := range lexical.SensitiveTemplates(n) {
					if !slices.Contains(except, t) {
						except = append(except, t)
					}
				}
			}
		}
		if len(except) > 0 {
			kind += ", but not one ending in `" + strings.Join(except, "`, `") + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s%s |\n", e.ID, e.Why, where, strings.Join(names, ", "), kind)
	}
	b.WriteString("\n")
	return b.String()
}

// generated is text with what stands between the markers begin and end
// replaced by body.
func generated(t *testing.T, text, begin, end, body string) string {
	i, j := strings.Index(text, begin), strings.Index(text, end)
	require.True(t, i >= 0 && j > i, "docs/floor.md has no markers %q and %q", begin, end)
	return text[:i+len(begin)] + "\n" + body + text[j:]
}
