package cron

import (
	"slices"

	"github.com/electsim/electsim/sim"
)

// jobController is syncJob for every active Job in view v: parallelism
// and completions 1, restartPolicy Never. It first forgets the
// expectations and finishing marks of Jobs the view no longer shows (or
// shows finished).
func (c *ControllerManager) jobController(v *KubeSnapshot) {
	now := c.env.WallNanos()
	c.expect = slices.DeleteFunc(c.expect, func(e kubeExpect) bool { return findJob(v, e.name) == nil })
	c.ending = slices.DeleteFunc(c.ending, func(n string) bool { x := findJob(v, n); return x == nil || x.Cond != JobActive })
	for ji := range v.Jobs {
		jb := &v.Jobs[ji]
		if jb.Cond != JobActive || slices.Contains(c.ending, jb.Name) {
			continue
		}
		c.syncJob(jb, c.jobPods(v, jb), now)
	}
}

// jobPods is what a Job's Pods say to syncJob.
type jobPods struct {
	live []*KubePod // running or pending, not being deleted
	// failed counts every failed Pod (the failure backoff's count);
	// counted those that count towards backoffLimit (not Ignored by the
	// pod failure policy: nonIgnoredFailedPodsCount).
	succeeded, failed, counted int
	seen, terminating          int   // every Pod of the Job; those being deleted
	lastFail                   int64 // the newest failure's end (wall ns)
	failJob                    int   // the first FailJob rule a failed Pod matched, else -1
}

// jobPods counts Job jb's Pods in view v by phase.
func (c *ControllerManager) jobPods(v *KubeSnapshot, jb *KubeJob) jobPods {
	k := &c.cfg.Kube
	jp := jobPods{failJob: -1}
	onlyFailed := k.PodReplacementPolicy == KubeReplaceFailed || k.PodFailurePolicy != nil // onlyReplaceFailedPods
	for pi := range v.Pods {
		p := &v.Pods[pi]
		if p.JobName != jb.Name {
			continue
		}
		jp.seen++
		switch {
		case p.Phase == PodSucceeded:
			jp.succeeded++
		case p.Phase == PodFailed:
			jp.failed++
			jp.lastFail = max(jp.lastFail, p.EndedAt)
			// getFailJobMessage and nonIgnoredFailedPodsCount: a
			// Failed Pod is matched against the policy's rules.
			count, fail, rule := k.PodFailurePolicy.match(p)
			if count {
				jp.counted++
			}
			if fail && jp.failJob < 0 {
				jp.failJob = rule
			}
		case !p.Deleting:
			jp.live = append(jp.live, p)
		default:
			jp.terminating++
			// isPodFailed: unless only Failed Pods are replaced, a Pod
			// with a deletionTimestamp that has not succeeded counts as
			// failed towards backoffLimit at once. (Its failure backoff
			// runs from its finish time, which for a Pod on an
			// unreachable node is its Ready=False time, set when the
			// node went unreachable minutes earlier: the model adds no
			// wait for it.)
			if !onlyFailed {
				jp.counted++
			}
		}
	}
	return jp
}

// syncJob decides what one active Job needs, in syncJob's order: finish
// it (success, a FailJob rule, backoffLimit, then activeDeadline), delete
// surplus Pods, wait, or create its next Pod.
func (c *ControllerManager) syncJob(jb *KubeJob, jp jobPods, now int64) {
	k := &c.cfg.Kube
	switch {
	case jp.succeeded > 0:
		c.finishJob(jb, jp, "")
	case jp.failJob >= 0: // a FailJob rule matched: FailureTarget, reason PodFailurePolicy
		c.finishJob(jb, jp, "PodFailurePolicy")
	case jp.counted > k.BackoffLimit: // exceedsBackoffLimit, checked before the deadline
		c.finishJob(jb, jp, "BackoffLimitExceeded")
	case k.ActiveDeadline > 0 && now-jb.Start >= int64(k.ActiveDeadline): // pastActiveDeadline
		c.finishJob(jb, jp, "DeadlineExceeded")
	case len(jp.live) > 1:
		// Too many Pods (two controllers' Job controllers both
		// created one): delete the newest.
		for _, p := range jp.live[1:] {
			c.send(KindKubeDeletePod, sim.Message{Body: p.Name})
		}
	case len(jp.live) == 0 && jp.terminating > 0 && k.PodReplacementPolicy == KubeReplaceFailed:
		// podReplacementPolicy Failed: wait until the Terminating
		// Pod has failed (onlyReplaceFailedPods).
	case len(jp.live) == 0:
		c.replacePod(jb, jp, now)
	}
}

// finishJob deletes the Job's running Pods and marks it finished only
// once no Pod of it runs or terminates, a success as well as a failure
// (job_controller.go: with delayTerminalCondition, on by default since
// JobPodReplacementPolicy and JobManagedBy, newSuccessCondition gives
// SuccessCriteriaMet and newFailureCondition FailureTarget, and
// enactJobFinished adds Complete or Failed only when
// jobCtx.terminating is 0; a success with another Pod still active is
// not complete either: manageJob deletes it first). A Job whose Pod is
// stuck Terminating on an unreachable node stays active meanwhile, and
// the CronJob controller still lists it in status.active.
func (c *ControllerManager) finishJob(jb *KubeJob, jp jobPods, reason string) {
	for _, p := range jp.live {
		c.send(KindKubeDeletePod, sim.Message{Body: p.Name})
	}
	if len(jp.live) > 0 || jp.terminating > 0 {
		return
	}
	c.ending = append(c.ending, jb.Name)
	c.env.Effect(sim.Effect{Name: "kube.job_finishing", Detail: jb.Name + ": " + reason, A: jb.UID, B: jb.Slot, C: int64(jb.Job)})
	c.send(KindKubeFinishJob, sim.Message{Flag: reason != "", Body: &KubeFinish{Name: jb.Name, Reason: reason}})
}

// replacePod creates the Job's next Pod unless its own last create is not
// yet observed (the controller's expectations, until
// kubeExpectationsTimeout) or the failure backoff still runs.
func (c *ControllerManager) replacePod(jb *KubeJob, jp jobPods, now int64) {
	e := slices.IndexFunc(c.expect, func(e kubeExpect) bool { return e.name == jb.Name })
	if e >= 0 && jp.seen < c.expect[e].pods && c.env.Now()-c.expect[e].at < kubeExpectationsTimeout {
		return // its own create not yet observed
	}
	if jp.failed > 0 && now < jp.lastFail+int64(podBackoff(jp.failed)) {
		return
	}
	if e < 0 {
		c.expect = append(c.expect, kubeExpect{name: jb.Name})
		e = len(c.expect) - 1
	}
	c.expect[e].pods, c.expect[e].at = jp.seen+1, c.env.Now()
	c.send(KindKubeCreatePod, sim.Message{Index: int64(jp.seen), Body: jb.Name})
	c.cfg.reached(c.env.Env, StKubePodCreateSent, jb.Slot)
}
