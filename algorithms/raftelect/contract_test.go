package raftelect

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/contract"
)

func TestContractFollowsTheConfiguration(t *testing.T) {
	c := DefaultConfig()
	c.CheckQuorum = true
	c.ElectionTimeoutMin, c.ElectionTimeoutMax = 200*time.Millisecond, 400*time.Millisecond
	k := Contract(c)
	es, ok := k.For("election_safety")
	require.True(t, ok)
	assert.Equal(t, []contract.FaultClass{contract.DiskLoss}, es.Unless, "only a lost disk voids one leader per term")
	assert.True(t, es.ExcusesAnywhere(contract.DiskLoss))
	sb, ok := k.For("split_brain")
	require.True(t, ok)
	assert.Equal(t, 400*time.Millisecond, sb.MaxOverlap, "two CheckQuorum periods of election_timeout_min (200ms)")
	assert.Equal(t, contract.LatencyTerms{Spread: 1}, sb.Latency)
	assert.False(t, sb.Excuses(contract.Partition), "CheckQuorum bounds the overlap under partitions")
	assert.True(t, sb.Excuses(contract.Pause))
	assert.True(t, sb.Excuses(contract.ClockRate))

	c.CheckQuorum = false
	sb, _ = Contract(c).For("split_brain")
	assert.Zero(t, sb.MaxOverlap)
	assert.Equal(t, contract.LatencyTerms{Max: 1}, sb.Latency)
	assert.True(t, sb.Excuses(contract.Partition), "without CheckQuorum a cut-off leader leads for ever")

	c.Persist = false
	es, _ = Contract(c).For("election_safety")
	assert.True(t, es.ExcusesAnywhere(contract.Restart), "a voter that forgets its vote on a restart votes twice")
	assert.False(t, es.Excuses(contract.Crash), "a crash alone (never back) forgets nothing that matters")
}
