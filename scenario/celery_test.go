package scenario_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/scenario"
)

const celeryBase = `name: c
duration: 10m
start: 2026-11-21T01:59:00Z
cluster: {nodes: 2}
cron:
  mode: celery
  jobs: [{name: report, schedule: "%s", duration: 1s}]
  policy: [idempotency]
%s`

// TestCeleryLoaderErrors: Celery mode's mistakes get file:line:col errors
// naming the field.
func TestCeleryLoaderErrors(t *testing.T) {
	for _, tc := range []struct{ sched, rest, want string }{
		{"*/5 * * * *", "", "cron.celery: missing"},
		{"*/10 * * * * *", "  celery: {workers: 1}\n", "cron.jobs[0].schedule"},
		{"*/5 * * * *", "  celery: {workers: 0}\n", "cron.celery.workers"},
		{"*/5 * * * *", "  celery: {workers: 1, restart: sometimes}\n", "cron.celery.restart"},
		{"*/5 * * * *", "  celery: {workers: 1}\nalgorithm: {name: raft}\n", "runs no election algorithm"},
		{"*/5 * * * *", "  celery: {workers: 1}\nfaults: [{at: 1m, crash: exec_store}]\n", "exec_store"},
	} {
		_, err := scenario.Parse("c.yaml", []byte(fmt.Sprintf(celeryBase, tc.sched, tc.rest)))
		require.Error(t, err, tc.want)
		assert.Contains(t, err.Error(), tc.want)
		assert.Contains(t, err.Error(), "c.yaml:")
	}
	// Must not refuse a valid one: workers, redis and roles resolve.
	sc, err := scenario.Parse("c.yaml", []byte(fmt.Sprintf(celeryBase, "*/5 * * * *", "  celery: {workers: 2, acks_late: true}\nfaults: [{at: 1m, crash: redis, for: 1s}, {at: 2m, pause: w2, for: 1s}, {at: 3m, crash: workers, for: 1s}, {at: 4m, crash: queue, for: 1s}]\n")))
	require.NoError(t, err)
	assert.Equal(t, "celery", sc.AlgorithmName(""))
	// Must not refuse an interval: beat_schedule's timedelta is Celery's
	// schedule(run_every) (celery/schedules.py).
	_, err = scenario.Parse("c.yaml", []byte(fmt.Sprintf(celeryBase, "@every 5m", "  celery: {workers: 1}\n")))
	require.NoError(t, err)
	// Must not refuse a lock_timeout below max_interval: redis-py's
	// Lock (redis/lock.py, 8.0.0) takes any sleep, so the real beat runs
	// (docs/cron-celery.md, "A lock shorter than the sleep").
	_, err = scenario.Parse("c.yaml", []byte(fmt.Sprintf(celeryBase, "*/5 * * * *", "  celery: {workers: 1, max_interval: 10m, lock_timeout: 5m}\n")))
	require.NoError(t, err)
}
