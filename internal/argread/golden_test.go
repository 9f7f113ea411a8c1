package argread_test

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/argread"
	"github.com/mcp-policy/mcp-policy/internal/rules"
	"github.com/mcp-policy/mcp-policy/internal/strictjson"
)

// reading is one case of testdata/readings.json: a call (its tool, the
// tool's root, the argument specs in force and the tool's input schema, if
// its catalogue entry is known) and exactly what the reader reads in it.
// A path or host is written "POINTER ARG -> RESOLVED", "?" for one that
// cannot be evaluated, and " (dir)" after a path the tool acts on as a
// directory.
type reading struct {
	Name    string          `json:"name"`
	Tool    string          `json:"tool"`
	Root    string          `json:"root,omitempty"`
	Aliases []string        `json:"root_aliases,omitempty"` // the root's other spellings
	Home    string          `json:"home,omitempty"`         // what "~" names, where the server runs
	Servers []string        `json:"servers,omitempty"`      // reference servers' specs (rules.ServerArguments)
	Specs   json.RawMessage `json:"specs,omitempty"`
	Schema  json.RawMessage `json:"schema,omitempty"`
	Data    []string        `json:"data,omitempty"` // the user's data marks for the tool (a rule's "data")
	// Annotations are the tool's hints as its server gives them.
	Annotations map[string]bool `json:"annotations,omitempty"`
	Arguments   json.RawMessage `json:"arguments"`
	Paths       []string        `json:"paths,omitempty"`
	Hosts       []string        `json:"hosts,omitempty"`
	// Credentials are the commands the call runs that print or hand on
	// credentials (SimpleCommand.Credentials), each its words joined.
	Credentials []string `json:"credentials,omitempty"`
	Error       string   `json:"error,omitempty"` // the call is refused, its error containing this
}

// TestGoldenReadings holds the reader to testdata/readings.json: for each
// call, the exact paths and hosts it names and where each came from. A
// change to a reading is a change to that file, reviewed as such (go test
// ./internal/argread -run Golden -update rewrites it).
func TestGoldenReadings(t *testing.T) {
	data, err := os.ReadFile("testdata/readings.json")
	require.NoError(t, err)
	var cases []reading
	require.NoError(t, json.Unmarshal(data, &cases))
	names := map[string]bool{}
	for i := range cases {
		c := &cases[i]
		require.False(t, names[c.Name], "two cases named %q", c.Name)
		names[c.Name] = true
		paths, hosts, credentials, errText := read(t, c)
		if *argread.Update {
			c.Paths, c.Hosts, c.Credentials = paths, hosts, credentials
			if errText != "" && c.Error == "" {
				c.Error = errText
			}
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			if c.Error != "" {
				assert.Contains(t, errText, c.Error)
				return
			}
			require.Empty(t, errText)
			assert.Equal(t, c.Paths, paths, "paths")
			assert.Equal(t, c.Hosts, hosts, "hosts")
			assert.Equal(t, c.Credentials, credentials, "credentials")
		})
	}
	if *argread.Update {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		require.NoError(t, enc.Encode(cases))
		require.NoError(t, os.WriteFile("testdata/readings.json", b.Bytes(), 0o644))
	}
}

func read(t *testing.T, c *reading) (paths, hosts, credentials []string, errText string) {
	t.Helper()
	var specs []argread.Spec
	if len(c.Servers) > 0 {
		s, err := rules.ServerArguments(c.Servers...)
		require.NoError(t, err, c.Name)
		specs = append(specs, s...)
	}
	if len(c.Specs) > 0 {
		s, err := argread.ParseSpecs(c.Specs, c.Name)
		require.NoError(t, err, c.Name)
		specs = append(specs, s...)
	}
	var marks []argread.DataMark
	if len(c.Data) > 0 {
		marks = append(marks, argread.DataMark{Tool: c.Tool, Locations: c.Data})
	}
	r, err := argread.NewReader(specs, marks...)
	require.NoError(t, err, c.Name)
	items, ok, err := strictjson.DecodeObject(c.Arguments)
	if err != nil {
		return nil, nil, nil, err.Error() // refused before it is read
	}
	require.True(t, ok, c.Name)
	slices.SortFunc(items, func(a, b [2]*ast.Term) int { return strings.Compare(a[0].String(), b[0].String()) })
	got, err := r.Read(argread.Call{Tool: c.Tool, Root: c.Root, RootAliases: c.Aliases, Home: c.Home, Known: c.Schema != nil, Schema: c.Schema,
		Annotations: c.Annotations, Arguments: items})
	if err != nil {
		return nil, nil, nil, err.Error()
	}
	for _, cmd := range got.Commands {
		if cmd.Credentials {
			credentials = append(credentials, strings.Join(cmd.Words, " "))
		}
	}
	return lines(got.Paths), lines(got.Hosts), credentials, ""
}

func lines(vs []argread.Value) []string {
	var out []string
	for _, v := range vs {
		resolved := v.Resolved
		if resolved == "" {
			resolved = "?"
		}
		l := v.Pointer + " " + v.Arg + " -> " + resolved
		if v.Dir {
			l += " (dir)"
		}
		if v.Tree {
			l += " (tree)"
		}
		if v.Secret {
			l += " (secret)"
		}
		if v.Written {
			l += " (written)"
		}
		if v.Read {
			l += " (read)"
		}
		if len(v.Might) > 0 {
			l += " (might be " + strings.Join(v.Might, ", ") + ")"
		}
		out = append(out, l)
	}
	return out
}
