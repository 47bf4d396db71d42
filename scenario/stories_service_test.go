package scenario

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/sim"
)

// TestServiceStories runs the coordination-service stories on 200 seeds
// each (ELECTSIM_STORY_SEEDS to change), every one against its own
// expectations and against the variant its comment promises:
//
//   - etcd-election-gc-pause.yaml: the paused leader's stale write runs the
//     job twice; fenced by its key's create revision (cron.policy
//     [fencing]), nothing runs twice.
//   - zk-suspended-policy.yaml: under the session policy a 4 s blip
//     changes no leader; under the standard policy the leader always gives
//     up leadership at SUSPENDED. On RECONNECTED Curator 5.4 and later
//     (the default, 5.9) re-check the children and the same candidate,
//     its znode still first, leads again; Curator 5.3 and earlier reset
//     the latch and another candidate leads (LeaderLatch.handleStateChange
//     at apache-curator-5.3.0 and 5.4.0).
//   - consul-lock-delay.yaml: with lock-delay no slot runs twice and no two
//     leaders overlap; with lock_delay 0 both happen. api.Lock hands no
//     token; with the application's LockIndex read (algorithm.token
//     lock_index) and cron.policy [fencing] no write with a lower token is
//     applied after a higher one — but fencing cannot undo a write the old
//     holder made before its successor's first (137 of 200 seeds still
//     run the job twice).
func TestServiceStories(t *testing.T) {
	seeds := envInt(t, "ELECTSIM_STORY_SEEDS", 200)
	if raceEnabled && os.Getenv("ELECTSIM_STORY_SEEDS") == "" {
		seeds = 10 // sequential runs; the plain run keeps 200
	}
	type variant struct {
		set   []string
		check func(t *testing.T, seed uint64, r *Run)
	}
	leaders := func(r *Run) map[sim.NodeID]bool {
		out := map[sim.NodeID]bool{}
		for _, x := range r.Recorder.Records {
			if x.Type == sim.RecLead {
				out[x.Node] = true
			}
		}
		return out
	}
	count := func(r *Run, name string) int {
		c, _ := r.Report.Check(name)
		return c.Count
	}
	stories := []struct {
		file     string
		variants []variant
	}{
		{"etcd-election-gc-pause.yaml", []variant{
			{nil, func(t *testing.T, seed uint64, r *Run) {
				assert.True(t, r.OK, "seed %d: %v", seed, r.Problems)
				assert.Positive(t, count(r, checker.CheckDoubleExecution), "seed %d", seed)
			}},
			{[]string{"cron.policy=[fencing]"}, func(t *testing.T, seed uint64, r *Run) {
				assert.Zero(t, count(r, checker.CheckDoubleExecution), "seed %d: the create revision fences the stale write", seed)
				sb, _ := r.Report.Check(checker.CheckSplitBrain)
				assert.True(t, sb.OnlyHarmless(), "seed %d", seed)
			}},
		}},
		{"zk-suspended-policy.yaml", []variant{
			{nil, func(t *testing.T, seed uint64, r *Run) {
				assert.True(t, r.OK, "seed %d: %v", seed, r.Problems)
				assert.Zero(t, r.Report.LeaderChanges, "seed %d", seed)
			}},
			{[]string{"algorithm.policy=standard"}, func(t *testing.T, seed uint64, r *Run) {
				assert.Positive(t, r.Report.LeaderChanges, "seed %d: the standard policy flaps", seed)
				assert.Len(t, leaders(r), 1, "seed %d: Curator 5.9 takes leadership back on the same znode", seed)
				assert.Zero(t, count(r, checker.CheckSplitBrain), "seed %d", seed)
			}},
			{[]string{"algorithm.policy=standard", "algorithm.curator_version=5.3"}, func(t *testing.T, seed uint64, r *Run) {
				assert.Positive(t, r.Report.LeaderChanges, "seed %d", seed)
				assert.Len(t, leaders(r), 2, "seed %d: Curator 5.3 resets the latch; another candidate leads", seed)
				assert.Zero(t, count(r, checker.CheckSplitBrain), "seed %d", seed)
			}},
		}},
		{"consul-lock-delay.yaml", []variant{
			{nil, func(t *testing.T, seed uint64, r *Run) {
				assert.True(t, r.OK, "seed %d: %v", seed, r.Problems)
				assert.Zero(t, count(r, checker.CheckSplitBrain), "seed %d", seed)
				assert.Zero(t, count(r, checker.CheckDoubleExecution), "seed %d", seed)
			}},
			{[]string{"algorithm.lock_delay=0s"}, func(t *testing.T, seed uint64, r *Run) {
				assert.Positive(t, count(r, checker.CheckSplitBrain), "seed %d", seed)
				assert.Positive(t, count(r, checker.CheckDoubleExecution), "seed %d", seed)
			}},
			{[]string{"algorithm.lock_delay=0s", "algorithm.token=lock_index", "cron.policy=[fencing]"}, func(t *testing.T, seed uint64, r *Run) {
				assert.Positive(t, count(r, checker.CheckSplitBrain), "seed %d", seed)
				assert.Zero(t, count(r, checker.CheckStaleWrite), "seed %d: the LockIndex the application read fences the old holder", seed)
			}},
		}},
	}
	for _, st := range stories {
		for _, v := range st.variants {
			sc, err := LoadWith(shipped(st.file), v.set)
			require.NoError(t, err)
			for seed := uint64(1); seed <= uint64(seeds); seed++ {
				r, err := sc.Run(RunOptions{Seed: seed, Recorder: &sim.Recorder{}})
				require.NoError(t, err)
				v.check(t, seed, r)
				if t.Failed() {
					t.Fatalf("%s %v seed %d", st.file, v.set, seed)
				}
			}
		}
	}
}
