package rules

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/mcp-policy/mcp-policy/rego"
)

// embeddedData evaluates a document of one embedded module (data only)
// and returns it as JSON.
func embeddedData(file, query string) ([]byte, error) {
	var src string
	for _, m := range mcprego.Modules() {
		if m.Name == file {
			src = m.Source
		}
	}
	rs, err := rego.New(rego.Query(query), rego.Module(file, src)).Eval(context.Background())
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil, fmt.Errorf("%s: %s is undefined", file, query)
	}
	return json.Marshal(rs[0].Expressions[0].Value)
}

var defaults = sync.OnceValues(func() ([]Rule, error) {
	raw, err := embeddedData("default.rego", "data.mcp.defaults.rules")
	if err != nil {
		return nil, err
	}
	return ParseRules(raw, "default.rego")
})

var servers = sync.OnceValues(func() (map[string][]ArgumentSpec, error) {
	raw, err := embeddedData("arguments.rego", "data.mcp.arguments.servers")
	if err != nil {
		return nil, err
	}
	var byName map[string]json.RawMessage
	if err := json.Unmarshal(raw, &byName); err != nil {
		return nil, fmt.Errorf("arguments.rego: %v", err)
	}
	out := map[string][]ArgumentSpec{}
	for name, specs := range byName {
		if out[name], err = ParseArgumentSpecs(specs, "arguments.rego: "+name); err != nil {
			return nil, err
		}
	}
	return out, nil
})

// KnownServers names the servers ServerArguments knows, sorted.
func KnownServers() []string {
	all, err := servers()
	if err != nil {
		panic(err) // the embedded module is part of the build; its tests catch this
	}
	return sortedKeys(all)
}

// ServerArguments returns the argument specs of the named reference
// servers (KnownServers: filesystem, git, fetch, memory), from the
// embedded arguments.rego, in the order named. An unknown name is an
// error that lists the known ones.
func ServerArguments(names ...string) ([]ArgumentSpec, error) {
	all, err := servers()
	if err != nil {
		return nil, err
	}
	var out []ArgumentSpec
	for _, n := range names {
		specs, ok := all[n]
		if !ok {
			return nil, fmt.Errorf("no argument specs for server %q (known: %s)", n, strings.Join(KnownServers(), ", "))
		}
		for _, s := range specs {
			s.Paths, s.Directories, s.URLs, s.Ignore = slices.Clone(s.Paths), slices.Clone(s.Directories), slices.Clone(s.URLs), slices.Clone(s.Ignore)
			s.Relative = maps.Clone(s.Relative)
			out = append(out, s)
		}
	}
	return out, nil
}

var serverNames = sync.OnceValues(func() (map[string]string, error) {
	raw, err := embeddedData("arguments.rego", "data.mcp.arguments.server_names")
	if err != nil {
		return nil, err
	}
	var byName map[string]string
	if err := json.Unmarshal(raw, &byName); err != nil {
		return nil, fmt.Errorf("arguments.rego: %v", err)
	}
	return byName, nil
})

// ServerArgumentsNamed returns the name of the shipped argument specs for
// a server that calls itself serverName in initialize (serverInfo.name:
// "github-mcp-server" is github), and whether there are any.
func ServerArgumentsNamed(serverName string) (string, bool) {
	byName, err := serverNames()
	if err != nil {
		panic(err) // the embedded module is part of the build; its tests catch this
	}
	name, ok := byName[serverName]
	return name, ok
}

// DefaultRules returns the rules of the embedded default.rego: reads by
// tools marked read-only, on local paths, the user_ask tools, and the MCP
// requests prompts/get and completion/complete (as the proxy names them).
// Rego is the one source of truth; this evaluates it (once).
func DefaultRules() []Rule {
	rs, err := defaults()
	if err != nil {
		panic(err) // the embedded module is part of the build; its tests catch this
	}
	return CloneAll(rs)
}
