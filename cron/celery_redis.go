package cron

import (
	"fmt"
	"slices"
	"time"

	"github.com/electsim/electsim/sim"
)

// LockKeyRedBeat is RedBeat's default lock key (RedBeatConfig:
// key_prefix + ':lock' with the default prefix 'redbeat:').
const LockKeyRedBeat = "redbeat::lock"

// rbEntry is one RedBeat schedule entry's meta hash in Redis.
type rbEntry struct {
	present   bool  // the entry's hash exists (a non-durable restart loses it)
	lastRunAt int64 // wall ns by the beat that reserved it; 0: never run (None)
}

// Redis is Celery mode's Redis node: RedBeat's lock and schedule and the
// broker in one server, as the default deployment has them (RedBeat's
// redbeat_redis_url falls back to broker_url). The broker is the queue of
// queue mode (NewQueue) with kombu's Redis transport's visibility timeout
// (default 1h). Key expiry is judged on this node's clock when a command
// reads the key, as Redis expires keys lazily. With the queue's Durable
// off, a restart loses everything (no RDB/AOF): the lock, the schedule's
// meta and every message.
type Redis struct {
	*Queue
	cfg *Config
	env sim.Env
	// The lock: its token, and when it expires by this node's monotonic clock.
	lockToken  int64
	lockExpire time.Duration
	locked     bool
	// fence counts lock acquisitions: the fencing token an application
	// would have to add (RedBeat has none; INCR beside the SET).
	fence   int64
	entries []rbEntry
	booted  bool
	// tags maps each delivery's receipt to its task: kombu restores a
	// message with its delivery tag, so an ack of any delivery of a task
	// removes it from the unacked set (QoS.ack: ZREM, HDEL by tag).
	tags []rbTag
}

// rbTag is one delivery of a task: its receipt and the task's ID.
type rbTag struct{ receipt, exec int64 }

// NewRedis returns the Redis node for the validated cfg. Its schedule
// starts as a deployment that has been running: every entry's
// last_run_at is cfg.NotBefore. (A fresh deployment would differ little:
// the first beat's setup_schedule saves each entry with last_run_at = its
// now, ScheduleEntry.__init__'s default_now(), so nothing is due before
// the next slot.)
func NewRedis(cfg *Config) *Redis {
	r := &Redis{Queue: NewQueue(cfg), cfg: cfg, entries: make([]rbEntry, len(cfg.Jobs))}
	for j := range r.entries {
		r.entries[j] = rbEntry{present: true, lastRunAt: initialLastRunAt(cfg, j)}
	}
	return r
}

// initialLastRunAt is job j's last_run_at in a deployment that has been
// running: cfg.NotBefore for a crontab, and for an interval the latest
// multiple of it (since the Unix epoch) at or before cfg.NotBefore — its
// fires then fall on the slots the checks judge (an interval's last run
// is at most one interval back; schedule.is_due re-anchors on it).
func initialLastRunAt(cfg *Config, j int) int64 {
	at := cfg.NotBefore.UnixNano()
	if d, ok := IntervalOf(cfg.Jobs[j].Sched()); ok {
		at -= at % int64(d)
	}
	return at
}

// LockHolder returns the lock's token and whether it is held now.
func (r *Redis) LockHolder() (token int64, held bool) {
	r.expire()
	return r.lockToken, r.locked
}

// LastRunAt returns job j's stored last_run_at (wall ns; 0: none).
func (r *Redis) LastRunAt(j int) int64 { return r.entries[j].lastRunAt }

// Start implements sim.Node.
func (r *Redis) Start(env sim.Env, data []byte) {
	r.env = env
	if r.booted && !r.cfg.Queue.Durable {
		r.locked = false
		for j := range r.entries {
			r.entries[j] = rbEntry{}
		}
		env.Effect(sim.Effect{Name: "redis.lost", Detail: "restart without persistence: the RedBeat lock and schedule meta are gone"})
	}
	r.booted = true
	r.Queue.Start(env, data)
}

// expire drops the lock once its TTL passed (lazily, on access).
func (r *Redis) expire() {
	if r.locked && r.env.Now() >= r.lockExpire {
		r.locked = false
		r.env.Effect(sim.Effect{Name: "redbeat.lock_expired", Key: LockKeyRedBeat,
			Detail: fmt.Sprintf("lock of token %x found expired (no extend within %v)", r.lockToken, r.cfg.Celery.LockTimeout)})
	}
}

// OnMessage implements sim.Node.
func (r *Redis) OnMessage(m sim.Message) {
	resp := sim.Message{Kind: KindRBResp, To: m.From, B: m.B}
	switch m.Kind {
	case KindRBSetup:
		// setup_schedule → update_from_dict: from_key raises KeyError for
		// a missing entry, so the entry is built from the configuration,
		// and celery's ScheduleEntry.__init__ sets last_run_at =
		// last_run_at or default_now(): the beat's now. entry.save()
		// writes it with HSETNX meta; an existing meta is kept. The slots
		// before that now are never run (an entry is due from its next
		// slot after last_run_at).
		for j := range r.entries {
			if !r.entries[j].present {
				r.entries[j] = rbEntry{present: true, lastRunAt: m.Index}
			}
		}
	case KindRBAcquire:
		// redis-py Lock.do_acquire: SET name token NX PX timeout.
		r.expire()
		if !r.locked {
			r.locked, r.lockToken = true, m.A
			r.lockExpire = r.env.Now() + r.cfg.Celery.LockTimeout
			r.fence++
			resp.Flag, resp.Term = true, r.fence
			r.env.Effect(sim.Effect{Name: "redbeat.lock_acquired", Key: LockKeyRedBeat, A: int64(m.From), B: r.fence,
				Detail: fmt.Sprintf("SET NX PX %v by %s (token %x, acquisition %d)", r.cfg.Celery.LockTimeout, nameOf(r.env, m.From), m.A, r.fence)})
		}
	case KindRBExtend:
		// LUA_EXTEND_TO_SCRIPT (redbeat/schedulers.py): the token must
		// still be the key's value; the TTL becomes the timeout (not
		// remaining + timeout, as redis-py's own script would).
		r.expire()
		if r.locked && r.lockToken == m.A {
			r.lockExpire = r.env.Now() + r.cfg.Celery.LockTimeout
			resp.Flag = true
		}
	case KindRBRelease:
		r.expire()
		if r.locked && r.lockToken == m.A {
			r.locked = false
		}
		return
	case KindRBLoad:
		var jobs []int
		for j, e := range r.entries {
			if e.present {
				jobs = append(jobs, j)
			}
		}
		resp.Body = jobs
	case KindRBFromKey:
		if j := int(m.A); j >= 0 && j < len(r.entries) && r.entries[j].present {
			resp.Flag, resp.Index = true, r.entries[j].lastRunAt
		}
	case KindRBReserve:
		// _next_instance: HSET meta (unconditional: no lock check), ZADD.
		if j := int(m.A); j >= 0 && j < len(r.entries) {
			r.entries[j] = rbEntry{present: true, lastRunAt: m.Index}
			resp.Flag = true
		}
	case KindReceive:
		before := r.Queue.receipt
		r.Queue.OnMessage(m)
		if r.Queue.receipt != before {
			for i := range r.Queue.msgs {
				if e := &r.Queue.msgs[i]; e.receipt == r.Queue.receipt {
					r.tags = append(r.tags, rbTag{receipt: e.receipt, exec: e.msg.Exec})
				}
			}
		}
		return
	case KindAck:
		r.ack(m)
		return
	case KindEnqueue:
		if qm, ok := m.Body.(*QueueMsg); ok && qm.Attempt <= 1 && qm.Job >= 0 && qm.Job < len(r.cfg.Jobs) {
			r.env.Effect(sim.ExecFields{Exec: qm.Exec, SlotRef: sim.SlotRef{Slot: qm.Slot, Job: qm.Job}}.ExecEffect("broker.published", fmt.Sprintf("task %x of %s from %s (token %d)", qm.Exec, SlotName(r.cfg.Jobs[qm.Job].Name, qm.Slot), nameOf(r.env, m.From), qm.Token), sim.FactExecCreated))
		}
		r.Queue.OnMessage(m)
		return
	default:
		r.Queue.OnMessage(m)
		return
	}
	r.env.Send(resp)
}

// ack removes the task any delivery of which m acknowledges, if it is
// in flight (a task already restored to the list stays there, as kombu's
// restore_by_tag has pushed it back), and forgets its delivery tags.
func (r *Redis) ack(m sim.Message) {
	exec, found := int64(0), false
	for _, t := range r.tags {
		if t.receipt == m.A {
			exec, found = t.exec, true
		}
	}
	if !found {
		return
	}
	for i := range r.Queue.msgs {
		if e := &r.Queue.msgs[i]; e.msg.Exec == exec && e.inflight {
			m.A = e.receipt
			r.Queue.OnMessage(m)
			break
		}
	}
	live := false
	for i := range r.Queue.msgs {
		live = live || r.Queue.msgs[i].msg.Exec == exec
	}
	if !live {
		r.tags = slices.DeleteFunc(r.tags, func(t rbTag) bool { return t.exec == exec })
	}
}

// TimerName implements sim.TimerNamer (the broker's visibility timer).
func (r *Redis) TimerName(tag int) string { return r.Queue.TimerName(tag) }

// nameOf names a node for details: its ID (envs do not name others).
func nameOf(_ sim.Env, id sim.NodeID) string { return fmt.Sprintf("node %d", id) }

// AddRedis adds the Redis node named name to s as a service node.
func AddRedis(s *sim.Sim, name string, cfg *Config) (sim.NodeID, *Redis) {
	r := NewRedis(cfg)
	return s.AddNode(name, r, sim.Service()), r
}
