package grants_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-policy/mcp-policy/grants"
	"github.com/mcp-policy/mcp-policy/internal/rules"
)

// Two stores opened on one file, as two proxies of one host would open it:
// what one adds, the other sees at its next read, without a reload.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "grants-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "grants.json")

	proxyA, err := grants.Open(path) // no file yet: an empty store
	if err != nil {
		panic(err)
	}
	proxyB, err := grants.Open(path)
	if err != nil {
		panic(err)
	}
	fmt.Println("B before:", len(proxyB.List()))

	// The human answers "always allow" in A: the file is written before
	// Add returns.
	if err := proxyA.Add(rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/scratch"}); err != nil {
		panic(err)
	}
	for _, g := range proxyB.List() {
		fmt.Printf("B sees: %s %s under %s\n", g.Decision, g.Tool, g.Under)
	}

	// A third process starting later reads the same grants.
	later, err := grants.Open(path)
	if err != nil {
		panic(err)
	}
	fmt.Println("a later Open holds", len(later.List()), "grant")

	info, err := os.Stat(path)
	if err != nil {
		panic(err)
	}
	fmt.Printf("file mode %v\n", info.Mode().Perm())
	// Output:
	// B before: 0
	// B sees: allow fs_write under /srv/scratch
	// a later Open holds 1 grant
	// file mode -rw-------
}

// A grants file that is not a JSON array of valid grants is refused, not
// read as "no grants" and not overwritten: a host that started anyway would
// forget every deny the human gave, and its next save would destroy the
// evidence.
func ExampleOpen_corruptFile() {
	dir, err := os.MkdirTemp("", "grants-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "grants.json")

	for _, content := range []string{
		`[{"tool":"fs_write","decision":"allow"`,                     // torn by an editor
		`[{"tool":"fs_write","decision":"ask"}]`,                     // ask is not an answer
		`[{"tool":"fs_write","decision":"allow","under":"scratch"}]`, // relative: a different place to each root
	} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			panic(err)
		}
		_, err := grants.Open(path)
		if err == nil {
			panic("opened a broken grants file")
		}
		fmt.Println(strings.ReplaceAll(err.Error(), dir, "$DIR"))

		after, _ := os.ReadFile(path)
		fmt.Println("  left as it was:", string(after) == content)
	}
	// Output:
	// grants: $DIR/grants.json: invalid JSON: unexpected end of JSON input
	//   left as it was: true
	// grants: $DIR/grants.json: rule 1: field "decision": a grant must be "allow" or "deny": "ask" remembers nothing
	//   left as it was: true
	// grants: $DIR/grants.json: rule 1: field "under": "scratch" is relative: a grant names an absolute directory, since the policies sharing it may have different roots
	//   left as it was: true
}

// Add is all or nothing: an answer that holds one bad grant adds none of
// its grants, because half of an answer is not what the human agreed to.
func ExampleStore_Add() {
	s, err := grants.NewStore(nil)
	if err != nil {
		panic(err)
	}
	err = s.Add(
		rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: "/srv/scratch"},
		rules.Rule{Tool: "fs_delete", Decision: rules.Ask},
	)
	fmt.Println(err)
	fmt.Println("grants held:", len(s.List()))

	// The same grant twice, spelt two ways, is held once.
	for _, under := range []string{"/srv/scratch/", "/srv/./scratch"} {
		if err := s.Add(rules.Rule{Tool: "fs_write", Decision: rules.Allow, Under: under}); err != nil {
			panic(err)
		}
	}
	out, _ := json.Marshal(s.List())
	fmt.Println(string(out))
	// Output:
	// grant 2: field "decision": a grant must be "allow" or "deny": "ask" remembers nothing
	// grants held: 0
	// [{"tool":"fs_write","decision":"allow","under":"/srv/scratch"}]
}
