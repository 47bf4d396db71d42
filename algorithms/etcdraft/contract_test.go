package etcdraft

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/contract"
)

func TestContractFollowsTheConfiguration(t *testing.T) {
	c := DefaultConfig()
	c.TickInterval, c.ElectionTick = 5*time.Millisecond, 20
	k := Contract(c)
	sb, ok := k.For("split_brain")
	require.True(t, ok)
	assert.Equal(t, 200*time.Millisecond, sb.MaxOverlap, "two checks of 20 ticks of 5ms")
	assert.Equal(t, contract.LatencyTerms{Spread: 1}, sb.Latency)
	assert.False(t, sb.Excuses(contract.Partition))
	es, ok := k.For("election_safety")
	require.True(t, ok)
	assert.False(t, es.Excuses(contract.Crash))

	c.CheckQuorum, c.Persist = false, false
	k = Contract(c)
	_, ok = k.For("split_brain")
	assert.False(t, ok, "no split_brain promise without CheckQuorum")
	es, _ = k.For("election_safety")
	assert.True(t, es.ExcusesAnywhere(contract.Restart))
	assert.False(t, es.Excuses(contract.Crash))
}
