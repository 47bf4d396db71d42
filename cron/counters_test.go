package cron_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// The per-run counters count effects by their typed name, per mode, zeros
// included; text for people (Detail) never counts (must-refute: an effect
// whose Detail names another counter's effect counts as its own name).
func TestCountersCountEffectsByName(t *testing.T) {
	c := cron.NewCounters(cron.ModeCelery)
	require.NotNil(t, c)
	for _, r := range []sim.Record{
		{Type: sim.RecEffect, Name: "beat.exited"},
		{Type: sim.RecEffect, Name: "beat.exited"},
		{Type: sim.RecEffect, Name: "beat.sent", Detail: "beat.exited"},
		{Type: sim.RecNote, Name: "beat.exited"},
		{Type: sim.RecEffect, Name: "kube.replace_job"},
	} {
		c.Record(&r)
	}
	m := c.Map()
	assert.Equal(t, 2, m["beat_exits"])
	assert.Equal(t, 1, m["beat_tasks_sent"])
	assert.Contains(t, m, "redbeat_lock_acquisitions", "a zero is an answer too")
	assert.NotContains(t, m, "kube_replace_deletes", "not a Celery counter")
	assert.Nil(t, cron.NewCounters("leader"), "leader-driven mode has none")
	assert.Nil(t, (*cron.Counters)(nil).Map())
	k := cron.NewCounters(cron.ModeKubernetes).Map()
	assert.Contains(t, k, "kube_runs_skipped_active")
	assert.Contains(t, k, "kube_too_many_missed_times")
}
