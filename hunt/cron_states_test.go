package hunt

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// simrun hunt reaches the cron modes' step states (issue 36): on a
// queue-mode base the cluster's states are raft's followed by queue
// mode's (cron.ModeStates), the state strategy aims its triggers at them
// (drawn from the cluster's states), and its coverage counts each reached.
// Must-refute: raft's own base, with no cron mode, declares none of them.
func TestHuntReachesCronStates(t *testing.T) {
	o := Options{Algo: "raft", Scenario: "../scenarios/queue-leader-crash.yaml", Strategies: []Strategy{StrategyState}, Runs: 40, Seed: 1, Workers: 1, Quiet: true}
	b, err := loadBase(context.Background(), &o)
	require.NoError(t, err)
	c, err := loadCluster(context.Background(), &o, b, nil)
	require.NoError(t, err)
	for _, st := range cron.ModeStates(cron.ModeQueue) {
		assert.Contains(t, c.states, st)
	}
	d := &drawer{o: &o, b: b, rng: sim.NewRand(1, "hunt"), dur: b.sc.Duration}
	aimed := map[string]bool{}
	for i := 0; i < 400; i++ {
		if f := d.stateFault(c); f.After != nil && f.After.State != "" {
			aimed[f.After.State] = true
		}
	}
	for _, st := range cron.ModeStates(cron.ModeQueue) {
		assert.True(t, aimed[st], "the state strategy draws a trigger on %s", st)
	}
	res, err := Search(context.Background(), o)
	require.NoError(t, err)
	for _, st := range []string{"queue_exec_created", "queue_enqueued", "queue_taken", "queue_claimed", "queue_heartbeat_sent", "queue_acked"} {
		assert.Contains(t, res.Coverage.Events, st, "the hunt's runs reach %s", st)
	}
	plain := Options{Algo: "raft", Runs: 1, Seed: 1, Workers: 1, Quiet: true}
	pb, err := loadBase(context.Background(), &plain)
	require.NoError(t, err)
	pc, err := loadCluster(context.Background(), &plain, pb, nil)
	require.NoError(t, err)
	assert.False(t, slices.Contains(pc.states, "queue_taken"))
}
