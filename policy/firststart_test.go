package policy_test

import (
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// A program that starts its first policy while another goroutine reads the
// default rules (both parse Rego) races nothing: the builtins are in OPA's
// registry before either begins. It runs in a fresh process, where nothing
// has parsed Rego or registered a builtin yet; under the race detector, a
// registration made on first use fails that process.
func TestFirstPolicyAndDefaultRulesAtOnce(t *testing.T) {
	if os.Getenv("MCP_POLICY_FIRST_START") == "1" {
		startFirstPoliciesAtOnce(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFirstPolicyAndDefaultRulesAtOnce$", "-test.count=1")
	cmd.Env = append(os.Environ(), "MCP_POLICY_FIRST_START=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the fresh process:\n%s", out)
}

func startFirstPoliciesAtOnce(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	wg.Go(func() {
		_, err := policy.New(policy.Options{Provider: provider.NewRegistry()})
		errs <- err
	})
	wg.Go(func() {
		if len(policy.DefaultRules()) == 0 {
			t.Error("no default rules")
		}
	})
	wg.Wait()
	require.NoError(t, <-errs)
}
