package cron_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// The sources these tests reproduce (kubernetes/kubernetes, read from the
// stored copies; the v2 controller's shape is v1.27+, where
// mostRecentScheduleTime returns a missedSchedulesType and syncCronJob
// returns (*time.Duration, bool, error)):
//
//   - pkg/controller/cronjob/utils.go: mostRecentScheduleTime,
//     nextScheduleTime (the TooManyMissedTimes warning), getJobFromTemplate2,
//     getTimeHashInMinutes; and, for the version difference, the v1
//     controller's getRecentUnmetScheduleTimes (utils.go at 77dee9bb, 2017),
//     which gave up past 100 missed times;
//   - pkg/controller/cronjob/cronjob_controllerv2.go: syncCronJob
//     (startingDeadlineSeconds "MissSchedule", Forbid "JobAlreadyActive",
//     Replace, the AlreadyExists path), getJobName, cleanupFinishedJobs;
//   - pkg/controller/job/job_controller.go: DefaultJobPodFailureBackOff
//     (10s) and MaxJobPodFailureBackOff (10m), onlyReplaceFailedPods
//     (podReplacementPolicy), backoffLimit and activeDeadlineSeconds in
//     syncJob;
//   - pkg/controller/nodelifecycle/config/v1alpha1/defaults.go:
//     NodeMonitorGracePeriod 40s; plugin/pkg/admission/defaulttolerationseconds:
//     the default 300s toleration of the unreachable NoExecute taint.

var (
	everyMinute = mustSchedule("* * * * *")
	daily2am    = mustSchedule("0 2 * * *")
)

func mustSchedule(s string) cron.Schedule {
	sc, err := cron.ParseSchedule(s)
	if err != nil {
		panic(err)
	}
	return sc
}

// utils.go mostRecentScheduleTime: the most recent unmet time, the rough
// missed count, more than 100 = ManyMissed, and startingDeadlineSeconds
// raising the earliest time.
func TestKubeMostRecentScheduleTime(t *testing.T) {
	for _, c := range []struct {
		name     string
		sched    cron.Schedule
		earliest time.Time
		now      time.Time
		deadline time.Duration
		want     time.Time // zero: nil
		missed   cron.MissedSchedules
	}{
		{"not yet due", everyMinute, wall(2, 0, 0), wall(2, 0, 30), 0, time.Time{}, cron.NoneMissed},
		{"one due", everyMinute, wall(2, 0, 0), wall(2, 1, 30), 0, wall(2, 1, 0), cron.NoneMissed},
		{"five due: the most recent", everyMinute, wall(2, 0, 0), wall(2, 5, 30), 0, wall(2, 5, 0), cron.FewMissed},
		{"100 due: still few", everyMinute, wall(2, 0, 0), wall(3, 40, 30), 0, wall(3, 40, 0), cron.FewMissed},
		{"101 due: many, the most recent still returned", everyMinute, wall(2, 0, 0), wall(3, 41, 30), 0, wall(3, 41, 0), cron.ManyMissed},
		{"101 due but a 200 s deadline bounds the count", everyMinute, wall(2, 0, 0), wall(3, 41, 30), 200 * time.Second, wall(3, 41, 0), cron.FewMissed},
		{"02:00 older than the 60 s deadline: nothing", daily2am, wall(1, 59, 0), wall(2, 1, 50), 60 * time.Second, time.Time{}, cron.NoneMissed},
		{"02:00 within the 300 s deadline", daily2am, wall(1, 59, 0), wall(2, 1, 50), 300 * time.Second, wall(2, 0, 0), cron.NoneMissed},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, missed, err := cron.MostRecentScheduleTime(c.sched, c.earliest, c.now, c.deadline)
			require.NoError(t, err)
			if c.want.IsZero() {
				assert.Nil(t, got)
			} else if assert.NotNil(t, got) {
				assert.Equal(t, c.want, *got)
			}
			assert.Equal(t, c.missed, missed)
		})
	}
}

// cronjob_controllerv2.go syncCronJob + getJobName: two controller-managers
// that both lead (a lease split) both create each minute's Job; the API
// server's name uniqueness answers the second AlreadyExists, so each
// scheduled time has one Job (one FactExecCreated), named
// report-<minutes since the epoch>. Must-refute: with one leader, no
// AlreadyExists at all — the count is the split's doing.
func TestKubeLeaseSplitOneJobPerName(t *testing.T) {
	slots := []int64{slotAt(2, 0, 0), slotAt(2, 1, 0), slotAt(2, 2, 0), slotAt(2, 3, 0)}
	for seed := uint64(1); seed <= 20; seed++ {
		split := newKWorld(t, seed, kcfg("* * * * *", 10*time.Second, 1, cron.Policy{}, kube(nil)),
			[][]tenure{{{0, 5 * time.Minute, 1}}, {{0, 5 * time.Minute, 2}}}, true)
		split.s.RunUntil(at(6 * time.Minute))
		for _, s := range slots {
			require.Len(t, split.facts(sim.FactExecCreated, s), 1, "seed %d: one Job for %v", seed, time.Unix(0, s).UTC())
		}
		assert.NotEmpty(t, split.effects("kube.job_already_exists", 0), "seed %d: the second controller's creates failed with AlreadyExists", seed)
		assert.Contains(t, split.facts(sim.FactExecCreated, slots[0])[0].Detail, "report-29920440 ", "getJobName: the scheduled time in minutes")

		one := newKWorld(t, seed, kcfg("* * * * *", 10*time.Second, 1, cron.Policy{}, kube(nil)),
			[][]tenure{{{0, 5 * time.Minute, 1}}, {}}, true)
		one.s.RunUntil(at(6 * time.Minute))
		for _, s := range slots {
			require.Len(t, one.facts(sim.FactExecCreated, s), 1)
		}
		assert.Empty(t, one.effects("kube.job_already_exists", 0), "seed %d: one leader never collides with itself", seed)
	}
}

// The name is the scheduled minute (getTimeHashInMinutes): two scheduled
// times within one minute name one Job, so the second is never created —
// AlreadyExists stops it even with a single controller. Must-refute: at
// one-minute spacing every time gets its Job.
func TestKubeJobNameIsPerMinute(t *testing.T) {
	w := newKWorld(t, 3, kcfg("@every 30s", time.Second, 1, cron.Policy{}, kube(nil)), [][]tenure{{{0, 4 * time.Minute, 1}}}, true)
	w.s.RunUntil(at(4 * time.Minute))
	assert.Len(t, w.facts(sim.FactExecCreated, slotAt(2, 0, 0)), 1)
	assert.Empty(t, w.facts(sim.FactExecCreated, slotAt(2, 0, 30)), "02:00:30 shares 02:00's name")
	assert.NotEmpty(t, w.effects("kube.job_already_exists", slotAt(2, 0, 30)))

	m := newKWorld(t, 3, kcfg("* * * * *", time.Second, 1, cron.Policy{}, kube(nil)), [][]tenure{{{0, 4 * time.Minute, 1}}}, true)
	m.s.RunUntil(at(4 * time.Minute))
	for _, s := range []int64{slotAt(2, 0, 0), slotAt(2, 1, 0), slotAt(2, 2, 0)} {
		assert.Len(t, m.facts(sim.FactExecCreated, s), 1)
	}
}

// A sustained split is not harmless for Pods: the name stops the second
// Job, but both controller-managers' Job controllers see it with no Pod
// and each creates one (Pods are named by generateName; each controller's
// expectations are its own). The extra Pod is deleted at the next sync
// ("too many active pods"); a job that writes early writes twice.
// Must-refute: one leader never starts two Pods of a Job.
func TestKubeSplitCanStartTwoPodsOfOneJob(t *testing.T) {
	twoPods, dup := 0, 0
	for seed := uint64(1); seed <= 20; seed++ {
		cfg := kcfg("* * * * *", 10*time.Second, 10, cron.Policy{}, kube(nil))
		w := newKWorld(t, seed, cfg, [][]tenure{{{0, 3 * time.Minute, 1}}, {{0, 3 * time.Minute, 2}}}, true)
		w.s.RunUntil(at(4 * time.Minute))
		s := slotAt(2, 0, 0)
		if w.maxConcurrent(s) > 1 {
			twoPods++
		}
		if runs, _ := w.runsOf(s); runs > 1 {
			dup++
		}
		require.Len(t, w.facts(sim.FactExecCreated, s), 1)

		one := newKWorld(t, seed, cfg, [][]tenure{{{0, 3 * time.Minute, 1}}, {}}, true)
		one.s.RunUntil(at(4 * time.Minute))
		require.Equal(t, 1, one.maxConcurrent(0), "seed %d: one leader, one Pod at a time", seed)
	}
	assert.Greater(t, twoPods, 10, "in most seeds both Job controllers start a Pod")
	assert.Greater(t, dup, 0, "and the extra Pod sometimes writes before it is deleted")
	t.Logf("two Pods in %d of 20 seeds, two writers in %d", twoPods, dup)
}

// cronjob_controllerv2.go syncCronJob, concurrencyPolicy Forbid: while a
// Job is in status.active the scheduled times are skipped
// (JobAlreadyActive) and, once it ends, only the most recent is created.
// Must-refute: Allow creates every minute's Job beside the running one.
func TestKubeForbidSkipsWhileActive(t *testing.T) {
	run := func(policy string) *kworld {
		w := newKWorld(t, 5, kcfg("* * * * *", 150*time.Second, 1, cron.Policy{}, kube(func(k *cron.KubeConfig) { k.Concurrency = policy })),
			[][]tenure{{{0, 6 * time.Minute, 1}}}, true)
		w.s.RunUntil(at(6 * time.Minute))
		return w
	}
	f := run(cron.KubeForbid)
	assert.Len(t, f.effects("kube.job_already_active", slotAt(2, 1, 0)), 1)
	assert.Len(t, f.effects("kube.job_already_active", slotAt(2, 2, 0)), 1)
	assert.Empty(t, f.facts(sim.FactExecCreated, slotAt(2, 1, 0)), "02:01 skipped, never created")
	// 02:00 ends at 02:02:32: 02:02, skipped at 02:02:00, is then the most
	// recent unmet time and is created late.
	late := f.facts(sim.FactExecCreated, slotAt(2, 2, 0))
	require.Len(t, late, 1)
	assert.Greater(t, time.Duration(late[0].At), 3*time.Minute+30*time.Second)
	assert.Equal(t, 1, f.maxConcurrent(0), "never two runs at once")

	a := run(cron.KubeAllow)
	for _, s := range []int64{slotAt(2, 0, 0), slotAt(2, 1, 0), slotAt(2, 2, 0), slotAt(2, 3, 0)} {
		assert.Len(t, a.facts(sim.FactExecCreated, s), 1)
	}
	assert.Empty(t, a.effects("kube.job_already_active", 0))
	assert.Greater(t, a.maxConcurrent(0), 1)
}

// concurrencyPolicy Replace deletes the active Job at the next time: its
// Pod is killed (the kubelet's watch) before its writes, and at most one
// runs at a time. Must-refute: under Allow the first run completes.
func TestKubeReplaceKillsTheRunningJob(t *testing.T) {
	run := func(policy string) *kworld {
		w := newKWorld(t, 6, kcfg("* * * * *", 90*time.Second, 1, cron.Policy{}, kube(func(k *cron.KubeConfig) { k.Concurrency = policy })),
			[][]tenure{{{0, 3*time.Minute + 30*time.Second, 1}}}, true)
		w.s.RunUntil(at(4 * time.Minute))
		return w
	}
	r := run(cron.KubeReplace)
	assert.NotEmpty(t, r.effects("kube.replace_job", slotAt(2, 1, 0)))
	assert.NotEmpty(t, r.effects("kubelet.pod_killed", slotAt(2, 0, 0)), "02:00's Pod killed")
	runs, _ := r.runsOf(slotAt(2, 0, 0))
	assert.Zero(t, runs, "02:00 never wrote")
	assert.LessOrEqual(t, r.maxConcurrent(0), 2, "the old Pod may outlive the new one's start by a watch latency")

	a := run(cron.KubeAllow)
	runs, _ = a.runsOf(slotAt(2, 0, 0))
	assert.Equal(t, 1, runs)
	assert.Empty(t, a.effects("kubelet.pod_killed", 0))
}

// cronjob_controllerv2.go syncCronJob + utils.go mostRecentScheduleTime:
// a controller that leads again after the scheduled time plus
// startingDeadlineSeconds never creates that time's Job (the deadline
// raises the earliest time, so the late time is not even considered).
// Must-refute: back within the deadline, it creates it, late.
func TestKubeStartingDeadlineSkipsTheSlot(t *testing.T) {
	run := func(back time.Duration) *kworld {
		w := newKWorld(t, 7, kcfg("0 2 * * *", 5*time.Second, 1, cron.Policy{}, kube(func(k *cron.KubeConfig) { k.StartingDeadline = 60 * time.Second })),
			[][]tenure{{{0, 50 * time.Second, 1}, {back, 5 * time.Minute, 2}}}, true)
		w.s.RunUntil(at(5 * time.Minute))
		return w
	}
	late := run(170 * time.Second) // 02:01:50: 110 s after 02:00
	assert.Empty(t, late.facts(sim.FactExecCreated, slotAt(2, 0, 0)))
	on := run(100 * time.Second) // 02:00:40: within 60 s
	assert.Len(t, on.facts(sim.FactExecCreated, slotAt(2, 0, 0)), 1)
}

// utils.go nextScheduleTime: more than 100 missed times raise the
// TooManyMissedTimes warning and (v2 controller) the most recent time is
// still created — the older ones never are. Must-refute: 100 missed, no
// warning; a startingDeadlineSeconds short enough bounds the count (the
// event's own advice).
func TestKubeTooManyMissedTimes(t *testing.T) {
	run := func(back time.Duration, deadline time.Duration) *kworld {
		w := newKWorld(t, 8, kcfg("* * * * *", time.Second, 1, cron.Policy{}, kube(func(k *cron.KubeConfig) { k.StartingDeadline = deadline })),
			[][]tenure{{{back, back + 2*time.Minute, 1}}}, true)
		w.s.RunUntil(at(back + 2*time.Minute))
		return w
	}
	// Leading from 01:59 + 103 min = 03:42, 102 times after the creation (01:59).
	many := run(103*time.Minute, 0)
	require.Len(t, many.effects("kube.too_many_missed_times", 0), 1)
	assert.Len(t, many.facts(sim.FactExecCreated, slotAt(3, 42, 0)), 1, "the most recent time is created")
	assert.Empty(t, many.facts(sim.FactExecCreated, slotAt(3, 41, 0)), "no older one")
	few := run(100*time.Minute, 0)
	assert.Empty(t, few.effects("kube.too_many_missed_times", 0))
	assert.Len(t, few.facts(sim.FactExecCreated, slotAt(3, 39, 0)), 1)
	bounded := run(103*time.Minute, 200*time.Second)
	assert.Empty(t, bounded.effects("kube.too_many_missed_times", 0))
}

// job_controller.go: a Pod that fails is replaced after the pod-failure
// backoff (10 s, 20 s, …), and past backoffLimit failures the Job fails
// (BackoffLimitExceeded, a FactExecDead). Must-refute: backoffLimit 0 fails
// it after the first Pod.
func TestKubeBackoffLimit(t *testing.T) {
	run := func(limit int) *kworld {
		w := newKWorld(t, 9, kcfg("0 2 * * *", time.Second, 1, cron.Policy{}, kube(func(k *cron.KubeConfig) { k.BackoffLimit, k.PodFailRate = limit, 1 })),
			[][]tenure{{{0, 5 * time.Minute, 1}}}, true)
		w.s.RunUntil(at(5 * time.Minute))
		return w
	}
	s := slotAt(2, 0, 0)
	w := run(2)
	starts := w.facts(sim.FactExecStarted, s)
	require.Len(t, starts, 3, "backoffLimit 2: three Pods")
	assert.GreaterOrEqual(t, time.Duration(starts[1].At-starts[0].At), 10*time.Second)
	assert.GreaterOrEqual(t, time.Duration(starts[2].At-starts[1].At), 20*time.Second, "the backoff doubles")
	require.Len(t, w.facts(sim.FactExecDead, s), 1)
	assert.Contains(t, w.facts(sim.FactExecDead, s)[0].Detail, "BackoffLimitExceeded")

	z := run(0)
	assert.Len(t, z.facts(sim.FactExecStarted, s), 1)
	assert.Len(t, z.facts(sim.FactExecDead, s), 1)
}

// job_controller.go activeDeadlineSeconds: the Job fails DeadlineExceeded
// and its running Pod is deleted, so its remaining writes are not made.
// Must-refute: without a deadline the run completes all its writes.
func TestKubeActiveDeadline(t *testing.T) {
	run := func(deadline time.Duration) *kworld {
		w := newKWorld(t, 10, kcfg("0 2 * * *", 4*time.Minute, 4, cron.Policy{}, kube(func(k *cron.KubeConfig) { k.ActiveDeadline, k.TerminationGrace = deadline, 0 })),
			[][]tenure{{{0, 8 * time.Minute, 1}}}, true)
		w.s.RunUntil(at(8 * time.Minute))
		return w
	}
	s := slotAt(2, 0, 0)
	d := run(90 * time.Second)
	require.Len(t, d.facts(sim.FactExecDead, s), 1)
	assert.Contains(t, d.facts(sim.FactExecDead, s)[0].Detail, "DeadlineExceeded")
	_, applied := d.runsOf(s)
	assert.Equal(t, 1, applied, "one write of four, at 1 min, before the 90 s deadline")
	n := run(0)
	assert.Empty(t, n.facts(sim.FactExecDead, s))
	_, applied = n.runsOf(s)
	assert.Equal(t, 4, applied)
}

// Node lifecycle + job_controller.go (podReplacementPolicy
// TerminatingOrFailed, onlyReplaceFailedPods false): a kubelet cut off the
// API server (not the database) is tainted after node-monitor-grace-period
// (40 s) and its Pod evicted after the 300 s toleration; the Pod stays
// Terminating, a replacement starts elsewhere, and both run. Must-refute:
// a cut shorter than 340 s, or podReplacementPolicy Failed, never has two
// Pods running at once.
func TestKubeUnreachableNodeRunsTwice(t *testing.T) {
	run := func(cut time.Duration, policy string) *kworld {
		w := newKWorld(t, 11, kcfg("0 2 * * *", 8*time.Minute, 4, cron.Policy{}, kube(func(k *cron.KubeConfig) { k.PodReplacementPolicy = policy })),
			[][]tenure{{{0, 20 * time.Minute, 1}}}, true)
		w.s.At(at(70*time.Second), func() {
			for _, k := range w.kubelets {
				if w.s.Node(k).(*cron.Kubelet).Busy() {
					w.s.Cut(k, w.apiID)
					w.s.Cut(w.apiID, k)
					w.s.After(cut, func() { w.s.Connect(k, w.apiID); w.s.Connect(w.apiID, k) })
				}
			}
		})
		w.s.RunUntil(at(20 * time.Minute))
		return w
	}
	s := slotAt(2, 0, 0)
	twice := run(14*time.Minute, "")
	require.Len(t, twice.effects("kube.node_unreachable", 0), 1)
	ev := twice.effects("kube.pod_evicted", s)
	require.Len(t, ev, 1)
	un := twice.effects("kube.node_unreachable", 0)[0]
	assert.InDelta(t, float64(70*time.Second+40*time.Second), float64(un.At), float64(12*time.Second), "tainted ~40 s after the last status")
	assert.InDelta(t, float64(300*time.Second), float64(ev[0].At-un.At), float64(2*time.Second), "evicted 300 s after the taint")
	require.Len(t, twice.facts(sim.FactExecRedelivered, s), 1, "a replacement Pod beside the Terminating one")
	assert.Equal(t, 2, twice.maxConcurrent(s))
	runs, _ := twice.runsOf(s)
	assert.Equal(t, 2, runs, "both Pods wrote")

	short := run(5*time.Minute, "")
	assert.Empty(t, short.effects("kube.pod_evicted", s), "back before 40 s + 300 s")
	assert.Equal(t, 1, short.maxConcurrent(s))
	failed := run(14*time.Minute, cron.KubeReplaceFailed)
	assert.Len(t, failed.effects("kube.pod_evicted", s), 1)
	assert.Empty(t, failed.facts(sim.FactExecRedelivered, s))
	assert.Equal(t, 1, failed.maxConcurrent(s))
}

// With no ready kubelet the Pod stays Pending (the scheduler cannot bind
// it) and is bound when a kubelet reports again; the Job controller makes
// no second Pod meanwhile. Must-refute: with kubelets up it is bound at
// once.
func TestKubePendingPodIsBoundLater(t *testing.T) {
	run := func(down bool) *kworld {
		w := newKWorld(t, 14, kcfg("0 2 * * *", 5*time.Second, 1, cron.Policy{}, kube(nil)), [][]tenure{{{0, 5 * time.Minute, 1}}}, true)
		if down {
			w.s.At(at(5*time.Second), func() {
				for _, k := range w.kubelets {
					w.s.Crash(k)
				}
			})
			w.s.At(at(2*time.Minute), func() {
				for _, k := range w.kubelets {
					w.s.Restart(k, false)
				}
			})
		}
		w.s.RunUntil(at(5 * time.Minute))
		return w
	}
	s := slotAt(2, 0, 0)
	d := run(true)
	require.Len(t, d.effects("kube.pod_unschedulable", s), 1)
	require.Len(t, d.effects("kube.pod_bound", s), 1)
	started := d.facts(sim.FactExecStarted, s)
	require.Len(t, started, 1, "one Pod, started once a kubelet was back")
	assert.GreaterOrEqual(t, started[0].At, at(2*time.Minute))
	u := run(false)
	assert.Empty(t, u.effects("kube.pod_unschedulable", s))
	assert.Len(t, u.facts(sim.FactExecStarted, s), 1)
}

// job_controller.go syncJob with delayTerminalCondition (the v1.31+
// default): a Job past activeDeadlineSeconds is Failed only once its Pods
// are gone. Its Pod's kubelet is cut off the API server, so the deletion
// never reaches it: the Job stays active and, under Forbid, the next
// times are skipped until the node returns. Must-refute: reachable, the
// Job fails at its deadline (02:01:30) and 02:01, the most recent time
// then, gets its Job at once.
func TestKubeDeadlineWaitsForTerminatingPod(t *testing.T) {
	run := func(cut bool) *kworld {
		k := kube(func(k *cron.KubeConfig) {
			k.ActiveDeadline, k.Concurrency, k.TerminationGrace = 90*time.Second, cron.KubeForbid, 0
		})
		w := newKWorld(t, 15, kcfg("* * * * *", 10*time.Minute, 1, cron.Policy{}, k), [][]tenure{{{0, 8 * time.Minute, 1}}}, true)
		if cut {
			w.s.At(at(70*time.Second), func() {
				for _, kl := range w.kubelets {
					if w.s.Node(kl).(*cron.Kubelet).Busy() {
						w.s.Cut(kl, w.apiID)
						w.s.Cut(w.apiID, kl)
						w.s.After(4*time.Minute, func() { w.s.Connect(kl, w.apiID); w.s.Connect(w.apiID, kl) })
					}
				}
			})
		}
		w.s.RunUntil(at(8 * time.Minute))
		return w
	}
	s := slotAt(2, 0, 0)
	c := run(true)
	dead := c.facts(sim.FactExecDead, s)
	require.Len(t, dead, 1)
	assert.GreaterOrEqual(t, dead[0].At, at(310*time.Second), "Failed only after the node came back and its Pod was gone")
	for _, m := range []int{1, 2, 3} {
		assert.Empty(t, c.facts(sim.FactExecCreated, slotAt(2, m, 0)), "02:0%d skipped: 02:00's Job still active", m)
	}
	assert.NotEmpty(t, c.effects("kube.job_already_active", slotAt(2, 3, 0)))
	r := run(false)
	dead = r.facts(sim.FactExecDead, s)
	require.Len(t, dead, 1)
	assert.Less(t, dead[0].At, at(160*time.Second), "Failed at its deadline, 90 s after its creation at 02:00")
	assert.Len(t, r.facts(sim.FactExecCreated, slotAt(2, 1, 0)), 1, "02:01 created once 02:00 failed")
}

// NodeLifecycleControllerOptions.Validate
// (cmd/kube-controller-manager/app/options/nodelifecyclecontroller.go)
// checks nothing: a --node-monitor-grace-period (5 s) below the kubelet's
// status period (10 s) is accepted, and the node lifecycle controller
// marks every node unreachable between two updates and Ready again at the
// next (the NoExecute taint comes and goes; the taint manager cancels an
// eviction when the taint is removed, so the 300 s toleration never runs
// out). The job still runs once. Must-refute twin: with the default
// 40 s grace no node is ever unreachable.
func TestKubeGraceBelowStatusPeriodFlaps(t *testing.T) {
	run := func(grace time.Duration) *kworld {
		w := newKWorld(t, 16, kcfg("0 2 * * *", 8*time.Minute, 1, cron.Policy{}, kube(func(k *cron.KubeConfig) { k.NodeMonitorGrace = grace })),
			[][]tenure{{{0, 15 * time.Minute, 1}}}, true)
		w.s.RunUntil(at(15 * time.Minute))
		return w
	}
	s := slotAt(2, 0, 0)
	flap := run(5 * time.Second)
	assert.Greater(t, len(flap.effects("kube.node_unreachable", 0)), 10, "unreachable between every two updates")
	assert.Greater(t, len(flap.effects("kube.node_ready", 0)), 10, "and Ready again at the next")
	assert.Empty(t, flap.effects("kube.pod_evicted", s))
	runs, _ := flap.runsOf(s)
	assert.Equal(t, 1, runs)
	calm := run(0)
	assert.Empty(t, calm.effects("kube.node_unreachable", 0))
	runs, _ = calm.runsOf(s)
	assert.Equal(t, 1, runs)
}

// job_controller.go enactJobFinished with delayTerminalCondition (on by
// default since JobPodReplacementPolicy): a success gives only
// SuccessCriteriaMet while a Pod of the Job is Terminating, and Complete
// once jobCtx.terminating is 0 — as a failure waits (FailureTarget). The
// 02:00 Pod's kubelet is cut off the API server at 02:00:30 for 14 min;
// the Pod is evicted at ~02:06 and stays Terminating there, its
// replacement on the other kubelet succeeds at ~02:08, and the Job is
// Complete only after the node is back (02:14:30) and reports the Pod
// gone. Under Forbid the CronJob controller meanwhile finds 02:00 active
// at 02:05 and 02:10 (JobAlreadyActive). Must-refute twin: with the node
// reachable the Job is Complete when its Pod succeeds, at 02:02.
func TestKubeSuccessWaitsForTerminatingPod(t *testing.T) {
	run := func(cut bool) *kworld {
		k := kube(func(k *cron.KubeConfig) { k.Concurrency = cron.KubeForbid })
		w := newKWorld(t, 17, kcfg("*/5 * * * *", 2*time.Minute, 1, cron.Policy{}, k), [][]tenure{{{0, 25 * time.Minute, 1}}}, true)
		if cut {
			w.s.At(at(90*time.Second), func() {
				for _, kl := range w.kubelets {
					if w.s.Node(kl).(*cron.Kubelet).Busy() {
						w.s.Cut(kl, w.apiID)
						w.s.Cut(w.apiID, kl)
						w.s.After(14*time.Minute, func() { w.s.Connect(kl, w.apiID); w.s.Connect(w.apiID, kl) })
					}
				}
			})
		}
		w.s.RunUntil(at(25 * time.Minute))
		return w
	}
	s := slotAt(2, 0, 0)
	c := run(true)
	require.Len(t, c.effects("kube.pod_evicted", s), 1)
	require.Len(t, c.facts(sim.FactExecRedelivered, s), 1, "a replacement beside the Terminating Pod")
	done := c.effects("kube.job_complete", s)
	require.Len(t, done, 1)
	assert.GreaterOrEqual(t, done[0].At, at(90*time.Second+14*time.Minute), "Complete only once the node is back and the Terminating Pod gone")
	assert.NotEmpty(t, c.effects("kube.job_already_active", slotAt(2, 10, 0)), "02:10 finds 02:00 still active")
	r := run(false)
	done = r.effects("kube.job_complete", s)
	require.Len(t, done, 1)
	assert.Less(t, done[0].At, at(60*time.Second+2*time.Minute+5*time.Second), "Complete when its Pod succeeded")
}

// A deleted Pod's container gets SIGTERM and terminationGracePeriodSeconds
// (the API default 30 s) before SIGKILL (kubelet killContainer); one that
// ignores SIGTERM — the pessimistic reading — runs on. Replace deletes
// 02:00's Job at 02:01 while its 100 s run (writes at 25, 50, 75, 100 s)
// is at 60 s: with the default grace its third write, at 75 s, still
// lands and it overlaps 02:01's Pod for about 30 s; it is killed before
// its fourth. Must-refute twin: terminationGracePeriodSeconds 0 kills it
// at once, two writes.
func TestKubeTerminationGraceRunsOn(t *testing.T) {
	run := func(grace time.Duration) *kworld {
		k := kube(func(k *cron.KubeConfig) { k.Concurrency, k.TerminationGrace = cron.KubeReplace, grace })
		w := newKWorld(t, 18, kcfg("* * * * *", 100*time.Second, 4, cron.Policy{}, k), [][]tenure{{{0, 3 * time.Minute, 1}}}, true)
		w.s.RunUntil(at(3 * time.Minute))
		return w
	}
	s := slotAt(2, 0, 0)
	g := run(30 * time.Second)
	require.Equal(t, 30*time.Second, cron.DefaultKube(1).TerminationGrace, "the API default")
	require.NotEmpty(t, g.effects("kubelet.pod_terminating", s))
	_, applied := g.runsOf(s)
	assert.Equal(t, 3, applied, "the write at 75 s lands inside the grace period")
	require.Len(t, g.effects("kubelet.pod_killed", s), 1, "SIGKILL at the grace period's end")
	assert.Equal(t, 2, g.maxConcurrent(0), "the old Pod runs beside the new one")
	z := run(0)
	_, applied = z.runsOf(s)
	assert.Equal(t, 2, applied)
	assert.Empty(t, z.effects("kubelet.pod_terminating", s))
}
