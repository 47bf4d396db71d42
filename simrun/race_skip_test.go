package simrun

import "testing"

// skipUnderRace skips a test under -race whose concurrency is the sweep
// machinery other tests race (TestJSONDeterministic, TestRunsFileInJobOrder,
// the worker-process, signal and hunt tests): it checks files, names,
// labels, exit codes, how many processes a sweep takes or a
// sequential step (shrink, merge, materialize), which the plain run proves
// at full size. It keeps .ci/run's race stage within its time.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("under -race only the tests that race the sweep machinery run; the plain run has this one")
	}
}
