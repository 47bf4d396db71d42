package scenario

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// The queue-mode stories do what their comments promise, from the trace's
// typed facts and the resource's log, over a few seeds each.
func TestQueueStories(t *testing.T) {
	slot := time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC).UnixNano()
	run := func(t *testing.T, file string, seed uint64) *Run {
		sc, err := Load(shipped(file))
		require.NoError(t, err)
		r, err := sc.Run(RunOptions{Seed: seed, Recorder: &sim.Recorder{}})
		require.NoError(t, err)
		require.True(t, r.OK, "%s seed %d: %v", file, seed, r.Problems)
		return r
	}
	for seed := uint64(1); seed <= 5; seed++ {
		t.Run("leader crash", func(t *testing.T) {
			r := run(t, "queue-leader-crash.yaml", seed)
			var crashAt sim.Time = -1
			var startedBefore, completedAfter bool
			for _, rec := range r.Recorder.Records {
				switch {
				case rec.Type == sim.RecCrash && crashAt < 0:
					crashAt = rec.At
				case rec.Type == sim.RecEffect && rec.Fact == sim.FactExecStarted && rec.B == slot:
					startedBefore = startedBefore || crashAt < 0
				case rec.Type == sim.RecEffect && rec.Fact == sim.FactExecCompleted && rec.B == slot:
					completedAfter = completedAfter || crashAt >= 0
				}
			}
			require.GreaterOrEqual(t, crashAt, sim.Time(0))
			assert.True(t, startedBefore, "a worker started 02:00 before the leader crashed")
			assert.True(t, completedAfter, "and completed it after")
			runs := map[int64]bool{}
			for _, e := range r.Resource.Log() {
				if e.Slot == slot {
					runs[e.Run] = true
				}
			}
			assert.Len(t, runs, 1, "02:00 ran once")
		})
		t.Run("worker pause", func(t *testing.T) {
			r := run(t, "queue-worker-pause.yaml", seed)
			redelivered := 0
			for _, rec := range r.Recorder.Records {
				if rec.Type == sim.RecEffect && rec.Fact == sim.FactExecRedelivered && rec.B == slot {
					redelivered++
				}
			}
			assert.Equal(t, 1, redelivered, "the paused worker's message was delivered again")
			var accepted, rejected int
			for _, e := range r.Resource.Log() {
				if e.Slot == slot && e.Accepted {
					accepted++
				} else if e.Slot == slot && e.Reason == cron.ReasonDuplicate {
					rejected++
				}
			}
			assert.Equal(t, 1, accepted)
			assert.Equal(t, 1, rejected, "the resumed worker's write was a duplicate")
			c, _ := r.Report.Check(checker.CheckDuplicateExecution)
			assert.True(t, c.OnlyHarmless())
		})
		// The seed's claim_execution (… WHERE status IN ('pending',
		// 'failed')) refuses the redelivered message of the execution the
		// store declared dead: two executions; without the claim, three.
		t.Run("claim dead", func(t *testing.T) {
			executions := func(r *Run) (started, refused int) {
				for _, rec := range r.Recorder.Records {
					switch {
					case rec.Type == sim.RecEffect && rec.Fact == sim.FactExecStarted && rec.B == slot:
						started++
					case rec.Type == sim.RecEffect && rec.Name == "worker.claim_refused" && rec.B == slot:
						refused++
					}
				}
				return started, refused
			}
			started, refused := executions(run(t, "queue-claim-dead.yaml", seed))
			assert.Equal(t, 2, started)
			assert.Equal(t, 1, refused)
			// Must not with the claim off: the redelivered message runs.
			off := kubeRun(t, "queue-claim-dead.yaml", seed, "cron.queue.claim_execution=false")
			started, refused = executions(off)
			assert.Equal(t, 3, started)
			assert.Zero(t, refused)
		})
	}
}

// Queue-mode runs are deterministic: one seed, one trace, one report.
func TestQueueScenarioDeterminism(t *testing.T) {
	for _, f := range []string{"queue-worker-pause.yaml", "queue-split-brain.yaml"} {
		sc, err := Load(shipped(f))
		require.NoError(t, err)
		hashes := map[uint64]bool{}
		for _, seed := range []uint64{1, 2} {
			a, err := sc.Run(RunOptions{Seed: seed, Recorder: &sim.Recorder{}})
			require.NoError(t, err)
			b, err := sc.Run(RunOptions{Seed: seed, Recorder: &sim.Recorder{}})
			require.NoError(t, err)
			assert.Equal(t, a.Sim.TraceHash(), b.Sim.TraceHash(), "%s seed %d", f, seed)
			assert.Equal(t, a.Report.String(), b.Report.String(), "%s seed %d", f, seed)
			hashes[a.Sim.TraceHash()] = true
		}
		assert.Len(t, hashes, 2, "%s: two seeds gave the same trace", f)
	}
}

// queue-worker-crash: at-most-once loses the slot the crashed worker had
// acknowledged; at-least-once runs it again on the other worker.
func TestQueueWorkerCrashByDelivery(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		lost bool
	}{{nil, true}, {[]string{"cron.queue.delivery=at_least_once", "expect.violations=[]"}, false}} {
		sc, err := LoadWith(shipped("queue-worker-crash.yaml"), tc.sets)
		require.NoError(t, err)
		for seed := uint64(1); seed <= 5; seed++ {
			r, err := sc.Run(RunOptions{Seed: seed})
			require.NoError(t, err)
			require.True(t, r.OK, "%v seed %d: %v", tc.sets, seed, r.Problems)
			c, _ := r.Report.Check(checker.CheckLostSlot)
			assert.Equal(t, tc.lost, c.Status == checker.StatusViolated, "%v seed %d: %s", tc.sets, seed, c.Summary)
			assert.Contains(t, c.Summary, "due while", "the check judged slots")
		}
	}
}
