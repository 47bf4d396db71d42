package simrun

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

// A failing run printed with its story takes only the explanations of the
// re-run: its verdicts stay the sweep's, even when a wall-time-bounded
// porcupine check decided differently the second time (which made a kept
// run disagree with the aggregates under -race).
func TestAddExplanationsKeepsTheSweepsVerdict(t *testing.T) {
	run := reports.RunSummary{OK: false, Checks: map[string]string{"linearizability": "unknown", "split_brain": "fail"},
		Violations: []reports.ViolationSummary{
			{Kind: "split_brain", AtMs: 10, DurationMs: 5},
			{Kind: "split_brain", AtMs: 10, DurationMs: 5},
			{Kind: "linearizability", AtMs: 0},
		}}
	again := reports.RunSummary{OK: false, Checks: map[string]string{"linearizability": "fail", "split_brain": "fail"},
		Violations: []reports.ViolationSummary{
			{Kind: "linearizability", AtMs: 0, Explanation: "not in the sweep's run"},
			{Kind: "split_brain", AtMs: 10, DurationMs: 5, Explanation: "first"},
			{Kind: "split_brain", AtMs: 10, DurationMs: 5, Explanation: "second"},
		}}
	addExplanations(&run, again)
	require.Equal(t, "unknown", run.Checks["linearizability"])
	require.Equal(t, []string{"first", "second", "not in the sweep's run"},
		[]string{run.Violations[0].Explanation, run.Violations[1].Explanation, run.Violations[2].Explanation})

	// A violation the re-run did not find stays unexplained.
	lone := reports.RunSummary{Violations: []reports.ViolationSummary{{Kind: "double_execution", AtMs: 3}}}
	addExplanations(&lone, again)
	require.Empty(t, lone.Violations[0].Explanation)
}

// The timeline draws the run's every overlap and doubled slot from the
// report's typed lists, not from its listed violations (at most 20 per
// check): here the checks list none, and the report names 30 overlaps and
// one doubled slot.
func TestTimelineDrawsEveryOverlap(t *testing.T) {
	sc, err := scenario.Load(partition)
	require.NoError(t, err)
	r, err := sc.Run(scenario.RunOptions{Seed: 1})
	require.NoError(t, err)
	log := r.Resource.Log()
	require.NotEmpty(t, log)
	r.Report.Overlaps = nil
	for i := range 30 {
		at := sim.Time(i) * sim.Time(time.Second)
		r.Report.Overlaps = append(r.Report.Overlaps, checker.Overlap{From: at, To: at + sim.Time(time.Millisecond), Nodes: [2]sim.NodeID{0, 1}})
	}
	r.Report.DoubledSlots = []checker.SlotRef{{Job: log[0].JobIndex, Slot: log[0].Slot}}
	for i := range r.Report.Checks {
		r.Report.Checks[i].Violations = nil
	}
	tl := timeline(r)
	require.Len(t, tl.Overlaps, 60, "one span per node of each overlap")
	assert.Equal(t, "n1", tl.Overlaps[0].Node)
	assert.Equal(t, "n2", tl.Overlaps[1].Node)
	assert.Equal(t, 29_000.0, tl.Overlaps[59].FromMs)
	doubled := 0
	for i, m := range tl.Writes {
		if m.Double {
			doubled++
			e := log[i]
			assert.Equal(t, log[0].Slot, e.Slot)
			assert.True(t, e.Accepted)
		}
	}
	assert.Positive(t, doubled)
}
