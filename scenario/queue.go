package scenario

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// readQueue reads cron.queue, the queue-mode deployment (cron.mode: queue):
// workers, the queue's visibility timeout, ack mode and durability, the
// store's heartbeat policy, retries and the job deadline.
func (l *loader) readQueue(m *mapReader, cs *CronSpec) {
	qn := l.modeSection(m, cs, "queue", "{workers: 3}")
	if qn == nil {
		return
	}
	q := &cs.Config.Queue
	qm := l.mapOf(qn, "cron.queue")
	qm.boolean("colocated", &q.Colocated)
	lo := 1
	if q.Colocated {
		lo = 0 // the candidates are workers; separate ones are optional
	}
	if !qm.integer("workers", &q.Workers, lo, 1000) && !qm.has("workers") && qm.ok && !q.Colocated {
		l.errAt(qn, "cron.queue.workers", "missing: how many worker nodes take messages (w1..wN), or colocated: true")
	}
	qm.dur("visibility_timeout", &q.VisibilityTimeout)
	qm.oneOf("ack", &q.Ack, cron.AckEarly, cron.AckLate)
	qm.boolean("durable", &q.Durable)
	qm.oneOf("delivery", &q.Delivery, cron.AtLeastOnce, cron.AtMostOnce)
	qm.dur("heartbeat", &q.Heartbeat)
	qm.dur("stale_after", &q.StaleAfter)
	qm.dur("reap_every", &q.ReapEvery)
	qm.integer("max_retries", &q.MaxRetries, 0, 100)
	qm.dur("backoff", &q.Backoff)
	qm.dur("timeout", &q.Timeout)
	if p := qm.probability("fail_rate"); p != nil {
		q.FailRate = *p
	}
	qm.dur("start_deadline", &q.StartDeadline)
	qm.oneOf("concurrency", &q.Concurrency, cron.ConcurrencyAllow, cron.ConcurrencyForbid)
	qm.dur("poll", &q.Poll)
	qm.dur("retain", &q.Retain)
	// claim_execution: the worker's claim at the store before it runs a
	// message (the seed's design, the default); false runs every
	// delivery, as a Celery worker does.
	claim := true
	if qm.boolean("claim_execution", &claim) {
		q.NoClaim = !claim
	}
	for _, k := range []string{"visibility_timeout", "heartbeat", "stale_after", "reap_every", "backoff", "poll", "start_deadline"} {
		var d time.Duration
		if qm.has(k) && qm.dur(k, &d) && d < time.Millisecond {
			l.errAt(qm.get(k), join("cron.queue", k), "must be at least 1ms, got %s", fmtDur(d))
		}
	}
	if q.StaleAfter > 0 && q.Heartbeat > 0 && q.StaleAfter <= q.Heartbeat {
		l.errAt(qm.get("stale_after"), "cron.queue.stale_after", "%s is not longer than the heartbeat (%s): every running execution would look dead between two heartbeats", fmtDur(q.StaleAfter), fmtDur(q.Heartbeat))
	}
	lookback := cs.Config.Misfire.Lookback
	if lookback == 0 {
		lookback = time.Hour // cron.Config's default
	}
	if q.Retain > 0 && q.Retain < lookback {
		l.errAt(qm.get("retain"), "cron.queue.retain", "%s is shorter than misfire.lookback (%s): a new leader would recreate slots the store forgot", fmtDur(q.Retain), fmtDur(lookback))
	}
	qm.finish()
}

// queueBase is the first node ID of queue mode's nodes: after the
// candidates, the lease stores and the resource. The queue has it, the
// execution store the next, workers w1..wN the ones after.
func (sc *Scenario) queueBase() sim.NodeID { return sc.queueBaseWith(sc.storeCount()) }

// queueBaseWith is queueBase for a run with stores lease stores (a run of
// another algorithm, -algo, may have more or fewer than the file's).
func (sc *Scenario) queueBaseWith(stores int) sim.NodeID {
	return sim.NodeID(sc.Nodes + stores + 1)
}

// queueMode reports whether the scenario runs cron in queue mode.
func (sc *Scenario) queueMode() bool { return sc.Cron != nil && sc.Cron.Mode == "queue" }

// queueServiceID resolves "queue", "execstore" and "w1".."wN" (svc false
// for other names; sim.None when the scenario has no queue mode or no such
// worker).
func (sc *Scenario) queueServiceID(name string) (sim.NodeID, bool) {
	base := sc.queueBase()
	switch {
	case name == "queue" || name == "execstore":
		if !sc.queueMode() {
			return sim.None, true
		}
		if name == "queue" {
			return base, true
		}
		return base + 1, true
	case strings.HasPrefix(name, "w"):
		k, err := strconv.Atoi(name[1:])
		if err != nil || k < 1 {
			return sim.None, false
		}
		if !sc.queueMode() || k > sc.Cron.Config.Queue.Workers {
			return sim.None, true
		}
		return base + 1 + sim.NodeID(k), true
	}
	return sim.None, false
}

// workerName names worker k (1-based).
func workerName(k int) string { return fmt.Sprintf("w%d", k) }

// addQueueNodes adds queue mode's nodes, at the IDs queueBase promised:
// the queue, the execution store and workers w1..wN (built afresh on every
// boot, like the candidates).
func (r *Run) addQueueNodes() error {
	s, cfg := r.Sim, r.CronConfig
	var id sim.NodeID
	if id, r.Queue = cron.AddQueue(s, "queue", cfg); id != cfg.Queue.Queue {
		return fmt.Errorf("internal: the queue got node ID %d, want %d", id, cfg.Queue.Queue)
	}
	if id, r.ExecStore = cron.AddExecStore(s, "execstore", cfg); id != cfg.Queue.ExecStore {
		return fmt.Errorf("internal: the execution store got node ID %d, want %d", id, cfg.Queue.ExecStore)
	}
	sep := cfg.Queue.WorkerNodes[len(cfg.Queue.WorkerNodes)-cfg.Queue.Workers:] // after the co-located candidates, if any
	return r.addWorkers(workerName, func() sim.Node { return cron.NewWorker(cfg) }, sep)
}

// addWorkers adds one worker node per ID of want (queue mode's and Celery
// mode's workers, Kubernetes mode's kubelets), named by name(k) and built
// afresh on every boot like the candidates, checking each gets its ID.
func (r *Run) addWorkers(name func(int) string, build func() sim.Node, want []sim.NodeID) error {
	for k, w := range want {
		id := r.Sim.AddFreshNode(name(k+1), build, sim.Fsync(r.Scenario.Fsync))
		if id != w {
			return fmt.Errorf("internal: %s got node ID %d, want %d", name(k+1), id, w)
		}
		r.Workers = append(r.Workers, id)
	}
	return nil
}

// queueNodeName names queue mode's node id ("queue", "execstore", "w3"),
// false for other IDs.
func (sc *Scenario) queueNodeName(id sim.NodeID) (string, bool) {
	if !sc.queueMode() {
		return "", false
	}
	switch base := sc.queueBase(); {
	case id == base:
		return "queue", true
	case id == base+1:
		return "execstore", true
	case id > base+1 && int(id-base-1) <= sc.Cron.Config.Queue.Workers:
		return workerName(int(id - base - 1)), true
	}
	return "", false
}

// queueYAML writes the fields of a queue section that differ from zero.
func queueYAML(q cron.QueueConfig) string {
	parts := []string{fmt.Sprintf("workers: %d", q.Workers)}
	if q.Colocated {
		parts = append(parts, "colocated: true")
	}
	add := func(key string, d time.Duration) {
		if d != 0 {
			parts = append(parts, key+": "+dur(d))
		}
	}
	str := func(key, v string) {
		if v != "" {
			parts = append(parts, key+": "+v)
		}
	}
	add("visibility_timeout", q.VisibilityTimeout)
	str("ack", q.Ack)
	if q.Durable {
		parts = append(parts, "durable: true")
	}
	str("delivery", q.Delivery)
	add("heartbeat", q.Heartbeat)
	add("stale_after", q.StaleAfter)
	add("reap_every", q.ReapEvery)
	if q.MaxRetries != 0 {
		parts = append(parts, fmt.Sprintf("max_retries: %d", q.MaxRetries))
	}
	add("backoff", q.Backoff)
	add("timeout", q.Timeout)
	if q.FailRate != 0 {
		parts = append(parts, "fail_rate: "+strconv.FormatFloat(q.FailRate, 'g', -1, 64))
	}
	add("start_deadline", q.StartDeadline)
	str("concurrency", q.Concurrency)
	add("poll", q.Poll)
	add("retain", q.Retain)
	if q.NoClaim {
		parts = append(parts, "claim_execution: false")
	}
	return strings.Join(parts, ", ")
}
