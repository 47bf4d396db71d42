package etcdraft_test

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/algorithms/etcdraft"
	"github.com/electsim/electsim/sim"
)

// cluster is a test run: n etcd raft members on a 1–10 ms uniform network.
type cluster struct {
	s     *sim.Sim
	ids   []sim.NodeID
	nodes []*etcdraft.Node
	rec   *sim.Recorder
}

func newCluster(seed uint64, n int, cfg etcdraft.Config) *cluster {
	return newClusterOn(seed, n, cfg, sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 10*time.Millisecond)})
}

// newClusterOn is newCluster on links configured as link.
func newClusterOn(seed uint64, n int, cfg etcdraft.Config, link sim.LinkConfig) *cluster {
	c := &cluster{
		s:   sim.New(sim.Config{Seed: seed, Link: link}),
		rec: &sim.Recorder{},
	}
	for i := 0; i < n; i++ {
		c.ids = append(c.ids, sim.NodeID(i))
	}
	for i := 0; i < n; i++ {
		nd := etcdraft.MustNew(cfg, c.ids)
		c.nodes = append(c.nodes, nd)
		c.s.AddNode(fmt.Sprintf("n%d", i+1), nd)
	}
	c.s.AddSink(c.rec)
	return c
}

func (c *cluster) runFor(d time.Duration) { c.s.RunFor(d) }

// leaderNow returns the single node acting as leader, or sim.None.
func (c *cluster) leaderNow() sim.NodeID {
	if l := c.s.Leaders(); len(l) == 1 {
		return l[0]
	}
	return sim.None
}

// runUntilLeader runs in 10 ms steps until exactly one node leads (or limit).
func (c *cluster) runUntilLeader(limit time.Duration) sim.NodeID {
	end := c.s.Now().Add(limit)
	for c.s.Now() < end {
		if l := c.leaderNow(); l != sim.None {
			return l
		}
		c.s.RunFor(10 * time.Millisecond)
	}
	return c.leaderNow()
}

// records returns the recorded records of type t.
func (c *cluster) records(t sim.RecordType) []sim.Record {
	var out []sim.Record
	for _, r := range c.rec.Records {
		if r.Type == t {
			out = append(out, r)
		}
	}
	return out
}

// firstLead returns the true time of the first ActAsLeader, or -1.
func (c *cluster) firstLead() time.Duration {
	for _, r := range c.rec.Records {
		if r.Type == sim.RecLead {
			return time.Duration(r.At)
		}
	}
	return -1
}

// leadersPerTerm maps each term to the distinct nodes that acted as its leader.
func leadersPerTerm(recs []sim.Record) map[int64][]sim.NodeID {
	out := map[int64][]sim.NodeID{}
	for _, r := range recs {
		if r.Type != sim.RecLead {
			continue
		}
		seen := false
		for _, id := range out[r.Epoch] {
			seen = seen || id == r.Node
		}
		if !seen {
			out[r.Epoch] = append(out[r.Epoch], r.Node)
		}
	}
	return out
}

// startNemesis injects random faults from the run's "nemesis" stream every
// 100–600 ms until stop: crashes (at most a minority down), restarts with
// disk kept, minority/majority partitions, isolation, pauses and heals. At
// stop it heals everything and restarts every crashed node.
func startNemesis(c *cluster, stop time.Duration) {
	r := c.s.Stream("nemesis")
	s := c.s
	maxDown := (len(c.ids) - 1) / 2
	var step func()
	step = func() {
		if time.Duration(s.Now()) >= stop {
			s.Heal()
			for _, id := range c.ids {
				s.Resume(id)
				if !s.IsUp(id) {
					s.Restart(id, true)
				}
			}
			return
		}
		down := 0
		for _, id := range c.ids {
			if !s.IsUp(id) {
				down++
			}
		}
		id := c.ids[r.Intn(len(c.ids))]
		switch r.Intn(7) {
		case 0, 1:
			if s.IsUp(id) && down < maxDown {
				s.Crash(id)
			} else if !s.IsUp(id) {
				s.Restart(id, true)
			}
		case 2:
			s.SplitMinority(c.ids, r)
		case 3:
			s.Isolate(id)
		case 4:
			if s.IsUp(id) && !s.IsPaused(id) {
				s.Pause(id)
				s.After(r.DurationRange(50*time.Millisecond, 400*time.Millisecond), func() { s.Resume(id) })
			}
		default:
			s.Heal()
		}
		s.After(r.DurationRange(100*time.Millisecond, 600*time.Millisecond), step)
	}
	s.After(r.DurationRange(100*time.Millisecond, 600*time.Millisecond), step)
}

// chaosRun runs n members under the nemesis for faults, then lets the cluster
// settle for settle, and returns the run.
func chaosRun(seed uint64, n int, cfg etcdraft.Config, faults, settle time.Duration) *cluster {
	return chaosRunOn(newCluster(seed, n, cfg), faults, settle)
}

// chaosRunOn is chaosRun on a cluster already built.
func chaosRunOn(c *cluster, faults, settle time.Duration) *cluster {
	startNemesis(c, faults)
	c.s.RunUntil(sim.Time(faults + settle))
	c.s.End()
	return c
}
