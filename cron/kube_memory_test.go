package cron_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
)

// The API server holds what the history limits keep
// (cleanupFinishedJobs: successfulJobsHistoryLimit 3,
// failedJobsHistoryLimit 1) plus the active Jobs: over a simulated day of
// a Job a minute, with a failover every two hours and a Pod failing now
// and then, its Jobs and Pods stay flat.
func TestKubeModeMemoryIsFlat(t *testing.T) {
	k := kube(func(k *cron.KubeConfig) { k.PodFailRate = 0.05 })
	var a, b []tenure
	for h := 0; h < 24; h += 4 {
		a = append(a, tenure{time.Duration(h) * time.Hour, time.Duration(h+2) * time.Hour, int64(h + 1)})
		b = append(b, tenure{time.Duration(h+2) * time.Hour, time.Duration(h+4) * time.Hour, int64(h + 2)})
	}
	w := newKWorld(t, 12, kcfg("* * * * *", 20*time.Second, 1, cron.Policy{Idempotency: true}, k), [][]tenure{a, b}, false)
	const jobBound, podBound = 8, 16
	for h := 1; h <= 24; h++ {
		w.s.RunUntil(at(time.Duration(h) * time.Hour))
		jobs, pods := w.api.Objects()
		require.LessOrEqual(t, jobs, jobBound, "Jobs at hour %d", h)
		require.LessOrEqual(t, pods, podBound, "Pods at hour %d", h)
	}
	assert.Greater(t, w.api.Stats.JobsCreated, 1400, "a Job a minute was created (the bound is not vacuous)")
	res := cron.Compute(w.cfg.Jobs, w.res.Log(), start, start.Add(23*time.Hour))
	assert.Greater(t, res.Once, 1300, "and most slots ran: %d due, %d once, %d missed", res.Due, res.Once, res.Missed)
}

// Must-refute for the bound above: with history limits of 25 the API
// server keeps 25 finished Jobs, so the bound would fail.
func TestKubeModeMemoryBoundCanFail(t *testing.T) {
	k := kube(func(k *cron.KubeConfig) { k.SuccessfulHistory = 25 })
	w := newKWorld(t, 13, kcfg("* * * * *", 5*time.Second, 1, cron.Policy{}, k), [][]tenure{{{0, 2 * time.Hour, 1}}}, false)
	w.s.RunUntil(at(time.Hour))
	jobs, _ := w.api.Objects()
	assert.Greater(t, jobs, 8, "without the default limits, finished Jobs pile up to the limit")
}
