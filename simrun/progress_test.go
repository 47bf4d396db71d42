package simrun

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/simrun/worker"
)

// TestProgressStatus: a progress report says how far, how fast and how
// long is left.
func TestProgressStatus(t *testing.T) {
	assert.Equal(t, "120/1000 runs (12%), 2.0s, 60 runs/s, ETA 14.7s", progressStatus(120, 1000, 2, 14.67))
	assert.Equal(t, "1000/1000 runs (100%), 4.0s, 250 runs/s", progressStatus(1000, 1000, 4, 0))
	assert.Equal(t, "0/10 runs (0%), 0.0s", progressStatus(0, 10, 0, -1))
	assert.Equal(t, "5/10 runs (50%), 1.0s, 5 runs/s", progressStatus(5, 10, 1, -1), "no ETA while unknown")
}

// TestProgressCountsFindings: the progress lines count the runs that did
// not meet the expectations, and apart from them the runs that met them
// with harmless or expected findings: a sweep of harmless split-brains
// does not say "no findings" (which it did).
func TestProgressCountsFindings(t *testing.T) {
	ok := &reports.RunSummary{OK: true}
	harmless := &reports.RunSummary{OK: true, Violations: []reports.ViolationSummary{{Kind: "split_brain", Harmless: true}}}
	expected := &reports.RunSummary{OK: true, Violations: []reports.ViolationSummary{{Kind: "split_brain"}, {Kind: "split_brain", Harmless: true}}}
	failing := &reports.RunSummary{Violations: []reports.ViolationSummary{{Kind: "split_brain", Harmless: true}}}
	line := func(runs ...*reports.RunSummary) string {
		var b bytes.Buffer
		p := newProgress(&b, len(runs), false)
		p.every = 0
		for _, r := range runs {
			p.add(r)
		}
		lines := bytes.Split(bytes.TrimSpace(b.Bytes()), []byte("\n"))
		return string(lines[len(lines)-1])
	}
	assert.Contains(t, line(ok, failing, failing), "3/3 runs (100%)")
	assert.Regexp(t, `, 2 failing runs$`, line(ok, failing, failing))
	assert.Regexp(t, `, no failing runs$`, line(ok, ok))
	assert.Regexp(t, `, no failing runs \(2 passed with harmless findings only\)$`, line(harmless, ok, harmless))
	assert.Regexp(t, `, 1 failing run \(1 passed with harmless findings only, 1 passed with expected findings\)$`, line(harmless, expected, failing))

	// A worker process's line is read back by its parent.
	l := line(harmless, expected, failing, failing)
	m := worker.ChildProgressRe.FindStringSubmatch(l)
	require.NotNil(t, m, l)
	assert.Equal(t, []string{"4", "2"}, []string{m[1], m[3]})
	assert.Equal(t, "1", worker.ChildHarmlessRe.FindStringSubmatch(l)[1])
	assert.Equal(t, "1", worker.ChildExpectedRe.FindStringSubmatch(l)[1])
	m = worker.ChildProgressRe.FindStringSubmatch(line(harmless, ok))
	require.NotNil(t, m)
	assert.Equal(t, "", m[3])
}

// TestETAHeavyTail: the time left is not estimated from the first, fast
// runs alone. A synthetic sweep (no wall clock): 100 runs in the first
// second, then one a second. After 30 s, 871 runs are left at about one a
// second; the rate since the start (4.3 runs/s, the old estimate) says
// 202 s.
func TestETAHeavyTail(t *testing.T) {
	var e etaEstimator
	assert.Equal(t, -1.0, e.left(1000), "nothing done: unknown")
	n := 0
	for i := 1; i <= 100; i++ {
		n++
		e.observe(float64(i)/100, n)
	}
	fast := e.left(1000)
	assert.InDelta(t, 9, fast, 0.01, "a steady rate: remaining / rate")
	for s := 2; s <= 30; s++ {
		n++
		e.observe(float64(s), n)
	}
	require.Equal(t, 129, n)
	left := e.left(1000)
	assert.Greater(t, left, 800.0, "the recent rate, not the start's: got %.0f s", left)
	assert.Less(t, left, 900.0)

	// A sweep that speeds up again shows it within half its elapsed time,
	// and a steady one keeps its plain rate. The samples stay bounded.
	for s := 31; s <= 2000; s++ {
		n += 10
		e.observe(float64(s), n)
	}
	assert.LessOrEqual(t, len(e.samples), maxSamples)
	assert.InDelta(t, float64(100000-n)/10, e.left(100000), float64(100000-n)/10*0.05)
}
