package simrun

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/reports"
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
