package lease_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/electsim/electsim/algorithms/builtin" // the shipped scenarios' algorithms
	"github.com/electsim/electsim/algorithms/lease"
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/internal/contracttest"
	"github.com/electsim/electsim/scenario"
)

const scenarios = "../../scenarios/"

// sweep runs a shipped scenario and fails the test on a breach.
func sweep(t *testing.T, file string, sets []string, seeds int) contracttest.Tally {
	t.Helper()
	tl, err := contracttest.Sweep(scenarios+file, sets, seeds)
	require.NoError(t, err)
	assert.Empty(t, tl.BreachSeeds, "%s %v: seeds that broke the contract", file, sets)
	return tl
}

// TestLeaseContractHoldsOnShippedScenarios: over seeds of the shipped
// scenarios that run the lease flavours, no split-brain breaks the
// contract, every overlap the k8s bound admits is no longer than it (and
// the pauses and clock-rate faults that stretch it), and
// each of Kleppmann's stories is excused by the fault it tells of (with
// the application checking its validity; without, nothing is promised).
func TestLeaseContractHoldsOnShippedScenarios(t *testing.T) {
	for _, tc := range []struct {
		file, vc string
		seeds    int
	}{{"flapping-lease.yaml", "", 30}, {"k8s-release-hang.yaml", "", 20}, {"rolling-update-release.yaml", "", 10}, {"rolling-update-wait.yaml", "", 10}, {"fast-clock-follower.yaml", "", 10}} {
		tl := sweep(t, tc.file, nil, tc.seeds)
		g, ok := tl.Contract.For("split_brain")
		require.True(t, ok)
		assert.LessOrEqual(t, tl.LongestUnstretched, g.MaxOverlap, "%s: within bound past what its pauses and clock rates stretch", tc.file)
		t.Logf("%s: %v, longest within bound %v of %v", tc.file, tl.Verdicts, tl.Longest[contract.WithinBound], g.MaxOverlap)
	}
	tl := sweep(t, "k8s-release-hang.yaml", nil, 20)
	assert.Equal(t, 20, tl.Verdicts[contract.WithinBound], "the release hang overlaps in every seed, within the bound")

	bea := "algorithm.validity_check=before_each_action"
	for file, class := range map[string]contract.FaultClass{"redis-clock-jump.yaml": contract.ClockStep, "redlock-clock-jump.yaml": contract.ClockStep,
		"redlock-gc-pause.yaml": contract.Pause, "gc-pause-unfenced.yaml": contract.Pause, "redlock-master-restart.yaml": contract.Crash} {
		tl := sweep(t, file, []string{bea}, 10)
		assert.Equal(t, tl.Verdicts[contract.Excused], tl.Excused[class], "%s: every overlap excused by %s (%v)", file, class, tl.Excused)
		assert.Positive(t, tl.Excused[class], file)
	}
	// The same stories with the fault's door shut: no overlap at all.
	for file, set := range map[string]string{"redis-clock-jump.yaml": "algorithm.expiry_clock=monotonic", "redlock-master-restart.yaml": "algorithm.persistence=aof_always"} {
		tl := sweep(t, file, []string{bea, set}, 10)
		assert.Zero(t, tl.Verdicts[contract.Excused]+tl.Verdicts[contract.WithinBound], "%s with %s", file, set)
	}
}

// TestLeaseContractHoldsUnderSwarm runs swarm.yaml's nemesis (partitions,
// pauses, crashes, clock faults, 1% loss) on every flavour that promises
// something: no seed breaks its flavour's contract.
func TestLeaseContractHoldsUnderSwarm(t *testing.T) {
	for _, alg := range []string{"{name: lease, token: fence}", "{name: lease, token: fence, release_on_cancel: true}",
		"{name: lease, flavor: ttl, token: fence, validity_check: before_each_action}",
		"{name: lease, flavor: redlock, token: fence, validity_check: before_each_action}",
		"{name: lease, flavor: walltime, token: fence}"} {
		sc, err := contracttest.WithAlgorithm(scenarios+"swarm.yaml", alg, nil)
		require.NoError(t, err)
		tl, err := contracttest.SweepScenario(sc, 40)
		require.NoError(t, err)
		assert.Empty(t, tl.BreachSeeds, alg)
		t.Logf("%s: %v %v", alg, tl.Verdicts, tl.Excused)
	}
}

// TestLeaseContractRefutedByLateStop plants a bug (the leader acts on for
// a while after the flavour stopped it) and requires every flavour's
// contract to call the stretched overlaps breaches: the guarantees can
// fail.
func TestLeaseContractRefutedByLateStop(t *testing.T) {
	for _, params := range []string{"", ", flavor: ttl, validity_check: before_each_action", ", flavor: redlock, validity_check: before_each_action"} {
		real, planted, err := contracttest.LateStopBreaches(lease.Descriptor(), 20*time.Second, params, 5) // registers lease-late20s
		require.NoError(t, err)
		assert.Empty(t, real, params)
		assert.Len(t, planted, 5, params)
	}
	// walltime's contract excuses partitions; its planted overlap comes
	// from a task that ends and unlocks while the holder acts on.
	sc, err := scenario.Parse("planted", []byte(`name: planted
seed: 1
duration: 90s
cluster: {nodes: 3}
algorithm: {name: lease-late20s, flavor: walltime, task_duration: 20s}
expect:
  allow: [split_brain, leader_linearizability]
`))
	require.NoError(t, err)
	tl, err := contracttest.SweepScenario(sc, 5)
	require.NoError(t, err)
	assert.Len(t, tl.BreachSeeds, 5, "walltime: %v", tl.Verdicts)
}

// TestWalltimeStoreCrashIsAnOutage is hunt's finding against the
// walltime flavour (testdata/walltime-store-crash.yaml): a crashed
// database is a database outage, which ShedLock's model leaves out, so
// the two holders it leaves acting are excused by service_down (a
// crashed service's fact), not a breach.
func TestWalltimeStoreCrashIsAnOutage(t *testing.T) {
	tl, err := contracttest.Sweep("testdata/walltime-store-crash.yaml", nil, 1)
	require.NoError(t, err)
	assert.Empty(t, tl.BreachSeeds)
	assert.Equal(t, 1, tl.Verdicts[contract.Excused])
	assert.Positive(t, tl.Excused[contract.ServiceDown])
}

// TestWalltimeClockDriftLasts is hunt's finding against the walltime
// flavour (testdata/walltime-clock-drift.yaml, from swarm-long.yaml): a
// node whose wall clock ran fast keeps what it gained when the rate is
// exact again, and since ShedLock compares lock_until, written by one
// node's wall clock, with another's, it takes the lock early for good.
// The overlap comes 84 s after the fault ended; the contract names
// clock_rate Lasting, so it is excused by it, not a breach (before: a
// breach, the fault's Aftermath long past). Under the same schedule
// without the clock fault there is no overlap at all (the twin).
func TestWalltimeClockDriftLasts(t *testing.T) {
	tl, err := contracttest.Sweep("testdata/walltime-clock-drift.yaml", nil, 1)
	require.NoError(t, err)
	assert.Empty(t, tl.BreachSeeds)
	assert.Equal(t, 1, tl.Verdicts[contract.Excused])
	assert.Equal(t, 1, tl.Excused[contract.ClockRate])
	g, _ := tl.Contract.For("split_brain")
	assert.True(t, g.Lasts(contract.ClockRate))

	tl, err = contracttest.Sweep("testdata/walltime-clock-drift.yaml", []string{"faults=[{at: 51.922s, for: 128µs, crash: {target: n1}}]"}, 1)
	require.NoError(t, err)
	assert.Zero(t, tl.Verdicts[contract.Excused]+tl.Verdicts[contract.Breach], "no clock fault, no overlap: %v", tl.Verdicts)
}

// TestRedlockCountsMastersNotAnswers is hunt's finding against the redlock
// flavour (testdata/redlock-duplicated-answers.yaml): duplicated answers
// of two masters made a quorum of five. A master counts once per round,
// so no two holders act at once and nothing is left to excuse.
func TestRedlockCountsMastersNotAnswers(t *testing.T) {
	tl, err := contracttest.Sweep("testdata/redlock-duplicated-answers.yaml", nil, 1)
	require.NoError(t, err)
	assert.Empty(t, tl.BreachSeeds)
	assert.Empty(t, tl.Verdicts, "no overlap at all")
}
