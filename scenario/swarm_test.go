package scenario

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/contract"
)

// swarmSeeds is how many seeds TestSwarmEveryAlgorithm runs per algorithm:
// ELECTSIM_SWARM_SEEDS, default 20 (CI); the acceptance is 1,000
// (simrun -scenario scenarios/swarm.yaml -algo X -seeds 1000).
func swarmSeeds(t *testing.T) int {
	s := os.Getenv("ELECTSIM_SWARM_SEEDS")
	if s == "" {
		return 20
	}
	n, err := strconv.Atoi(s)
	require.NoError(t, err, "ELECTSIM_SWARM_SEEDS")
	require.Positive(t, n, "ELECTSIM_SWARM_SEEDS")
	return n
}

// TestSwarmEveryAlgorithm runs swarm.yaml under every registered algorithm
// (simrun -algo X, X's defaults) and requires every run to meet the file's
// expectations under the algorithm's contract: a breach fails whatever the
// file allows, and the file allows nothing, so a finding passes only when
// the contract excuses it or bounds it (docs/checkers.md, "Contracts").
//
// An algorithm that declares no contract (registry.Algorithm.Contract nil)
// cannot be judged "under its contract": its failing runs are logged and
// the subtest is skipped, naming them, until it declares one; an algorithm
// without a contract whose runs all pass is still held to them.
//
// Each algorithm runs the file as shipped (no standing loss) and with
// -set network.drop=0.01: a standing loss is a fault of class loss from
// t=0, which excuses a finding only through a message of the finding's own
// nodes it actually lost in the finding's window (docs/checkers.md,
// "Excuses"), so the contracts keep their teeth in both.
func TestSwarmEveryAlgorithm(t *testing.T) {
	for _, variant := range []struct{ name, set string }{{"shipped", ""}, {"lossy", "network.drop=0.01"}} {
		var sets []string
		if variant.set != "" {
			sets = []string{variant.set}
		}
		sc, err := LoadWith(shipped("swarm.yaml"), sets)
		require.NoError(t, err)
		t.Run(variant.name, func(t *testing.T) { swarmEveryAlgorithm(t, sc, variant.set) })
	}
}

func swarmEveryAlgorithm(t *testing.T, sc *Scenario, set string) {
	seeds := swarmSeeds(t)
	if raceEnabled && os.Getenv("ELECTSIM_SWARM_SEEDS") == "" {
		seeds = 3 // sequential runs: the race detector has nothing to check in them; the plain run keeps 20
	}
	algos := Algorithms()
	require.GreaterOrEqual(t, len(algos), 8, "the built-in algorithms")
	for _, a := range algos {
		t.Run(a, func(t *testing.T) {
			var failed []string
			breaches := 0
			for i := 0; i < seeds; i++ {
				seed := sc.Seed + uint64(i)
				r, err := sc.Run(RunOptions{Seed: seed, Algorithm: a, Lean: true})
				require.NoError(t, err)
				for _, c := range r.Report.Checks {
					for _, v := range c.Violations {
						if v.Contract == contract.Breach {
							breaches++
						}
					}
				}
				if !r.OK {
					failed = append(failed, "seed "+strconv.FormatUint(seed, 10)+": "+strings.Join(r.Problems, "; "))
				}
			}
			if len(failed) == 0 {
				return
			}
			if findAlgo(a).Contract == nil && breaches == 0 {
				t.Skipf("%s declares no contract yet; %d of %d runs fail swarm.yaml:\n%s", a, len(failed), seeds, strings.Join(failed, "\n"))
			}
			if set != "" {
				set = " -set " + set
			}
			t.Errorf("%d of %d runs of swarm.yaml under %s fail (replay: simrun -scenario scenarios/swarm.yaml -algo %s%s -seed N):\n%s",
				len(failed), seeds, a, a, set, strings.Join(failed, "\n"))
		})
	}
}
