package checker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// qStart is the calendar time at true time 0 of the hand-made traces.
var qStart = time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)

func qJobs(t *testing.T) cron.Table {
	t.Helper()
	jobs := cron.Table{{Name: "report", Schedule: "@every 10s"}}
	require.NoError(t, jobs.Validate())
	return jobs
}

// qSlot is the slot due d after qStart, in Unix ns.
func qSlot(d time.Duration) int64 { return qStart.Add(d).UnixNano() }

func qExec(at time.Duration, worker sim.NodeID, fact sim.Fact, run int64, slot time.Duration) sim.Record {
	return sim.Record{At: sim.Time(at), Type: sim.RecEffect, Node: worker, A: run, B: qSlot(slot), C: 0, Fact: fact}
}

func qWrite(at time.Duration, worker sim.NodeID, run int64, slot time.Duration, accepted bool) cron.LogEntry {
	reason := cron.ReasonAccepted
	if !accepted {
		reason = cron.ReasonDuplicate
	}
	return cron.LogEntry{At: sim.Time(at), Job: "report", Slot: qSlot(slot), FireTime: qSlot(slot), Token: 1, Node: worker, Run: run, Accepted: accepted, Reason: reason}
}

// qRun judges a hand-made queue-mode trace: candidates n0 and n1, workers
// 2 and 3, the 10 s job judged over (0, 35s], start deadline 5 s.
func qRun(t *testing.T, recs []sim.Record, log []cron.LogEntry, forbid bool) checker.Report {
	t.Helper()
	in := checker.Input{Records: recs, Candidates: []sim.NodeID{0, 1}, Jobs: qJobs(t), WallStart: qStart,
		CronFrom: qStart, CronTo: qStart.Add(35 * time.Second), Resource: log,
		Exec: &checker.ExecInput{StartDeadline: 5 * time.Second, ForbidOverlap: forbid}}
	if in.Resource == nil {
		in.Resource = []cron.LogEntry{}
	}
	return checker.Run(in)
}

// clean is a trace where n0 leads throughout and worker 2 runs every slot
// of the window, on time, one after the other.
func clean() ([]sim.Record, []cron.LogEntry) {
	recs := []sim.Record{{At: 0, Type: sim.RecLead, Node: 0, Epoch: 1, Token: 1}}
	var log []cron.LogEntry
	for i, s := range []time.Duration{10 * time.Second, 20 * time.Second, 30 * time.Second} {
		run := int64(i + 1)
		recs = append(recs, qExec(s+time.Second, 2, sim.FactExecStarted, run, s), qExec(s+3*time.Second, 2, sim.FactExecCompleted, run, s))
		log = append(log, qWrite(s+3*time.Second, 2, run, s, true))
	}
	return recs, log
}

func status(t *testing.T, r checker.Report, name string) checker.Check {
	t.Helper()
	c, ok := r.Check(name)
	require.True(t, ok, "check %s reported", name)
	return c
}

// TestQueueChecksFindPlantedFaults: each queue-mode check holds on a clean
// trace and finds the fault planted in a copy of it (must-refute).
func TestQueueChecksFindPlantedFaults(t *testing.T) {
	recs, log := clean()
	r := qRun(t, recs, log, true)
	for _, name := range checker.QueueCheckNames {
		assert.Equal(t, checker.StatusOK, status(t, r, name).Status, "%s on the clean trace: %s", name, status(t, r, name).Summary)
	}

	t.Run("lost slot", func(t *testing.T) {
		recs, log := clean()
		recs = append(recs[:4], recs[5:]...) // drop the 20 s slot's completion
		c := status(t, qRun(t, recs, log, true), checker.CheckLostSlot)
		require.Equal(t, checker.StatusViolated, c.Status)
		assert.Equal(t, 1, c.Count)
		assert.Equal(t, cron.SlotName("report", qSlot(20*time.Second)), c.Violations[0].Slot)
	})
	t.Run("a slot due while nobody led and never started is not lost", func(t *testing.T) {
		recs, log := clean()
		recs = append(recs[:3], recs[5:]...) // drop the 20 s slot's start and completion
		recs = append(recs, sim.Record{At: sim.Time(15 * time.Second), Type: sim.RecStepDown, Node: 0},
			sim.Record{At: sim.Time(25 * time.Second), Type: sim.RecLead, Node: 1, Epoch: 2, Token: 2})
		sortRecs(recs)
		c := status(t, qRun(t, recs, log, true), checker.CheckLostSlot)
		assert.Equal(t, checker.StatusOK, c.Status, c.Summary)
	})
	t.Run("double execution", func(t *testing.T) {
		for _, accepted := range []bool{true, false} {
			recs, log := clean()
			log = append(log, qWrite(15*time.Second, 3, 9, 10*time.Second, accepted))
			c := status(t, qRun(t, recs, log, true), checker.CheckDuplicateExecution)
			require.Equal(t, checker.StatusViolated, c.Status)
			assert.Equal(t, 1, c.Count)
			assert.Equal(t, !accepted, c.Violations[0].Harmless, "harmless exactly when the resource rejected the second")
		}
	})
	t.Run("overlap", func(t *testing.T) {
		recs, log := clean()
		recs = append(recs, qExec(12*time.Second, 3, sim.FactExecStarted, 7, 10*time.Second), qExec(14*time.Second, 3, sim.FactExecFailed, 7, 10*time.Second))
		sortRecs(recs)
		c := status(t, qRun(t, recs, log, true), checker.CheckOverlap)
		require.Equal(t, checker.StatusViolated, c.Status)
		assert.Equal(t, 1, c.Count)
		allowed := status(t, qRun(t, recs, log, false), checker.CheckOverlap)
		assert.Equal(t, checker.StatusOK, allowed.Status, "concurrency allow: not a violation")
		assert.Contains(t, allowed.Summary, "1 overlap")
	})
	t.Run("a crashed worker's run ends at its crash", func(t *testing.T) {
		recs, log := clean()
		recs = append(recs, qExec(11500*time.Millisecond, 3, sim.FactExecStarted, 7, 10*time.Second))
		recs = append(recs, sim.Record{At: sim.Time(11600 * time.Millisecond), Type: sim.RecCrash, Node: 3})
		sortRecs(recs)
		c := status(t, qRun(t, recs, log, true), checker.CheckOverlap)
		assert.Equal(t, 1, c.Count, "it overlapped worker 2's run until its crash")
		recs, log = clean()
		recs = append(recs, sim.Record{At: sim.Time(5 * time.Second), Type: sim.RecCrash, Node: 3})
		recs = append(recs, qExec(13500*time.Millisecond, 3, sim.FactExecStarted, 7, 10*time.Second))
		sortRecs(recs)
		assert.Equal(t, 2, status(t, qRun(t, recs, log, true), checker.CheckOverlap).Count,
			"a crash before the start does not end it: it runs to the end of the trace, over the 20 s and 30 s runs")
	})
	t.Run("late start", func(t *testing.T) {
		recs, log := clean()
		recs[5].At = sim.Time(36 * time.Second) // the 30 s slot starts 6 s late
		sortRecs(recs)
		c := status(t, qRun(t, recs, log, true), checker.CheckLateStart)
		require.Equal(t, checker.StatusViolated, c.Status)
		assert.Equal(t, 1, c.Count)
	})
	t.Run("no queue mode, no queue checks", func(t *testing.T) {
		recs, log := clean()
		r := checker.Run(checker.Input{Records: recs, Candidates: []sim.NodeID{0, 1}, Resource: log, Jobs: qJobs(t), WallStart: qStart})
		for _, name := range checker.QueueCheckNames {
			_, ok := r.Check(name)
			assert.False(t, ok, name)
		}
	})
}

// sortRecs orders records by time, keeping the order of equal times.
func sortRecs(recs []sim.Record) {
	for i := 1; i < len(recs); i++ {
		for j := i; j > 0 && recs[j].At < recs[j-1].At; j-- {
			recs[j], recs[j-1] = recs[j-1], recs[j]
		}
	}
}
