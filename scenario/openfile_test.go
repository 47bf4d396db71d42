//go:build unix

package scenario

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ReadFile refuses what is not a regular file without waiting on it (a
// named pipe nobody writes used to block the open forever), and reads a
// symbolic link to a regular file.
func TestReadFileRegularOnly(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	_, err := ReadFile(fifo)
	assert.EqualError(t, err, fifo+": is a named pipe, not a regular file")
	_, err = ReadFile(dir)
	assert.EqualError(t, err, dir+": is a directory, not a regular file")
	_, err = ReadFile("/dev/null")
	assert.EqualError(t, err, "/dev/null: is a device, not a regular file")

	file := filepath.Join(dir, "a.yaml")
	require.NoError(t, os.WriteFile(file, []byte("name: a\n"), 0o644))
	link := filepath.Join(dir, "link.yaml")
	require.NoError(t, os.Symlink(file, link))
	src, err := ReadFile(link)
	require.NoError(t, err)
	assert.Equal(t, "name: a\n", string(src))
}

// A name's bad character is named as the rune written, not by its first
// byte.
func TestValidNameNamesRunes(t *testing.T) {
	assert.ErrorContains(t, ValidName("evil\u202etxt"), `contains "\u202e"`)
	assert.ErrorContains(t, ValidName("bad\xffbyte"), `contains "\xff"`)
	assert.ErrorContains(t, ValidName("héllo"), `contains "é"`)
}
