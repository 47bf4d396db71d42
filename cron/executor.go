package cron

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/sim"
)

// Timer tags relative to Config.TagBase.
const (
	tagSlot  = 0       // + job index: the job's next slot is due
	tagRun   = 1 << 20 // + run index: the run's next write is due
	tagRetry = 2 << 20 // + pending-write index: an unacknowledged write timed out
)

type jobState struct {
	next  int64 // wall Unix ns of the job's next slot; 0 = none left
	timer sim.TimerID
	armed bool
}

// sentWrite is a write awaiting the resource's acknowledgement.
type sentWrite struct {
	live  bool
	msg   sim.Message
	timer sim.TimerID
	tries int
}

// deferredSlot is a slot a tenure's recovery left alone because this node's
// own run of it was still in doubt (inDoubt); once it is not, the tenure
// asks the resource about the slot again (executor.settleDoubts).
type deferredSlot struct {
	job    int
	slot   int64
	tenure int64
}

type run struct {
	active   bool
	id       int64
	job      int
	slot     int64
	fire     int64 // the scheduled fire time the job sees (== slot unless a Quartz catch-up run)
	token    int64
	startMon time.Duration
	dur      time.Duration
	sent     int
	timer    sim.TimerID
	claiming bool
}

// executor is the per-node cron machinery shared by both modes: it evaluates
// schedules on the node's wall clock, runs jobs and sends their writes.
type executor struct {
	cfg      *Config
	env      sim.Env
	jobs     []jobState
	runs     []run
	started  []slotKey // slots this incarnation has run, to never run one twice itself
	leading  bool
	token    int64
	tenure   int64 // bumped on every leadership change; stale query answers are ignored
	lastRun  int64
	unacked  []sentWrite
	deferred []deferredSlot // slots recovery left alone while this node's own run was in doubt
	onDue    func(job int, slot int64, late time.Duration, last bool)
	onFinish func(r *run)
}

func (e *executor) start(cfg *Config, env sim.Env) {
	e.cfg, e.env = cfg, env
	e.jobs = make([]jobState, len(cfg.Jobs))
	now := time.Unix(0, env.WallNanos()).UTC()
	for j := range cfg.Jobs {
		if n := cfg.Jobs[j].sched.Next(now); !n.IsZero() {
			e.jobs[j].next = n.UnixNano()
		}
		e.arm(j)
	}
}

// rearmFromNow points every job's schedule at its first slot after the wall
// clock's current reading and re-arms the slot timers.
func (e *executor) rearmFromNow() {
	for j := range e.jobs {
		e.rearmJobFromNow(j)
	}
}

// rearmJobFromNow points job j's schedule at its first slot after the
// wall clock's current reading and re-arms its slot timer.
func (e *executor) rearmJobFromNow(j int) {
	now := time.Unix(0, e.env.WallNanos()).UTC()
	js := &e.jobs[j]
	js.next = 0
	if n := e.cfg.Jobs[j].sched.Next(now); !n.IsZero() {
		js.next = n.UnixNano()
	}
	if js.next == 0 && js.armed {
		e.env.CancelTimer(js.timer)
		js.armed = false
	}
	e.arm(j)
}

// arm sets the job's slot timer for its next slot, as measured now on the
// wall clock, capped at PollInterval.
func (e *executor) arm(j int) {
	js := &e.jobs[j]
	if js.next == 0 {
		return
	}
	d := time.Duration(js.next - e.env.WallNanos())
	if d < 0 {
		d = 0
	}
	if d > e.cfg.PollInterval {
		d = e.cfg.PollInterval
	}
	if js.armed {
		e.env.ResetTimer(js.timer, d)
		return
	}
	js.timer = e.env.SetTimer(d, e.cfg.TagBase+tagSlot+j)
	js.armed = true
}

func (e *executor) onTimer(id sim.TimerID, tag int) {
	rel := tag - e.cfg.TagBase
	if rel >= tagRetry {
		e.retry(rel - tagRetry)
		return
	}
	if rel >= tagRun {
		e.step(rel - tagRun)
		return
	}
	j := rel - tagSlot
	if j < 0 || j >= len(e.jobs) {
		return
	}
	js := &e.jobs[j]
	js.armed = false
	now := e.env.WallNanos()
	for js.next != 0 && now >= js.next {
		slot := js.next
		js.next = 0
		if n := e.cfg.Jobs[j].sched.Next(time.Unix(0, slot).UTC()); !n.IsZero() {
			js.next = n.UnixNano()
		}
		last := js.next == 0 || now < js.next
		e.onDue(j, slot, time.Duration(now-slot), last)
	}
	e.arm(j)
}

func (e *executor) hasStarted(j int, slot int64) bool {
	for _, k := range e.started {
		if k.job == j && k.slot == slot {
			return true
		}
	}
	return false
}

// misfired decides a late slot's fate: true to run it.
func (e *executor) shouldRun(j int, slot int64, late time.Duration, last bool) bool {
	if late <= e.cfg.Misfire.Threshold {
		return true
	}
	if (e.cfg.Misfire.Policy == MisfireFireNow || e.cfg.Misfire.Policy == MisfireQuartz) && last {
		return true
	}
	e.missed(j, slot, fmt.Sprintf("misfired %v late (threshold %v, policy %s)", late.Round(time.Millisecond), e.cfg.Misfire.Threshold, e.cfg.Misfire.Policy))
	return false
}

func (e *executor) missed(j int, slot int64, why string) {
	e.env.Effect(sim.RunFields{SlotRef: sim.SlotRef{Slot: slot, Job: j}}.RunEffect("cron.missed", SlotName(e.cfg.Jobs[j].Name, slot)+": "+why, sim.FactRunSkipped))
}

// startRun begins a run of slot with token.
func (e *executor) startRun(j int, slot int64, token int64, late time.Duration) {
	e.started = append(e.started, slotKey{j, slot})
	job := &e.cfg.Jobs[j]
	mono := e.env.Now()
	id := int64(mono)
	if id <= e.lastRun {
		id = e.lastRun + 1
	}
	e.lastRun = id
	k := reuse(&e.runs, func(r *run) bool { return r.active })
	r := &e.runs[k]
	*r = run{active: true, id: id, job: j, slot: slot, fire: slot, token: token, startMon: mono,
		dur: e.env.Rand().DurationRange(job.RunMin, job.RunMax)}
	if e.cfg.Misfire.Policy == MisfireQuartz && late > e.cfg.Misfire.Threshold {
		r.fire = e.env.WallNanos() // FIRE_ONCE_NOW: a new fire time, now
	}
	e.env.Effect(sim.RunFields{Token: token, SlotRef: sim.SlotRef{Slot: slot, Job: j}}.RunEffect("cron.run_started", fmt.Sprintf("%s token %d run %d duration %v late %v", SlotName(job.Name, slot), token, id, r.dur, late.Round(time.Millisecond)), sim.FactRunStarted))
	if e.cfg.Policy.Claim {
		r.claiming = true
		e.write(claimReq{Token: token, Slot: slot, Job: j, Run: id}.message(e.cfg.Resource, fireKey(r)))
		return
	}
	e.armStep(k)
}

// fireKey is the message body that tells the resource a run's scheduled
// fire time when it differs from its slot (a Quartz catch-up run); nil
// otherwise, so ordinary writes carry no body.
func fireKey(r *run) any {
	if r.fire == r.slot {
		return nil
	}
	return FireTime(r.fire)
}

// armStep sets the timer for run k's next write: write i of n happens at
// (i+1)/n of the run's duration after its start.
func (e *executor) armStep(k int) {
	r := &e.runs[k]
	n := e.cfg.Jobs[r.job].Writes
	at := r.startMon + time.Duration(int64(r.dur)*int64(r.sent+1)/int64(n))
	d := at - e.env.Now()
	if d < 0 {
		d = 0
	}
	r.timer = e.env.SetTimer(d, e.cfg.TagBase+tagRun+k)
}

// step sends run k's next write.
func (e *executor) step(k int) {
	if k < 0 || k >= len(e.runs) || !e.runs[k].active {
		return
	}
	r := &e.runs[k]
	e.write(writeReq{Token: r.token, Slot: r.slot, JobStep: packJobStep(r.job, r.sent), Run: r.id}.message(e.cfg.Resource, fireKey(r)))
	r.sent++
	if r.sent < e.cfg.Jobs[r.job].Writes {
		e.armStep(k)
		return
	}
	e.env.Effect(sim.RunFields{Token: r.token, SlotRef: sim.SlotRef{Slot: r.slot, Job: r.job}}.RunEffect("cron.run_finished", fmt.Sprintf("%s token %d run %d", SlotName(e.cfg.Jobs[r.job].Name, r.slot), r.token, r.id), sim.FactRunFinished))
	r.active = false
	if e.onFinish != nil {
		e.onFinish(r)
	}
}

// write sends a request to the resource — a write, a claim or a recovery
// query — and waits for its answer, sending it again after WriteTimeout up to
// WriteRetries times. The run goes on meanwhile: a job does not wait for its
// side effects to be confirmed.
func (e *executor) write(m sim.Message) {
	k := reuse(&e.unacked, func(w *sentWrite) bool { return w.live })
	e.unacked[k] = sentWrite{live: true, msg: m, timer: e.env.SetTimer(e.cfg.WriteTimeout, e.cfg.TagBase+tagRetry+k)}
	e.env.Send(m)
}

// retry handles an unacknowledged write's timeout.
func (e *executor) retry(k int) {
	if k < 0 || k >= len(e.unacked) || !e.unacked[k].live {
		return
	}
	w := &e.unacked[k]
	if w.tries >= e.cfg.WriteRetries {
		var what string
		var job int
		var token, slot int64
		switch w.msg.Kind {
		case KindQuery:
			q := queryOf(&w.msg)
			job, token = q.Job, q.Tenure
			what = "recovery query for " + e.cfg.Jobs[job].Name
		case KindClaim:
			c := claimReqOf(&w.msg)
			job, token, slot = c.Job, c.Token, c.Slot
			what = "claim of " + SlotName(e.cfg.Jobs[job].Name, slot)
		default:
			wr := writeReqOf(&w.msg)
			var step int
			job, step = unpackJobStep(wr.JobStep)
			token, slot = wr.Token, wr.Slot
			what = fmt.Sprintf("%s step %d token %d run %d", SlotName(e.cfg.Jobs[job].Name, slot), step, token, wr.Run)
		}
		e.env.Effect(sim.Effect{Name: "cron.write_abandoned",
			Detail: fmt.Sprintf("%s: no acknowledgement after %d tries", what, w.tries+1),
			A:      token, B: slot, C: int64(job)})
		w.live = false
		e.settleDoubts()
		return
	}
	w.tries++
	w.timer = e.env.SetTimer(e.cfg.WriteTimeout, e.cfg.TagBase+tagRetry+k)
	e.env.Send(w.msg)
}

// acked clears the pending request the resource answered: the response
// echoes the request's fields, and its kind answers the request's kind.
func (e *executor) acked(m sim.Message) {
	for i := range e.unacked {
		w := &e.unacked[i]
		if w.live && answers(m.Kind, w.msg.Kind) && w.msg.B == m.B && w.msg.A == m.A && w.msg.Index == m.Index {
			e.env.CancelTimer(w.timer)
			w.live = false
			return
		}
	}
}

// answers reports whether a response kind answers a request kind.
func answers(resp, req sim.MsgKind) bool {
	return resp == KindWriteResp && req == KindWrite || resp == KindClaimResp && req == KindClaim || resp == KindQueryResp && req == KindQuery
}

func (e *executor) onMessage(m sim.Message) {
	switch m.Kind {
	case KindWriteResp:
		e.acked(m)
		e.settleDoubts()
	case KindClaimResp:
		e.acked(m)
		for k := range e.runs {
			r := &e.runs[k]
			if c := claimRespOf(&m); r.active && r.claiming && r.id == c.Run {
				r.claiming = false
				if c.Won {
					e.armStep(k)
				} else {
					e.env.Effect(sim.Effect{Name: "cron.claim_lost",
						Detail: fmt.Sprintf("%s token %d run %d", SlotName(e.cfg.Jobs[r.job].Name, r.slot), r.token, r.id),
						A:      r.token, B: r.slot, C: int64(r.job)})
					r.active = false
					e.settleDoubts()
				}
				return
			}
		}
	case KindQueryResp:
		e.acked(m)
		e.recover(m)
	}
}

// settleDoubts asks the resource again about every slot the current
// tenure's recovery left alone while this node's own run of it was in
// doubt, once it no longer is (the run's writes were answered or given up);
// the answer goes through recover like any other. Deferrals of an ended
// tenure are dropped.
func (e *executor) settleDoubts() {
	if len(e.deferred) == 0 {
		return
	}
	keep := e.deferred[:0]
	for _, d := range e.deferred {
		switch {
		case !e.leading || d.tenure != e.tenure:
		case e.inDoubt(d.job, d.slot):
			keep = append(keep, d)
		default:
			e.write(query{Tenure: e.tenure, FromSlot: d.slot - 1, Job: d.job, ToSlot: d.slot}.message(KindQuery, e.cfg.Resource, nil))
		}
	}
	e.deferred = keep
}

// reuse returns the index of the first entry of *xs not in use, appending a
// zero entry if all are. Indexes stay stable: timer tags refer to them.
func reuse[T any](xs *[]T, inUse func(*T) bool) int {
	for i := range *xs {
		if !inUse(&(*xs)[i]) {
			return i
		}
	}
	var zero T
	*xs = append(*xs, zero)
	return len(*xs) - 1
}
