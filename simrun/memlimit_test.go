//go:build unix

package simrun

import (
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The hostile corpus runs its simrun children under an OS memory limit
// (childEnv): a child that allocates past it dies of "out of memory"; one
// that stays under it runs. Without the limit (the old children) the
// first child would have allocated its 512 MiB and exited 0.
func TestChildMemoryLimitIsEnforced(t *testing.T) {
	if raceEnabled {
		t.Skip("-race children run without the limit (the detector's shadow memory is not the program's)")
	}
	if testing.Short() {
		t.Skip("runs child processes")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	// The same mechanism at a quarter of the size, so the test allocates
	// little (exec.Cmd keeps the last of duplicate variables).
	const limitMB = 256
	child := func(mb int) ([]byte, error) {
		cmd := exec.Command(exe)
		cmd.Env = childEnv(envChildMemMB+"="+strconv.Itoa(limitMB), envAllocMB+"="+strconv.Itoa(mb))
		return cmd.CombinedOutput()
	}
	out, err := child(2 * limitMB)
	require.Error(t, err, "a child allocating past the limit must die: %s", out)
	assert.Contains(t, string(out), "out of memory")

	out, err = child(64)
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "64\n", string(out))
}
