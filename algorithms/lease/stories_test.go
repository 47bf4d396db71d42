package lease_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

// storySeeds is how many seeds a shipped story runs (ELECTSIM_STORY_SEEDS,
// default 200, as the scenario package's story tests).
func storySeeds(t *testing.T) int {
	s := os.Getenv("ELECTSIM_STORY_SEEDS")
	if s == "" {
		return 200
	}
	n, err := strconv.Atoi(s)
	require.NoError(t, err, "ELECTSIM_STORY_SEEDS")
	return n
}

// tenure is one node's spell of acting as leader, from its RecLead to its
// RecStepDown (End is sim.Time's maximum while it lasts).
type tenure struct {
	node       sim.NodeID
	start, end sim.Time
}

// tenures lists a run's tenures in the order they started.
func tenures(r *scenario.Run) []tenure {
	var out []tenure
	open := map[sim.NodeID]int{}
	for _, x := range r.Recorder.Records {
		switch x.Type {
		case sim.RecLead:
			open[x.Node] = len(out)
			out = append(out, tenure{node: x.Node, start: x.At, end: sim.Time(1<<63 - 1)})
		case sim.RecStepDown:
			if i, ok := open[x.Node]; ok {
				out[i].end = x.At
				delete(open, x.Node)
			}
		}
	}
	return out
}

// TestShedLockStaleUnlockStory holds scenarios/shedlock-stale-unlock.yaml
// to its comment over 200 seeds: the leader paused past lockAtMostFor
// loses the row to a second candidate; when its task ends it unlocks by
// name (SqlStatementsSource.getUnlockStatement before ShedLock 7.0.0, run
// by JdbcTemplateStorageAccessor.unlock), freeing the second's lock, and the
// third candidate's tenure starts while the second still runs. With unlock by_holder
// (7.0.0's "AND locked_by = :lockedBy") no tenure starts while the
// second's lasts.
func TestShedLockStaleUnlockStory(t *testing.T) {
	seeds := storySeeds(t)
	for _, unlock := range []string{"by_name", "by_holder"} {
		sc, err := scenario.LoadWith(scenarios+"shedlock-stale-unlock.yaml", []string{"algorithm.unlock=" + unlock})
		require.NoError(t, err)
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			r, err := sc.Run(scenario.RunOptions{Seed: seed, Recorder: &sim.Recorder{}})
			require.NoError(t, err)
			require.True(t, r.OK, "%s seed %d: %v", unlock, seed, r.Problems)
			ts := tenures(r)
			require.GreaterOrEqual(t, len(ts), 2, "%s seed %d", unlock, seed)
			first, second := ts[0], ts[1]
			require.NotEqual(t, first.node, second.node, "%s seed %d: the second tenure is another candidate's", unlock, seed)
			var during []tenure // tenures that start while the second lasts
			for _, x := range ts[2:] {
				if x.start < second.end {
					during = append(during, x)
				}
			}
			if unlock == "by_holder" {
				assert.Empty(t, during, "%s seed %d: the stale unlock updates no row", unlock, seed)
				continue
			}
			require.NotEmpty(t, during, "%s seed %d: the stale unlock frees the second's row", unlock, seed)
			assert.GreaterOrEqual(t, during[0].start, first.end, "%s seed %d: after the first's task ended and it unlocked", unlock, seed)
			assert.NotContains(t, []sim.NodeID{first.node, second.node}, during[0].node, "%s seed %d: a third runner", unlock, seed)
		}
	}
}

// TestRedlockExtendSlowMasterStory holds
// scenarios/redlock-extend-slow-master.yaml to its comment over 200 seeds:
// with go-redsync's Extend() (no deadline: Mutex.ExtendContext waits in
// actOnPoolsAsync for every master) and go-redis v9's defaults, one master
// unreachable from the holder holds its extension round past the 8 s
// expiry and the other client leads beside it in every seed; an
// application deadline of 1 s (ExtendContext) — the round then ends at the
// 5 s read timeout — or that deadline with ContextTimeoutEnabled prevents
// any overlap (50 seeds each).
func TestRedlockExtendSlowMasterStory(t *testing.T) {
	seeds := storySeeds(t)
	for _, v := range []struct {
		set     []string
		overlap bool
		seeds   int
	}{
		{nil, true, seeds},
		{[]string{"algorithm.request_timeout=1s"}, false, max(1, seeds/4)},
		{[]string{"algorithm.request_timeout=1s", "algorithm.context_timeout_enabled=true"}, false, max(1, seeds/4)},
	} {
		sc, err := scenario.LoadWith(scenarios+"redlock-extend-slow-master.yaml", v.set)
		require.NoError(t, err)
		var lo, hi time.Duration
		for seed := uint64(1); seed <= uint64(v.seeds); seed++ {
			r, err := sc.Run(scenario.RunOptions{Seed: seed})
			require.NoError(t, err)
			c, _ := r.Report.Check(checker.CheckSplitBrain)
			if !v.overlap {
				require.Zero(t, c.Count, "%v seed %d: the round ends in time for the next extension", v.set, seed)
				continue
			}
			require.True(t, r.OK, "seed %d: %v", seed, r.Problems)
			require.NotEmpty(t, c.Violations, "seed %d", seed)
			d := c.Violations[0].Duration
			if lo == 0 || d < lo {
				lo = d
			}
			hi = max(hi, d)
		}
		if v.overlap {
			t.Logf("Extend(): the two clients overlap %v–%v (%d seeds)", lo, hi, seeds)
		}
	}
}
