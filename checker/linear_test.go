package checker

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// resourceInput is a trace in which each log entry's write was sent at
// sent[i] (a delivery record at the resource, as the engine records it).
func resourceInput(policy cron.Policy, sent []int64, log ...cron.LogEntry) Input {
	b := &trace{}
	b.lead(100, 0, 6, 6)
	for i, e := range log {
		b.deliver(int64(e.At/sim.Time(time.Millisecond)), 4, e.Node, cron.KindWrite, sent[i], e.Token)
	}
	b.end(60000)
	in := input(b)
	in.Resource, in.Policy = log, policy
	return in
}

// The resource model (docs/checkers.md, "linearizability": a per-slot
// fenced-store model): unfenced, a slot applied from two runs is Illegal.
func TestResourceModelDoubleExecutionIllegal(t *testing.T) {
	in := resourceInput(cron.Policy{}, []int64{4990, 8000},
		write(5000, 1, 50, slot0, 0, 7, true, ""),
		write(8010, 0, 10, slot0, 0, 6, true, ""))
	r := Run(in)
	require.Equal(t, "Illegal", r.Linearizability[1].Result)
	c := mustCheck(r, CheckLinearizability)
	require.Equal(t, StatusViolated, c.Status)
	assert.Equal(t, "porcupine: the resource history (2 writes, 1 partitions by slot) is not linearizable as a fenced store", c.Summary)
	assert.Equal(t, "partition report@2026-01-01T02:00:00Z: porcupine linearized 1 of 2 writes; it cannot place n1 run@10ns report@2026-01-01T02:00:00Z step 0 token 6 → applied, because a higher token (7) was already applied — the same slot double_execution reports: writes of two runs of it were applied, and the fenced-store model admits one run's writes per slot",
		c.Violations[0].Details)
	assert.Equal(t, CheckDoubleExecution, c.Violations[0].Restates)
	assert.Contains(t, c.Violations[0].Explanation, "t=8.000s n1 wrote report@2026-01-01T02:00:00Z step 0 with token 6; resource accepted it at t=8.010s")
}

// A rejected write never makes the history illegal: the model judges what
// was applied.
func TestResourceModelRejectionIsLegal(t *testing.T) {
	in := resourceInput(cron.Policy{Fencing: true}, []int64{4990, 8000},
		write(5000, 1, 50, slot0, 0, 7, true, ""),
		write(8010, 0, 10, slot0, 0, 6, false, cron.ReasonStale))
	r := Run(in)
	assert.Equal(t, "Ok", r.Linearizability[1].Result)
	assert.Equal(t, StatusOK, mustCheck(r, CheckLinearizability).Status)
}

// Writes whose intervals [sent, applied] overlap may linearize in either
// order: token 6 applied after token 7 is legal if 6 could have been applied
// first — but not if 6 was sent after 7 was applied.
func TestResourceModelConcurrentWrites(t *testing.T) {
	other := slot0 + int64(time.Hour)
	a := write(5000, 1, 50, slot0, 0, 7, true, "")
	b := write(5006, 0, 10, other, 0, 6, true, "")
	concurrent := resourceInput(cron.Policy{Fencing: true}, []int64{4990, 4995}, a, b)
	assert.Equal(t, "Ok", Run(concurrent).Linearizability[1].Result)
	sequential := resourceInput(cron.Policy{Fencing: true}, []int64{4990, 5002}, a, b)
	assert.Equal(t, "Illegal", Run(sequential).Linearizability[1].Result)
	// stale_write judges the resource's actual order, not the possible ones.
	assert.Equal(t, StatusViolated, mustCheck(Run(concurrent), CheckStaleWrite).Status)
}

// Partitioning follows the fencing scope: with fencing per job, tokens of
// different slots are compared; without fencing, each slot is its own
// partition and only "one run per slot" is specified.
func TestResourceModelPartitions(t *testing.T) {
	other := slot0 + int64(time.Hour)
	log := []cron.LogEntry{write(5000, 1, 50, slot0, 0, 7, true, ""), write(8010, 0, 10, other, 0, 6, true, "")}
	fenced := Run(resourceInput(cron.Policy{Fencing: true}, []int64{4990, 8000}, log...))
	assert.Equal(t, "Illegal", fenced.Linearizability[1].Result)
	assert.Equal(t, 1, fenced.Linearizability[1].Partitions)
	assert.Contains(t, mustCheck(fenced, CheckLinearizability).Violations[0].Details, "partition job report:")
	bySlot := Run(resourceInput(cron.Policy{}, []int64{4990, 8000}, log...))
	assert.Equal(t, "Ok", bySlot.Linearizability[1].Result)
	assert.Equal(t, 2, bySlot.Linearizability[1].Partitions)
}

// A porcupine check that runs out of time is "unknown", never "ok", and
// fails the run unless allowed. The history: 40 concurrent steps of one run
// plus a second run's write to the same slot. No order is legal, and
// porcupine must try every subset of the 40 steps (2^40) to prove it, so it
// cannot finish within 50 ms; the exact double_execution check still finds
// the damage.
func TestPorcupineTimeoutIsUnknown(t *testing.T) {
	var log []cron.LogEntry
	var sent []int64
	for i := 0; i < 40; i++ {
		log = append(log, write(1000+int64(i), 1, 50, slot0, i, 7, true, ""))
		sent = append(sent, 0)
	}
	log = append(log, write(2000, 2, 60, slot0, 0, 7, true, ""))
	sent = append(sent, 0)
	in := resourceInput(cron.Policy{Fencing: true}, sent, log...)
	in.PorcupineTimeout = 50 * time.Millisecond
	r := Run(in)
	assert.Equal(t, "Unknown", r.Linearizability[1].Result)
	c := mustCheck(r, CheckLinearizability)
	assert.Equal(t, StatusUnknown, c.Status)
	assert.Equal(t, "porcupine did not decide within 50ms: verdict unknown, not ok", c.Summary)
	assert.Equal(t, StatusViolated, mustCheck(r, CheckDoubleExecution).Status)

	ok, problems := r.Judge(Expect{MustOccur: []string{CheckDoubleExecution}})
	assert.False(t, ok)
	assert.Contains(t, problems, "linearizability: porcupine did not decide within 50ms: verdict unknown, not ok")
	ok, _ = r.Judge(Expect{MustOccur: []string{CheckDoubleExecution}, Allow: []string{CheckLinearizability}})
	assert.True(t, ok)
	ok, problems = r.Judge(Expect{MustOccur: []string{CheckDoubleExecution, CheckLinearizability}})
	assert.False(t, ok, "an unknown verdict does not demonstrate a violation")
	assert.Contains(t, problems[0], "linearizability was expected to occur but did not (unknown:")
}

// The visualization is porcupine's HTML with the run's faults as
// annotations.
func TestVisualization(t *testing.T) {
	b := (&trace{}).lead(1000, 0, 1, 1).pause(2000, 0).net(2500, true, sim.CrossLinks([][]sim.NodeID{{0}, {1, 2}})...).
		lead(4000, 1, 2, 2).resume(6000, 0).down(6000, 0, "lease expired").end(8000)
	r := Run(input(b))
	var buf bytes.Buffer
	require.NoError(t, r.Linearizability[0].Visualize(&buf))
	html := buf.String()
	assert.Contains(t, html, "n1 paused at t=2.000s for 4s")
	assert.Contains(t, html, "t=2.500s net (links)")
	assert.Contains(t, html, "n2 acquire (epoch 2, token 2)")
	// The resource check did not run: no visualization to draw.
	assert.Error(t, r.Linearizability[1].Visualize(&buf))
}
