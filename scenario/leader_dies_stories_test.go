package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/sim"
)

// The three modes of "the leader dies mid-job" do what their comments
// promise, from the trace's typed facts and the resource's log, over a
// few seeds each (their outcome under every delivery and policy:
// simrun's TestOutcomeTable).
func TestLeaderDiesStories(t *testing.T) {
	run := func(t *testing.T, file string, seed uint64, sets ...string) *Run {
		sc, err := LoadWith(shipped(file), sets)
		require.NoError(t, err)
		r, err := sc.Run(RunOptions{Seed: seed, Recorder: &sim.Recorder{}})
		require.NoError(t, err)
		require.True(t, r.OK, "%s seed %d: %v", file, seed, r.Problems)
		return r
	}
	isCand := func(r *Run, n sim.NodeID) bool {
		for _, c := range r.Candidates {
			if c == n {
				return true
			}
		}
		return false
	}
	for seed := uint64(1); seed <= 4; seed++ {
		// Mode 1: the leader crashes while a worker (not a candidate) runs
		// a slot; that worker completes it, nobody runs it again.
		t.Run("remote worker", func(t *testing.T) {
			r := run(t, "leader-dies-remote-worker.yaml", seed)
			type key struct{ job, slot int64 }
			running := map[key]sim.NodeID{}
			var during key
			crashed := false
			for _, rec := range r.Recorder.Records {
				k := key{rec.C, rec.B}
				switch {
				case rec.Type == sim.RecCrash && !crashed:
					crashed = true
					require.Len(t, running, 1, "seed %d: one job runs when the leader crashes", seed)
					for k := range running {
						during = k
					}
					require.True(t, isCand(r, rec.Node), "seed %d: it is the leader that crashed, not the worker", seed)
				case rec.Type != sim.RecEffect:
				case rec.Fact == sim.FactExecStarted:
					require.False(t, isCand(r, rec.Node))
					running[k] = rec.Node
				case rec.Fact == sim.FactExecCompleted:
					delete(running, k)
				}
			}
			require.True(t, crashed)
			runs := map[int64]bool{}
			for _, e := range r.Resource.Log() {
				if e.Slot == during.slot && e.Accepted {
					runs[e.Run] = true
				}
			}
			assert.Len(t, runs, 1, "seed %d: the slot running at the crash was applied by one execution", seed)
			assert.Equal(t, r.Report.Cron.Due, r.Report.Cron.Once, "seed %d: every slot once", seed)
		})
		// Mode 2: the leader crashes with two of its job's four writes
		// applied; at most once nobody completes the slot, at least once
		// another node runs it from the start and both executions applied.
		t.Run("with its job", func(t *testing.T) {
			for _, atLeastOnce := range []bool{false, true} {
				var sets []string
				if atLeastOnce {
					sets = []string{"cron.queue.delivery=at_least_once", "expect.violations=[double_execution, duplicate_execution, linearizability]"}
				}
				r := run(t, "leader-dies-with-its-job.yaml", seed, sets...)
				var crashed sim.NodeID = sim.None
				for _, rec := range r.Recorder.Records {
					if rec.Type == sim.RecCrash {
						crashed = rec.Node
						break
					}
				}
				require.True(t, isCand(r, crashed), "seed %d: a candidate (the leader running the job) crashed", seed)
				var slot int64
				applied := map[sim.NodeID]int{}
				for _, e := range r.Resource.Log() {
					if e.Node == crashed && slot == 0 {
						slot = e.Slot
					}
					if e.Slot == slot && slot != 0 && e.Accepted {
						applied[e.Node]++
					}
				}
				require.NotZero(t, slot)
				assert.Equal(t, 2, applied[crashed], "seed %d: half the writes were applied before the crash", seed)
				lost, _ := r.Report.Check(checker.CheckLostSlot)
				dup, _ := r.Report.Check(checker.CheckDoubleExecution)
				if atLeastOnce {
					assert.Len(t, applied, 2, "seed %d at least once: a second node applied the rest", seed)
					assert.Equal(t, checker.StatusOK, lost.Status, "seed %d: %s", seed, lost.Summary)
					assert.Equal(t, checker.StatusViolated, dup.Status)
				} else {
					assert.Len(t, applied, 1, "seed %d at most once: nobody ran it again", seed)
					assert.Equal(t, checker.StatusViolated, lost.Status)
					assert.Equal(t, checker.StatusOK, dup.Status, "seed %d: %s", seed, dup.Summary)
				}
			}
		})
		// Mode 3: workers on both sides run slots the two schedulers
		// enqueued, with both tokens; every slot is applied once.
		t.Run("split-brain", func(t *testing.T) {
			r := run(t, "leader-dies-split-brain.yaml", seed)
			tokens := map[int64]bool{}
			for _, e := range r.Resource.Log() {
				tokens[e.Token] = true
			}
			assert.GreaterOrEqual(t, len(tokens), 2, "seed %d: executions of both leaders wrote", seed)
			assert.Zero(t, r.Report.Cron.MoreThanOnce, "seed %d", seed)
			c, _ := r.Report.Check(checker.CheckSplitBrain)
			assert.Equal(t, checker.StatusViolated, c.Status, "seed %d: two schedulers at once", seed)
			// With the seed's claim only the first message of a doubly
			// enqueued execution runs: the old token's, when taken first,
			// is rejected by fencing and the slot is missed. Without the
			// claim both run and every slot is applied once.
			nc := run(t, "leader-dies-split-brain.yaml", seed, "cron.queue.claim_execution=false")
			assert.Zero(t, nc.Report.Cron.MoreThanOnce, "seed %d", seed)
			assert.Zero(t, nc.Report.Cron.Missed, "seed %d", seed)
		})
	}
}
