package cron

import (
	"fmt"
	"slices"
	"time"

	"github.com/electsim/electsim/sim"
)

// Timer tags of Kubernetes mode, relative to Config.TagBase, above queue
// mode's.
const (
	tagKube       = 9 << 20
	tagKubeSync   = tagKube + 0 // a controller-manager's reconcile
	tagKubeStatus = tagKube + 1 // a kubelet's node status update
	tagKubeGrace  = tagKube + 2 // a terminating Pod's grace period ran out
)

// kubeletPod is a Pod a kubelet runs or ran in this incarnation.
type kubeletPod struct {
	pod   KubePod
	run   int64 // the executor's run ID; 0 once it ended
	phase int
	exit  int32 // the container's exit code once Failed; 0: it never ran here
	gone  bool  // killed after its deletion: report it gone
	// terminating: deleted, SIGTERM sent, running on until killAt
	// (monotonic) unless it ends first.
	terminating bool
	killAt      time.Duration
}

// Kubelet is a Kubernetes worker node: it runs the Pods bound to it —
// one container each, restartPolicy Never — whose run makes the job's
// writes to the fenced resource with the Job's token through the same
// executor as every cron run, reports their phases, and renews its node
// status every NodeStatusEvery. A Pod deleted at the API server is killed
// when the kubelet hears of it; an unreachable kubelet hears of nothing
// and runs on. A crash kills its containers (the machine went down): on
// its return it reports the Pods it no longer runs as Failed.
type Kubelet struct {
	cfg   *Config
	env   sim.Env
	ex    executor
	pods  []kubeletPod
	timer sim.TimerID
	// Stats count what this incarnation did.
	Stats KubeletStats
}

// KubeletStats count a kubelet's Pods: started, succeeded, failed, killed.
type KubeletStats struct {
	Started, Succeeded, Failed, Killed int
}

// NewKubelet returns a kubelet for the validated cfg.
func NewKubelet(cfg *Config) *Kubelet { return &Kubelet{cfg: cfg} }

// Busy reports whether a Pod runs here (the busy_worker fault target).
func (k *Kubelet) Busy() bool {
	return slices.ContainsFunc(k.pods, func(p kubeletPod) bool { return p.run != 0 })
}

// Start implements sim.Node; a kubelet keeps nothing across a crash.
func (k *Kubelet) Start(env sim.Env, _ []byte) {
	*k = Kubelet{cfg: k.cfg, env: env}
	k.ex.cfg, k.ex.env = k.cfg, env
	k.ex.onFinish = k.finished
	k.status()
}

// OnMessage implements sim.Node.
func (k *Kubelet) OnMessage(m sim.Message) {
	switch m.Kind {
	case KindKubeBind:
		if p, ok := m.Body.(*KubePod); ok {
			k.reconcile([]KubePod{*p}, false)
		}
	case KindKubeNodeStatusResp:
		bound, _ := m.Body.([]KubePod)
		k.reconcile(bound, true)
	case KindWriteResp, KindClaimResp, KindQueryResp:
		k.ex.onMessage(m)
	}
}

// OnTimer implements sim.Node.
func (k *Kubelet) OnTimer(id sim.TimerID, tag int) {
	switch tag - k.cfg.TagBase {
	case tagKubeStatus:
		k.status()
		return
	case tagKubeGrace:
		killed := false
		for i := range k.pods {
			if p := &k.pods[i]; p.terminating && p.run != 0 && k.env.Now() >= p.killAt {
				k.hardKill(i)
				killed = true
			}
		}
		if killed {
			k.status()
		}
		return
	}
	k.ex.onTimer(id, tag)
}

// status sends the node status update (the lease renewal) with every
// Pod's phase, and re-arms itself.
func (k *Kubelet) status() {
	k.env.CancelTimer(k.timer)
	sts := make([]KubePodStatus, 0, len(k.pods))
	for _, p := range k.pods {
		sts = append(sts, KubePodStatus{Name: p.pod.Name, Phase: p.phase, Gone: p.gone, ExitCode: p.exit})
	}
	k.env.Send(sim.Message{Kind: KindKubeNodeStatus, To: k.cfg.Kube.APIServer, Body: sts})
	k.timer = k.env.SetTimer(k.cfg.Kube.NodeStatusEvery, k.cfg.TagBase+tagKubeStatus)
}

// reconcile starts the bound Pods it has not run, kills the deleted ones
// it runs, and (full: the whole list of Pods bound here) forgets those the
// API server no longer holds or has recorded as ended.
func (k *Kubelet) reconcile(bound []KubePod, full bool) {
	changed := false
	for _, b := range bound {
		i := slices.IndexFunc(k.pods, func(p kubeletPod) bool { return p.pod.Name == b.Name })
		switch {
		case i < 0 && b.Deleting:
			k.pods = append(k.pods, kubeletPod{pod: b, phase: PodFailed, gone: true})
			changed = true
		case i < 0 && b.Phase == PodPending:
			k.startPod(b)
			changed = true
		case i < 0 && b.Phase == PodRunning:
			// It ran here before a crash: its container is gone (the
			// kubelet's ContainerStatusUnknown, exit code 137).
			k.pods = append(k.pods, kubeletPod{pod: b, phase: PodFailed, exit: KubeExitKilled})
			changed = true
		case i >= 0 && b.Deleting && !k.pods[i].gone:
			k.kill(i)
			changed = true
		}
	}
	if full {
		k.pods = slices.DeleteFunc(k.pods, func(p kubeletPod) bool {
			if p.run != 0 {
				return false
			}
			at := slices.IndexFunc(bound, func(b KubePod) bool { return b.Name == p.pod.Name })
			return at < 0 || (!p.gone && bound[at].Phase >= PodSucceeded)
		})
	}
	if changed {
		k.status()
	}
}

func (k *Kubelet) startPod(p KubePod) {
	if p.Job < 0 || p.Job >= len(k.cfg.Jobs) {
		return
	}
	k.ex.started = k.ex.started[:0] // a kubelet runs what it is given
	k.ex.startRun(p.Job, p.Slot, p.Token, 0)
	k.pods = append(k.pods, kubeletPod{pod: p, run: k.ex.lastRun, phase: PodRunning})
	k.Stats.Started++
	k.env.Effect(sim.ExecFields{Exec: k.ex.lastRun, SlotRef: sim.SlotRef{Slot: p.Slot, Job: p.Job}}.ExecEffect("kubelet.pod_started", fmt.Sprintf("%s (%s token %d) as run %d", p.Name, SlotName(k.cfg.Jobs[p.Job].Name, p.Slot), p.Token, k.ex.lastRun), sim.FactExecStarted))
}

// kill handles Pod i's deletion: with a termination grace period its
// container gets SIGTERM, ignores it (pessimistic) and runs on until
// SIGKILL TerminationGrace later (kubelet killContainer with the Pod's
// gracePeriod); without one, or once it has ended, it is killed now.
func (k *Kubelet) kill(i int) {
	p := &k.pods[i]
	if p.terminating {
		return
	}
	if g := k.cfg.Kube.TerminationGrace; g > 0 && p.run != 0 {
		p.terminating, p.killAt = true, k.env.Now()+g
		k.env.SetTimer(g, k.cfg.TagBase+tagKubeGrace)
		k.env.Effect(sim.Effect{Name: "kubelet.pod_terminating", Detail: fmt.Sprintf("%s: deleted; SIGTERM, killed in %v unless it ends first", p.pod.Name, g),
			A: p.run, B: p.pod.Slot, C: int64(p.pod.Job)})
		return
	}
	k.hardKill(i)
}

// hardKill stops Pod i's container (SIGKILL): its remaining writes are
// not made.
func (k *Kubelet) hardKill(i int) {
	p := &k.pods[i]
	if p.run != 0 {
		for r := range k.ex.runs {
			if x := &k.ex.runs[r]; x.active && x.id == p.run {
				k.env.CancelTimer(x.timer)
				x.active = false
			}
		}
		k.Stats.Killed++
		k.env.Effect(sim.ExecFields{Exec: p.run, SlotRef: sim.SlotRef{Slot: p.pod.Slot, Job: p.pod.Job}}.ExecEffect("kubelet.pod_killed", p.pod.Name+": deleted", sim.FactExecFailed))
		p.run, p.phase, p.exit = 0, PodFailed, KubeExitKilled
	}
	p.gone = true
}

// finished is the executor's callback after a run's last write: the
// container exits, zero or (PodFailRate) not.
func (k *Kubelet) finished(r *run) {
	i := slices.IndexFunc(k.pods, func(p kubeletPod) bool { return p.run == r.id })
	if i < 0 {
		return
	}
	p := &k.pods[i]
	ev := sim.ExecFields{Exec: p.run, SlotRef: sim.SlotRef{Slot: p.pod.Slot, Job: p.pod.Job}}.ExecEffect("kubelet.pod_succeeded", p.pod.Name, sim.FactExecCompleted)
	p.phase = PodSucceeded
	if f := k.cfg.Kube.PodFailRate; f > 0 && k.env.Rand().Float64() < f {
		p.phase, p.exit = PodFailed, k.cfg.Kube.PodExitCode
		ev.Name, ev.Detail, ev.Fact = "kubelet.pod_failed", fmt.Sprintf("%s: the container exited %d", p.pod.Name, p.exit), sim.FactExecFailed
		k.Stats.Failed++
	} else {
		k.Stats.Succeeded++
	}
	p.run = 0
	p.gone = p.gone || p.terminating // deleted, it ended within its grace period
	k.env.Effect(ev)
	k.status()
}

// TimerName implements sim.TimerNamer.
func (k *Kubelet) TimerName(tag int) string {
	switch tag - k.cfg.TagBase {
	case tagKubeStatus:
		return "kubelet.node_status"
	case tagKubeGrace:
		return "kubelet.termination_grace"
	}
	return timerName(k.cfg.TagBase, tag)
}
