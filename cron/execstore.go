package cron

import (
	"fmt"
	"sort"
	"time"

	"github.com/electsim/electsim/sim"
)

// ExecStatus is an execution record's status (the seed's ScheduledJob
// statuses).
type ExecStatus uint8

// The statuses.
const (
	// ExecPending: created and enqueued, no heartbeat yet.
	ExecPending ExecStatus = iota
	// ExecRunning: a worker heartbeats it.
	ExecRunning
	// ExecCompleted: a worker completed it.
	ExecCompleted
	// ExecFailed: its run failed; a retry may be on its way.
	ExecFailed
	// ExecDead: declared dead (stale heartbeat, last retry failed, or
	// skipped under concurrency forbid).
	ExecDead
)

// String names the status as the seed's ScheduledJob does ("running").
func (s ExecStatus) String() string {
	return [...]string{"pending", "running", "completed", "failed", "dead"}[s]
}

// execRecord is one execution of a slot at the store.
type execRecord struct {
	id      int64
	job     int
	slot    int64
	token   int64
	attempt int
	status  ExecStatus
	beatAt  int64 // store wall ns of the last heartbeat (creation while pending)
	endedAt int64 // store wall ns it reached a final status (0 while live)
	asker   sim.NodeID
	ask     int64 // the request that created or adopted it: its retry is answered again
}

// ExecStore is the execution store: a service node holding one execution
// record per slot (its latest execution), with status and heartbeats. It
// answers the scheduler's create and reap requests atomically, as a
// database's conditional INSERT/UPDATE would, judging heartbeats on its
// own clock (the database's now()). Like the fenced resource it models a
// durable database: its state survives its own crash. It forgets finished
// records Retain after they finished, so its memory stays bounded.
type ExecStore struct {
	cfg    *Config
	env    sim.Env
	bySlot map[slotKey]*execRecord // lookups only
	byID   map[int64]*execRecord   // lookups only
	nextID int64
}

// NewExecStore returns an execution store for the validated cfg.
func NewExecStore(cfg *Config) *ExecStore {
	return &ExecStore{cfg: cfg, bySlot: map[slotKey]*execRecord{}, byID: map[int64]*execRecord{}}
}

// Records returns how many execution records the store holds (for tests
// bounding its memory).
func (st *ExecStore) Records() int { return len(st.byID) }

// Status returns the status of a slot's latest execution, and false if the
// store holds none.
func (st *ExecStore) Status(job int, slot int64) (ExecStatus, bool) {
	r := st.bySlot[slotKey{job, slot}]
	if r == nil {
		return 0, false
	}
	return r.status, true
}

// Start implements sim.Node; the store's data is durable, a restart keeps it.
func (st *ExecStore) Start(env sim.Env, _ []byte) { st.env = env }

// OnTimer implements sim.Node; the store sets no timers.
func (st *ExecStore) OnTimer(sim.TimerID, int) {}

// OnMessage implements sim.Node.
func (st *ExecStore) OnMessage(m sim.Message) {
	switch m.Kind {
	case KindExecCreate:
		st.create(m)
	case KindExecReap:
		st.reap(m)
	case KindExecBeat:
		st.beat(m)
	case KindExecDone:
		st.done(m)
	case KindExecClaim:
		st.claim(m)
	}
}

// claim answers a worker's claim_execution (the seed's design): UPDATE …
// SET status = 'running', heartbeat = now() WHERE id = ? AND status IN
// ('pending', 'failed'). An execution already running (another delivery
// of its message took it), completed, declared dead or forgotten is
// refused: the worker drops the message.
func (st *ExecStore) claim(m sim.Message) {
	now := st.env.WallNanos()
	r := st.byID[m.A]
	ok := r != nil && (r.status == ExecPending || r.status == ExecFailed || st.cfg.zoo.claimAnyStatus && r.status == ExecRunning)
	if ok {
		r.status, r.endedAt, r.beatAt = ExecRunning, 0, now
	}
	st.env.Send(sim.Message{Kind: KindExecClaimResp, To: m.From, A: m.A, B: m.B, Flag: ok})
}

func (st *ExecStore) q() *QueueConfig { return &st.cfg.Queue }

func (st *ExecStore) stale(r *execRecord, now int64) bool {
	return r.status == ExecRunning && now-r.beatAt > int64(st.q().StaleAfter)
}

// create answers a scheduler's request for an execution of a slot: a new
// record (pending) if the slot has none; the existing pending one again to
// a retry of the request that created it, or (at-least-once) to a higher
// token (a new leader adopting a slot its predecessor created but may
// never have enqueued);
// under at-least-once a fresh attempt if the slot's execution is running
// with a stale heartbeat; nothing otherwise.
func (st *ExecStore) create(m sim.Message) {
	job, slot, token := int(m.A), m.Index, m.Term
	if job < 0 || job >= len(st.cfg.Jobs) {
		return
	}
	now := st.env.WallNanos()
	st.forget(now)
	var t *ExecTicket
	k := slotKey{job, slot}
	r := st.bySlot[k]
	switch {
	case r == nil && st.q().Concurrency == ConcurrencyForbid && st.jobRunning(job, now):
		r = st.newRecord(k, token, 1, now)
		st.finish(r, ExecDead, now, "another execution of the job is running (concurrency forbid): skipped")
	case r == nil:
		r = st.newRecord(k, token, 1, now)
		r.asker, r.ask = m.From, m.B
		t = ticketOf(r)
	case r.status == ExecPending && r.asker == m.From && r.ask == m.B:
		t = ticketOf(r) // a retried request whose answer was lost
	case r.status == ExecPending && token > r.token && st.q().Delivery == AtLeastOnce:
		r.token, r.asker, r.ask = token, m.From, m.B
		t = ticketOf(r)
	case st.stale(r, now):
		t = st.declareDead(r, token, now)
		if t != nil {
			st.byID[t.Exec].asker, st.byID[t.Exec].ask = m.From, m.B
		}
	}
	resp := sim.Message{Kind: KindExecCreateResp, To: m.From, Term: m.Term, Index: m.Index, A: m.A, B: m.B}
	if t != nil {
		resp.Body = t
	}
	st.env.Send(resp)
}

// jobRunning reports whether some execution of job runs with a fresh heartbeat.
func (st *ExecStore) jobRunning(job int, now int64) bool {
	for _, r := range st.byID {
		if r.job == job && r.status == ExecRunning && !st.stale(r, now) {
			return true
		}
	}
	return false
}

func (st *ExecStore) newRecord(k slotKey, token int64, attempt int, now int64) *execRecord {
	st.nextID++
	r := &execRecord{id: st.nextID, job: k.job, slot: k.slot, token: token, attempt: attempt, status: ExecPending, beatAt: now}
	if old := st.bySlot[k]; old != nil {
		delete(st.byID, old.id)
	}
	st.bySlot[k] = r
	st.byID[r.id] = r
	st.env.Effect(sim.ExecFields{Exec: r.id, SlotRef: sim.SlotRef{Slot: k.slot, Job: k.job}}.ExecEffect("exec.created", fmt.Sprintf("execution %d of %s, attempt %d, token %d", r.id, SlotName(st.cfg.Jobs[k.job].Name, k.slot), attempt, token), sim.FactExecCreated))
	st.cfg.reached(st.env, StQueueExecCreated, k.slot)
	return r
}

func ticketOf(r *execRecord) *ExecTicket {
	return &ExecTicket{Exec: r.id, Job: r.job, Slot: r.slot, Token: r.token, Attempt: r.attempt}
}

// declareDead marks a stale execution dead and, under at-least-once,
// creates the slot's next attempt under token and returns its ticket.
func (st *ExecStore) declareDead(r *execRecord, token int64, now int64) *ExecTicket {
	st.finish(r, ExecDead, now, fmt.Sprintf("heartbeat %v old (stale_after %v)", time.Duration(now-r.beatAt).Round(time.Millisecond), st.q().StaleAfter))
	if st.q().Delivery != AtLeastOnce && !st.cfg.zoo.deadRerunAtMostOnce {
		return nil
	}
	return ticketOf(st.newRecord(slotKey{r.job, r.slot}, max(token, r.token), r.attempt+1, now))
}

func (st *ExecStore) finish(r *execRecord, s ExecStatus, now int64, why string) {
	r.status, r.endedAt = s, now
	if s == ExecDead {
		st.env.Effect(sim.ExecFields{Exec: r.id, SlotRef: sim.SlotRef{Slot: r.slot, Job: r.job}}.ExecEffect("exec.dead", fmt.Sprintf("execution %d of %s: %s", r.id, SlotName(st.cfg.Jobs[r.job].Name, r.slot), why), sim.FactExecDead))
	}
}

// reap declares every running execution with a stale heartbeat dead and
// answers with the attempts to enqueue (at-least-once), by execution ID.
func (st *ExecStore) reap(m sim.Message) {
	now := st.env.WallNanos()
	st.forget(now)
	var stale []*execRecord
	for _, r := range st.byID { // collected then sorted: order cannot leak
		if st.stale(r, now) {
			stale = append(stale, r)
		}
	}
	sort.Slice(stale, func(i, j int) bool { return stale[i].id < stale[j].id })
	var out []ExecTicket
	for _, r := range stale {
		if t := st.declareDead(r, m.Term, now); t != nil {
			out = append(out, *t)
		}
	}
	resp := sim.Message{Kind: KindExecReapResp, To: m.From, Term: m.Term, B: m.B}
	if out != nil {
		resp.Body = out
	}
	st.env.Send(resp)
}

// beat records a worker's heartbeat: a pending (or failed, being retried)
// execution starts running. A dead or completed one stays as it is: the
// zombie's heartbeats change nothing.
func (st *ExecStore) beat(m sim.Message) {
	r := st.byID[m.A]
	if r == nil {
		return
	}
	switch r.status {
	case ExecPending, ExecFailed:
		r.status, r.endedAt = ExecRunning, 0
		fallthrough
	case ExecRunning:
		r.beatAt = st.env.WallNanos()
	}
}

// done records a worker's outcome; a completion overwrites whatever the
// record says (the worker's UPDATE is unconditional), others do not
// overwrite a completion.
func (st *ExecStore) done(m sim.Message) {
	r := st.byID[m.A]
	if r == nil {
		return
	}
	now := st.env.WallNanos()
	switch m.Index {
	case execDoneCompleted:
		st.finish(r, ExecCompleted, now, "")
	case execDoneFailed:
		if r.status != ExecCompleted {
			st.finish(r, ExecFailed, now, "")
		}
	case execDoneDead:
		if r.status != ExecCompleted && r.status != ExecDead {
			st.finish(r, ExecDead, now, fmt.Sprintf("failed on its last attempt (max_retries %d)", st.q().MaxRetries))
		}
	}
}

// forget drops records not running whose last change (creation, last
// heartbeat or final status) is more than Retain ago: finished ones, and
// pending or failed ones whose message was lost.
func (st *ExecStore) forget(now int64) {
	for id, r := range st.byID { // deletions only: order cannot leak
		if r.status != ExecRunning && now-max(r.endedAt, r.beatAt) > int64(st.q().Retain) {
			delete(st.byID, id)
			if st.bySlot[slotKey{r.job, r.slot}] == r {
				delete(st.bySlot, slotKey{r.job, r.slot})
			}
		}
	}
}

// AddExecStore adds the execution store named name to s as a service node.
func AddExecStore(s *sim.Sim, name string, cfg *Config) (sim.NodeID, *ExecStore) {
	st := NewExecStore(cfg)
	return s.AddNode(name, st, sim.Service()), st
}
