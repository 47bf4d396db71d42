//go:build unix

package simrun

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two simruns given the same -out: the second is refused (exit 2, one
// line naming the first's process) while the first writes the folder, and
// the first's result is left alone (issue 38 point 10). Both used to exit
// 0, the second silently replacing the first.
func TestSecondSweepRefusedWhileTheFirstWrites(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("runs simrun as a child process")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "o")
	exe, err := os.Executable()
	require.NoError(t, err)
	first := exec.Command(exe, "-scenario", partitionYAML(t), "-set", "duration=500h", "-seeds", "2", "-workers", "2", "-isolate", "-out", out)
	first.Dir, first.Env = dir, childEnv()
	stderr := watchStderr(t, first)
	hung := time.AfterFunc(childDeadline, func() { first.Process.Kill() })
	defer hung.Stop()
	stderr.waitFor(t, regexp.MustCompile(`in 2 worker processes`)) // printed once its folder is staged

	code, _, e := simrun(t, "-scenario", partition, "-seeds", "1", "-out", out)
	assert.Equal(t, exitUsage, code, e)
	assert.Contains(t, e, "another simrun (process "+strconv.Itoa(first.Process.Pid)+") is writing this folder now")
	_, err = os.Stat(out)
	assert.True(t, os.IsNotExist(err), "the refused sweep wrote nothing")

	require.NoError(t, first.Process.Signal(syscall.SIGINT))
	_ = stderr.wait(first)
	// Once the first is gone its temporary no longer holds the folder.
	code, _, e = simrun(t, "-scenario", partition, "-seeds", "1", "-quiet", "-out", out)
	assert.Equal(t, exitOK, code, e)
}
