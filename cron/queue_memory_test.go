package cron_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
)

// The execution store forgets finished executions Retain after they
// finished, and the queue holds only unacknowledged messages: over twelve
// simulated hours with a failover every hour, their state stays flat.
func TestQueueModeMemoryIsFlat(t *testing.T) {
	q := cron.QueueConfig{Workers: 2, Ack: cron.AckLate, Retain: 10 * time.Minute}
	cfg := qcfg(2*time.Second, fencedIdem, q)
	cfg.Misfire.Lookback = 5 * time.Minute
	var a, b []tenure
	for h := 0; h < 12; h += 2 {
		a = append(a, tenure{time.Duration(h) * time.Hour, time.Duration(h+1) * time.Hour, int64(h + 1)})
		b = append(b, tenure{time.Duration(h+1) * time.Hour, time.Duration(h+2) * time.Hour, int64(h + 2)})
	}
	w := newQWorld(t, 8, cfg, [][]tenure{a, b}, false)
	// 10 minutes of 10 s slots is 60 records; a few more are in progress.
	const bound = 70
	peak := 0
	for h := 1; h <= 12; h++ {
		w.s.RunUntil(at(time.Duration(h) * time.Hour))
		peak = max(peak, w.store.Records())
		require.LessOrEqual(t, w.store.Records(), bound, "store records at hour %d", h)
		require.LessOrEqual(t, w.queue.Len(), 2, "queue length at hour %d", h)
	}
	assert.Greater(t, peak, 50, "the store did hold a window's worth of records (the bound is not vacuous)")
	res := cron.Compute(w.cfg.Jobs, w.res.Log(), start, start.Add(11*time.Hour))
	assert.Equal(t, res.Due, res.Once, "every slot ran once across the failovers: %d due, %d missed, %d doubled", res.Due, res.Missed, res.MoreThanOnce)
}

// Must-refute for the bound above: with a Retain longer than the run the
// store keeps every record, so the bound would fail.
func TestQueueModeMemoryBoundCanFail(t *testing.T) {
	q := cron.QueueConfig{Workers: 1, Retain: 24 * time.Hour}
	w := newQWorld(t, 9, qcfg(time.Second, fencedIdem, q), [][]tenure{{{0, 3 * time.Hour, 1}}}, false)
	w.s.RunUntil(at(time.Hour))
	assert.Greater(t, w.store.Records(), 70, "without forgetting, records grow with simulated time")
}
