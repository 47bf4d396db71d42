package scenario

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// celeryMode reports whether the scenario runs cron in Celery mode: Celery
// beat with RedBeat on every candidate, a Redis node, Celery workers.
func (sc *Scenario) celeryMode() bool { return sc.Cron != nil && sc.Cron.Mode == "celery" }

// noElection reports whether the scenario's cron mode runs no election
// algorithm (ShedLock's per-job locks; Celery's RedBeat lock).
func (sc *Scenario) noElection() bool {
	return sc.Cron != nil && (sc.Cron.Mode == "shedlock" || sc.Cron.Mode == "celery")
}

// readCelery reads cron.celery, the Celery-mode deployment (cron.mode:
// celery): RedBeat's lock and loop, the supervisor, the Redis broker's
// visibility timeout and task_acks_late, and the workers.
func (l *loader) readCelery(m *mapReader, cs *CronSpec) {
	cn := l.modeSection(m, cs, "celery", "{workers: 2}")
	if cn == nil {
		return
	}
	c, q := &cs.Config.Celery, &cs.Config.Queue
	c.On = true
	cm := l.mapOf(cn, "cron.celery")
	if !cm.integer("workers", &q.Workers, 1, 1000) && !cm.has("workers") && cm.ok {
		l.errAt(cn, "cron.celery.workers", "missing: how many Celery worker nodes take tasks (w1..wN)")
	}
	cm.dur("max_interval", &c.MaxInterval)
	cm.dur("lock_timeout", &c.LockTimeout)
	cm.oneOf("restart", &c.Restart, cron.CeleryRestartAlways, cron.CeleryRestartNever)
	cm.dur("restart_after", &c.RestartAfter)
	cm.boolean("restart_backoff", &c.RestartBackoff)
	cm.dur("redis_timeout", &c.RedisTimeout)
	cm.dur("visibility_timeout", &q.VisibilityTimeout)
	var late bool
	if cm.boolean("acks_late", &late) && late {
		q.Ack = cron.AckLate
	}
	cm.boolean("durable", &q.Durable)
	cm.dur("poll", &q.Poll)
	cm.dur("start_deadline", &q.StartDeadline)
	for _, k := range []string{"max_interval", "lock_timeout", "restart_after", "redis_timeout", "visibility_timeout", "poll", "start_deadline"} {
		var d time.Duration
		if cm.has(k) && cm.dur(k, &d) && d < time.Millisecond {
			l.errAt(cm.get(k), join("cron.celery", k), "must be at least 1ms, got %s", fmtDur(d))
		}
	}
	cm.finish()
	for i, j := range cs.Config.Jobs {
		if i < len(cs.scheduleAt) && cs.scheduleAt[i] != nil {
			if err := cron.CelerySchedule(j.Schedule); err != nil {
				l.errAt(cs.scheduleAt[i], index("cron.jobs", i)+".schedule", "%v", err)
			}
		}
	}
}

// celeryBase is the Redis node's ID in Celery mode: after the candidates
// and the resource (Celery mode has no lease store); workers w1..wN follow.
func (sc *Scenario) celeryBase() sim.NodeID { return sim.NodeID(sc.Nodes + 1) }

// celeryServiceID resolves "redis" and "w1".."wN" in Celery mode (svc
// false for other names or other modes).
func (sc *Scenario) celeryServiceID(name string) (sim.NodeID, bool) {
	if !sc.celeryMode() {
		return sim.None, false
	}
	base := sc.celeryBase()
	switch {
	case name == "redis":
		return base, true
	case strings.HasPrefix(name, "w"):
		k, err := strconv.Atoi(name[1:])
		if err != nil || k < 1 {
			return sim.None, false
		}
		if k > sc.Cron.Config.Queue.Workers {
			return sim.None, true
		}
		return base + sim.NodeID(k), true
	}
	return sim.None, false
}

// celeryNodeName names Celery mode's node id ("redis", "w2").
func (sc *Scenario) celeryNodeName(id sim.NodeID) (string, bool) {
	if !sc.celeryMode() {
		return "", false
	}
	return blockName(id, sc.celeryBase(), "redis", sc.Cron.Config.Queue.Workers, workerName)
}

// celeryNodes sets cfg's Celery-mode node IDs, as celeryBase promises.
func (sc *Scenario) celeryNodes(cfg *cron.Config) {
	base := sc.celeryBase()
	cfg.Celery.Redis, cfg.Queue.Queue, cfg.Queue.ExecStore = base, base, sim.None
	cfg.Queue.WorkerNodes = nil
	for k := 1; k <= cfg.Queue.Workers; k++ {
		cfg.Queue.WorkerNodes = append(cfg.Queue.WorkerNodes, base+sim.NodeID(k))
	}
}

// addCeleryNodes adds the Redis node and the workers at the IDs
// celeryNodes gave them.
func (r *Run) addCeleryNodes() error {
	s, cfg := r.Sim, r.CronConfig
	id, redis := cron.AddRedis(s, "redis", cfg)
	if id != cfg.Celery.Redis {
		return fmt.Errorf("internal: redis got node ID %d, want %d", id, cfg.Celery.Redis)
	}
	r.Redis, r.Queue = redis, redis.Queue
	return r.addWorkers(workerName, func() sim.Node { return cron.NewWorker(cfg) }, cfg.Queue.WorkerNodes)
}

// celeryYAML writes the fields of a celery section that differ from zero.
func celeryYAML(cfg cron.Config) string {
	c, q := cfg.Celery, cfg.Queue
	parts := []string{fmt.Sprintf("workers: %d", q.Workers)}
	add := func(key string, d time.Duration) {
		if d != 0 {
			parts = append(parts, key+": "+dur(d))
		}
	}
	add("max_interval", c.MaxInterval)
	add("lock_timeout", c.LockTimeout)
	if c.Restart != "" {
		parts = append(parts, "restart: "+c.Restart)
	}
	add("restart_after", c.RestartAfter)
	if c.RestartBackoff {
		parts = append(parts, "restart_backoff: true")
	}
	add("redis_timeout", c.RedisTimeout)
	add("visibility_timeout", q.VisibilityTimeout)
	if q.Ack == cron.AckLate {
		parts = append(parts, "acks_late: true")
	}
	if q.Durable {
		parts = append(parts, "durable: true")
	}
	add("poll", q.Poll)
	add("start_deadline", q.StartDeadline)
	return strings.Join(parts, ", ")
}
