package scenario

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/cron"
)

// A report lists at most 20 violations per check, with their stories, but
// names every split-brain overlap and every doubled slot (Report.Overlaps,
// DoubledSlots), in the checks' order, so a figure of a long run can draw
// them all: the listed ones are the first of them.
func TestReportNamesEveryOverlapAndDoubledSlot(t *testing.T) {
	r, err := doubleExecution(t, 2*time.Minute).Run(RunOptions{Seed: 1, Lean: true})
	require.NoError(t, err)
	sb, _ := r.Report.Check(checker.CheckSplitBrain)
	de, _ := r.Report.Check(checker.CheckDoubleExecution)
	require.Greater(t, de.Count, len(de.Violations), "more double executions than are listed")
	require.Len(t, r.Report.DoubledSlots, de.Count)
	require.Len(t, r.Report.Overlaps, sb.Count)
	require.Positive(t, sb.Count)
	name := map[checker.SlotRef]string{} // as the violations name slots
	applied := map[checker.SlotRef]map[int64]bool{}
	for _, e := range r.Resource.Log() {
		k := checker.SlotRef{Job: e.JobIndex, Slot: e.Slot}
		name[k] = cron.SlotName(e.Job, e.Slot)
		if e.Accepted {
			if applied[k] == nil {
				applied[k] = map[int64]bool{}
			}
			applied[k][e.Run] = true
		}
	}
	for i, v := range de.Violations {
		require.Equal(t, v.Slot, name[r.Report.DoubledSlots[i]], "listed violation %d is the %dth slot named", i, i)
	}
	for _, d := range r.Report.DoubledSlots {
		require.Greater(t, len(applied[d]), 1, "%s was applied from more than one run", name[d])
	}
	for i, v := range sb.Violations {
		o := r.Report.Overlaps[i]
		require.Equal(t, v.At, o.From)
		require.Equal(t, v.End, o.To)
		require.Equal(t, v.NodeIDs, o.Nodes[:])
	}
}
