package scenario

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// queueDaySets turn long-day.yaml into queue mode: the Raft leader only
// schedules, three workers take the jobs from the queue, acknowledge late
// and heartbeat the execution store every second; the visibility timeout
// (5 min) outlasts the longest job (the 2-minute rollup), else every
// rollup would be delivered again each 30 s, forever.
var queueDaySets = []string{"cron.mode=queue", "cron.queue={workers: 3, ack: late, heartbeat: 1s, visibility_timeout: 5m}"}

// queueDay loads long-day.yaml in queue mode with its duration set.
func queueDay(tb testing.TB, d time.Duration) *Scenario { return longDay(tb, d, queueDaySets...) }

// BenchmarkLongDayQueue is BenchmarkLongDay with workers, a queue and an
// execution store (queueDaySets): long-day.yaml for 1 simulated day and
// for LONGDAY_DAYS (default 30) days, all checks on, with the same
// metrics. Memory must not grow with simulated time beyond what the run
// reports (the resource's writes, the tenures): compare live-heap-MB and
// peak-rss-MB of the two sizes.
//
//	go test ./scenario -run '^$' -bench LongDayQueue -benchtime 1x
func BenchmarkLongDayQueue(b *testing.B) {
	var records, queued int
	benchLongDay(b, queueDaySets, func(b *testing.B, r *Run, last bool) {
		if !last {
			records, queued = max(records, r.ExecStore.Records()), max(queued, r.Queue.Len())
			return
		}
		b.ReportMetric(float64(records), "store-records")
		b.ReportMetric(float64(queued), "queue-msgs")
		records, queued = 0, 0
	})
}

// queueDayBounds are what the queue-mode nodes of queueDay may hold at
// any length: the store forgets records retain (2 × misfire.lookback,
// 2 h) after their last change — 12 report and 2 rollup slots — and the
// queue holds only what is not yet acknowledged.
const (
	queueDayMaxRecords = 20
	queueDayMaxQueued  = 3
	// queueDayMaxGrowth bounds the live heap's growth per simulated hour:
	// what the run reports grows with it (the resource's writes, tenures,
	// failovers: about 8 KB an hour from 3 to 12 hours, 3 KB an hour over
	// 30 days, BenchmarkLongDayQueue), nothing else may — a worker's
	// heartbeats alone are 10,000 records an hour.
	queueDayMaxGrowth = 32 << 10
)

// Memory stays flat in simulated time with workers, a queue and an
// execution store: long-day.yaml in queue mode for 3 and for 12 simulated
// hours holds the same few execution records and queued messages, and its
// live heap grows by no more than what it reports.
func TestQueueLongRunMemoryFlat(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("15 simulated hours of long-day.yaml in queue mode (about 3 s; heap sizes under -race say nothing)")
	}
	var live [2]uint64
	for i, h := range []int{3, 12} {
		r, err := queueDay(t, time.Duration(h)*time.Hour).Run(RunOptions{Seed: 1, Lean: true})
		require.NoError(t, err)
		require.True(t, r.OK, "%dh: %v", h, r.Problems)
		require.NotNil(t, r.Report.Cron)
		require.Equal(t, r.Report.Cron.Due, r.Report.Cron.Once, "%dh: every slot ran once", h)
		assert.LessOrEqual(t, r.ExecStore.Records(), queueDayMaxRecords, "%dh: execution records", h)
		assert.Greater(t, r.ExecStore.Records(), 10, "%dh: the store did hold the retain window (the bound is not vacuous)", h)
		assert.LessOrEqual(t, r.Queue.Len(), queueDayMaxQueued, "%dh: queued messages", h)
		live[i] = liveHeap()
		runtime.KeepAlive(r)
	}
	growth := int64(live[1]) - int64(live[0])
	assert.LessOrEqual(t, growth, int64(9*queueDayMaxGrowth), "live heap %d → %d bytes from 3 to 12 simulated hours", live[0], live[1])
	t.Logf("live heap %d → %d bytes from 3 to 12 simulated hours", live[0], live[1])
}

// Must-refute for the bound above: a store told to retain records for a
// day holds every slot of the run, and passes it.
func TestQueueLongRunMemoryBoundCanFail(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("4 simulated hours of long-day.yaml in queue mode (heap sizes under -race say nothing)")
	}
	sc, err := LoadWith(shipped("long-day.yaml"), append(append([]string{"duration=4h"}, queueDaySets...), "cron.queue.retain=24h"))
	require.NoError(t, err)
	r, err := sc.Run(RunOptions{Seed: 1, Lean: true})
	require.NoError(t, err)
	assert.Greater(t, r.ExecStore.Records(), queueDayMaxRecords, "without forgetting, records grow with simulated time")
}
