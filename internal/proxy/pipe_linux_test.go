//go:build linux

package proxy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// The host's pipe is read through the poller, on a descriptor of its own;
// anything else it might be (a file, a terminal) is left as it is, since
// non-blocking would be set on what the host's other holders share.
func TestPolledTakesPipesOnly(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	require.NoError(t, unix.SetNonblock(int(r.Fd()), false)) // as a host hands it over
	p := polled(r)
	require.NotSame(t, r, p, "a pipe is reopened")
	defer p.Close()
	flags, err := unix.FcntlInt(p.Fd(), unix.F_GETFL, 0)
	require.NoError(t, err)
	assert.NotZero(t, flags&unix.O_NONBLOCK, "the new descriptor is non-blocking")
	_, err = w.Write([]byte("line\n"))
	require.NoError(t, err)
	buf := make([]byte, 16)
	n, err := p.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "line\n", string(buf[:n]), "it reads the host's pipe")

	f, err := os.Create(filepath.Join(t.TempDir(), "file"))
	require.NoError(t, err)
	defer f.Close()
	assert.Same(t, f, polled(f), "a file is left as it is")
}
