package cron_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Celery interval schedules: beat_schedule's timedelta is
// celery/schedules.py schedule(run_every), relative=False. Its
// remaining_estimate is celery/utils/time.py remaining(last_run_at,
// run_every, now): last_run_at + run_every − now; is_due is (True,
// run_every) once that is ≤ 0, else (False, remaining). RedBeat stores
// the schedule in the entry's definition as {"__type__": "interval",
// "every": seconds, "relative": …} (redbeat/decoder.py) and last_run_at in
// its meta, set to the beat's now when it fires (_next_instance). So the
// schedule re-anchors on the fire: a late fire moves every later one.

// sentAt lists, for job 0, when each task went out (since the run start).
func (w *cworld) sentAt() []time.Time {
	var out []time.Time
	for _, s := range w.sent() {
		out = append(out, start.Add(time.Duration(s.at)))
	}
	return out
}

// TestRedBeatIntervalReanchorsAfterTakeover: with the holder killed at
// 02:07:30 (its last fire 02:05), the standby takes the lock at 02:34
// (TestRedBeatStandbyWaitsForLockTimeoutThenPolls); the entry, due since
// 02:10, is overdue and fires once at 02:34, and is_due counts the next
// run_every from that fire: 02:39, 02:44, … — 4 minutes off the 5-minute
// grid for good. Must-refute twin: the crontab "*/5" fires at 02:34 once
// and then at 02:35, 02:40, back on its grid.
func TestRedBeatIntervalReanchorsAfterTakeover(t *testing.T) {
	run := func(schedule string) []time.Time {
		w := newCWorld(t, 31, ccfg(2, schedule))
		w.s.At(sinceStart(wall(2, 7, 30)), func() { w.s.Crash(w.beats[0]) })
		w.s.RunUntil(sinceStart(wall(2, 50, 0)))
		return w.sentAt()
	}
	near := func(t *testing.T, want time.Time, got time.Time) {
		t.Helper()
		assert.InDelta(t, 0, float64(got.Sub(want)), float64(time.Second), "want %v, got %v", want.Format("15:04:05"), got.Format("15:04:05.000"))
	}
	iv := run("@every 5m")
	require.Len(t, iv, 6, "02:00, 02:05, the catch-up at 02:34, 02:39, 02:44, 02:49")
	near(t, wall(2, 0, 0), iv[0])
	near(t, wall(2, 5, 0), iv[1])
	near(t, wall(2, 34, 0), iv[2])
	near(t, wall(2, 39, 0), iv[3])
	near(t, wall(2, 44, 0), iv[4])
	near(t, wall(2, 49, 0), iv[5])
	cr := run("*/5 * * * *")
	require.Len(t, cr, 6, "02:00, 02:05, the catch-up at 02:34, 02:35, 02:40, 02:45")
	near(t, wall(2, 35, 0), cr[3])
	near(t, wall(2, 40, 0), cr[4])
}

// TestRedBeatIntervalDriftsByTheTickLatency: last_run_at is the beat's now
// when it reserves the entry, after the tick's extend and reads, so each
// fire is a few round trips after the previous one's due time and the
// drift adds up (1 ms links here: ~4 ms a fire). Must-refute twin: the
// crontab's fires stay within one tick of their slots.
func TestRedBeatIntervalDriftsByTheTickLatency(t *testing.T) {
	run := func(schedule string) []time.Time {
		w := newCWorld(t, 32, ccfg(1, schedule))
		w.s.RunUntil(sinceStart(wall(3, 0, 30)))
		return w.sentAt()
	}
	iv := run("@every 1m")
	require.GreaterOrEqual(t, len(iv), 60)
	first, last := iv[0].Sub(wall(2, 0, 0)), iv[59].Sub(wall(2, 59, 0))
	assert.Greater(t, last, first+50*2*time.Millisecond, "the 60th fire is late by the sum of 59 ticks' round trips (first %v, 60th %v)", first, last)
	cr := run("* * * * *")
	require.GreaterOrEqual(t, len(cr), 60)
	assert.Less(t, cr[59].Sub(wall(2, 59, 0)), 50*time.Millisecond, "a crontab does not drift")
}

// TestRedBeatIntervalVolatileRestart: a Redis restart without persistence
// at 02:06–02:08 loses the entry; the holder's next tick (due 02:10)
// raises LockNotOwnedError and it exits; restarted at 02:10:10 its
// setup_schedule saves the entry with last_run_at = its now
// (ScheduleEntry.__init__, RedBeatSchedulerEntry.save), so the interval
// re-anchors there: nothing at 02:10, then 02:15:10, 02:20:10. Must-refute
// twin: durable Redis keeps last_run_at and the entry fires at 02:10.
func TestRedBeatIntervalVolatileRestart(t *testing.T) {
	run := func(durable bool) []time.Time {
		cfg := ccfg(1, "@every 5m")
		cfg.Queue.Durable = durable
		w := newCWorld(t, 33, cfg)
		w.s.At(sinceStart(wall(2, 6, 0)), func() { w.s.Crash(w.cfg.Celery.Redis) })
		w.s.At(sinceStart(wall(2, 8, 0)), func() { w.s.Restart(w.cfg.Celery.Redis, durable) })
		w.s.RunUntil(sinceStart(wall(2, 21, 0)))
		return w.sentAt()
	}
	lost := run(false)
	require.Len(t, lost, 4, "02:00, 02:05, then two after the re-save")
	assert.InDelta(t, 0, float64(lost[2].Sub(wall(2, 15, 10))), float64(time.Second), "one interval after the restarted beat's now (02:10:10), got %v", lost[2])
	assert.InDelta(t, 0, float64(lost[3].Sub(wall(2, 20, 10))), float64(time.Second))
	kept := run(true)
	require.Len(t, kept, 5)
	assert.InDelta(t, 0, float64(kept[2].Sub(wall(2, 10, 0))), float64(time.Second))
}

// TestRedBeatIntervalBeatRestartKeepsLastRunAt: both beats down from
// 02:07:30, back at 02:41:30 (the lock expired at 02:30). The restarted
// beat's setup_schedule → update_from_dict finds the entry (from_key) and
// keeps its last_run_at (02:05); save writes meta with HSETNX, so it is
// not reset: the entry is overdue and fires at once, 02:41:30, and the
// interval counts from there (02:46:30). Must-refute twin: had the restart
// re-saved last_run_at = now (as after a volatile Redis restart), nothing
// would fire before 02:46:30; the crontab fires at 02:41:30 and then on
// its grid, 02:45.
func TestRedBeatIntervalBeatRestartKeepsLastRunAt(t *testing.T) {
	run := func(schedule string) []time.Time {
		w := newCWorld(t, 34, ccfg(1, schedule))
		w.s.At(sinceStart(wall(2, 7, 30)), func() {
			for _, b := range w.beats {
				w.s.Crash(b)
			}
		})
		w.s.At(sinceStart(wall(2, 41, 30)), func() {
			for _, b := range w.beats {
				w.s.Restart(b, false)
			}
		})
		w.s.RunUntil(sinceStart(wall(2, 50, 0)))
		return w.sentAt()
	}
	near := func(want, got time.Time) {
		t.Helper()
		assert.InDelta(t, 0, float64(got.Sub(want)), float64(time.Second), "want %v, got %v", want.Format("15:04:05"), got.Format("15:04:05.000"))
	}
	iv := run("@every 5m")
	require.Len(t, iv, 4, "02:00, 02:05, at the restart, one interval later")
	near(wall(2, 41, 30), iv[2])
	near(wall(2, 46, 30), iv[3])
	cr := run("*/5 * * * *")
	require.Len(t, cr, 4)
	near(wall(2, 41, 30), cr[2])
	near(wall(2, 45, 0), cr[3])
}
