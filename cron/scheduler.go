package cron

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/sim"
)

// schedReq is a request of the scheduler awaiting its answer.
type schedReq struct {
	live  bool
	msg   sim.Message
	timer sim.TimerID
	tries int
}

// Scheduler is queue mode's candidate: it runs an election algorithm and,
// while that algorithm says it acts as leader, evaluates the schedules on
// its own wall clock; for each due slot it asks the execution store for an
// execution (the store skips a slot whose execution runs with a fresh
// heartbeat, or completed) and enqueues what it is given, stamped with its
// leadership token. Every ReapEvery it asks the store for executions whose
// heartbeat went stale and enqueues their next attempt (at-least-once). A
// new leader asks for every slot due in the misfire threshold (and, under
// fire_now or quartz, the latest missed one) so a failover loses no slot
// the store does not hold. It never runs a job itself.
type Scheduler struct {
	inner     sim.Node
	cfg       *Config
	env       leaderEnv
	ex        executor
	leading   bool
	token     int64
	reqs      []schedReq
	seq       int64
	reap      sim.TimerID
	reapArmed bool
}

// NewScheduler returns a scheduler running inner; cfg must have been
// validated with queue mode on.
func NewScheduler(inner sim.Node, cfg *Config) *Scheduler {
	return &Scheduler{inner: inner, cfg: cfg}
}

// Inner returns the wrapped algorithm node.
func (s *Scheduler) Inner() sim.Node { return s.inner }

// Resign passes a graceful shutdown to the wrapped algorithm.
func (s *Scheduler) Resign() {
	if r, ok := s.inner.(interface{ Resign() }); ok {
		r.Resign()
	}
}

// Start implements sim.Node; the scheduler keeps nothing across a crash.
func (s *Scheduler) Start(env sim.Env, restored []byte) {
	*s = Scheduler{inner: s.inner, cfg: s.cfg}
	s.env = leaderEnv{Env: env, t: s}
	s.ex.onDue = s.due
	s.ex.start(s.cfg, env)
	s.env.startInner(s.inner, restored)
}

// OnMessage implements sim.Node.
func (s *Scheduler) OnMessage(m sim.Message) {
	switch m.Kind {
	case KindExecCreateResp:
		if s.answered(m) {
			if t, ok := m.Body.(*ExecTicket); ok {
				s.enqueue(*t)
			}
		}
	case KindExecReapResp:
		if s.answered(m) {
			ts, _ := m.Body.([]ExecTicket)
			for _, t := range ts {
				s.enqueue(t)
			}
		}
	case KindEnqueueResp:
		s.answered(m)
	default:
		if !IsKind(m.Kind) {
			s.inner.OnMessage(m)
		}
	}
}

// OnTimer implements sim.Node.
func (s *Scheduler) OnTimer(id sim.TimerID, tag int) {
	rel := tag - s.cfg.TagBase
	switch {
	case tag < s.cfg.TagBase:
		s.inner.OnTimer(id, tag)
	case rel == tagSchedReap:
		s.reapArmed = false
		if s.leading {
			s.request(sim.Message{Kind: KindExecReap, To: s.cfg.Queue.ExecStore, Term: s.token})
			s.armReap()
		}
	case rel >= tagSchedReq:
		s.retry(rel - tagSchedReq)
	default:
		s.ex.onTimer(id, tag)
	}
}

// due handles a slot due on this node's wall clock: only a leader asks
// for its execution.
func (s *Scheduler) due(j int, slot int64, late time.Duration, last bool) {
	if s.leading && s.ex.shouldRun(j, slot, late, last) {
		s.create(j, slot)
	}
}

func (s *Scheduler) create(j int, slot int64) {
	s.request(sim.Message{Kind: KindExecCreate, To: s.cfg.Queue.ExecStore, Term: s.token, Index: slot, A: int64(j)})
}

// enqueue sends an execution to the queue, whatever has happened to this
// node's leadership since it asked: a scheduler does not re-check.
func (s *Scheduler) enqueue(t ExecTicket) {
	s.env.Effect(sim.Effect{Name: "sched.enqueue",
		Detail: fmt.Sprintf("execution %d of %s attempt %d token %d", t.Exec, SlotName(s.cfg.Jobs[t.Job].Name, t.Slot), t.Attempt, t.Token),
		A:      t.Exec, B: t.Slot, C: int64(t.Job)})
	s.request(sim.Message{Kind: KindEnqueue, To: s.cfg.Queue.Queue, A: t.Exec, Body: &QueueMsg{ExecTicket: t}})
	s.cfg.reached(s.env.Env, StQueueEnqueued, t.Slot)
}

// request sends m with a fresh request number in B and sends it again
// after WriteTimeout, up to WriteRetries times.
func (s *Scheduler) request(m sim.Message) {
	s.seq++
	m.B = s.seq
	k := reuse(&s.reqs, func(r *schedReq) bool { return r.live })
	s.reqs[k] = schedReq{live: true, msg: m, timer: s.env.SetTimer(s.cfg.WriteTimeout, s.cfg.TagBase+tagSchedReq+k)}
	s.env.Send(m)
}

func (s *Scheduler) retry(k int) {
	if k < 0 || k >= len(s.reqs) || !s.reqs[k].live {
		return
	}
	r := &s.reqs[k]
	if r.tries >= s.cfg.WriteRetries {
		s.env.Effect(sim.Effect{Name: "sched.request_abandoned",
			Detail: fmt.Sprintf("%s request %d: no answer after %d tries", r.msg.Kind, r.msg.B, r.tries+1), A: r.msg.A, B: r.msg.Index})
		r.live = false
		return
	}
	r.tries++
	r.timer = s.env.SetTimer(s.cfg.WriteTimeout, s.cfg.TagBase+tagSchedReq+k)
	s.env.Send(r.msg)
}

// answered clears the request m answers; false if none was waiting (a
// duplicate or late answer).
func (s *Scheduler) answered(m sim.Message) bool {
	for i := range s.reqs {
		r := &s.reqs[i]
		if r.live && r.msg.B == m.B {
			s.env.CancelTimer(r.timer)
			r.live = false
			return true
		}
	}
	return false
}

func (s *Scheduler) armReap() {
	if !s.reapArmed {
		s.reap = s.env.SetTimer(s.cfg.Queue.ReapEvery, s.cfg.TagBase+tagSchedReap)
		s.reapArmed = true
	}
}

func (s *Scheduler) stopped() {
	s.leading = false
	if s.reapArmed {
		s.env.CancelTimer(s.reap)
		s.reapArmed = false
	}
}

// lead starts a tenure: re-read the schedule, ask for the slots due within
// the misfire threshold (the store skips those it holds), and start reaping.
func (s *Scheduler) lead(token int64) {
	s.leading, s.token = true, token
	e := &s.ex
	e.rearmFromNow()
	now := s.env.WallNanos()
	from := now - int64(s.cfg.Misfire.Lookback)
	if !s.cfg.NotBefore.IsZero() && from < s.cfg.NotBefore.UnixNano() {
		from = s.cfg.NotBefore.UnixNano()
	}
	for j := range s.cfg.Jobs {
		slots := SlotsBetween(s.cfg.Jobs[j].sched, time.Unix(0, from).UTC(), time.Unix(0, now).UTC())
		for i, t := range slots {
			slot := t.UnixNano()
			if slot >= e.jobs[j].next && e.jobs[j].next != 0 {
				continue
			}
			late := time.Duration(now - slot)
			last := i == len(slots)-1
			onTime := late <= s.cfg.Misfire.Threshold
			catchUp := last && s.cfg.Misfire.Policy != MisfireSkip
			if onTime || catchUp {
				s.create(j, slot)
			}
		}
	}
	s.armReap()
}

// TimerName implements sim.TimerNamer.
func (s *Scheduler) TimerName(tag int) string {
	switch rel := tag - s.cfg.TagBase; {
	case tag < s.cfg.TagBase:
		if tn, ok := s.inner.(sim.TimerNamer); ok {
			return tn.TimerName(tag)
		}
		return ""
	case rel == tagSchedReap:
		return "sched.reap"
	case rel >= tagSchedReq:
		return "sched.request_retry"
	}
	return timerName(s.cfg.TagBase, tag)
}
