package cron

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/electsim/electsim/sim"
)

// kubeWait is a write a controller-manager waits to see in its view of the
// API server before it reconciles that CronJob again: a Job create not yet
// answered, or a status update whose resourceVersion its view has not
// passed (the real controller's work queue never syncs one CronJob twice
// at once, and its in-memory status carries its own last update).
type kubeWait struct {
	job    int
	req    int64 // the create's request number; 0 for a status update
	slot   int64
	rv     int64 // resourceVersion read (create) or sent (status update)
	active []string
	since  time.Duration
}

// kubeNodeSeen is the node lifecycle controller's view of one kubelet.
type kubeNodeSeen struct {
	beats   int64
	at      time.Duration // own monotonic time the beats last changed
	known   bool
	taintAt time.Duration // own monotonic time it was tainted unreachable; -1: not tainted
}

// ControllerManager is Kubernetes mode's candidate, a kube-controller-
// manager: it runs an election algorithm (the lease algorithm's k8s
// flavour is client-go's leaderelection) and, while that algorithm says it
// acts as leader, runs three controllers against the API server on its
// own clocks, every SyncEvery and at each scheduled time +100ms, on its
// view of the API server (the List answer of its previous sync: its
// informers' cache):
//
//   - the CronJob controller (syncCronJob): the most recent unmet scheduled
//     time since status.lastScheduleTime, startingDeadlineSeconds,
//     concurrencyPolicy, a Job named after its scheduled time, the status
//     update with the resourceVersion read, finished Jobs beyond the
//     history limits deleted;
//   - the Job controller (syncJob): one Pod at a time, backoffLimit with
//     the pod-failure backoff, activeDeadlineSeconds, a replacement Pod as
//     soon as the previous one is Terminating (podReplacementPolicy
//     TerminatingOrFailed), its own expectations against creating twice;
//   - the node lifecycle controller: a node whose status has not changed
//     for NodeMonitorGrace is unreachable, and its Pods are evicted
//     TolerationSeconds later (the NoExecute taint's default toleration).
//
// It keeps nothing across a crash or a lost leadership.
type ControllerManager struct {
	inner   sim.Node
	cfg     *Config
	env     leaderEnv
	leading bool
	token   int64
	tenure  int64
	view    *KubeSnapshot
	seq     int64
	timer   sim.TimerID
	armed   bool
	waits   []kubeWait
	expect  []kubeExpect
	ending  []string // Jobs it sent a finish for, until its view shows them finished
	nodes   []kubeNodeSeen
	missed  []int64 // per CronJob: the last scheduled time reported missed or skipped
}

// kubeExpect is the Job controller's expectation: it created a Pod of Job
// name and waits to see pods of them, at most kubeExpectationsTimeout
// (a create the API server refused is never seen).
type kubeExpect struct {
	name string
	pods int
	at   time.Duration
}

// kubeExpectationsTimeout is the controller framework's ExpectationsTimeout.
const kubeExpectationsTimeout = 5 * time.Minute

// NewControllerManager returns a controller-manager running inner; cfg
// must have been validated with Kubernetes mode on.
func NewControllerManager(inner sim.Node, cfg *Config) *ControllerManager {
	return &ControllerManager{inner: inner, cfg: cfg}
}

// Inner returns the wrapped algorithm node.
func (c *ControllerManager) Inner() sim.Node { return c.inner }

// Resign passes a graceful shutdown to the wrapped algorithm.
func (c *ControllerManager) Resign() {
	if r, ok := c.inner.(interface{ Resign() }); ok {
		r.Resign()
	}
}

// Start implements sim.Node.
func (c *ControllerManager) Start(env sim.Env, restored []byte) {
	*c = ControllerManager{inner: c.inner, cfg: c.cfg}
	c.env = leaderEnv{Env: env, t: c}
	c.env.startInner(c.inner, restored)
}

// OnMessage implements sim.Node.
func (c *ControllerManager) OnMessage(m sim.Message) {
	switch m.Kind {
	case KindKubeListResp:
		if s, ok := m.Body.(*KubeSnapshot); ok && c.leading && m.B > c.tenure<<32 {
			c.view = s
		}
	case KindKubeCreateJobResp:
		c.created(m)
	default:
		if !IsKind(m.Kind) {
			c.inner.OnMessage(m)
		}
	}
}

// OnTimer implements sim.Node.
func (c *ControllerManager) OnTimer(id sim.TimerID, tag int) {
	if tag < c.cfg.TagBase {
		c.inner.OnTimer(id, tag)
		return
	}
	if tag-c.cfg.TagBase == tagKubeSync {
		c.armed = false
		if c.leading {
			c.sync()
		}
	}
}

func (c *ControllerManager) lead(token int64) {
	if c.leading {
		return
	}
	c.leading, c.token = true, token
	c.tenure++
	c.view, c.waits, c.expect, c.ending = nil, nil, nil, nil
	c.nodes = make([]kubeNodeSeen, len(c.cfg.Kube.KubeletNodes))
	c.missed = make([]int64, len(c.cfg.Jobs))
	c.sync()
}

func (c *ControllerManager) stopped() {
	c.leading = false
	c.view, c.waits, c.expect, c.ending = nil, nil, nil, nil
	if c.armed {
		c.env.CancelTimer(c.timer)
		c.armed = false
	}
}

// sync reconciles on the current view, asks for a new one and sleeps
// until the next sync or the next scheduled time +100ms, whichever comes
// first (the controller requeues a CronJob for its next schedule with
// nextScheduleDelta).
func (c *ControllerManager) sync() {
	if c.view != nil {
		c.reconcile(c.view)
	}
	c.seq++
	c.env.Send(sim.Message{Kind: KindKubeList, To: c.cfg.Kube.APIServer, B: c.tenure<<32 | c.seq&(1<<32-1)})
	d := c.cfg.Kube.SyncEvery
	now := c.env.Wall()
	for j := range c.cfg.Jobs {
		if t := c.cfg.Jobs[j].sched.Next(now); !t.IsZero() {
			d = min(d, t.Sub(now)+kubeNextScheduleDelta)
		}
	}
	c.timer, c.armed = c.env.SetTimer(d, c.cfg.TagBase+tagKubeSync), true
}

func (c *ControllerManager) send(kind sim.MsgKind, m sim.Message) {
	m.Kind, m.To = kind, c.cfg.Kube.APIServer
	c.env.Send(m)
}

func (c *ControllerManager) reconcile(v *KubeSnapshot) {
	c.nodeLifecycle(v)
	c.jobController(v)
	mono := c.env.Now()
	c.waits = slices.DeleteFunc(c.waits, func(w kubeWait) bool {
		// A lost create or update is given up after five syncs.
		return mono-w.since > 5*c.cfg.Kube.SyncEvery || (w.req == 0 && v.CronJobs[w.job].ResourceVersion > w.rv)
	})
	for j := range c.cfg.Jobs {
		if j < len(v.CronJobs) && !slices.ContainsFunc(c.waits, func(w kubeWait) bool { return w.job == j }) {
			c.cronJob(v, j)
		}
	}
}

func findJob(v *KubeSnapshot, name string) *KubeJob {
	for i := range v.Jobs {
		if v.Jobs[i].Name == name {
			return &v.Jobs[i]
		}
	}
	return nil
}

// cronJob is syncCronJob for CronJob j on view v.
func (c *ControllerManager) cronJob(v *KubeSnapshot, j int) {
	k := &c.cfg.Kube
	job := &c.cfg.Jobs[j]
	st := v.CronJobs[j]
	active := slices.Clone(st.Active)
	update := false
	// Finished or missing Jobs leave the active list (SawCompletedJob,
	// MissingJob).
	active = slices.DeleteFunc(active, func(n string) bool {
		x := findJob(v, n)
		gone := x == nil || x.Cond != JobActive
		update = update || gone
		return gone
	})
	c.cleanupFinished(v, j)
	defer func() {
		if update {
			c.updateStatus(j, st, active, st.LastScheduleTime)
		}
	}()
	now := c.env.Wall()
	earliest := c.cfg.NotBefore // the CronJob's creationTimestamp
	if st.LastScheduleTime != 0 {
		earliest = time.Unix(0, st.LastScheduleTime).UTC()
	}
	at, missed, err := MostRecentScheduleTime(job.sched, earliest, now, k.StartingDeadline)
	if err != nil || at == nil {
		return
	}
	slot := at.UnixNano()
	if missed == ManyMissed && c.missed[j] != slot {
		c.env.Effect(sim.Effect{Name: "kube.too_many_missed_times", Detail: fmt.Sprintf("%s: more than 100 missed start times since %s; scheduling the most recent, %s",
			job.Name, earliest.Format(time.RFC3339), at.Format(time.RFC3339)), B: slot, C: int64(j)})
	}
	if k.StartingDeadline > 0 && at.Add(k.StartingDeadline).Before(now) {
		if c.missed[j] != slot {
			c.missed[j] = slot
			c.env.Effect(sim.RunFields{SlotRef: sim.SlotRef{Slot: slot, Job: j}}.RunEffect("kube.miss_schedule", fmt.Sprintf("%s: missed scheduled time to start a job (%v late, startingDeadlineSeconds %d)",
				SlotName(job.Name, slot), now.Sub(*at).Round(time.Millisecond), int64(k.StartingDeadline/time.Second)), sim.FactRunSkipped))
		}
		return
	}
	name := kubeJobName(job.Name, slot)
	if slices.Contains(active, name) || st.LastScheduleTime == slot {
		return
	}
	if k.Concurrency == KubeForbid && len(active) > 0 && !c.cfg.zoo.forbidIgnoresActive {
		if c.missed[j] != slot {
			c.missed[j] = slot
			c.env.Effect(sim.RunFields{SlotRef: sim.SlotRef{Slot: slot, Job: j}}.RunEffect("kube.job_already_active", fmt.Sprintf("%s: not starting, %s is still active (concurrencyPolicy Forbid)", SlotName(job.Name, slot), active[0]), sim.FactRunSkipped))
		}
		return
	}
	if k.Concurrency == KubeReplace {
		for _, n := range active {
			c.env.Effect(sim.Effect{Name: "kube.replace_job", Detail: fmt.Sprintf("deleting %s, still running at %s (concurrencyPolicy Replace)", n, SlotName(job.Name, slot)), B: slot, C: int64(j)})
			c.send(KindKubeDeleteJob, sim.Message{Body: n})
		}
		active, update = nil, len(active) > 0 || update
	}
	c.seq++
	req := c.tenure<<32 | c.seq&(1<<32-1)
	c.waits = append(c.waits, kubeWait{job: j, req: req, slot: slot, rv: st.ResourceVersion, active: active, since: c.env.Now()})
	c.send(KindKubeCreateJob, sim.Message{Term: c.token, Index: slot, A: int64(j), B: req})
	c.cfg.reached(c.env.Env, StKubeJobCreateSent, slot)
	update = false // the status goes with the create's answer
}

// created handles a create's answer: created, or AlreadyExists for a Job
// of the controller's own CronJob not in the active list — either way the
// Job joins the active list and lastScheduleTime moves to its time.
func (c *ControllerManager) created(m sim.Message) {
	i := slices.IndexFunc(c.waits, func(w kubeWait) bool { return w.req != 0 && w.req == m.B })
	if i < 0 {
		return
	}
	w := c.waits[i]
	c.waits = slices.Delete(c.waits, i, i+1)
	if !c.leading {
		return
	}
	c.cfg.reached(c.env.Env, StKubeJobCreated, w.slot)
	name := kubeJobName(c.cfg.Jobs[w.job].Name, w.slot)
	if given, ok := m.Body.(string); ok {
		name = given // the API server chose it (PlantJobNamePerRequest)
	}
	if slices.Contains(w.active, name) {
		return
	}
	c.updateStatus(w.job, KubeCronJobStatus{ResourceVersion: w.rv}, append(w.active, name), w.slot)
}

func (c *ControllerManager) updateStatus(j int, st KubeCronJobStatus, active []string, last int64) {
	c.waits = append(c.waits, kubeWait{job: j, rv: st.ResourceVersion, since: c.env.Now()})
	c.send(KindKubeUpdateStatus, sim.Message{A: int64(j), Index: last, B: st.ResourceVersion, Body: slices.Clone(active)})
	c.cfg.reached(c.env.Env, StKubeStatusSent, last)
}

// cleanupFinished deletes CronJob j's finished Jobs beyond the history
// limits, oldest first (cleanupFinishedJobs, removeOldestJobs).
func (c *ControllerManager) cleanupFinished(v *KubeSnapshot, j int) {
	for _, lim := range []struct {
		cond, keep int
	}{{JobComplete, c.cfg.Kube.SuccessfulHistory}, {JobFailed, c.cfg.Kube.FailedHistory}} {
		var done []*KubeJob
		for i := range v.Jobs {
			if x := &v.Jobs[i]; x.Job == j && x.Cond == lim.cond {
				done = append(done, x)
			}
		}
		slices.SortStableFunc(done, func(a, b *KubeJob) int {
			if a.Start != b.Start {
				return cmp.Compare(a.Start, b.Start)
			}
			return cmp.Compare(a.Name, b.Name)
		})
		for i := 0; i < len(done)-lim.keep; i++ {
			c.send(KindKubeDeleteJob, sim.Message{Body: done[i].Name})
		}
	}
}

// podBackoff is the Job controller's delay before a new Pod after failed
// ones: DefaultJobPodFailureBackOff (10s) doubled per further failure,
// capped at MaxJobPodFailureBackOff (10m).
func podBackoff(failed int) time.Duration {
	d := 10 * time.Second
	for i := 1; i < failed && d < 10*time.Minute; i++ {
		d *= 2
	}
	return min(d, 10*time.Minute)
}

// nodeLifecycle marks a kubelet unreachable when its status has not
// changed for NodeMonitorGrace (by this controller's clock, from when it
// first saw it), and evicts its Pods TolerationSeconds later.
func (c *ControllerManager) nodeLifecycle(v *KubeSnapshot) {
	k := &c.cfg.Kube
	mono := c.env.Now()
	for i := range c.nodes {
		if i >= len(v.Beats) {
			break
		}
		n := &c.nodes[i]
		if !n.known || v.Beats[i] != n.beats {
			if n.known && n.taintAt >= 0 && n.beats != v.Beats[i] {
				c.env.Effect(sim.Effect{Name: "kube.node_ready", Detail: fmt.Sprintf("kubelet%d: status updated again, taint removed", i+1)})
			}
			*n = kubeNodeSeen{beats: v.Beats[i], at: mono, known: true, taintAt: -1}
			continue
		}
		if mono-n.at <= k.NodeMonitorGrace {
			continue
		}
		if n.taintAt < 0 {
			n.taintAt = mono
			c.env.Effect(sim.Effect{Name: "kube.node_unreachable", Detail: fmt.Sprintf("kubelet%d: no status for %v (node-monitor-grace-period %v): tainted unreachable:NoExecute",
				i+1, (mono - n.at).Round(time.Millisecond), k.NodeMonitorGrace)})
		}
		if mono-n.taintAt < k.TolerationSeconds {
			continue
		}
		id := k.KubeletNodes[i]
		for _, p := range v.Pods {
			if p.Node == id && !p.Deleting && p.Phase < PodSucceeded {
				c.send(KindKubeDeletePod, sim.Message{Flag: true, Body: p.Name})
			}
		}
	}
}

// TimerName implements sim.TimerNamer.
func (c *ControllerManager) TimerName(tag int) string {
	if tag < c.cfg.TagBase {
		if tn, ok := c.inner.(sim.TimerNamer); ok {
			return tn.TimerName(tag)
		}
		return ""
	}
	if tag-c.cfg.TagBase == tagKubeSync {
		return "kcm.sync"
	}
	return timerName(c.cfg.TagBase, tag)
}
