package etcdraft_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/etcdraft"
	"github.com/electsim/electsim/sim"
)

func TestDefaultConfig(t *testing.T) {
	c := etcdraft.DefaultConfig()
	require.NoError(t, c.Validate())
	assert.Equal(t, 10*time.Millisecond, c.TickInterval)
	assert.Equal(t, 10, c.ElectionTick)
	assert.Equal(t, 1, c.HeartbeatTick)
	assert.True(t, c.PreVote)
	assert.True(t, c.CheckQuorum)
	assert.True(t, c.Persist)
}

// Validate mirrors raft.Config.validate (raft.go) and names the field.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		mut   func(*etcdraft.Config)
		field string
	}{
		{func(c *etcdraft.Config) { c.TickInterval = 0 }, "TickInterval"},
		{func(c *etcdraft.Config) { c.HeartbeatTick = 0 }, "HeartbeatTick"},
		{func(c *etcdraft.Config) { c.ElectionTick = 1 }, "ElectionTick"},
		{func(c *etcdraft.Config) { c.ElectionTick, c.HeartbeatTick = 3, 3 }, "ElectionTick"},
	} {
		c := etcdraft.DefaultConfig()
		tc.mut(&c)
		err := c.Validate()
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.field)
		_, err = etcdraft.New(c, []sim.NodeID{0})
		assert.Error(t, err)
		assert.Panics(t, func() { etcdraft.MustNew(c, []sim.NodeID{0}) })
	}
}
