package rules

import (
	"sync"

	"github.com/mcp-policy/mcp-policy/internal/toolflags"
	"github.com/mcp-policy/mcp-policy/provider"
)

// flagCache keeps each tool's flags (toolflags.Scan) by its name, with
// the definition they were read from: a tool is read once per definition,
// not on every call (a scan costs more than a decision).
type flagCache struct {
	mu    sync.RWMutex
	tools map[string]flagged
}

type flagged struct {
	description, schema string
	flags               []toolflags.Flag
}

// maxFlagged bounds the definitions kept: past it the cache starts over,
// so a server that renames its tools forever cannot fill memory.
const maxFlagged = 4096

// of is tool's flags, nil for none. The server's other tools are not
// known here, and a description that speaks of a sibling would read as
// speaking of another server's tool: mentions-other-tools is left to
// where the whole list is known (the proxy's tools/list).
func (c *flagCache) of(tool *provider.Tool) []toolflags.Flag {
	desc, schema := tool.Function.Description, string(tool.Function.Parameters)
	if desc == "" && len(schema) < 64 {
		return nil // nothing to say anything in
	}
	name := tool.Function.Name
	c.mu.RLock()
	f, ok := c.tools[name]
	c.mu.RUnlock()
	if ok && f.description == desc && f.schema == schema {
		return f.flags
	}
	var flags []toolflags.Flag
	for _, f := range toolflags.Scan(*tool, nil) {
		if f.Code != toolflags.Shadows {
			flags = append(flags, f)
		}
	}
	c.mu.Lock()
	if c.tools == nil || len(c.tools) >= maxFlagged {
		c.tools = map[string]flagged{}
	}
	c.tools[name] = flagged{description: desc, schema: schema, flags: flags}
	c.mu.Unlock()
	return flags
}
