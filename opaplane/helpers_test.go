package opaplane_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/bundletest"
	"github.com/mcp-policy/mcp-policy/opaplane"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

func startPlane(t testing.TB, config []byte, stderr io.Writer) *opaplane.Plane {
	t.Helper()
	return startPlaneWith(t, opaplane.Options{Config: config, Stderr: stderr})
}

func startPlaneWith(t testing.TB, o opaplane.Options) *opaplane.Plane {
	t.Helper()
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	plane, err := opaplane.New(context.Background(), o)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		plane.Stop(ctx)
	})
	return plane
}

// files is a provider with a file-writing tool: what the policy decides
// over.
type files struct {
	mu  sync.Mutex
	ran []string
}

func (*files) ToolsForLLM(context.Context) ([]provider.Tool, error) {
	no := false
	return []provider.Tool{{Type: "function", Function: provider.ToolFunction{Name: "fs_write", Parameters: json.RawMessage(`{"type":"object"}`)},
		Annotations: &provider.Annotations{ReadOnlyHint: &no}}}, nil
}

func (f *files) ExecuteToolCalls(_ context.Context, calls []provider.Call) []provider.Result {
	out := make([]provider.Result, len(calls))
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, c := range calls {
		f.ran = append(f.ran, c.Function.Arguments)
		out[i] = provider.TextResult(c.ID, "written")
	}
	return out
}

func write(path string) provider.Call {
	return provider.Call{ID: "c1", Type: "function", Function: provider.CallFunction{Name: "fs_write",
		Arguments: fmt.Sprintf(`{"path":%q,"content":"the secret text"}`, path)}}
}

// allowUnder is a rules document allowing fs_write under dir.
func allowUnder(dir string) string { return bundletest.AllowUnder("fs_write", dir) }

// headless is a policy over files whose rules come from plane, decisions
// to plane's log.
func headless(t testing.TB, plane *opaplane.Plane, f *files) *policy.Policy {
	t.Helper()
	p, err := policy.New(policy.Options{Provider: f, Source: plane, OnDecision: plane.Log, Name: "mcp-policy"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p
}
