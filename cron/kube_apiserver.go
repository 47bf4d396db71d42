package cron

import (
	"fmt"
	"slices"

	"github.com/electsim/electsim/sim"
)

// APIServer is Kubernetes mode's API server (with its etcd): a service
// node holding each CronJob's status with a resourceVersion, the Jobs and
// the Pods by name. A Job's name is unique: a second create of one name
// fails with AlreadyExists, the idempotency key that keeps two
// controller-managers from creating one scheduled time's Job twice. A
// status update carrying an old resourceVersion fails with a Conflict.
// The scheduler is folded in: a created Pod is bound at once to a ready
// kubelet. Like etcd its state survives its own restart. It holds only
// what the controllers have not deleted, and refuses creates past
// MaxKubeJobsPerCronJob and MaxKubePodsPerJob, so its memory is bounded.
type APIServer struct {
	cfg     *Config
	env     sim.Env
	status  []KubeCronJobStatus
	jobs    []KubeJob // in creation order
	pods    []KubePod // in creation order
	beats   []int64   // per kubelet: status updates received
	beatAt  []int64   // per kubelet: API server wall ns of the last one
	nextUID int64
	// Stats count what the API server refused, for tests and reports.
	Stats APIStats
}

// APIStats count API errors returned.
type APIStats struct {
	JobsCreated, AlreadyExists, Conflicts, Refused, Evictions, Replacements int
}

// NewAPIServer returns an API server for the validated cfg.
func NewAPIServer(cfg *Config) *APIServer {
	k := len(cfg.Kube.KubeletNodes)
	return &APIServer{cfg: cfg, status: make([]KubeCronJobStatus, len(cfg.Jobs)), beats: make([]int64, k), beatAt: make([]int64, k)}
}

// AddAPIServer adds an API server node named name to s.
func AddAPIServer(s *sim.Sim, name string, cfg *Config) (sim.NodeID, *APIServer) {
	a := NewAPIServer(cfg)
	// Every client reaches it by HTTP over TCP (client-go's rest.Client):
	// no request or answer is duplicated, a loss is a retransmission.
	return s.AddNode(name, a, sim.Service(), sim.Streams()), a
}

// Objects returns how many Jobs and Pods the API server holds (for tests
// bounding its memory).
func (a *APIServer) Objects() (jobs, pods int) { return len(a.jobs), len(a.pods) }

// Jobs returns a copy of the Jobs the API server holds.
func (a *APIServer) Jobs() []KubeJob { return slices.Clone(a.jobs) }

// Start implements sim.Node; the state is etcd's, durable.
func (a *APIServer) Start(env sim.Env, _ []byte) { a.env = env }

// OnTimer implements sim.Node; the API server sets no timers.
func (a *APIServer) OnTimer(sim.TimerID, int) {}

// OnMessage implements sim.Node.
func (a *APIServer) OnMessage(m sim.Message) {
	switch m.Kind {
	case KindKubeList:
		a.env.Send(sim.Message{Kind: KindKubeListResp, To: m.From, B: m.B, Body: a.snapshot()})
	case KindKubeCreateJob:
		a.createJob(m)
	case KindKubeUpdateStatus:
		a.updateStatus(m)
	case KindKubeDeleteJob:
		if name, ok := m.Body.(string); ok {
			a.deleteJob(name)
		}
	case KindKubeCreatePod:
		a.createPod(m)
	case KindKubeDeletePod:
		if name, ok := m.Body.(string); ok {
			a.evict(name, m.Flag)
		}
	case KindKubeFinishJob:
		if f, ok := m.Body.(*KubeFinish); ok {
			a.finishJob(f.Name, m.Flag, f.Reason)
		}
	case KindKubeNodeStatus:
		a.nodeStatus(m)
	}
}

// snapshot is a deep copy: the receiver's view must not change under it.
func (a *APIServer) snapshot() *KubeSnapshot {
	s := &KubeSnapshot{CronJobs: slices.Clone(a.status), Jobs: slices.Clone(a.jobs), Pods: slices.Clone(a.pods), Beats: slices.Clone(a.beats)}
	for i := range s.CronJobs {
		s.CronJobs[i].Active = slices.Clone(s.CronJobs[i].Active)
	}
	for i := range s.Jobs {
		s.Jobs[i].Pods = slices.Clone(s.Jobs[i].Pods)
	}
	return s
}

func (a *APIServer) job(name string) int {
	return slices.IndexFunc(a.jobs, func(j KubeJob) bool { return j.Name == name })
}

func (a *APIServer) pod(name string) int {
	return slices.IndexFunc(a.pods, func(p KubePod) bool { return p.Name == name })
}

// createJob creates the Job named after its scheduled time, or answers
// AlreadyExists (created false) when one of that name exists; a create
// past MaxKubeJobsPerCronJob gets no answer (the controller's wait for it
// times out and it tries again later).
func (a *APIServer) createJob(m sim.Message) {
	j, slot := int(m.A), m.Index
	if j < 0 || j >= len(a.cfg.Jobs) {
		return
	}
	resp := m
	resp.Kind, resp.To = KindKubeCreateJobResp, m.From
	name := kubeJobName(a.cfg.Jobs[j].Name, slot)
	if a.cfg.zoo.jobNamePerRequest {
		name = fmt.Sprintf("%s-%x", name, uint64(m.B)) // PlantJobNamePerRequest
		resp.Body = name
	}
	n := 0
	for _, x := range a.jobs {
		if x.Job == j {
			n++
		}
	}
	switch {
	case a.job(name) >= 0:
		a.Stats.AlreadyExists++
		a.env.Effect(sim.Effect{Name: "kube.job_already_exists", Detail: fmt.Sprintf("create %s (token %d): AlreadyExists", name, m.Term), B: slot, C: int64(j)})
	case n >= MaxKubeJobsPerCronJob:
		a.Stats.Refused++
		a.env.Effect(sim.Effect{Name: "kube.job_refused", Detail: fmt.Sprintf("create %s: the CronJob has %d Jobs (limit %d)", name, n, MaxKubeJobsPerCronJob), B: slot, C: int64(j)})
		return // an error the controller retries on a later sync
	default:
		a.nextUID++
		a.jobs = append(a.jobs, KubeJob{Name: name, Job: j, Slot: slot, Token: m.Term, UID: a.nextUID, Start: a.env.WallNanos()})
		a.Stats.JobsCreated++
		a.env.Effect(sim.ExecFields{Exec: a.nextUID, SlotRef: sim.SlotRef{Slot: slot, Job: j}}.ExecEffect("kube.job_created", fmt.Sprintf("%s for %s token %d", name, SlotName(a.cfg.Jobs[j].Name, slot), m.Term), sim.FactExecCreated))
		resp.Flag = true
	}
	a.env.Send(resp)
}

// updateStatus writes a CronJob's status if the resourceVersion read is
// current (optimistic concurrency), else answers nothing: a Conflict the
// controller notices on its next sync.
func (a *APIServer) updateStatus(m sim.Message) {
	j := int(m.A)
	if j < 0 || j >= len(a.status) {
		return
	}
	st := &a.status[j]
	if m.B != st.ResourceVersion {
		a.Stats.Conflicts++
		a.env.Effect(sim.Effect{Name: "kube.status_conflict", Detail: fmt.Sprintf("%s status: resourceVersion %d is not %d: Conflict", a.cfg.Jobs[j].Name, m.B, st.ResourceVersion), C: int64(j)})
		return
	}
	active, _ := m.Body.([]string)
	active = slices.Clone(active)
	// A reference to a Job that no longer exists is dropped, as the
	// controller's next sync would ("MissingJob"); it also bounds the list.
	active = slices.DeleteFunc(active, func(n string) bool { return a.job(n) < 0 })
	st.Active, st.LastScheduleTime = slices.Compact(active), m.Index
	st.ResourceVersion++
}

// deleteJob deletes a Job and its Pods: a Pod still bound to a live
// kubelet is marked Terminating and removed once the kubelet reports it
// gone; the Job object goes at once (background propagation).
func (a *APIServer) deleteJob(name string) {
	k := a.job(name)
	if k < 0 {
		return
	}
	a.env.Effect(sim.Effect{Name: "kube.job_deleted", Detail: name, A: a.jobs[k].UID, B: a.jobs[k].Slot, C: int64(a.jobs[k].Job)})
	a.jobs = slices.Delete(a.jobs, k, k+1)
	a.pods = slices.DeleteFunc(a.pods, func(p KubePod) bool { return p.JobName == name && (p.Phase >= PodSucceeded || p.Node == sim.None) })
	for i := range a.pods {
		if a.pods[i].JobName == name {
			a.pods[i].Deleting = true
			a.watch(a.pods[i])
		}
	}
}

// watch tells a Pod's kubelet of a change to it at once (the kubelet's
// watch on its Pods); an unreachable kubelet misses it and learns it from
// its next status answer.
func (a *APIServer) watch(p KubePod) {
	if p.Node == sim.None {
		return
	}
	a.env.Send(sim.Message{Kind: KindKubeBind, To: p.Node, Body: &p})
}

// createPod creates the Job's next Pod and binds it to a ready kubelet.
// Pods are named by generateName, so the API server accepts every create:
// only the creating Job controller's own expectations keep it from
// creating two, and a second controller-manager's are its own.
func (a *APIServer) createPod(m sim.Message) {
	name, _ := m.Body.(string)
	k := a.job(name)
	if k < 0 || a.jobs[k].Cond != JobActive {
		return
	}
	jb := &a.jobs[k]
	if len(jb.Pods) >= MaxKubePodsPerJob {
		a.Stats.Refused++
		return
	}
	node := a.pickKubelet()
	jb.PodSeq++
	p := KubePod{Name: fmt.Sprintf("%s-%d", name, jb.PodSeq), JobName: name, Job: jb.Job, Slot: jb.Slot, Token: jb.Token, Node: node}
	terminating := false
	for _, pn := range jb.Pods {
		if i := a.pod(pn); i >= 0 && a.pods[i].Deleting && a.pods[i].Phase < PodSucceeded {
			terminating = true
		}
	}
	jb.Pods = append(jb.Pods, p.Name)
	a.pods = append(a.pods, p)
	ev := sim.Effect{Name: "kube.pod_created", Detail: fmt.Sprintf("%s on %s", p.Name, KubeletName(a.cfg, node)), A: jb.UID, B: jb.Slot, C: int64(jb.Job)}
	if node == sim.None {
		ev.Name = "kube.pod_unschedulable"
	}
	if terminating {
		// podReplacementPolicy TerminatingOrFailed: a replacement beside a
		// Pod that may still run on an unreachable node.
		a.Stats.Replacements++
		ev.Name, ev.Fact = "kube.pod_replacement", sim.FactExecRedelivered
		ev.Detail += " while an earlier Pod of the Job is Terminating"
	}
	if node == sim.None {
		ev.Detail = p.Name + ": Pending, no ready node"
	}
	a.env.Effect(ev)
	if node != sim.None {
		a.watch(p)
	}
}

// pickKubelet is the scheduler: the ready kubelet (status updated within
// the grace period, by the API server's clock) running the fewest live
// Pods, ties broken at random; sim.None if none is ready.
func (a *APIServer) pickKubelet() sim.NodeID {
	now := a.env.WallNanos()
	best, bestLoad, ties := sim.None, 0, 0
	for i, id := range a.cfg.Kube.KubeletNodes {
		if a.beatAt[i] == 0 || now-a.beatAt[i] > int64(a.cfg.Kube.NodeMonitorGrace) {
			continue
		}
		load := 0
		for _, p := range a.pods {
			if p.Node == id && p.Phase < PodSucceeded {
				load++
			}
		}
		switch {
		case best == sim.None || load < bestLoad:
			best, bestLoad, ties = id, load, 1
		case load == bestLoad:
			ties++
			if a.env.Rand().Intn(ties) == 0 {
				best = id
			}
		}
	}
	return best
}

// evict deletes a Pod (the taint manager's eviction when taint is set,
// which first adds the DisruptionTarget condition; else the Job
// controller's delete): Terminating until its kubelet reports it gone,
// which an unreachable kubelet cannot.
func (a *APIServer) evict(name string, taint bool) {
	i := a.pod(name)
	if i < 0 || a.pods[i].Deleting {
		return
	}
	a.pods[i].Disruption = a.pods[i].Disruption || taint
	if a.pods[i].Node == sim.None { // never bound: nothing runs it
		a.pods[i].Phase, a.pods[i].EndedAt = PodFailed, a.env.WallNanos()
		return
	}
	a.pods[i].Deleting = true
	a.watch(a.pods[i])
	a.Stats.Evictions++
	a.env.Effect(sim.Effect{Name: "kube.pod_evicted", Detail: name + " on " + KubeletName(a.cfg, a.pods[i].Node), B: a.pods[i].Slot, C: int64(a.pods[i].Job)})
}

func (a *APIServer) finishJob(name string, failed bool, reason string) {
	k := a.job(name)
	if k < 0 || a.jobs[k].Cond != JobActive {
		return
	}
	jb := &a.jobs[k]
	jb.Cond, jb.Reason, jb.EndedAt = JobComplete, reason, a.env.WallNanos()
	ev := sim.Effect{Name: "kube.job_complete", Detail: name, A: jb.UID, B: jb.Slot, C: int64(jb.Job)}
	if failed {
		jb.Cond = JobFailed
		ev.Name, ev.Detail, ev.Fact = "kube.job_failed", name+": "+reason, sim.FactExecDead
	}
	a.env.Effect(ev)
}

// nodeStatus records a kubelet's status update (its lease renewal) and
// its Pods' phases, and answers with the Pods bound to it.
func (a *APIServer) nodeStatus(m sim.Message) {
	ki := slices.Index(a.cfg.Kube.KubeletNodes, m.From)
	if ki < 0 {
		return
	}
	now := a.env.WallNanos()
	a.beats[ki]++
	a.beatAt[ki] = now
	// A ready kubelet: the scheduler binds the Pods left Pending.
	for i := range a.pods {
		if p := &a.pods[i]; p.Node == sim.None && !p.Deleting {
			if p.Node = a.pickKubelet(); p.Node != sim.None {
				a.env.Effect(sim.Effect{Name: "kube.pod_bound", Detail: p.Name + " on " + KubeletName(a.cfg, p.Node), B: p.Slot, C: int64(p.Job)})
				a.watch(*p)
			}
		}
	}
	sts, _ := m.Body.([]KubePodStatus)
	for _, st := range sts {
		i := a.pod(st.Name)
		if i < 0 || a.pods[i].Node != m.From {
			continue
		}
		p := &a.pods[i]
		if st.Phase > p.Phase && st.Phase == PodFailed {
			p.ExitCode = st.ExitCode
		}
		if st.Gone && p.Deleting {
			a.removePod(i)
			continue
		}
		if st.Phase > p.Phase {
			p.Phase = st.Phase
			if st.Phase >= PodSucceeded {
				p.EndedAt = now
			}
		}
	}
	var bound []KubePod
	for _, p := range a.pods {
		if p.Node == m.From {
			bound = append(bound, p)
		}
	}
	a.env.Send(sim.Message{Kind: KindKubeNodeStatusResp, To: m.From, Body: bound})
}

// removePod removes a Terminating Pod its kubelet reported gone; a Pod
// deleted before it finished counts as failed for its Job, and stays
// listed (as Failed) while the Job exists.
func (a *APIServer) removePod(i int) {
	p := &a.pods[i]
	if a.job(p.JobName) >= 0 {
		if p.Phase < PodSucceeded {
			p.Phase, p.EndedAt = PodFailed, a.env.WallNanos()
		}
		p.Deleting = false
		return
	}
	a.pods = slices.Delete(a.pods, i, i+1)
}

// KubeletName names kubelet node id as a run does: kubelet1..kubeletN in
// Config.Kube.KubeletNodes order.
func KubeletName(cfg *Config, id sim.NodeID) string {
	return fmt.Sprintf("kubelet%d", slices.Index(cfg.Kube.KubeletNodes, id)+1)
}
