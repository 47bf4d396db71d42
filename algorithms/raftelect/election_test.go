package raftelect_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/raftelect"
	"github.com/electsim/electsim/sim"
)

// TestFirstLeaderWithinBound: from a cold start (all followers, term 0) a
// 5-node cluster elects a leader (§5.2). The first node to time out does so
// after ElectionTimeoutMin..Max and wins unless another times out within one
// round trip (a split vote, which costs one more timeout); over 200 seeds
// every run must elect within 3×ElectionTimeoutMax and the median within
// ElectionTimeoutMax + one round trip.
func TestFirstLeaderWithinBound(t *testing.T) {
	cfg := raftelect.DefaultConfig()
	var first []time.Duration
	for seed := uint64(0); seed < 200; seed++ {
		c := newCluster(seed, 5, lan, same(cfg), false)
		sink := &leadSink{}
		c.s.AddSink(sink)
		c.s.RunUntil(sim.Time(3 * cfg.ElectionTimeoutMax))
		require.NotEmpty(t, sink.leads, "seed %d: no leader within %v", seed, 3*cfg.ElectionTimeoutMax)
		first = append(first, sink.leads[0].At.Duration())
	}
	med := quantile(first, 0.5)
	t.Logf("first leader: min %v median %v p99 %v max %v", quantile(first, 0), med, quantile(first, 0.99), quantile(first, 1))
	assert.GreaterOrEqual(t, quantile(first, 0), cfg.ElectionTimeoutMin)
	assert.LessOrEqual(t, med, cfg.ElectionTimeoutMax+20*time.Millisecond)
}

// fig16Downtimes runs the §9.3 experiment behind Figure 16 once per seed and
// returns the downtimes. Setup as in the paper: five servers; broadcast time
// roughly 15 ms (one-way latency uniform 1–14 ms, mean round trip 15 ms);
// heartbeat interval half the minimum election timeout; different log lengths
// (last index 1..5 at one term) so some candidates are ineligible. Servers
// boot 40 ms apart. Once the first leader has settled it is crashed uniformly
// at random within its heartbeat interval after a heartbeat broadcast (the
// paper's "synchronized broadcast of heartbeat RPCs ... before terminating");
// the downtime runs from the crash until the next node acts as leader.
func fig16Downtimes(t *testing.T, seeds int, lo, hi time.Duration) []time.Duration {
	cfg := raftelect.DefaultConfig()
	cfg.ElectionTimeoutMin, cfg.ElectionTimeoutMax = lo, hi
	cfg.HeartbeatInterval = lo / 2
	cfg.LastLogTerm = []int64{1, 1, 1, 1, 1}
	cfg.LastLogIndex = []int64{1, 2, 3, 4, 5}
	link := sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 14*time.Millisecond)}
	var out []time.Duration
	for seed := 0; seed < seeds; seed++ {
		c := newCluster(uint64(seed), 5, link, same(cfg), false, sim.StartDown())
		for i, id := range c.ids {
			c.s.At(sim.Time(time.Duration(i)*40*time.Millisecond), func() { c.s.Restart(id, true) })
		}
		sink := &leadSink{}
		c.s.AddSink(sink)
		c.s.RunUntil(sim.Time(time.Second + 30*hi))
		l := c.leader()
		require.NotEqual(t, sim.None, l, "seed %d: no first leader", seed)
		lead := sink.leads[len(sink.leads)-1]
		require.Equal(t, l, lead.Node)
		// The leader broadcasts at lead.At + k×HeartbeatInterval.
		k := c.s.Now().Sub(lead.At)/cfg.HeartbeatInterval + 1
		broadcast := lead.At.Add(k * cfg.HeartbeatInterval)
		crashAt := broadcast.Add(c.s.Stream("crash").DurationRange(1, cfg.HeartbeatInterval-1))
		c.s.At(crashAt, func() { c.s.Crash(l) })
		n := len(sink.leads)
		c.s.RunUntil(crashAt.Add(100 * hi))
		require.Greater(t, len(sink.leads), n, "seed %d: no new leader", seed)
		out = append(out, sink.leads[n].At.Sub(crashAt))
	}
	return out
}

// TestElectionDowntimeFigure16 reproduces §9.3 / Figure 16 with 200 trials
// per timeout range. What the paper states: the smallest possible downtime is
// about half the minimum election timeout; 5 ms of randomness (150–155ms)
// gave a median downtime of 287ms; "using more randomness improves
// worst-case behavior": with 50 ms (150–200ms) the worst case over 1000
// trials was 513ms; 150–300ms is the recommended conservative range. The
// paper prints no numbers for 150–300ms; its curve lies left of the others.
//
// Measured here (seeds 0–199): 150–300ms min 114ms, median 184ms, p90 272ms,
// p99 545ms, max 701ms; 150–155ms median 281ms; 150–200ms p99 510ms, max
// 529ms. Our tail is heavier than the paper's 513ms worst case; see
// docs/algorithms/raft.md.
func TestElectionDowntimeFigure16(t *testing.T) {
	const seeds = 200
	ms := time.Millisecond
	d300 := fig16Downtimes(t, seeds, 150*ms, 300*ms)
	d155 := fig16Downtimes(t, seeds, 150*ms, 155*ms)
	d200 := fig16Downtimes(t, seeds, 150*ms, 200*ms)
	for _, x := range []struct {
		name string
		d    []time.Duration
	}{{"150-300ms", d300}, {"150-155ms", d155}, {"150-200ms", d200}} {
		t.Logf("%s: min %v p10 %v median %v p90 %v p99 %v max %v", x.name,
			quantile(x.d, 0), quantile(x.d, 0.1), quantile(x.d, 0.5), quantile(x.d, 0.9), quantile(x.d, 0.99), quantile(x.d, 1))
	}
	// The recommended range: never below half the minimum timeout, a median
	// below the 5 ms-randomness median, typically (p90) under 300ms, and
	// 95% within the paper's worst case for 50 ms of randomness.
	assert.GreaterOrEqual(t, quantile(d300, 0), 75*ms, "150-300ms min")
	assert.LessOrEqual(t, quantile(d300, 0.5), 287*ms, "150-300ms median")
	assert.LessOrEqual(t, quantile(d300, 0.9), 300*ms, "150-300ms p90")
	assert.LessOrEqual(t, quantile(d300, 0.95), 513*ms, "150-300ms p95")
	// 5 ms of randomness: the paper's 287ms median, ±25%.
	assert.InDelta(t, float64(287*ms), float64(quantile(d155, 0.5)), float64(72*ms), "150-155ms median")
	// More randomness improves the median and the worst case.
	assert.Less(t, quantile(d300, 0.5), quantile(d155, 0.5))
	assert.Less(t, quantile(d200, 0.99), quantile(d155, 0.99))
	assert.Less(t, quantile(d300, 1), quantile(d155, 1))
	// 50 ms of randomness: the paper's 513ms worst case (1000 trials), +20%,
	// for our 99th percentile.
	assert.LessOrEqual(t, quantile(d200, 0.99), 615*ms, "150-200ms p99")
}
