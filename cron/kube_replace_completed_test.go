package cron_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// pkg/controller/cronjob/cronjob_controllerv2.go syncCronJob, Replace: the
// Jobs in status.active are deleted one by one (jobControl.GetJob, a live
// GET, then deleteJob, which deletes and drops the reference) with no
// check that the Job is still running; a finished Job leaves
// status.active only when the controller's informer has seen it finish
// (the IsJobFinished pass over the listed Jobs at the top of
// syncCronJob). So a Job that completed just before the next scheduled
// time, whose completion the controller has not seen yet, is deleted:
// its run is done, only its history goes. Here the chain is two stale
// views long (the Job controller sees the Pod succeed, then the CronJob
// controller sees the Job Complete, each on a List up to sync_every old):
// a Job whose Pod succeeded 2.5 s before 02:01, and Complete at the API
// server 1 s before, is deleted at 02:01 (a real controller, watch-driven,
// lags milliseconds: the model's window is wider, pessimistically).
// Must-refute twin: one that succeeded 10 s before is seen finished and
// kept.
func TestKubeReplaceDeletesAJobThatJustCompleted(t *testing.T) {
	run := func(d time.Duration) *kworld {
		w := newKWorld(t, 6, kcfg("* * * * *", d, 1, cron.Policy{}, kube(func(k *cron.KubeConfig) { k.Concurrency = cron.KubeReplace })),
			[][]tenure{{{0, 3*time.Minute + 30*time.Second, 1}}}, true)
		w.s.RunUntil(at(3 * time.Minute))
		return w
	}
	s0, s1 := slotAt(2, 0, 0), slotAt(2, 1, 0)
	late := run(55500 * time.Millisecond)
	succ := late.effects("kubelet.pod_succeeded", s0)
	require.Len(t, succ, 1)
	assert.Less(t, succ[0].At, at(2*time.Minute), "02:00's Pod succeeded before 02:01")
	require.Len(t, late.facts(sim.FactExecCompleted, s0), 1)
	done := late.effects("kube.job_complete", s0)
	require.Len(t, done, 1)
	assert.Less(t, done[0].At, at(2*time.Minute), "and its Job was Complete at the API server")
	rep := late.effects("kube.replace_job", s1)
	require.Len(t, rep, 1, "Replace at 02:01 still lists it as active")
	assert.Contains(t, rep[0].Detail, "report-29920440", "02:00's Job")
	assert.Len(t, late.effects("kube.job_deleted", s0), 1, "deleted after it completed")
	runs, applied := late.runsOf(s0)
	assert.Equal(t, 1, runs)
	assert.Equal(t, 1, applied, "its run's write stands")

	early := run(50 * time.Second)
	assert.Empty(t, early.effects("kube.replace_job", s1), "a Job seen finished left status.active")
	assert.Empty(t, early.effects("kube.job_deleted", s0))
}
