package etcdraft

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/electsim/electsim/sim"
)

// A single-member group elects itself on its first timeout; the vote (term,
// vote) and the leader's empty entry are persisted, and a restart from those
// bytes restores term, vote, commit and log.
func TestPersistRoundTrip(t *testing.T) {
	env := &fakeEnv{id: 0, rng: sim.NewRand(1, "x")}
	n := MustNew(DefaultConfig(), []sim.NodeID{0})
	n.Start(env, nil)
	for i := 0; i < 20 && len(env.leads) == 0; i++ {
		env.tick(n)
	}
	require.Equal(t, []int64{1}, env.leads)
	require.NotEmpty(t, env.persisted)
	last := env.persisted[len(env.persisted)-1]
	hs, ents, err := decodeState(last)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), hs.GetTerm())
	assert.Equal(t, uint64(1), hs.GetVote(), "raft ID of n0 is 1")
	require.Len(t, ents, 1, "the leader's empty entry")
	assert.Equal(t, uint64(1), ents[0].GetIndex())
	assert.Equal(t, uint64(1), ents[0].GetTerm())
	assert.Equal(t, pb.EntryNormal, ents[0].GetType())

	env2 := &fakeEnv{id: 0, rng: sim.NewRand(2, "x")}
	n.Start(env2, last)
	assert.Equal(t, int64(1), n.Term())
	assert.Equal(t, "follower", n.Role())
	for i := 0; i < 20 && len(env2.leads) == 0; i++ {
		env2.tick(n)
	}
	assert.Equal(t, []int64{2}, env2.leads, "next election is for term 2")
}

func TestDecodeRejectsCorruptState(t *testing.T) {
	for _, b := range [][]byte{{}, {9}, {1}, {1, 0, 5}, {1, 0, 0, 7}} {
		_, _, err := decodeState(b)
		assert.Error(t, err, "%v", b)
	}
	_, _, err := decodeState([]byte{1, 0, 0})
	assert.NoError(t, err, "empty hard state, no entries")
}
