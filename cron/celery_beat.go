package cron

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/sim"
)

// Timer tags of Celery mode, relative to Config.TagBase, above queue mode's.
const (
	tagCelery       = 9 << 20
	tagBeatSleep    = tagCelery + 0 // Service.start's time.sleep, or the lock's acquire sleep
	tagBeatCall     = tagCelery + 1 // the outstanding Redis call's timeout
	tagBeatRestart  = tagCelery + 2 // the supervisor's restart of an exited beat
	beatAcquiring   = 0
	beatRunning     = 1
	beatExited      = 2
	stepNone        = 0
	stepSetup       = 1
	stepAcquire     = 2
	stepExtend      = 3
	stepLoad        = 4
	stepFromKey     = 5
	stepReserve     = 6
	stepPublish     = 7
	maxBeatEntries  = 1 << 20
	slotSearchFloor = 400 * 24 * time.Hour
)

// BeatStats count what one beat process did, for reports.
type BeatStats struct {
	// Ticks is how many ticks extended the lock; Sent how many tasks it
	// published; Exits how many times the process exited.
	Ticks, Sent, Exits int
}

// beatEntry is a schedule entry a tick loaded: its job and last_run_at.
type beatEntry struct {
	job       int
	lastRunAt int64
}

// Beat is a Celery beat process with RedBeat's scheduler, on a candidate
// node, on its own clocks (sibson/redbeat redbeat/schedulers.py 2.4.3;
// celery/beat.py 5.6.2):
//
//   - At start, setup_schedule saves the static entries (HSETNX meta), then
//     the beat_init handler acquire_distributed_beat_lock takes the lock
//     with redis-py's blocking Lock.acquire: SET NX PX lock_timeout, and
//     on failure time.sleep(max_interval) and again, forever.
//   - Holding it, Service.start loops: tick(), then sleep what tick
//     returned. RedBeatScheduler.tick first extends the lock to
//     lock_timeout (LUA_EXTEND_TO_SCRIPT); a lost lock raises
//     LockNotOwnedError, which nothing catches: the beat exits.
//   - The tick reads the schedule from Redis (ZRANGEBYSCORE, then
//     from_key per entry), and for every due entry reserves it
//     (_next_instance: HSET meta last_run_at = now, no lock check) and
//     then publishes the task (apply_async) — one Redis round trip each,
//     in that order. It sleeps min(remaining times, max_interval).
//   - An entry is due when crontab.is_due(last_run_at) says so: the
//     schedule's next time after last_run_at has passed. All the slots
//     missed since last_run_at fire as one task (the model names it by
//     the latest of them); the others are never run.
//
// A beat that exited is started again by its supervisor after
// RestartAfter (CeleryRestartAlways) or stays down.
type Beat struct {
	cfg     *Config
	env     sim.Env
	phase   int
	token   int64 // the lock's value (redis-py: uuid1().hex)
	fence   int64 // the lock acquisition count Redis gave (fencing, an application addition)
	leading bool
	req     int64
	step    int
	sleep   sim.TimerID
	call    sim.TimerID
	slept   bool
	calling bool
	// the tick in progress
	load   []int
	loaded []beatEntry
	cursor int
	remain time.Duration
	fire   QueueMsg
	fireAt int64
	Stats  BeatStats
	// The supervisor's crash-loop back-off (RestartBackoff): its current
	// delay and when (monotonic) it last restarted the beat. Kept across
	// the beat's own exits, lost with the node.
	backoff     time.Duration
	restartedAt time.Duration
}

// NewBeat returns a beat for the validated cfg.
func NewBeat(cfg *Config) *Beat { return &Beat{cfg: cfg} }

// Start implements sim.Node: a (re)started process saves the schedule and
// blocks on the lock.
func (b *Beat) Start(env sim.Env, _ []byte) {
	*b = Beat{cfg: b.cfg, env: env}
	b.boot()
}

func (b *Beat) boot() {
	b.phase, b.step = beatAcquiring, stepNone
	b.token = int64(b.env.Rand().Uint64() >> 1)
	// setup_schedule's new entries take this beat's now as last_run_at
	// (celery/beat.py ScheduleEntry.__init__: last_run_at or default_now()).
	b.send(stepSetup, sim.Message{Kind: KindRBSetup, Index: b.env.WallNanos()})
}

// send makes a Redis call and arms its timeout.
func (b *Beat) send(step int, m sim.Message) {
	b.req++
	b.step = step
	m.To, m.B = b.cfg.Celery.Redis, b.req
	b.env.Send(m)
	if b.calling {
		b.env.CancelTimer(b.call)
	}
	b.call, b.calling = b.env.SetTimer(b.cfg.Celery.RedisTimeout, b.cfg.TagBase+tagBeatCall), true
}

// OnMessage implements sim.Node.
func (b *Beat) OnMessage(m sim.Message) {
	if b.phase == beatExited || m.B != b.req || b.step == stepNone {
		return // a late reply to a call this process gave up on
	}
	if m.Kind != KindRBResp && m.Kind != KindEnqueueResp {
		return
	}
	if b.calling {
		b.env.CancelTimer(b.call)
		b.calling = false
	}
	step := b.step
	b.step = stepNone
	switch step {
	case stepSetup:
		b.acquire()
	case stepAcquire:
		b.acquired(m)
	case stepExtend:
		if !m.Flag && !b.cfg.zoo.beatIgnoresLockLoss {
			b.exit("LockNotOwnedError: Cannot extend a lock that's no longer owned")
			return
		}
		b.Stats.Ticks++
		b.cfg.reached(b.env, StBeatLockExtended, b.fence)
		b.send(stepLoad, sim.Message{Kind: KindRBLoad})
	case stepLoad:
		jobs, _ := m.Body.([]int)
		if len(jobs) > maxBeatEntries {
			jobs = jobs[:maxBeatEntries]
		}
		b.load, b.loaded, b.cursor = append(b.load[:0], jobs...), b.loaded[:0], 0
		b.fromKey()
	case stepFromKey:
		if m.Flag {
			b.loaded = append(b.loaded, beatEntry{job: b.load[b.cursor], lastRunAt: m.Index})
		} else {
			// from_key raised KeyError: RedBeat logs an error and ZREMs
			// the key; the entry is not scheduled until a restart saves it.
			b.env.Effect(sim.Effect{Name: "redbeat.entry_missing", C: int64(b.load[b.cursor]),
				Detail: fmt.Sprintf("%s: its hash is gone; removed from the schedule", b.cfg.Jobs[b.load[b.cursor]].Name)})
		}
		b.cursor++
		b.fromKey()
	case stepReserve:
		b.cfg.reached(b.env, StBeatTaskReserved, b.fire.Slot)
		b.send(stepPublish, sim.Message{Kind: KindEnqueue, A: b.fire.Exec, Body: &QueueMsg{ExecTicket: b.fire.ExecTicket}})
	case stepPublish:
		b.Stats.Sent++
		b.env.Effect(sim.Effect{Name: "beat.sent",
			Detail: fmt.Sprintf("Scheduler: Sending due task %s (task %x, token %d)", SlotName(b.cfg.Jobs[b.fire.Job].Name, b.fire.Slot), b.fire.Exec, b.fire.Token),
			A:      b.fire.Exec, B: b.fire.Slot, C: int64(b.fire.Job)})
		b.cfg.reached(b.env, StBeatTaskPublished, b.fire.Slot)
		b.cursor++
		b.evaluate()
	}
}

// acquire is one try of redis-py's Lock.do_acquire.
func (b *Beat) acquire() {
	b.send(stepAcquire, sim.Message{Kind: KindRBAcquire, A: b.token})
}

func (b *Beat) acquired(m sim.Message) {
	if !m.Flag {
		// Lock.acquire: blocking, no blocking_timeout: sleep and try again.
		b.arm(b.cfg.Celery.MaxInterval)
		return
	}
	b.phase, b.fence, b.leading = beatRunning, m.Term, true
	b.env.ActAsLeader(b.fence, b.fence)
	b.env.Effect(sim.Effect{Name: "redbeat.acquired", A: b.fence, Detail: fmt.Sprintf("beat: Acquired lock (acquisition %d)", b.fence)})
	b.cfg.reached(b.env, StBeatLockAcquired, b.fence)
	b.tick()
}

// tick begins RedBeatScheduler.tick: extend the lock first.
func (b *Beat) tick() {
	if b.cfg.zoo.beatSkipsExtend {
		// PlantBeatSkipsExtend: straight to loading the schedule.
		b.Stats.Ticks++
		b.cfg.reached(b.env, StBeatTick, b.fence)
		b.send(stepLoad, sim.Message{Kind: KindRBLoad})
		return
	}
	b.send(stepExtend, sim.Message{Kind: KindRBExtend, A: b.token})
	b.cfg.reached(b.env, StBeatTick, b.fence)
}

// fromKey loads the next entry, or evaluates the loaded ones.
func (b *Beat) fromKey() {
	if b.cursor < len(b.load) {
		b.send(stepFromKey, sim.Message{Kind: KindRBFromKey, A: int64(b.load[b.cursor])})
		return
	}
	b.cursor, b.remain = 0, b.cfg.Celery.MaxInterval
	b.evaluate()
}

// evaluate runs maybe_due over the loaded entries from the cursor on; a
// due one is reserved and published before the next is looked at.
func (b *Beat) evaluate() {
	for ; b.cursor < len(b.loaded); b.cursor++ {
		e := b.loaded[b.cursor]
		sched := b.cfg.Jobs[e.job].Sched()
		now := b.env.WallNanos()
		nowT := time.Unix(0, now).UTC()
		every, interval := IntervalOf(sched)
		due := e.lastRunAt == 0
		if !due {
			next := sched.Next(time.Unix(0, e.lastRunAt).UTC())
			if interval {
				// schedule.remaining_estimate: last_run_at + run_every - now
				// (celery/utils/time.py remaining, relative=False).
				next = time.Unix(0, e.lastRunAt+int64(every)).UTC()
			}
			if next.IsZero() {
				continue // no more events: not due, no time to wake for
			}
			if next.UnixNano() > now {
				b.remain = min(b.remain, time.Duration(next.UnixNano()-now))
				continue
			}
			due = true
		}
		if interval {
			// schedule.is_due: (True, self.seconds) — check again one
			// interval after this fire.
			b.remain = min(b.remain, every)
		} else if n := sched.Next(nowT); !n.IsZero() {
			b.remain = min(b.remain, time.Duration(n.UnixNano()-now))
		}
		slot := latestSlot(sched, e.lastRunAt, now)
		b.fire = QueueMsg{ExecTicket: ExecTicket{Exec: int64(b.env.Rand().Uint64() >> 1), Job: e.job, Slot: slot, Token: b.fence, Attempt: 1}}
		b.fireAt = now
		b.send(stepReserve, sim.Message{Kind: KindRBReserve, A: int64(e.job), Index: now})
		return
	}
	b.arm(max(b.remain, time.Millisecond))
}

// latestSlot names a fire at wall time now of an entry last run at
// lastRunAt: the latest slot of s at or before now (the one the fire
// stands for; the earlier missed ones are never run), or now itself if
// none is found after lastRunAt.
func latestSlot(s Schedule, lastRunAt, now int64) int64 {
	floor := lastRunAt
	if floor == 0 || now-floor > int64(slotSearchFloor) {
		floor = now - int64(slotSearchFloor)
	}
	for back := int64(time.Minute); ; back *= 2 {
		from := max(now-back, floor)
		t := s.Next(time.Unix(0, from).UTC())
		if !t.IsZero() && t.UnixNano() <= now {
			for {
				n := s.Next(t)
				if n.IsZero() || n.UnixNano() > now {
					return t.UnixNano()
				}
				t = n
			}
		}
		if from == floor {
			return now
		}
	}
}

// arm sleeps d (Service.start's time.sleep, or the lock's acquire sleep).
func (b *Beat) arm(d time.Duration) {
	if b.slept {
		b.env.CancelTimer(b.sleep)
	}
	b.sleep, b.slept = b.env.SetTimer(d, b.cfg.TagBase+tagBeatSleep), true
}

// exit ends the beat process: the exception propagates out of
// Service.start (it catches only KeyboardInterrupt and SystemExit);
// scheduler.close releases the lock only if lock.owned(), which it is not.
func (b *Beat) exit(why string) {
	b.phase, b.step = beatExited, stepNone
	b.Stats.Exits++
	for _, t := range []struct {
		on *bool
		id sim.TimerID
	}{{&b.slept, b.sleep}, {&b.calling, b.call}} {
		if *t.on {
			b.env.CancelTimer(t.id)
			*t.on = false
		}
	}
	if b.leading {
		b.leading = false
		b.env.StopLeading(why)
	}
	restart := ""
	if b.cfg.Celery.Restart == CeleryRestartAlways {
		d := b.restartDelay()
		restart = fmt.Sprintf("; the supervisor restarts it in %v", d)
		b.env.SetTimer(d, b.cfg.TagBase+tagBeatRestart)
	}
	b.env.Effect(sim.Effect{Name: "beat.exited", Detail: "beat raised " + why + restart})
}

// restartDelay is how long the supervisor waits before starting the beat
// again: RestartAfter, or with RestartBackoff the kubelet's
// CrashLoopBackOff (flowcontrol.Backoff.Next): RestartAfter at the first
// exit and after a run of more than 2 × MaxRestartBackoff since the last
// restart (hasExpired), else twice the previous delay, at most
// MaxRestartBackoff. Pessimistic: the kubelet may restart a first crash
// at once; the model always waits RestartAfter.
func (b *Beat) restartDelay() time.Duration {
	c := &b.cfg.Celery
	if !c.RestartBackoff {
		return c.RestartAfter
	}
	now := b.env.Now()
	if b.backoff == 0 || time.Duration(now)-b.restartedAt > 2*MaxRestartBackoff {
		b.backoff = c.RestartAfter
	} else {
		b.backoff = min(2*b.backoff, max(MaxRestartBackoff, c.RestartAfter))
	}
	b.restartedAt = time.Duration(now) + b.backoff
	return b.backoff
}

// OnTimer implements sim.Node.
func (b *Beat) OnTimer(id sim.TimerID, tag int) {
	switch tag - b.cfg.TagBase {
	case tagBeatSleep:
		b.slept = false
		switch b.phase {
		case beatAcquiring:
			b.acquire()
		case beatRunning:
			b.tick()
		}
	case tagBeatCall:
		b.calling = false
		if b.phase != beatExited && b.step != stepNone {
			b.exit(fmt.Sprintf("ConnectionError: no reply from Redis within %v", b.cfg.Celery.RedisTimeout))
		}
	case tagBeatRestart:
		if b.phase == beatExited {
			b.boot()
		}
	}
}

// Leading reports whether the beat holds the lock as far as it knows.
func (b *Beat) Leading() bool { return b.leading }

// TimerName implements sim.TimerNamer.
func (b *Beat) TimerName(tag int) string {
	switch tag - b.cfg.TagBase {
	case tagBeatSleep:
		return "beat.sleep"
	case tagBeatCall:
		return "beat.redis_timeout"
	case tagBeatRestart:
		return "beat.restart"
	}
	return fmt.Sprintf("beat.%d", tag)
}
