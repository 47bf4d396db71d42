package ring_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/ring"
	"github.com/electsim/electsim/sim"
)

// chaos crashes and restarts random nodes every 100–400ms for 5s over lossy,
// jittery links, then heals and lets the ring settle.
func chaos(t *testing.T, seed uint64, v ring.Variant, arr ring.Arrangement) *cluster {
	const n = 7
	link := sim.LinkConfig{Latency: sim.Uniform(1*ms, 10*ms), Drop: 0.02}
	s := sim.New(sim.Config{Seed: seed, Link: link})
	order := ring.Arrange(arr, ids(n), s.Stream("ring/order"))
	c := &cluster{s: s, ids: ids(n)}
	for i := 0; i < n; i++ {
		nd := ring.MustNew(config(v, order), c.ids)
		c.nodes = append(c.nodes, nd)
		s.AddNode("n"+string(rune('0'+i)), nd)
	}
	r := s.Stream("faults")
	for at := sim.Time(100 * ms); at < sim.Time(5000*ms); at += sim.Time(r.DurationRange(100*ms, 400*ms)) {
		s.RunUntil(at)
		id := sim.NodeID(r.Intn(n))
		if s.IsUp(id) {
			down := 0
			for _, x := range c.ids {
				if !s.IsUp(x) {
					down++
				}
			}
			if down < n/2 {
				s.Crash(id)
			}
		} else {
			s.Restart(id, true)
		}
	}
	for _, id := range c.ids {
		s.Restart(id, true)
	}
	s.SetAllLinks(sim.LinkConfig{Latency: sim.Uniform(1*ms, 10*ms)})
	s.RunUntil(sim.Time(8000 * ms))
	return c
}

// After crashes, restarts and message loss stop, the ring settles on one
// leader that every node believes in (liveness), for both variants and every
// arrangement. Restarted nodes initiate, and a higher restarted node lifts a
// decided round, so the maximum ends up leading.
func TestChaosSettles(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		for _, v := range []ring.Variant{ring.ChangRoberts, ring.CollectAll} {
			for _, arr := range []ring.Arrangement{ring.Sorted, ring.Reversed, ring.Random} {
				c := chaos(t, seed, v, arr)
				require.Len(t, c.s.Leaders(), 1, "seed %d %v %v", seed, v, arr)
				c.requireSettled(t, 6)
			}
		}
	}
}
