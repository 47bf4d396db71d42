package cron_test

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/proptest"
	"github.com/electsim/electsim/sim"
)

// bruteMostRecent lists every scheduled time in (earliest, now] (earliest
// raised to now − deadline) and classifies their count as utils.go does
// (more than 100: many; two or more: few): the reference the port is held
// to. limit is the count past which it is many.
func bruteMostRecent(s cron.Schedule, earliest, now time.Time, deadline time.Duration, limit int) (*time.Time, cron.MissedSchedules) {
	if deadline > 0 && now.Add(-deadline).After(earliest) {
		earliest = now.Add(-deadline)
	}
	var last time.Time
	n := 0
	for t := s.Next(earliest); !t.IsZero() && !t.After(now); t = s.Next(t) {
		last, n = t, n+1
	}
	missed := cron.NoneMissed
	switch {
	case n > limit:
		missed = cron.ManyMissed
	case n >= 2:
		missed = cron.FewMissed
	}
	if n == 0 {
		return nil, missed
	}
	return &last, missed
}

type mostRecentCase struct {
	sched    cron.Schedule
	earliest time.Time
	now      time.Time
	deadline time.Duration
}

func drawMostRecentCase(t *rapid.T) mostRecentCase {
	every := time.Duration(rapid.IntRange(1, 90).Draw(t, "every_minutes")) * time.Minute
	s, err := cron.ParseSchedule(fmt.Sprintf("@every %v", every))
	if err != nil {
		t.Fatal(err)
	}
	earliest := start.Add(time.Duration(rapid.Int64Range(0, int64(24*time.Hour)).Draw(t, "earliest_ns")))
	// How many intervals pass: around the thresholds (0–2, 99–102) as
	// often as anywhere else.
	count := rapid.OneOf(rapid.IntRange(0, 2), rapid.IntRange(98, 103), rapid.IntRange(0, 130)).Draw(t, "intervals")
	now := earliest.Add(time.Duration(count)*every + time.Duration(rapid.Int64Range(0, int64(every)-1).Draw(t, "within_ns")))
	var deadline time.Duration
	if rapid.Bool().Draw(t, "has_deadline") {
		deadline = time.Duration(rapid.IntRange(1, 200*60).Draw(t, "deadline_s")) * time.Second
	}
	return mostRecentCase{s, earliest, now, deadline}
}

func checkMostRecent(t *rapid.T, c mostRecentCase, limit int) {
	got, missed, err := cron.MostRecentScheduleTime(c.sched, c.earliest, c.now, c.deadline)
	if err != nil {
		proptest.Fail(t, "error: %v", err)
	}
	want, wantMissed := bruteMostRecent(c.sched, c.earliest, c.now, c.deadline, limit)
	if (got == nil) != (want == nil) || (got != nil && !got.Equal(*want)) {
		proptest.Fail(t, "most recent time: got %v, want %v", got, want)
	}
	if missed != wantMissed {
		proptest.Fail(t, "missed: got %v, want %v", missed, wantMissed)
	}
}

// For regular schedules (@every, where utils.go's count (now−t1)/(t2−t1)+1
// is exact) the port of mostRecentScheduleTime agrees with listing every
// time: the same most recent time, and "many" exactly past 100.
func TestPropertyKubeMostRecentMatchesListing(t *testing.T) {
	proptest.Check(t, 200, func(t *rapid.T) { checkMostRecent(t, drawMostRecentCase(t), 100) })
}

// The property has teeth: against a reference whose threshold is 99 (an
// off-by-one), rapid finds a case.
func TestPropertyRefutedKubeMostRecentOffByOne(t *testing.T) {
	proptest.Refute(t, 300, func(t *rapid.T) { checkMostRecent(t, drawMostRecentCase(t), 99) })
}

// drawSplit draws two controller-managers' tenures that both hold at
// 02:00 (a lease split) and end at random within the next three minutes,
// and a seed.
func drawSplit(t *rapid.T) ([][]tenure, uint64, int) {
	a0 := time.Duration(rapid.Int64Range(0, int64(55*time.Second)).Draw(t, "a_from"))
	a1 := time.Minute + time.Duration(rapid.Int64Range(int64(time.Second), int64(3*time.Minute)).Draw(t, "a_past_0200"))
	b0 := time.Duration(rapid.Int64Range(0, int64(55*time.Second)).Draw(t, "b_from"))
	b1 := time.Minute + time.Duration(rapid.Int64Range(int64(time.Second), int64(3*time.Minute)).Draw(t, "b_past_0200"))
	writes := rapid.IntRange(1, 10).Draw(t, "writes")
	return [][]tenure{{{a0, a1, 1}}, {{b0, b1, 2}}}, rapid.Uint64Range(1, 1<<20).Draw(t, "seed"), writes
}

// However the two tenures overlap, each scheduled time has at most one
// Job: the API server's name uniqueness (getJobName) holds across a split.
func TestPropertyKubeOneJobPerScheduledTime(tt *testing.T) {
	proptest.Check(tt, 40, func(t *rapid.T) {
		ts, seed, writes := drawSplit(t)
		w := newKWorld(tt, seed, kcfg("* * * * *", 10*time.Second, writes, cron.Policy{}, kube(nil)), ts, true)
		w.s.RunUntil(at(6 * time.Minute))
		per := map[int64]int{}
		for _, r := range w.facts(sim.FactExecCreated, 0) {
			per[r.B]++
			if per[r.B] > 1 {
				proptest.Fail(t, "two Jobs for %v", time.Unix(0, r.B).UTC())
			}
		}
	})
}

// The name is not enough for Pods: "a split never starts two Pods of one
// Job" is refuted — both Job controllers create one.
func TestPropertyRefutedKubeSplitOnePodPerJob(tt *testing.T) {
	proptest.Refute(tt, 60, func(t *rapid.T) {
		ts, seed, writes := drawSplit(t)
		w := newKWorld(tt, seed, kcfg("* * * * *", 10*time.Second, writes, cron.Policy{}, kube(nil)), ts, true)
		w.s.RunUntil(at(6 * time.Minute))
		if n := w.maxConcurrent(0); n > 1 {
			proptest.Fail(t, "%d Pods of one CronJob ran at once", n)
		}
	})
}
