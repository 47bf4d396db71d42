package hunt

import "github.com/electsim/electsim/scenario"

// explain is a finding's explanation, the one a sweep's summary prints
// too (scenario.Run.Explain, checker.ExplainFinding): the violation of the
// finding's own checks (failure, in order; a harmful one before a
// harmless one), the faults that touched its nodes or the services they
// use, most relevant first (checker.RelevantFaults), then its story, in
// at most a dozen lines.
func explain(r *scenario.Run, failure []string) string {
	return r.Explain(failure)
}
