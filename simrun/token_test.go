package simrun

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSummaryLabelsTheFencingToken: summary.json says, per group, where the
// leaders' fencing token came from when the library hands none. partition
// fences (cron.policy [fencing, idempotency]); raft's term is the
// library's, so raft has no token field; zookeeper under -algo runs with
// LeaderLatch's defaults, no token, so the summary says fencing fenced
// nothing; gc-pause-fenced's lease reads an INCR counter: an application
// addition. Fails on the old code, whose summary had no token field.
func TestSummaryLabelsTheFencingToken(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	js := filepath.Join(dir, "s.json")
	code, out, _ := simrun(t, "-scenario", partition, "-algo", "raft,zookeeper", "-seeds", "1", "-quiet", "-shrink=false", "-json", js, "-out", filepath.Join(dir, "o"))
	require.Equal(t, exitOK, code, out)
	s := readSummary(t, js)
	require.Len(t, s.Algorithms, 2)
	assert.Nil(t, s.Algorithms[0].Token, "raft's term is the library's token")
	zk := s.Algorithms[1].Token
	require.NotNil(t, zk)
	assert.Equal(t, "none", zk.Source)
	assert.True(t, zk.FencesNothing)
	assert.False(t, zk.AppAddition)

	js2 := filepath.Join(dir, "s2.json")
	code, out, _ = simrun(t, "-scenario", "../scenarios/gc-pause-fenced.yaml", "-seeds", "1", "-quiet", "-shrink=false", "-json", js2, "-out", filepath.Join(dir, "o2"))
	require.Equal(t, exitOK, code, out)
	lease := readSummary(t, js2).Algorithms[0].Token
	require.NotNil(t, lease)
	assert.Equal(t, "fence", lease.Source)
	assert.True(t, lease.AppAddition)
	assert.False(t, lease.FencesNothing)
}
