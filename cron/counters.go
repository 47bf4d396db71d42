package cron

import "github.com/electsim/electsim/sim"

// counterDef is one per-run counter: the effect it counts, by its typed
// name (never its Detail), and the modes it belongs to.
type counterDef struct {
	name, effect string
	modes        []string
}

// counterDefs are the per-run counters of the cron modes' effects, in
// report order: how often a beat exited or a CronJob skipped a run,
// without reading a trace (issue 36).
var counterDefs = []counterDef{
	{"beat_exits", "beat.exited", []string{ModeCelery}},
	{"beat_tasks_sent", "beat.sent", []string{ModeCelery}},
	{"redbeat_lock_acquisitions", "redbeat.lock_acquired", []string{ModeCelery}},
	{"redbeat_entries_missing", "redbeat.entry_missing", []string{ModeCelery}},
	{"kube_jobs_created", "kube.job_created", []string{ModeKubernetes}},
	{"kube_pods_created", "kube.pod_created", []string{ModeKubernetes}},
	{"kube_runs_skipped_active", "kube.job_already_active", []string{ModeKubernetes}},
	{"kube_runs_missed_deadline", "kube.miss_schedule", []string{ModeKubernetes}},
	{"kube_too_many_missed_times", "kube.too_many_missed_times", []string{ModeKubernetes}},
	{"kube_replace_deletes", "kube.replace_job", []string{ModeKubernetes}},
	{"kube_pods_evicted", "kube.pod_evicted", []string{ModeKubernetes}},
	{"queue_redeliveries", "queue.visible_again", []string{ModeQueue, ModeCelery}},
	{"queue_claims_refused", "worker.claim_refused", []string{ModeQueue}},
	{"queue_executions_dead", "exec.dead", []string{ModeQueue}},
}

// Cron modes as the scenario grammar names them (cron.mode), for
// NewCounters.
const (
	ModeQueue      = "queue"
	ModeCelery     = "celery"
	ModeKubernetes = "kubernetes"
)

// Counters counts, per run, the effects of one cron mode that answer
// "how often" (beat exits, TooManyMissedTimes warnings, runs skipped,
// Jobs deleted by Replace, Pods created, claims refused, …). It is a
// sim.Sink: subscribe it before the run. Memory is one int per counter.
type Counters struct {
	defs []int // indices into counterDefs of the mode's counters
	n    []int
}

// NewCounters returns the counters of cron mode mode (nil for a mode
// with none: leader-driven, ShedLock).
func NewCounters(mode string) *Counters {
	c := &Counters{}
	for i, d := range counterDefs {
		for _, m := range d.modes {
			if m == mode {
				c.defs = append(c.defs, i)
			}
		}
	}
	if len(c.defs) == 0 {
		return nil
	}
	c.n = make([]int, len(c.defs))
	return c
}

// Record implements sim.Sink.
func (c *Counters) Record(r *sim.Record) {
	if r.Type != sim.RecEffect {
		return
	}
	for k, i := range c.defs {
		if counterDefs[i].effect == r.Name {
			c.n[k]++
			return
		}
	}
}

// Map returns every counter of the mode by name, zeros included (a
// count of none is an answer too); nil for nil Counters.
func (c *Counters) Map() map[string]int {
	if c == nil {
		return nil
	}
	out := make(map[string]int, len(c.defs))
	for k, i := range c.defs {
		out[counterDefs[i].name] = c.n[k]
	}
	return out
}

// CounterNames lists every counter name, in report order.
func CounterNames() []string {
	out := make([]string, len(counterDefs))
	for i, d := range counterDefs {
		out[i] = d.name
	}
	return out
}
