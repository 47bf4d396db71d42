package scenario

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// heapPeak samples the heap every 5 ms of wall time from its own goroutine
// (benchmark code, outside the simulation) while a run goes on: peak is
// the most heap in use, garbage not yet collected included, so it bounds
// the run's memory from above.
type heapPeak struct {
	stop chan struct{}
	done chan uint64
}

func startHeapPeak() *heapPeak {
	h := &heapPeak{stop: make(chan struct{}), done: make(chan uint64)}
	go func() {
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-h.stop:
				h.done <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return h
}

func (h *heapPeak) finish() uint64 {
	close(h.stop)
	return <-h.done
}

// resetPeakRSS resets the process's peak resident set size (Linux: writing
// 5 to /proc/self/clear_refs resets VmHWM), so peakRSS then measures one
// run. It reports false where that is not possible.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSS is the process's peak resident set size since the last reset, in
// bytes (VmHWM in /proc/self/status).
func peakRSS() (uint64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb uint64
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d kB", &kb); err == nil {
				return kb << 10, true
			}
		}
	}
	return 0, false
}

// liveHeap is the heap still reachable after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// longDay loads the shipped long-run example with its duration set (and
// any other -set overrides).
func longDay(tb testing.TB, d time.Duration, sets ...string) *Scenario {
	sc, err := LoadWith(shipped("long-day.yaml"), append([]string{"duration=" + d.String()}, sets...))
	require.NoError(tb, err)
	return sc
}

// longDayDays is the long benchmarks' second size in days: LONGDAY_DAYS,
// default 30.
func longDayDays(b *testing.B) int {
	days := 30
	if v := os.Getenv("LONGDAY_DAYS"); v != "" {
		_, err := fmt.Sscan(v, &days)
		require.NoError(b, err)
	}
	return days
}

// BenchmarkLongDay runs long-day.yaml, all checks on, for 1 simulated day
// and for LONGDAY_DAYS (default 30) days, and reports wall time and peak
// live heap per simulated hour and in all, and (on Linux) the process's
// peak RSS during the run. Memory must not grow with simulated time:
// compare peak-rss-MB of the two sizes.
//
//	go test ./scenario -run '^$' -bench LongDay -benchtime 1x
func BenchmarkLongDay(b *testing.B) { benchLongDay(b, nil, nil) }

// benchLongDay runs long-day.yaml with sets for 1 and longDayDays days,
// all checks on, and reports wall time, heap, RSS, events, allocations
// and collections per run; extra (if set) sees every run after it ended
// and reports its own metrics at the end (BenchmarkLongDayQueue's store
// and queue sizes).
func benchLongDay(b *testing.B, sets []string, extra func(b *testing.B, r *Run, last bool)) {
	days := longDayDays(b)
	for _, n := range []int{1, days} {
		b.Run(fmt.Sprintf("days=%d", n), func(b *testing.B) {
			sc := longDay(b, time.Duration(n)*24*time.Hour, sets...)
			hours := float64(n * 24)
			var peak, live, events, rss, allocated, gcs uint64
			rssOK := true
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				runtime.GC()
				debug.FreeOSMemory() // so the peak RSS is this run's
				rssOK = rssOK && resetPeakRSS()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				h := startHeapPeak()
				b.StartTimer()
				r, err := sc.Run(RunOptions{Seed: uint64(i + 1), Lean: true}) // as a sweep runs it
				b.StopTimer()
				peak = max(peak, h.finish())
				runtime.ReadMemStats(&after)
				allocated += after.TotalAlloc - before.TotalAlloc
				gcs += uint64(after.NumGC - before.NumGC)
				if v, ok := peakRSS(); ok && rssOK {
					rss = max(rss, v)
				}
				require.NoError(b, err)
				require.True(b, r.OK, "%v", r.Problems)
				live = max(live, liveHeap()) // the run (its report included) is still reachable here
				events += r.Sim.Stats().Events
				if extra != nil {
					extra(b, r, false)
				}
				runtime.KeepAlive(r)
				b.StartTimer()
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/hours, "wall-s/sim-hour")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(live)/(1<<20), "live-heap-MB")
			if rssOK && rss > 0 {
				b.ReportMetric(float64(rss)/(1<<20), "peak-rss-MB")
			}
			b.ReportMetric(float64(events)/float64(b.N), "events/run")
			// What the run allocated in all, and how many collections that
			// took: the GC collects nothing until the heap reaches its 4 MB
			// floor (GOGC=100), so a run that allocates less than that (one
			// day: 1.6 MB) peaks lower than any longer one can, whatever
			// it keeps live (docs/checkers.md, "Memory over a long run").
			b.ReportMetric(float64(allocated)/float64(b.N)/(1<<20), "alloc-MB/run")
			b.ReportMetric(float64(gcs)/float64(b.N), "gcs/run")
			if extra != nil {
				extra(b, nil, true)
			}
		})
	}
}
