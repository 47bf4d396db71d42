package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// plantedSplitBrain is a bully cluster with ten faults, of which only the
// 2/3 partition makes the split-brain, and with it a job run twice (an
// unfenced cron: bully's contract excuses the split-brain under a partition,
// never the double run); the others (pauses, clock and link faults, a crash
// that is over long before) are noise the shrinker must drop.
const plantedSplitBrain = `
name: planted
description: ten faults, one of which causes a split-brain and a double run
seed: 3
duration: 40s
start: 2026-11-21T01:59:00Z
cluster: {nodes: 5}
algorithm: {name: bully}
cron:
  jobs: [{name: tick, schedule: "@every 2s", duration: 500ms}]
  policy: [none]
faults:
  - {at: 1s, pause: n1, for: 100ms}
  - {at: 2s, clock: {node: n2, rate: 1.1}, for: 3s}
  - {at: 3s, link: {from: n3, to: n4, latency: 20ms}, for: 2s}
  - {at: 4s, crash: n1, for: 1s}
  - {at: 6s, pause: n2, for: 50ms}
  - {at: 12s, partition: {shape: groups, groups: [[n1, n2], [n3, n4, n5]]}, for: 10s}
  - {at: 25s, pause: n3, for: 20ms}
  - {at: 27s, clock: {node: n4, offset: +1s}, for: 2s}
  - {at: 30s, link: {from: n5, to: n1, drop: 0.5}, for: 1s}
  - {at: 33s, pause: n2, for: 30ms}
settle: {for: 5s, leader_within: 2s}
`

// A planted violation with a 10-fault schedule shrinks to at most 2 faults
// that still reproduce it, and the written repro loads and reproduces the
// same violation and trace hash (issue 8).
func TestShrinkPlantedViolation(t *testing.T) {
	sc, err := Parse("planted.yaml", []byte(plantedSplitBrain))
	require.NoError(t, err)
	r, err := sc.Run(RunOptions{Seed: sc.Seed})
	require.NoError(t, err)
	require.False(t, r.OK, "the planted scenario must fail: %v", r.Problems)
	require.Contains(t, Failure(r), "double_execution")

	sh, err := Shrink(r, ShrinkOptions{})
	require.NoError(t, err)
	t.Logf("shrunk %d → %d faults, %v → %v, %d → %d nodes in %d runs; failure %v",
		sh.FaultsBefore, sh.FaultsAfter, sh.DurationBefore, sh.DurationAfter, sh.NodesBefore, sh.NodesAfter, sh.Runs, sh.Failure)
	assert.Equal(t, 10, sh.FaultsBefore)
	assert.LessOrEqual(t, sh.FaultsAfter, 2)
	assert.Less(t, sh.DurationAfter, sh.DurationBefore)

	repro := sh.Scenario.YAML()
	back, err := Parse("repro.yaml", repro)
	require.NoError(t, err, string(repro))
	rr, err := back.Run(RunOptions{Seed: back.Seed})
	require.NoError(t, err)
	assert.False(t, rr.OK)
	assert.Contains(t, Failure(rr), "double_execution")
	assert.Equal(t, sh.Run.Sim.TraceHashHex(), rr.Sim.TraceHashHex(), "the repro replays bit for bit")
	t.Logf("repro.yaml:\n%s", repro)
}

// Materialize then run gives the same trace hash as the original seed, for
// every shipped scenario (nemeses and ranges included).
func TestMaterializeReplaysEveryShippedScenario(t *testing.T) {
	if raceEnabled {
		t.Skip("sequential runs, no goroutines for the race detector: the plain test run covers it")
	}
	for _, f := range shippedScenarios(t) {
		sc, err := Load(f)
		require.NoError(t, err)
		r, err := sc.Run(RunOptions{Seed: sc.Seed})
		require.NoError(t, err, f)
		m, err := Parse(f+" (materialized)", r.Materialize("materialized"))
		require.NoError(t, err, f)
		assert.Empty(t, m.Nemeses, f)
		r2, err := m.Run(RunOptions{Seed: m.Seed})
		require.NoError(t, err, f)
		assert.Equal(t, r.Sim.TraceHashHex(), r2.Sim.TraceHashHex(), f)
		assert.Equal(t, r.OK, r2.OK, f)
	}
}

// countingGuard is a sim.Guard that counts its checks and ends.
type countingGuard struct{ checks, ends int }

func (g *countingGuard) Check() error         { g.checks++; return nil }
func (g *countingGuard) Crashed(*sim.Failure) {}
func (g *countingGuard) Ended()               { g.ends++ }

// ShrinkOptions.Guard gives every trial run (and the final full run) a
// fresh guard that checks its handlers, as simrun's worker processes need
// for a user's algorithm; a guard that never errs changes no trial, so the
// shrink ends where an unguarded one does.
func TestShrinkGuardsEveryTrial(t *testing.T) {
	sc, err := Parse("planted.yaml", []byte(plantedSplitBrain))
	require.NoError(t, err)
	r, err := sc.Run(RunOptions{Seed: sc.Seed})
	require.NoError(t, err)
	plain, err := Shrink(r, ShrinkOptions{})
	require.NoError(t, err)

	var guards []*countingGuard
	sh, err := Shrink(r, ShrinkOptions{Guard: func() sim.Guard {
		g := &countingGuard{}
		guards = append(guards, g)
		return g
	}})
	require.NoError(t, err)
	assert.Equal(t, plain.Run.Sim.TraceHashHex(), sh.Run.Sim.TraceHashHex())
	assert.Equal(t, plain.Runs, sh.Runs)
	require.NotEmpty(t, guards)
	assert.GreaterOrEqual(t, len(guards), sh.Runs, "one guard per trial run")
	for i, g := range guards {
		assert.Positive(t, g.checks, "guard %d checked no handler", i)
		assert.Equal(t, 1, g.ends, "guard %d", i)
	}
}
