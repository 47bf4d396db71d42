package hunt

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/scenario"
)

// A hunt of a raft file under -algo bully takes bully's own override
// (bully.answer_timeout, issue 38 point 4), says which of the file's
// parameters bully does not take, and its repro names bully with the
// override and the kept heartbeat, so it replays without -algo. On the
// old code the override was refused ("not a parameter of raft").
func TestHuntSetFollowsAlgo(t *testing.T) {
	var progress bytes.Buffer
	res, err := Search(context.Background(), Options{Scenario: "../scenarios/partition.yaml", Algo: "bully",
		Sets: []string{"bully.answer_timeout=1ms"}, Checks: []string{"election_safety"}, Runs: 5, Seed: 1, Workers: 1, Progress: &progress})
	require.NoError(t, err)
	assert.Contains(t, progress.String(), "dropped the file's raft settings bully does not take (election_timeout)")
	require.True(t, res.Found, "answer_timeout 1ms crowns every bully node at once")
	sc, err := scenario.Parse("repro.yaml", res.Repro)
	require.NoError(t, err)
	assert.Equal(t, "bully", sc.Algorithm.Name)
	assert.Contains(t, sc.Algorithm.Params(), "answer_timeout=1ms")
	assert.Contains(t, sc.Algorithm.Params(), "heartbeat=50ms")
	r, err := sc.Run(scenario.RunOptions{Seed: sc.Seed})
	require.NoError(t, err)
	assert.Contains(t, scenario.Failure(r), "election_safety", "the repro fails the same way")
}
