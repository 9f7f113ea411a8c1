package grants

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
	"github.com/mcp-policy/mcp-policy/internal/matching"
)

// Filter picks grants to list or revoke: a grant is picked when it meets
// every condition given (the zero Filter picks every grant).
type Filter struct {
	// IDs: the grant's ID is one of them.
	IDs []string
	// Tool is a glob (the rules' tool syntax) over the grant's tool.
	Tool string
	// Under: the grant's directory is Under or inside it (absolute).
	Under string
	// Host: the grant's host is Host or a name under it ("example.com"
	// picks "api.example.com" and "*.example.com").
	Host string
	// Labels: the grant was made with each of these labels.
	Labels map[string]string
	// OlderThan: the grant was made longer ago than this (a grant whose
	// time is unknown is older than anything).
	OlderThan time.Duration
	// Expired: the grant has expired.
	Expired bool
}

// Validate refuses a filter that could not mean what it says.
func (f Filter) Validate() error {
	if f.Under != "" && !path.IsAbs(f.Under) {
		return fmt.Errorf("under %q: want an absolute directory", f.Under)
	}
	if f.OlderThan < 0 {
		return fmt.Errorf("older than %v: want a positive duration", f.OlderThan)
	}
	return nil
}

// Empty reports whether the filter picks every grant.
func (f Filter) Empty() bool {
	return len(f.IDs) == 0 && f.Tool == "" && f.Under == "" && f.Host == "" && len(f.Labels) == 0 &&
		f.OlderThan == 0 && !f.Expired
}

// Match reports whether the filter picks g at now.
func (f Filter) Match(g Grant, now time.Time) bool {
	r := g.Rule
	switch {
	case len(f.IDs) > 0 && !slices.Contains(f.IDs, g.ID):
		return false
	case f.Tool != "" && !lexical.MatchTool(f.Tool, r.Tool):
		return false
	case f.Under != "" && (r.Under == "" || matching.Contains(path.Clean(f.Under), r.Under) != matching.Yes):
		return false
	case f.Host != "" && !underHost(r.Host, f.Host):
		return false
	case f.Labels != nil && !labelsHave(g.Labels, f.Labels):
		return false
	case f.OlderThan > 0 && !g.GrantedAt.IsZero() && g.GrantedAt.After(now.Add(-f.OlderThan)):
		return false
	case f.Expired && !g.ExpiredAt(now):
		return false
	}
	return true
}

func underHost(host, want string) bool {
	host = strings.TrimPrefix(strings.ToLower(host), "*.")
	want = strings.TrimPrefix(strings.ToLower(want), "*.")
	return host != "" && (host == want || strings.HasSuffix(host, "."+want))
}

func labelsHave(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}
