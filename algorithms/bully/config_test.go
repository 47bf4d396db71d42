package bully_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/bully"
	"github.com/electsim/electsim/sim"
)

func TestConfigValidate(t *testing.T) {
	require.NoError(t, bully.DefaultConfig().Validate())
	cases := []struct {
		edit func(*bully.Config)
		want string
	}{
		{func(c *bully.Config) { c.AnswerTimeout = 0 }, "AnswerTimeout"},
		{func(c *bully.Config) { c.CoordinatorTimeout = -1 }, "CoordinatorTimeout"},
		{func(c *bully.Config) { c.HeartbeatInterval = 0 }, "HeartbeatInterval"},
		{func(c *bully.Config) { c.HeartbeatTimeout = c.HeartbeatInterval }, "HeartbeatTimeout"},
		{func(c *bully.Config) { c.Priorities = []int{3, 1, 3} }, "Priorities[0] and Priorities[2]"},
	}
	for _, tc := range cases {
		c := bully.DefaultConfig()
		tc.edit(&c)
		require.ErrorContains(t, c.Validate(), tc.want)
	}
	peers := []sim.NodeID{0, 1, 2}
	c := bully.DefaultConfig()
	require.NoError(t, c.ValidatePeers(peers))
	c.Priorities = []int{1, 2}
	require.ErrorContains(t, c.ValidatePeers(peers), "Priorities has 2 entries for 3 peers")
	require.ErrorContains(t, bully.DefaultConfig().ValidatePeers([]sim.NodeID{1, 0}), "ascending")
	_, err := bully.New(c, peers)
	require.Error(t, err, "a constructor returns the configuration's error")
	require.Panics(t, func() { bully.MustNew(c, peers) })
}
