package scenario

import (
	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/faults"
)

// Explain is the explanation of r's finding, given the checks it failed
// (Failure; nil: Failure(r)): checker.ExplainFinding of the violation
// those checks are about (checker.Report.Finding), with the faults r's
// injector applied. Empty when r has no violation to explain. A sweep's
// summary and a hunt print it alike.
func (r *Run) Explain(failure []string) string {
	if failure == nil {
		failure = Failure(r)
	}
	v, ok := r.Report.Finding(failure)
	if !ok {
		return ""
	}
	var applied []faults.Applied
	if r.Injector != nil {
		applied = r.Injector.Applied()
	}
	return checker.ExplainFinding(v, applied, r.Candidates)
}
