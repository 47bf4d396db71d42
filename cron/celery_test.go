package cron_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// Sources these tests reproduce (read for this model):
//   - sibson/redbeat redbeat/schedulers.py, 2.4.3 (unreleased) at a7fd9e9:
//     acquire_distributed_beat_lock, RedBeatScheduler.__init__/tick/schedule,
//     RedBeatSchedulerEntry.due_at/_next_instance, LUA_EXTEND_TO_SCRIPT.
//   - redis/redis-py redis/lock.py, 8.0.0 at 34817ce: Lock.acquire (blocking,
//     mod_time.sleep(sleep)), Lock.do_extend (LockNotOwnedError).
//   - celery/celery celery/beat.py and celery/schedules.py, 5.6.2 at 5dc781f:
//     DEFAULT_MAX_INTERVAL = 300, Service.start, Scheduler.apply_async
//     (reserve before send), crontab.is_due.
//   - celery/kombu kombu/transport/redis.py, 5.6.2 at 9ee8595:
//     Channel.visibility_timeout = 3600, QoS.append/ack/restore_visible.

// cworld is a Celery-mode deployment: beats n1, n2, the resource, Redis
// and workers, on constant 1 ms links so tick timing is exact.
type cworld struct {
	s       *sim.Sim
	rec     *sim.Recorder
	cfg     *cron.Config
	beats   []sim.NodeID
	res     *cron.Resource
	redis   *cron.Redis
	workers []sim.NodeID
}

func newCWorld(t require.TestingT, seed uint64, cfg cron.Config) *cworld {
	s := sim.New(sim.Config{Seed: seed, WallStart: start, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, time.Millisecond)}})
	w := &cworld{s: s, rec: &sim.Recorder{}}
	s.AddSink(w.rec)
	cfg.Resource, cfg.Celery.Redis, cfg.Queue.Queue = 2, 3, 3
	cfg.Celery.On = true
	for k := 0; k < cfg.Queue.Workers; k++ {
		cfg.Queue.WorkerNodes = append(cfg.Queue.WorkerNodes, 4+sim.NodeID(k))
	}
	cfg.NotBefore = start
	require.NoError(t, cfg.Validate())
	w.cfg = &cfg
	for i := 0; i < 2; i++ {
		w.beats = append(w.beats, s.AddFreshNode(nodeName(i), func() sim.Node { return cron.NewBeat(w.cfg) }))
	}
	_, w.res = cron.AddResource(s, "resource", cfg.Jobs, cfg.Policy)
	_, w.redis = cron.AddRedis(s, "redis", w.cfg)
	for k := 0; k < cfg.Queue.Workers; k++ {
		w.workers = append(w.workers, s.AddFreshNode("w"+string(rune('1'+k)), func() sim.Node { return cron.NewWorker(w.cfg) }))
	}
	return w
}

// ccfg is a Celery configuration of the given crontab jobs (10 s runs).
func ccfg(workers int, schedules ...string) cron.Config {
	var jobs cron.Table
	for i, s := range schedules {
		jobs = append(jobs, cron.Job{Name: []string{"report", "cleanup", "export"}[i], Schedule: s, RunMin: 10 * time.Second, RunMax: 10 * time.Second})
	}
	return cron.Config{Jobs: jobs, Queue: cron.QueueConfig{Workers: workers}}
}

// sent lists the beat.sent effects: who published which job's slot, when.
type sentTask struct {
	node sim.NodeID
	at   sim.Time
	job  int
	slot time.Time
}

func (w *cworld) sent() []sentTask {
	var out []sentTask
	for _, r := range w.rec.Records {
		if r.Type == sim.RecEffect && r.Name == "beat.sent" {
			out = append(out, sentTask{r.Node, r.At, int(r.C), time.Unix(0, r.B).UTC()})
		}
	}
	return out
}

// firstLead is when node first acted as leader (sim.Never: not at all).
func (w *cworld) firstLead(node sim.NodeID) sim.Time {
	for _, r := range w.rec.Records {
		if r.Type == sim.RecLead && r.Node == node {
			return r.At
		}
	}
	return sim.Never
}

func wall(h, m, s int) time.Time { return time.Date(2026, 11, 21, h, m, s, 0, time.UTC) }

func sinceStart(t time.Time) sim.Time { return sim.Time(t.Sub(start)) }

// TestRedBeatStandbyWaitsForLockTimeoutThenPolls: acquire_distributed_beat_lock
// builds redis_client.lock(timeout=lock_timeout, sleep=max_interval) and
// Lock.acquire (redis-py lock.py) tries SET NX PX, then sleeps `sleep`, forever;
// RedBeatScheduler.__init__ defaults lock_timeout to max_interval * 5 and
// Celery's DEFAULT_MAX_INTERVAL is 300 s. Killed at 02:07:30, the holder last
// extended at its 02:05 tick: the lock lives to 02:30:00, and the standby,
// polling every 300 s since boot (01:59), takes it at 02:34:00.
func TestRedBeatStandbyWaitsForLockTimeoutThenPolls(t *testing.T) {
	w := newCWorld(t, 1, ccfg(2, "*/5 * * * *"))
	require.Equal(t, 300*time.Second, w.cfg.Celery.MaxInterval)
	require.Equal(t, 1500*time.Second, w.cfg.Celery.LockTimeout)
	w.s.At(sinceStart(wall(2, 7, 30)), func() { w.s.Crash(w.beats[0]) })
	w.s.RunUntil(sinceStart(wall(2, 50, 0)))
	require.Equal(t, sim.Time(0), w.firstLead(w.beats[0])/sim.Time(time.Second))
	got := w.firstLead(w.beats[1])
	assert.InDelta(t, float64(sinceStart(wall(2, 34, 0))), float64(got), float64(time.Second), "standby took the lock at %v", got)
	// Must not: the standby leads while the dead holder's lock is still valid.
	assert.Greater(t, got, sinceStart(wall(2, 30, 0)))
}

// TestRedBeatCatchUpFiresOnce: crontab.is_due (celery/schedules.py) is due
// when remaining_estimate(last_run_at) has passed and returns one (True,
// next) — every slot missed since last_run_at is one task; _next_instance
// saves last_run_at = now. The standby's first tick at 02:34 publishes
// one task (the model names it 02:30); 02:10..02:25 are never published,
// and no slot is published twice.
func TestRedBeatCatchUpFiresOnce(t *testing.T) {
	w := newCWorld(t, 2, ccfg(2, "*/5 * * * *"))
	w.s.At(sinceStart(wall(2, 7, 30)), func() { w.s.Crash(w.beats[0]) })
	w.s.RunUntil(sinceStart(wall(2, 50, 0)))
	bySlot := map[time.Time]int{}
	for _, s := range w.sent() {
		bySlot[s.slot]++
		if s.node == w.beats[1] && s.slot.Equal(wall(2, 30, 0)) {
			assert.InDelta(t, float64(sinceStart(wall(2, 34, 0))), float64(s.at), float64(time.Second), "the catch-up fires at takeover")
		}
	}
	for _, m := range []int{10, 15, 20, 25} {
		assert.Zero(t, bySlot[wall(2, m, 0)], "02:%d is lost", m)
	}
	for slot, n := range bySlot {
		assert.Equal(t, 1, n, "%v published once", slot) // must not: two tasks for one slot
	}
	assert.Equal(t, 1, bySlot[wall(2, 30, 0)])
	assert.Equal(t, 1, bySlot[wall(2, 45, 0)])
}

// TestRedBeatPausedMidTickFiresBesideTheStandby: RedBeatScheduler.tick
// extends the lock once, at its start, then runs maybe_due →
// apply_async over the entries it loaded (reserve, then send) with no
// further lock check; _next_instance's HSET is unconditional. Paused 9 ms
// into its 02:00 tick (after loading both entries, while report's reserve
// is in flight) for 31 min, the beat resumes at 02:31 after the standby
// took over at 02:29, and finishes the tick on its stale entries:
// cleanup is due again and goes out for 02:30, which the standby already
// sent. Must-refute variant: paused 0.5 s before the tick, the resumed
// beat's first act is tick()'s extend, which raises LockNotOwnedError —
// it exits and sends nothing more, and no slot goes out twice.
func TestRedBeatPausedMidTickFiresBesideTheStandby(t *testing.T) {
	run := func(pauseAt sim.Time) *cworld {
		w := newCWorld(t, 3, ccfg(2, "*/5 * * * *", "*/5 * * * *"))
		w.s.At(pauseAt, func() { w.s.Pause(w.beats[0]) })
		w.s.At(pauseAt+sim.Time(31*time.Minute), func() { w.s.Resume(w.beats[0]) })
		w.s.RunUntil(sinceStart(wall(2, 40, 0)))
		return w
	}
	dup := func(w *cworld) (twice []sentTask, afterResume int, resume sim.Time) {
		seen := map[[2]int64]bool{}
		for _, r := range w.rec.Records {
			if r.Type == sim.RecResume {
				resume = r.At
			}
		}
		for _, s := range w.sent() {
			k := [2]int64{int64(s.job), s.slot.UnixNano()}
			if seen[k] {
				twice = append(twice, s)
			}
			seen[k] = true
			if s.node == w.beats[0] && s.at >= resume {
				afterResume++
			}
		}
		return twice, afterResume, resume
	}
	w := run(sinceStart(wall(2, 0, 0)) + sim.Time(9*time.Millisecond))
	twice, after, _ := dup(w)
	require.Len(t, twice, 1)
	assert.Equal(t, 1, twice[0].job, "cleanup")
	assert.Equal(t, wall(2, 30, 0), twice[0].slot)
	assert.Equal(t, 2, after, "report's 02:00 and cleanup's stale fire")

	w = run(sinceStart(wall(2, 0, 0)) - sim.Time(500*time.Millisecond))
	twice, after, _ = dup(w)
	assert.Empty(t, twice)
	assert.Zero(t, after)
	exited := 0
	for _, r := range w.rec.Records {
		if r.Type == sim.RecEffect && r.Name == "beat.exited" && r.Node == w.beats[0] {
			exited++
		}
	}
	assert.Equal(t, 1, exited, "LockNotOwnedError ends the beat process")
}

// TestRedBeatSupervisorRestart: the exception leaves Service.start (it
// catches only KeyboardInterrupt and SystemExit); Celery does not restart
// itself. With restart always the process comes back as a standby
// (acquire again) RestartAfter later; with never it sends nothing again.
func TestRedBeatSupervisorRestart(t *testing.T) {
	for _, restart := range []string{cron.CeleryRestartAlways, cron.CeleryRestartNever} {
		cfg := ccfg(1, "*/5 * * * *")
		cfg.Celery.Restart = restart
		w := newCWorld(t, 4, cfg)
		pause := sinceStart(wall(2, 0, 0)) - sim.Time(500*time.Millisecond)
		w.s.At(pause, func() { w.s.Pause(w.beats[0]) })
		w.s.At(pause+sim.Time(31*time.Minute), func() { w.s.Resume(w.beats[0]) })
		w.s.RunUntil(sinceStart(wall(2, 50, 0)))
		var exitAt sim.Time = sim.Never
		acquiresAfter := 0
		for _, r := range w.rec.Records {
			if r.Type == sim.RecEffect && r.Name == "beat.exited" && r.Node == w.beats[0] {
				exitAt = r.At
			}
			if r.Type == sim.RecDeliver && r.Kind == cron.KindRBAcquire && r.Peer == w.beats[0] && exitAt != sim.Never && r.At > exitAt {
				acquiresAfter++
			}
		}
		require.NotEqual(t, sim.Never, exitAt, restart)
		if restart == cron.CeleryRestartAlways {
			assert.Positive(t, acquiresAfter, "restarted as a standby")
		} else {
			assert.Zero(t, acquiresAfter, "stays down")
		}
		leading, _, _ := w.s.Leading(w.beats[0])
		assert.False(t, leading)
	}
}

// TestRedBeatTakeoverBoundProperty: for any kill time and max interval,
// the standby leads no earlier than the holder's last extend plus
// lock_timeout (it must refute a takeover while the lock is valid) and no
// later than one acquire sleep after that.
func TestRedBeatTakeoverBoundProperty(t *testing.T) {
	if raceEnabled {
		t.Skip("sequential; the plain run checks it (race_on_test.go)")
	}
	rapid.Check(t, func(rt *rapid.T) {
		maxIv := time.Duration(rapid.IntRange(10, 300).Draw(rt, "max_interval_s")) * time.Second
		kill := sim.Time(time.Duration(rapid.IntRange(2*60, 20*60).Draw(rt, "kill_s")) * time.Second)
		cfg := ccfg(1, "* * * * *")
		cfg.Celery.MaxInterval = maxIv
		w := newCWorld(rt, 5, cfg)
		w.s.At(kill, func() { w.s.Crash(w.beats[0]) })
		w.s.RunUntil(kill + sim.Time(5*maxIv+maxIv+time.Minute))
		var lastExtend sim.Time
		for _, r := range w.rec.Records {
			if r.Type == sim.RecDeliver && r.Kind == cron.KindRBExtend && r.Peer == w.beats[0] && r.At <= kill {
				lastExtend = r.At
			}
		}
		got := w.firstLead(w.beats[1])
		lo := lastExtend + sim.Time(5*maxIv)
		if got < lo || got > lo+sim.Time(maxIv+time.Second) {
			rt.Fatalf("standby led at %v; lock valid until about %v, poll %v", got, lo, maxIv)
		}
	})
}

// TestKombuVisibilityTimeoutRedeliversLongTask: kombu's Redis transport
// keeps a delivered, unacked message in the unacked set with its delivery
// time (QoS.append) and restore_visible puts it back once it is older than
// visibility_timeout (Channel.visibility_timeout = 3600). With acks_late a
// 65-minute task is delivered again at +1 h and a second worker runs it;
// a 55-minute task is not (must-refute); with acks early (task_acks_late
// False, the default) the message is acknowledged on receipt and never
// redelivered. The first worker's ack (by delivery tag) then removes the
// task: no third run.
func TestKombuVisibilityTimeoutRedeliversLongTask(t *testing.T) {
	if raceEnabled {
		t.Skip("sequential; the plain run checks it (race_on_test.go)")
	}
	starts := func(d time.Duration, ack string) map[sim.NodeID]int {
		cfg := ccfg(3, "0 2 * * *")
		cfg.Jobs[0].RunMin, cfg.Jobs[0].RunMax = d, d
		cfg.Queue.Ack = ack
		w := newCWorld(t, 6, cfg)
		require.Equal(t, time.Hour, w.cfg.Queue.VisibilityTimeout)
		w.s.RunUntil(sinceStart(wall(5, 30, 0)))
		out := map[sim.NodeID]int{}
		for _, r := range w.rec.Records {
			if r.Type == sim.RecEffect && r.Fact == sim.FactExecStarted {
				out[r.Node]++
			}
		}
		return out
	}
	got := starts(65*time.Minute, cron.AckLate)
	assert.Len(t, got, 2, "two workers ran it: %v", got)
	total := 0
	for _, n := range got {
		total += n
	}
	assert.Equal(t, 2, total, "the first worker's ack removed it: no third run")
	for _, tc := range []struct {
		d   time.Duration
		ack string
	}{{55 * time.Minute, cron.AckLate}, {65 * time.Minute, cron.AckEarly}} {
		got := starts(tc.d, tc.ack)
		assert.Len(t, got, 1, "%v %s", tc.d, tc.ack)
	}
}

// TestCelerySchedulesAreCrontabs: Celery's crontab has minute resolution;
// an @every is schedule(run_every), accepted since issue 36.
func TestCelerySchedulesAreCrontabs(t *testing.T) {
	for _, ok := range []string{"*/5 * * * *", "0 2 * * *", "@hourly", "CRON_TZ=Europe/Paris 0 2 * * *", "@every 1m", "@every 90s"} {
		assert.NoError(t, cron.CelerySchedule(ok), ok)
	}
	for _, bad := range []string{"*/10 * * * * *"} {
		assert.Error(t, cron.CelerySchedule(bad), bad)
	}
}

// TestRedBeatLockShorterThanSleepExitsEveryTick: redis-py's Lock.__init__
// (redis/lock.py, 8.0.0) takes any sleep — its "'sleep' must be less than
// 'timeout'" check left in 3.5.0 — so acquire_distributed_beat_lock builds
// a lock of lock_timeout 60 s with sleep max_interval 300 s and the beat
// runs. Service.start sleeps what RedBeatScheduler.tick returned (up to
// max_interval); the lock lapses during any sleep longer than 60 s, the
// next tick's extend (LUA_EXTEND_TO_SCRIPT) finds the key gone and
// Lock.do_extend raises LockNotOwnedError: the beat exits before it looks
// at the schedule, and the slot goes out only once a restarted beat holds
// the lock, restart_after (10 s) late. Each slot still goes out once.
// Must-refute twin: with the default lock_timeout (5 × max_interval) no
// beat exits and every slot goes out on time.
func TestRedBeatLockShorterThanSleepExitsEveryTick(t *testing.T) {
	run := func(lock time.Duration) (exits int, sent []sentTask) {
		cfg := ccfg(1, "*/5 * * * *")
		cfg.Celery.LockTimeout = lock
		w := newCWorld(t, 7, cfg)
		require.Equal(t, 300*time.Second, w.cfg.Celery.MaxInterval)
		w.s.RunUntil(sinceStart(wall(2, 31, 0)))
		for _, r := range w.rec.Records {
			if r.Type == sim.RecEffect && r.Name == "beat.exited" {
				exits++
			}
		}
		return exits, w.sent()
	}
	exits, sent := run(60 * time.Second)
	require.Len(t, sent, 7, "02:00 .. 02:30, once each")
	assert.GreaterOrEqual(t, exits, 5, "the ticks after a sleep the lock did not survive")
	late := 0
	for i, s := range sent {
		t.Logf("%v at +%v by node %d", s.slot.Format("15:04"), time.Duration(s.at-sinceStart(s.slot)), s.node)
		assert.Equal(t, wall(2, 5*i, 0), s.slot)
		d := time.Duration(s.at - sinceStart(s.slot))
		if d >= 10*time.Second {
			late++
			assert.Less(t, d, 11*time.Second, "%v: one restart late", s.slot)
		}
	}
	assert.GreaterOrEqual(t, late, 5, "slots that went out only after the supervisor's restart")
	exits, sent = run(0)
	assert.Zero(t, exits)
	require.Len(t, sent, 7)
	for _, s := range sent {
		assert.Less(t, time.Duration(s.at-sinceStart(s.slot)), time.Second, "%v on time", s.slot)
	}
}

// TestRedBeatVolatileRestartResavesWithNow: a Redis restart without
// persistence loses the lock and every entry's hash. The holder's next
// tick raises LockNotOwnedError and the beat exits; restarted, its
// setup_schedule → update_from_dict finds no entry (from_key raises
// KeyError), builds one from the configuration — celery/beat.py
// ScheduleEntry.__init__ sets last_run_at = last_run_at or default_now()
// — and RedBeatSchedulerEntry.save writes that now with HSETNX meta. So
// the slot that fell during the outage (02:10, whose tick found no lock)
// is never run, and 02:15 goes out on time. Must-refute twin: with
// durable Redis the outage loses nothing and 02:10 goes out on time.
func TestRedBeatVolatileRestartResavesWithNow(t *testing.T) {
	run := func(durable bool) map[time.Time][]sentTask {
		cfg := ccfg(1, "*/5 * * * *")
		cfg.Queue.Durable = durable
		w := newCWorld(t, 8, cfg)
		w.s.At(sinceStart(wall(2, 6, 0)), func() { w.s.Crash(w.cfg.Celery.Redis) })
		w.s.At(sinceStart(wall(2, 8, 0)), func() { w.s.Restart(w.cfg.Celery.Redis, durable) })
		w.s.RunUntil(sinceStart(wall(2, 26, 0)))
		out := map[time.Time][]sentTask{}
		for _, s := range w.sent() {
			out[s.slot] = append(out[s.slot], s)
		}
		return out
	}
	lost := run(false)
	assert.Empty(t, lost[wall(2, 10, 0)], "02:10 is never run: the re-saved entry's last_run_at is the restarted beat's now")
	for _, m := range []int{15, 20, 25} {
		slot := wall(2, m, 0)
		require.Len(t, lost[slot], 1, "%v once", slot)
		assert.Less(t, time.Duration(lost[slot][0].at-sinceStart(slot)), time.Second, "%v on time", slot)
	}
	kept := run(true)
	require.Len(t, kept[wall(2, 10, 0)], 1)
	assert.Less(t, time.Duration(kept[wall(2, 10, 0)][0].at-sinceStart(wall(2, 10, 0))), time.Second)
}

// TestRedBeatRestartBackoffIsCrashLoop: under Kubernetes the beat's
// supervisor is the kubelet, whose CrashLoopBackOff (flowcontrol.Backoff
// .Next; MaxContainerBackOff 300 s in pkg/kubelet/kubelet.go) doubles the
// restart delay at each exit up to 5 minutes while the container never
// runs 2 × 300 s in a row. One beat with a lock shorter than its sleep
// (lock_timeout 60 s) exits at nearly every tick: restarts after 10, 20,
// 40, 80, 160, 300, 300 s, and the slots the longer delays span are never
// run. Must-refute twin: a fixed restart_after restarts after 10 s every
// time and no slot is lost.
func TestRedBeatRestartBackoffIsCrashLoop(t *testing.T) {
	run := func(backoff bool) (gaps []time.Duration, slots int) {
		cfg := ccfg(1, "*/5 * * * *")
		cfg.Celery.LockTimeout, cfg.Celery.RestartBackoff = 60*time.Second, backoff
		w := newCWorld(t, 9, cfg)
		w.s.At(0, func() { w.s.Crash(w.beats[1]) }) // one beat: its own restarts alone
		w.s.RunUntil(sinceStart(wall(3, 31, 0)))
		var exitAt sim.Time = -1
		for _, r := range w.rec.Records {
			if r.Type == sim.RecEffect && r.Name == "beat.exited" && r.Node == w.beats[0] {
				exitAt = r.At
			}
			if r.Type == sim.RecDeliver && r.Kind == cron.KindRBSetup && r.Peer == w.beats[0] && exitAt >= 0 {
				gaps = append(gaps, time.Duration(r.At-exitAt).Round(time.Second))
				exitAt = -1
			}
		}
		return gaps, len(w.sent())
	}
	gaps, crashLoop := run(true)
	require.GreaterOrEqual(t, len(gaps), 7)
	assert.Equal(t, []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second, 300 * time.Second, 300 * time.Second}, gaps[:7])
	gaps, fixed := run(false)
	for _, g := range gaps {
		assert.Equal(t, 10*time.Second, g)
	}
	assert.Equal(t, 19, fixed, "02:00 .. 03:30, every slot once, each restart_after late")
	assert.Less(t, crashLoop, fixed, "the crash loop's longer delays span slots that never run")
	t.Logf("slots sent: %d with the crash loop, %d with a fixed delay", crashLoop, fixed)
}
