package ring_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/ring"
	"github.com/electsim/electsim/sim"
)

// Chang & Roberts 1979 (CACM 22(5)): with every process initiating, the
// number of ELECTION messages is 2n−1 in the best case and n(n+1)/2 in the
// worst. Messages travel from Order[i] to Order[i+1], with constant latency,
// and every node initiates at t=0:
//
//   - Sorted (IDs increase along the ring direction): every ID but the
//     maximum is swallowed by its successor after one hop; the maximum makes
//     n hops. n + (n−1) = 2n−1.
//   - Reversed (IDs decrease along the ring direction): ID v passes v smaller
//     nodes and is swallowed by the maximum: v+1 hops for v < n−1, and the
//     maximum makes n hops. Σ_{v=0}^{n−2}(v+1) + n = n(n+1)/2.
//
// COORDINATOR (ELECTED) makes one lap: n messages. Every hop is acknowledged
// once: ACK = ELECTION + COORDINATOR.
func TestChangRobertsMessageCounts(t *testing.T) {
	for n := 3; n <= 10; n++ {
		for _, tc := range []struct {
			arr  ring.Arrangement
			want int
		}{
			{ring.Sorted, 2*n - 1},
			{ring.Reversed, n * (n + 1) / 2},
		} {
			t.Run(fmt.Sprintf("n=%d/%v", n, tc.arr), func(t *testing.T) {
				c := newCluster(t, 1, n, sim.Dist{}, config(ring.ChangRoberts, ring.Arrange(tc.arr, ids(n), nil)))
				c.s.RunUntil(sim.Time(45 * ms)) // before the first heartbeat
				want := counts{election: tc.want, coordinator: n, ack: tc.want + n}
				require.Equal(t, want, c.counts())
				require.Equal(t, int64(1), c.requireSettled(t, sim.NodeID(n-1)))
			})
		}
	}
}

// A single initiator (Chang & Roberts 1979; Coulouris et al., Distributed
// Systems 5th ed. §15.3): a non-participant that receives a smaller ID sends
// its own instead. In the sorted ring the initiator's predecessor holds the
// maximum — the single-initiator worst case: n−1 ELECTION to reach it, n more
// for its lap, then n COORDINATOR, 3n−1 in all. In the reversed ring the
// lowest ID's successor is the maximum: 1 + n ELECTION.
func TestChangRobertsSingleInitiator(t *testing.T) {
	for n := 3; n <= 10; n++ {
		for _, tc := range []struct {
			arr  ring.Arrangement
			want int
		}{
			{ring.Sorted, 2*n - 1},
			{ring.Reversed, n + 1},
		} {
			t.Run(fmt.Sprintf("n=%d/%v", n, tc.arr), func(t *testing.T) {
				cfg := config(ring.ChangRoberts, ring.Arrange(tc.arr, ids(n), nil))
				cfg.AllInitiate = false
				cfg.Initiators = []sim.NodeID{0}
				c := newCluster(t, 1, n, sim.Dist{}, cfg)
				c.s.RunUntil(sim.Time(45 * ms))
				require.Equal(t, counts{election: tc.want, coordinator: n, ack: tc.want + n}, c.counts())
				require.Equal(t, int64(1), c.requireSettled(t, sim.NodeID(n-1)))
			})
		}
	}
}

// The collect-all variant (LeLann 1977, which Chang & Roberts improve on; the
// ring algorithm of Tanenbaum & van Steen): nothing is swallowed, so each
// initiator's list makes a full lap of n hops, and each initiator then sends
// a COORDINATOR lap of n hops. With k initiators: k·n ELECTION and k·n
// COORDINATOR, whatever the arrangement; the maximum is elected.
func TestCollectAllMessageCounts(t *testing.T) {
	for n := 3; n <= 10; n++ {
		for _, arr := range []ring.Arrangement{ring.Sorted, ring.Reversed} {
			for _, all := range []bool{true, false} {
				t.Run(fmt.Sprintf("n=%d/%v/all=%v", n, arr, all), func(t *testing.T) {
					cfg := config(ring.CollectAll, ring.Arrange(arr, ids(n), nil))
					k := n
					if !all {
						cfg.AllInitiate, cfg.Initiators, k = false, []sim.NodeID{1}, 1
					}
					c := newCluster(t, 1, n, sim.Dist{}, cfg)
					c.s.RunUntil(sim.Time(45 * ms))
					require.Equal(t, counts{election: k * n, coordinator: k * n, ack: 2 * k * n}, c.counts())
					require.Equal(t, int64(1), c.requireSettled(t, sim.NodeID(n-1)))
				})
			}
		}
	}
}

// A random arrangement is a function of the seed: the same stream gives the
// same ring (on every node, since Order is computed once), the election
// elects the maximum, and its ELECTION count lies between the Chang–Roberts
// best and worst cases.
func TestRandomArrangementDeterministic(t *testing.T) {
	const n = 8
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 10; seed++ {
		a := ring.Arrange(ring.Random, ids(n), sim.NewRand(seed, "ring/order"))
		b := ring.Arrange(ring.Random, ids(n), sim.NewRand(seed, "ring/order"))
		require.Equal(t, a, b)
		require.ElementsMatch(t, ids(n), a)
		seen[fmt.Sprint(a)] = true

		run := func() (counts, uint64) {
			c := newCluster(t, seed, n, sim.Dist{}, config(ring.ChangRoberts, a))
			c.s.RunUntil(sim.Time(45 * ms))
			c.requireSettled(t, n-1)
			return c.counts(), c.s.TraceHash()
		}
		c1, h1 := run()
		c2, h2 := run()
		require.Equal(t, c1, c2)
		require.Equal(t, h1, h2)
		require.GreaterOrEqual(t, c1.election, 2*n-1)
		require.LessOrEqual(t, c1.election, n*(n+1)/2)
	}
	require.Greater(t, len(seen), 5, "different seeds give different rings")
}
