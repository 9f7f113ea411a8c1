package opaplane_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-policy/mcp-policy/internal/bundletest"
	"github.com/mcp-policy/mcp-policy/internal/rulefiles"
	"github.com/mcp-policy/mcp-policy/policy"
	"github.com/mcp-policy/mcp-policy/provider"
)

// benchRules are a team's rules: a few hundred, as a fleet's might be.
func benchRules() string {
	s := "["
	for i := 0; i < 300; i++ {
		if i > 0 {
			s += ",\n"
		}
		s += `{"tool":"fs_write","decision":"allow","under":"/srv/team` + string(rune('a'+i%26)) + `/` + itoa(i) + `"}`
	}
	return s + `,{"tool":"fs_write","decision":"allow","under":"/srv/a"}]`
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

func decideLoop(b *testing.B, p *policy.Policy) {
	calls := []provider.Call{write("/srv/a/x")}
	res := p.ExecuteToolCalls(context.Background(), calls)
	require.False(b, res[0].IsError, res[0].Content)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		p.ExecuteToolCalls(context.Background(), calls)
	}
}

// A decision with the rules from a bundle costs what it costs with the
// same rules from a file: both end in the same engine. Compare ns/op of
// the two sub-benchmarks of one run.
func BenchmarkDecisionRulesFrom(b *testing.B) {
	rulesJSON := benchRules()
	b.Run("file", func(b *testing.B) {
		file := filepath.Join(b.TempDir(), "rules.json")
		require.NoError(b, os.WriteFile(file, []byte(rulesJSON), 0o600))
		src, err := rulefiles.Open(file, nil, nil)
		require.NoError(b, err)
		p, err := policy.New(policy.Options{Provider: &files{}, Source: src})
		require.NoError(b, err)
		defer p.Close()
		decideLoop(b, p)
	})
	b.Run("bundle", func(b *testing.B) {
		h, s := bundletest.NewHub(b), bundletest.NewSigner(b)
		plane := startPlane(b, h.Config(s, ""), nil)
		h.Serve(bundletest.Bundle{Revision: "r1", Rules: rulesJSON}.Build(b, &s))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(b, plane.Ready(ctx))
		p, err := policy.New(policy.Options{Provider: &files{}, Source: plane}) // no decision log, as for the file
		require.NoError(b, err)
		defer p.Close()
		decideLoop(b, p)
	})
}

// A decision sent to OPA's decision-log plugin costs the same whether the
// collector is up or down: the plugin only buffers it. Compare ns/op of
// "up" and "down" (and "none", no decision log) of one run.
func BenchmarkDecisionLogged(b *testing.B) {
	for _, mode := range []string{"none", "up", "down"} {
		b.Run(mode, func(b *testing.B) {
			h, s := bundletest.NewHub(b), bundletest.NewSigner(b)
			extra := ""
			if mode != "none" {
				extra = bundletest.LogsAndStatus
			}
			h.LogsDown = mode == "down"
			plane := startPlane(b, h.Config(s, extra), nil)
			h.Serve(bundletest.Bundle{Revision: "r1", Rules: allowUnder("/srv/a")}.Build(b, &s))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			require.NoError(b, plane.Ready(ctx))
			decideLoop(b, headless(b, plane, &files{}))
		})
	}
}
