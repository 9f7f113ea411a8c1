package lexical_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

// The directories where secrets are kept are the directories themselves,
// folded: a project under a home, /tmp or /srv is no such directory.
func TestSecretTree(t *testing.T) {
	for p, want := range map[string]string{
		"/": "TREE1", "/home": "TREE1", "/users": "TREE1", "/var": "TREE1",
		"/home/u": "TREE2", "/users/ann": "TREE2", "/home/u/.config": "TREE2", "/home/u/.local/share": "TREE2",
		"/users/ann/library/application support": "TREE2", "/root": "TREE2", "/var/root": "TREE2",
		"/etc": "TREE3", "/run/secrets": "TREE3", "/var/lib": "TREE3",
		"/proc": "TREE4", "/proc/self": "TREE4", "/proc/1/root": "TREE4",
		"/etc/kubernetes": "TREE5", "/etc/letsencrypt": "TREE5", "/run/user/1000": "TREE5", "/dev": "TREE5", "/var/lib/docker": "TREE5",
		"/home/u/proj": "", "/home/u/.config/nvim": "", "/srv": "", "/tmp": "", "/srv/app": "",
		"/etc/nginx": "", "/home/": "", "/home//x": "", "/procfs": "", "/var/log": "", "/run/user/1000/x": "", "/usr/share": "",
	} {
		got := ""
		if e := lexical.SecretTree(p); e != nil {
			got = e.ID
		}
		assert.Equal(t, want, got, p)
	}
}
