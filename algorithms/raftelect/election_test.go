package raftelect_test

import (
	"fmt"
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
	d := fig16Run(t, seeds, lo, hi, jittery)
	require.Less(t, quantile(d, 1), fig16Horizon(hi), "a run without a new leader within %v", fig16Horizon(hi))
	return d
}

// fig16Horizon is how long a trial waits for the next leader after the crash.
func fig16Horizon(hi time.Duration) time.Duration { return 100 * hi }

// never counts the trials that elected no leader within the horizon.
func never(d []time.Duration, hi time.Duration) int {
	k := 0
	for _, x := range d {
		if x >= fig16Horizon(hi) {
			k++
		}
	}
	return k
}

// broadcastReading is one reading of the paper's "broadcast time of roughly
// 15ms" (§9.3): where a RequestVote round trip spends its time.
type broadcastReading struct {
	name  string
	link  sim.LinkConfig
	fsync sim.Dist // each vote and term is fsynced before the message leaves
	reset raftelect.TimerReset
}

// The three readings: a jittery network (one-way 1–14 ms), a steady one
// (7–8 ms), and a fast network with the time in the vote fsyncs (0.5–1 ms
// one-way, 6–7 ms per fsync: the candidate's term and vote, then the
// voter's vote, before each message leaves).
var (
	jittery = broadcastReading{name: "network 1-14ms", link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 14*time.Millisecond)}}
	steady  = broadcastReading{name: "network 7-8ms", link: sim.LinkConfig{Latency: sim.Uniform(7*time.Millisecond, 8*time.Millisecond)}}
	diskful = broadcastReading{name: "network 0.5-1ms + fsync 6-7ms", link: sim.LinkConfig{Latency: sim.Uniform(500*time.Microsecond, time.Millisecond)},
		fsync: sim.Uniform(6*time.Millisecond, 7*time.Millisecond)}
)

// fig16Run is fig16Downtimes under one broadcast-time reading and timer rule.
func fig16Run(t *testing.T, seeds int, lo, hi time.Duration, br broadcastReading) []time.Duration {
	cfg := raftelect.DefaultConfig()
	cfg.ElectionTimeoutMin, cfg.ElectionTimeoutMax = lo, hi
	cfg.HeartbeatInterval = lo / 2
	cfg.LastLogTerm = []int64{1, 1, 1, 1, 1}
	cfg.LastLogIndex = []int64{1, 2, 3, 4, 5}
	cfg.TimerReset = br.reset
	link := br.link
	opts := []sim.NodeOption{sim.StartDown()}
	if br.fsync.Max > 0 {
		opts = append(opts, sim.Fsync(br.fsync))
	}
	var out []time.Duration
	for seed := 0; seed < seeds; seed++ {
		c := newCluster(uint64(seed), 5, link, same(cfg), false, opts...)
		for i, id := range c.ids {
			c.s.At(sim.Time(time.Duration(i)*40*time.Millisecond), func() { c.s.Restart(id, true) })
		}
		sink := &leadSink{}
		c.s.AddSink(sink)
		c.s.RunUntil(sim.Time(time.Second + 30*hi))
		l := c.leader()
		if l == sim.None {
			// No first leader to crash (split votes that keep repeating):
			// the trial is a "never", like one without a second leader.
			out = append(out, fig16Horizon(hi))
			continue
		}
		lead := sink.leads[len(sink.leads)-1]
		require.Equal(t, l, lead.Node)
		// The leader broadcasts at lead.At + k×HeartbeatInterval.
		k := c.s.Now().Sub(lead.At)/cfg.HeartbeatInterval + 1
		broadcast := lead.At.Add(k * cfg.HeartbeatInterval)
		crashAt := broadcast.Add(c.s.Stream("crash").DurationRange(1, cfg.HeartbeatInterval-1))
		c.s.At(crashAt, func() { c.s.Crash(l) })
		n := len(sink.leads)
		c.s.RunUntil(crashAt.Add(fig16Horizon(hi)))
		if len(sink.leads) == n {
			// No leader within the horizon: counted as the horizon, so
			// quantiles stay honest (a lower bound); never under jittery
			// Figure 2, where fig16Downtimes requires a leader.
			out = append(out, fig16Horizon(hi))
			continue
		}
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

// TestElectionTimerResetRules compares the two election-timer rules on the
// §9.3 setup (fig16Run) under three readings of the paper's 15 ms
// broadcast time. etcd raft restarts the timer in every becomeFollower
// (raft.go: becomeFollower → reset(term), which zeroes electionElapsed and
// calls resetRandomizedElectionTimeout), including when a node adopts the
// higher term of a vote request it rejects and when a candidate loses
// (stepCandidate, VoteLost); Figure 2 restarts it only on a heartbeat from
// the leader or a granted vote. With ineligible candidates (last indexes
// 1..5) the etcd rule lets each rejected candidate push back the timers of
// the nodes that could win, so downtime grows, most with 5 ms of
// randomness. The numbers are published in docs/algorithms/raft.md
// ("Timer-reset rules and the broadcast time").
func TestElectionTimerResetRules(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 50
	}
	ms := time.Millisecond
	ranges := []struct{ lo, hi time.Duration }{{150 * ms, 300 * ms}, {150 * ms, 200 * ms}, {150 * ms, 155 * ms}}
	type cell struct {
		median time.Duration
		never  int
	}
	cells := map[string]cell{}
	key := func(br broadcastReading, reset raftelect.TimerReset, lo, hi time.Duration) string {
		return fmt.Sprintf("%s | %s | %v-%v", br.name, reset, lo, hi)
	}
	for _, br := range []broadcastReading{jittery, steady, diskful} {
		for _, reset := range []raftelect.TimerReset{raftelect.TimerFigure2, raftelect.TimerEtcd} {
			br := br
			br.reset = reset
			for _, r := range ranges {
				d := fig16Run(t, seeds, r.lo, r.hi, br)
				cells[key(br, reset, r.lo, r.hi)] = cell{quantile(d, 0.5), never(d, r.hi)}
				t.Logf("| %s | %s | %v–%v | %v | %v | %v | %v | %v | %d |", br.name, reset, r.lo, r.hi,
					ms3(quantile(d, 0)), ms3(quantile(d, 0.5)), ms3(quantile(d, 0.9)), ms3(quantile(d, 0.99)), ms3(quantile(d, 1)), never(d, r.hi))
			}
		}
	}
	fig2, etcd := raftelect.TimerFigure2, raftelect.TimerEtcd
	// The recommended range on the jittery network: restarting on every
	// higher term costs the eligible nodes a round that Figure 2 saves.
	a, b := cells[key(jittery, fig2, 150*ms, 300*ms)], cells[key(jittery, etcd, 150*ms, 300*ms)]
	assert.Greater(t, float64(b.median), 1.3*float64(a.median), "150-300ms, jittery network: etcd rule median %v vs Figure 2 %v", b.median, a.median)
	// 5 ms of randomness with the time in the fsyncs: etcd's reset on a
	// lost election re-synchronizes the candidates' timers, and split votes
	// repeat; Figure 2 keeps the timers drawn at campaign start and elects.
	a, b = cells[key(diskful, fig2, 150*ms, 155*ms)], cells[key(diskful, etcd, 150*ms, 155*ms)]
	assert.Zero(t, a.never, "150-155ms, fsync reading, Figure 2: every trial elects")
	assert.Greater(t, b.never, seeds/2, "150-155ms, fsync reading, etcd rule: most trials never elect")
}

// ms3 rounds a duration to the millisecond for the published tables.
func ms3(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
