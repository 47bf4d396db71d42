package simrun

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHelperHoldLock is not a test: run as a child with SIMRUN_HOLD_LOCK
// set, it takes the lock simrun takes on that file, says "locked", and
// holds it until its standard input closes (a writer in another container,
// whose PID this one cannot see).
func TestHelperHoldLock(t *testing.T) {
	path := os.Getenv("SIMRUN_HOLD_LOCK")
	if path == "" {
		t.Skip("a helper process, not a test")
	}
	f, err := lockPath(path)
	require.NoError(t, err)
	defer f.Close()
	os.Stdout.WriteString("locked\n")
	bufio.NewReader(os.Stdin).ReadString('\n')
}

// holdLockChild starts a process that holds the lock on path until the
// test ends.
func holdLockChild(t *testing.T, path string) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^TestHelperHoldLock$")
	cmd.Env = append(os.Environ(), "SIMRUN_HOLD_LOCK="+path)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "locked\n", line)
}

// deadPID is a process ID that names no process here (one that exited):
// what a live simrun in another PID namespace looks like from this one.
func deadPID(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	require.NoError(t, c.Run())
	return c.Process.Pid
}

// Issue 29 point 4: a staging folder whose PID names no process here but
// whose writer is alive (it holds the lock on the folder's marker, as a
// simrun in another container sharing the volume does) is not removed by
// the next run; one whose lock is free is. A staged file likewise.
func TestStaleTemporaryLockedByOtherNamespace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs helper processes")
	}
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour) // past staleGrace: only the lock keeps it
	mk := func(name string, locked bool) string {
		p := filepath.Join(dir, ".o"+tmpTag+strconv.Itoa(deadPID(t))+"-"+name)
		require.NoError(t, os.MkdirAll(p, 0o755))
		m := filepath.Join(p, markerFile)
		require.NoError(t, os.WriteFile(m, []byte(markerText), 0o644))
		if locked {
			holdLockChild(t, m)
		}
		require.NoError(t, os.Chtimes(p, old, old))
		return p
	}
	live, dead := mk("live", true), mk("dead", false)
	liveFile := filepath.Join(dir, ".s.json"+tmpTag+strconv.Itoa(deadPID(t))+"-1")
	require.NoError(t, os.WriteFile(liveFile, []byte("{"), 0o644))
	holdLockChild(t, liveFile)
	require.NoError(t, os.Chtimes(liveFile, old, old))

	code, _, e := simrun(t, "-scenario", partition, "-quiet", "-out", filepath.Join(dir, "o"), "-json", filepath.Join(dir, "s.json"))
	require.Equal(t, exitOK, code, e)
	assert.DirExists(t, live, "a live writer's staging folder (lock held) was removed")
	assert.FileExists(t, liveFile, "a live writer's staged file (lock held) was removed")
	assert.NoDirExists(t, dead, "a killed writer's staging folder (lock free) stayed")
}
