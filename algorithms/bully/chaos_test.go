package bully_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/bully"
	"github.com/electsim/electsim/sim"
)

// After random crashes, restarts, pauses and 2% message loss over 5s stop
// (docs/faults.md, "Settle": a heal-and-settle phase judges liveness), the highest
// node leads and every node agrees on it and its epoch, whatever ElectOnStart
// and PersistEpoch are.
func TestChaosSettles(t *testing.T) {
	const n = 7
	for seed := uint64(1); seed <= 10; seed++ {
		for _, mode := range []struct{ electOnStart, persist bool }{{true, true}, {false, true}, {true, false}} {
			cfg := func(int) bully.Config {
				c := bully.DefaultConfig()
				c.ElectOnStart, c.PersistEpoch = mode.electOnStart, mode.persist
				return c
			}
			c := newCluster(t, seed, n, sim.Uniform(1*ms, 10*ms), cfg)
			c.s.SetAllLinks(sim.LinkConfig{Latency: sim.Uniform(1*ms, 10*ms), Drop: 0.02})
			r := c.s.Stream("faults")
			for at := sim.Time(100 * ms); at < sim.Time(5000*ms); at += sim.Time(r.DurationRange(100*ms, 400*ms)) {
				c.s.RunUntil(at)
				id := sim.NodeID(r.Intn(n))
				switch {
				case c.s.IsPaused(id):
					c.s.Resume(id)
				case !c.s.IsUp(id):
					c.s.Restart(id, true)
				case r.Intn(3) == 0:
					c.s.Pause(id)
				default:
					c.s.Crash(id)
				}
			}
			for _, id := range c.ids {
				c.s.Resume(id)
				c.s.Restart(id, true)
			}
			c.s.SetAllLinks(sim.LinkConfig{Latency: sim.Uniform(1*ms, 10*ms)})
			c.s.RunUntil(sim.Time(7000 * ms))
			require.Equal(t, []sim.NodeID{n - 1}, c.s.Leaders(), "seed %d mode %+v", seed, mode)
			c.requireSettled(t, n-1)
		}
	}
}
