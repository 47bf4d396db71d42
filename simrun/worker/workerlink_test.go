//go:build unix

package worker

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadSecret: a worker reads its parent's secret from a pipe the
// parent wrote it on (and closes the descriptor); a pipe with nothing in
// it is read without waiting and refused, and a regular file is not read
// at all (a descriptor the shell opened is no parent's).
func TestReadSecret(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	_, err = w.WriteString("0123abcd\n")
	require.NoError(t, err)
	require.NoError(t, w.Close())
	fd, err := syscall.Dup(int(r.Fd()))
	require.NoError(t, err)
	require.NoError(t, r.Close())
	got, ok := readSecret(fd)
	assert.True(t, ok)
	assert.Equal(t, "0123abcd", got)
	assert.ErrorIs(t, syscall.Close(fd), syscall.EBADF, "the secret's descriptor is closed once read")

	r, w, err = os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	_, ok = readSecret(int(r.Fd())) // open, empty: must not block
	assert.False(t, ok)

	p := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(p, []byte("0123abcd\n"), 0o644))
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	_, ok = readSecret(int(f.Fd()))
	assert.False(t, ok, "a regular file is no parent's pipe")
	off, err := f.Seek(0, 1)
	require.NoError(t, err)
	assert.Zero(t, off, "and is not read")

	_, ok = readSecret(1 << 20) // not open
	assert.False(t, ok)
}
