package checker

import "slices"

// restated names the check whose finding a linearizability violation on
// the write in restates, from typed facts only: the write's slot was
// applied from two runs (double_execution: the fenced-store model admits
// one run's writes per slot), or the write is one stale_write reports (a
// token lower than one already applied). Empty when neither: the model
// found a conflict the per-write checks do not.
func (c *checker) restated(in *writeInput) string {
	if slices.Contains(c.doubled, SlotRef{Job: in.JobIndex, Slot: in.Slot}) {
		return CheckDoubleExecution
	}
	if slices.ContainsFunc(c.writes.stales, func(s staleWrite) bool { return s.idx == in.idx }) {
		return CheckStaleWrite
	}
	return ""
}

// restatedHints are the people's words for each restated check: why the
// history is not linearizable, in the terms of the check that already
// reported it.
var restatedHints = map[string]string{
	CheckDoubleExecution: "the same slot double_execution reports: writes of two runs of it were applied, and the fenced-store model admits one run's writes per slot",
	CheckStaleWrite:      "the same write stale_write reports: it was applied with a token lower than one already applied",
}

// hintRestated marks v as restating the finding of another check on the
// same write or slot, and says so after its details.
func (c *checker) hintRestated(v *Violation, in *writeInput) {
	if v.Restates = c.restated(in); v.Restates != "" {
		v.Details += " — " + restatedHints[v.Restates]
	}
}
