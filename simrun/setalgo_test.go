package simrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// -set follows -algo (issue 38 point 4, issue 35): a sweep of a raft file
// under bully keeps the file's parameters bully has, says which it drops,
// applies algorithm.KEY to the algorithm that runs, refuses a parameter no
// running algorithm has, and NAME.KEY reaches NAME's runs and replay
// lines only. On the old code the first sweep exited 2 ("not a parameter
// of raft") and prevote was accepted under bully.
func TestSetFollowsAlgo(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	code, _, errOut := simrun(t, "-scenario", partition, "-algo", "bully", "-set", "algorithm.heartbeat_timeout=5s", "-seeds", "2", "-out", filepath.Join(dir, "a"))
	assert.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "dropped the file's raft settings the algorithms run do not take (bully: election_timeout); the others are kept")
	assert.Equal(t, 1, strings.Count(errOut, "dropped"), "one line")

	// The file's heartbeat (50ms) is kept, the override applied.
	mat := filepath.Join(dir, "m.yaml")
	code, _, errOut = simrun(t, "-scenario", partition, "-algo", "bully", "-set", "algorithm.heartbeat_timeout=5s", "-materialize", mat)
	require.Equal(t, exitOK, code, errOut)
	src, err := os.ReadFile(mat)
	require.NoError(t, err)
	assert.Contains(t, string(src), "algorithm: {name: bully, heartbeat: 50ms, heartbeat_timeout: 5s}")

	code, _, errOut = simrun(t, "-scenario", partition, "-algo", "bully", "-set", "algorithm.prevote=true", "-out", filepath.Join(dir, "b"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "algorithm.prevote: not a parameter of bully (it belongs to raft, etcdraft)")

	code, _, errOut = simrun(t, "-scenario", partition, "-algo", "bully", "-set", "ring.variant=collect_all", "-out", filepath.Join(dir, "c"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "ring does not run here (it runs bully)")

	code, _, errOut = simrun(t, "-scenario", partition, "-set", "algorithm.name=bully", "-seeds", "2", "-out", filepath.Join(dir, "d"))
	assert.Equal(t, exitOK, code, errOut)

	// bully.answer_timeout=1ms breaks bully (every node answers too late
	// and crowns itself); ring runs as before, and its replay lines do
	// not carry bully's override.
	code, out, errOut := simrun(t, "-scenario", partition, "-algo", "bully,ring", "-set", "bully.answer_timeout=1ms", "-seeds", "3", "-shrink=false", "-out", filepath.Join(dir, "e"))
	assert.Equal(t, exitViolation, code, errOut)
	assert.Contains(t, out, "-set bully.answer_timeout=1ms -seed 1 -algo bully")
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "-algo ring") {
			assert.NotContains(t, line, "bully.answer_timeout", line)
		}
	}
}
