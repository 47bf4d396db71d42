package scenario

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/contract"
)

// cronPolicyVariants are the policies TestCronContractOnShippedScenarios
// puts each cron scenario under besides its own: the contract's two
// promises alone and together, and every rule at once. A variant the
// loader refuses (fencing under an algorithm that hands no token) is left
// out for that file.
var cronPolicyVariants = []string{"", "cron.policy=[idempotency]", "cron.policy=[fencing]", "cron.policy=[fencing, idempotency]", "cron.policy=[fencing, idempotency, claim]"}

// TestCronContractOnShippedScenarios sweeps the cron layer's contract
// (cron.Config.Contract, docs/cron.md "Contract") over every shipped
// scenario with a cron section, under its own policy and the variants
// above, for ELECTSIM_SEEDS more seeds than its own (scenarios longer than
// an hour run their own policy and seed only): no stale_write,
// double_execution or missed_slots finding is ever a breach. It counts, so it cannot pass by never testing
// anything: the promises were in force in some runs, and in others, where
// the policy did not promise them, the same checks found something (the
// unfenced stories), which the contract left uncovered.
func TestCronContractOnShippedScenarios(t *testing.T) {
	promised := map[string]int{}   // check → runs it was promised in
	unpromised := map[string]int{} // check → findings in runs it was not
	extra := extraSeeds(t)
	for _, f := range shippedScenarios(t) {
		base, err := Load(f)
		require.NoError(t, err)
		if base.Cron == nil {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		for k, set := range cronPolicyVariants {
			if k > 0 && base.Duration > time.Hour {
				break // a simulated day takes seconds: its own policy only
			}
			var sets []string
			if set != "" {
				sets = []string{set}
			}
			sc, err := LoadWith(f, sets)
			if err != nil {
				continue // fencing refused: the algorithm hands no token
			}
			seeds := []uint64{sc.Seed}
			if sc.Duration <= time.Hour {
				for i := 1; i <= extra; i++ {
					seeds = append(seeds, sc.Seed+uint64(i)*1000)
				}
			}
			for _, seed := range seeds {
				r, err := sc.Run(RunOptions{Seed: seed, Lean: true})
				require.NoError(t, err)
				cronContract := r.CronConfig.Contract()
				for _, check := range []string{checker.CheckStaleWrite, checker.CheckDoubleExecution, checker.CheckMissedSlots} {
					_, ok := cronContract.For(check)
					if check == checker.CheckMissedSlots {
						// Resolve drops it on an unbounded network (or, with
						// claim, one slower than WriteTimeout/2), and
						// ShedLock mode never has it: the run's own contract
						// says whether it was in force.
						_, ok = r.Contract.For(check)
					}
					if ok {
						promised[check]++
						_, inRun := r.Contract.For(check)
						assert.True(t, inRun, "%s %s seed %d: the run's contract lost the cron layer's %s", name, set, seed, check)
					}
					c, _ := r.Report.Check(check)
					for _, v := range c.Violations {
						assert.NotEqual(t, contract.Breach, v.Contract, "%s %s seed %d: %s breaks the cron contract: %s\nreplay: %s",
							name, set, seed, check, v.Details, sc.ReplayCommand(seed, ""))
						if !ok {
							unpromised[check]++
						}
					}
				}
			}
		}
	}
	for _, check := range []string{checker.CheckStaleWrite, checker.CheckDoubleExecution, checker.CheckMissedSlots} {
		assert.Positive(t, promised[check], "%s was never promised: the sweep tested nothing", check)
	}
	assert.Positive(t, unpromised[checker.CheckDoubleExecution], "no unfenced story applied a slot twice: the sweep has no teeth")
}
