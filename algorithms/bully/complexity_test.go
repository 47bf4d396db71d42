package bully_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/bully"
	"github.com/electsim/electsim/sim"
)

// detector gives node det a 100ms heartbeat timeout and every other node 1s,
// so that det alone notices the coordinator's crash.
func detector(det int) func(i int) bully.Config {
	return func(i int) bully.Config {
		c := bully.DefaultConfig()
		if i != det {
			c.HeartbeatTimeout = 1000 * ms
		} else {
			c.HeartbeatTimeout = 100 * ms
		}
		return c
	}
}

// crashTop lets the cluster settle on n{n-1}, crashes it at 410ms (between
// heartbeats) and returns the counters at the crash.
func crashTop(t *testing.T, c *cluster) counts {
	t.Helper()
	n := len(c.ids)
	c.s.RunUntil(sim.Time(410 * ms))
	require.Equal(t, int64(1), c.requireSettled(t, c.ids[n-1]))
	before := c.counts()
	c.s.Crash(c.ids[n-1])
	return before
}

// Best case (Garcia-Molina 1982, the Bully Algorithm; Coulouris et al.,
// Distributed Systems 5th ed. §15.3: "the process with the second-highest
// identifier notices the coordinator's failure ... it can immediately elect
// itself and send N−2 coordinator messages"). In the ELECTION/ANSWER form it
// first asks the one higher node — the crashed one — gets no ANSWER within T,
// and announces to the n−2 nodes below it: exactly 1 ELECTION, 0 ANSWER and
// n−2 COORDINATOR messages, and no ELECTION to any lower node.
func TestBestCaseSecondHighestDetects(t *testing.T) {
	for n := 3; n <= 8; n++ {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			c := newCluster(t, 1, n, sim.Dist{}, detector(n-2))
			before := crashTop(t, c)
			c.s.RunUntil(sim.Time(1000 * ms))
			got := c.counts().minus(before)
			require.Equal(t, counts{election: 1, answer: 0, coordinator: n - 2}, got)
			require.Equal(t, int64(2), c.requireSettled(t, c.ids[n-2]))
		})
	}
}

// Worst case (Garcia-Molina 1982; Coulouris et al. §15.3: when the lowest
// process detects the failure, N−1 processes altogether begin elections, each
// sending ELECTION to every higher process — O(N²)). Derivation for this
// implementation with constant latency, the coordinator n−1 crashed and only
// node 0 detecting:
//
//   - node 0 sends ELECTION to 1..n−1 (n−1 messages);
//   - each node i in 1..n−2 answers node 0 and sends ELECTION to i+1..n−1
//     (n−1−i messages), all at the same instant;
//   - each node i then answers the ELECTIONs of nodes 1..i−1 (it is already
//     electing, so it starts nothing new);
//   - node n−2 gets no ANSWER and sends COORDINATOR to 0..n−3.
//
// ELECTION = (n−1) + Σ_{i=1}^{n−2}(n−1−i) = n(n−1)/2,
// ANSWER = (n−2) + Σ_{i=1}^{n−2}(i−1) = (n−1)(n−2)/2,
// COORDINATOR = n−2; in total n² − n − 1 messages.
func TestWorstCaseLowestDetects(t *testing.T) {
	for n := 3; n <= 8; n++ {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			c := newCluster(t, 1, n, sim.Dist{}, detector(0))
			before := crashTop(t, c)
			c.s.RunUntil(sim.Time(1000 * ms))
			got := c.counts().minus(before)
			want := counts{election: n * (n - 1) / 2, answer: (n - 1) * (n - 2) / 2, coordinator: n - 2}
			require.Equal(t, want, got)
			require.Equal(t, n*n-n-1, got.election+got.answer+got.coordinator)
			require.Equal(t, int64(2), c.requireSettled(t, c.ids[n-2]))
		})
	}
}

// An election storm (Garcia-Molina 1982: a recovering node always holds an
// election): every restart of the lowest node re-runs the whole cascade even
// though the coordinator is alive. With constant latency each restart costs
// exactly n(n−1)/2 ELECTION (node 0 asks n−1 nodes; each of 1..n−2 starts its
// own election), n(n−1)/2 ANSWER (one per ELECTION to a live node) and n−1
// COORDINATOR (the coordinator re-announces itself to each challenger), so the
// ELECTION count grows linearly with the restarts while nothing changes.
func TestElectionStormRepeatedRestarts(t *testing.T) {
	const n = 5
	c := newCluster(t, 1, n, sim.Dist{}, defaults)
	c.s.RunUntil(sim.Time(400 * ms))
	require.Equal(t, int64(1), c.requireSettled(t, 4))
	prev := c.counts()
	start := prev.election
	for k := 0; k < 6; k++ {
		// Crash at x00ms and restart at x10ms, away from the heartbeats
		// (every 50ms from t=0), so no heartbeat lands mid-cascade.
		at := sim.Time(400*ms) + sim.Time(k)*sim.Time(100*ms)
		c.s.RunUntil(at)
		c.s.Crash(0)
		c.s.RunUntil(at + sim.Time(10*ms))
		c.s.Restart(0, true)
		c.s.RunUntil(at + sim.Time(100*ms))
		cur := c.counts()
		require.Equal(t, counts{election: n * (n - 1) / 2, answer: n * (n - 1) / 2, coordinator: n - 1}, cur.minus(prev), "restart %d", k)
		require.Equal(t, (k+1)*n*(n-1)/2, cur.election-start, "restart %d: cumulative", k)
		prev = cur
		require.Equal(t, int64(1), c.requireSettled(t, 4), "the storm changes nothing")
	}
	require.Equal(t, []tenure{{4, 1}}, c.tenures(0), "one tenure throughout")
}
