package etcdraft_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/etcdraft"
	"github.com/electsim/electsim/sim"
)

// A follower that restarts without its log while the leader believes it holds
// the leader's entry gets a heartbeat committing past its log's end; the
// library panics ("tocommit(1) is out of range", raft log.go commitTo) and the
// node halts with an etcdraft.panic effect instead of ending the run. With
// persistence the same restart is harmless.
func TestLostLogHaltsNode(t *testing.T) {
	for _, persist := range []bool{true, false} {
		cfg := etcdraft.DefaultConfig()
		cfg.Persist = persist
		c := newCluster(11, 3, cfg)
		l := c.runUntilLeader(time.Second)
		require.NotEqual(t, sim.None, l)
		c.runFor(200 * time.Millisecond) // the leader's entry is replicated and committed
		f := (l + 1) % 3
		c.s.Crash(f)
		c.s.Restart(f, true)
		c.runFor(200 * time.Millisecond)
		var panics []sim.Record
		for _, r := range c.records(sim.RecEffect) {
			if r.Name == etcdraft.EffectPanic {
				panics = append(panics, r)
			}
		}
		assert.Equal(t, []sim.NodeID{l}, c.s.Leaders())
		if persist {
			assert.Empty(t, panics)
			assert.Empty(t, c.nodes[f].Halted())
			assert.Equal(t, l, c.nodes[f].Leader())
			continue
		}
		require.Len(t, panics, 1)
		assert.Equal(t, f, panics[0].Node)
		assert.Contains(t, c.nodes[f].Halted(), "out of range")
		assert.Equal(t, sim.None, c.nodes[f].Leader())
		assert.False(t, c.nodes[f].IsLeader())
	}
}
