package cron_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
)

func TestParseSchedule(t *testing.T) {
	for _, tc := range []struct {
		expr string
		from time.Time
		want []time.Time
	}{
		{"0 2 * * *", start, []time.Time{time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC), time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC)}},
		{"*/20 * * * * *", start, []time.Time{start.Add(20 * time.Second), start.Add(40 * time.Second)}},
		{"@hourly", start, []time.Time{time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC), time.Date(2026, 11, 21, 3, 0, 0, 0, time.UTC)}},
		{"@every 25s", start, []time.Time{start.Add(10 * time.Second), start.Add(35 * time.Second)}}, // aligned to the Unix epoch (01:59:10 is a multiple of 25 s), not to start
	} {
		s, err := cron.ParseSchedule(tc.expr)
		require.NoError(t, err, tc.expr)
		got := []time.Time{s.Next(tc.from)}
		got = append(got, s.Next(got[0]))
		assert.Equal(t, tc.want, got, tc.expr)
	}
	for _, bad := range []string{"", "61 * * * *", "* * *", "@every", "@every 0s", "@every banana", "@weekly-ish"} {
		_, err := cron.ParseSchedule(bad)
		assert.Error(t, err, bad)
	}
}

func TestSlotsBetween(t *testing.T) {
	s, err := cron.ParseSchedule("@every 10s")
	require.NoError(t, err)
	got := cron.SlotsBetween(s, start, start.Add(30*time.Second))
	assert.Equal(t, []time.Time{start.Add(10 * time.Second), start.Add(20 * time.Second), start.Add(30 * time.Second)}, got)
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg  cron.Config
		want string
	}{
		{cron.Config{Jobs: cron.Table{{Name: "a", Schedule: "@every 1s"}, {Name: "a", Schedule: "@every 2s"}}}, "defined twice"},
		{cron.Config{Jobs: cron.Table{{Name: "a", Schedule: "nope"}}}, "schedule"},
		{cron.Config{Jobs: cron.Table{{Name: "a", Schedule: "@every 1s", RunMin: 2 * time.Second, RunMax: time.Second}}}, "run duration"},
		{cron.Config{Jobs: cron.Table{{Name: "a", Schedule: "@every 1s"}}, Misfire: cron.Misfire{Policy: "later"}}, "misfire policy"},
		{cron.Config{Jobs: cron.Table{{Name: "a", Schedule: "@every 1s"}}, ShedLock: cron.ShedLockConfig{Time: "ntp"}}, "shedlock time"},
		{cron.Config{Jobs: cron.Table{{Name: "a", Schedule: "@every 1s"}}, ShedLock: cron.ShedLockConfig{LockAtLeastFor: time.Hour}}, "exceeds"},
	} {
		err := tc.cfg.Validate()
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
	}
	_, err := cron.ParsePolicy([]string{"none", "fencing"})
	assert.Error(t, err)
	p, err := cron.ParsePolicy([]string{"fencing", "idempotency"})
	require.NoError(t, err)
	assert.Equal(t, "fencing+idempotency", p.String())
}
