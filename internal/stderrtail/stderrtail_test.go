package stderrtail

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The buffer keeps the end of the stream, quotes its last line, and
// passes everything on to the tee.
func TestBuffer(t *testing.T) {
	var tee bytes.Buffer
	b := &Buffer{Tee: &tee}
	assert.Equal(t, "", b.Suffix(), "nothing written")
	_, _ = b.Write([]byte(" \n\t"))
	assert.Equal(t, "", b.Suffix(), "only whitespace")
	long := strings.Repeat("x", 3*Size)
	_, _ = b.Write([]byte(long + "\nstarting\nError: EACCES /srv\n"))
	assert.Equal(t, "; stderr: Error: EACCES /srv", b.Suffix())
	assert.LessOrEqual(t, len(b.buf), Size, "only the end is kept")
	assert.Equal(t, " \n\t"+long+"\nstarting\nError: EACCES /srv\n", tee.String(), "the tee gets every byte")
}
