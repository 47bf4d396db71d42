package raftelect_test

import (
	"sort"
	"time"

	"github.com/electsim/electsim/algorithms/raftelect"
	"github.com/electsim/electsim/sim"
)

// cluster is a test cluster: n Raft election nodes n1..nN with IDs 0..N-1.
type cluster struct {
	s     *sim.Sim
	ids   []sim.NodeID
	nodes []*raftelect.Node
	rec   *sim.Recorder
}

// lan is the default network of the tests: latency uniform 1–10 ms.
var lan = sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 10*time.Millisecond)}

// newCluster builds n nodes; cfg returns node i's Config. With record set,
// the whole trace is kept in c.rec.
func newCluster(seed uint64, n int, link sim.LinkConfig, cfg func(i int) raftelect.Config, record bool, opts ...sim.NodeOption) *cluster {
	c := &cluster{s: sim.New(sim.Config{Seed: seed, Link: link})}
	c.ids = make([]sim.NodeID, n)
	for i := range c.ids {
		c.ids[i] = sim.NodeID(i)
	}
	for i := 0; i < n; i++ {
		node := raftelect.MustNew(cfg(i), c.ids)
		c.nodes = append(c.nodes, node)
		c.s.AddNode(name(i), node, opts...)
	}
	if record {
		c.rec = &sim.Recorder{}
		c.s.AddSink(c.rec)
	}
	return c
}

func same(cfg raftelect.Config) func(int) raftelect.Config {
	return func(int) raftelect.Config { return cfg }
}

func name(i int) string { return "n" + string(rune('1'+i)) }

// records returns the recorded records of type t (optionally of one node).
func (c *cluster) records(t sim.RecordType) []sim.Record {
	var out []sim.Record
	for _, r := range c.rec.Records {
		if r.Type == t {
			out = append(out, r)
		}
	}
	return out
}

// leadsAfter returns the RecLead records strictly after t.
func (c *cluster) leadsAfter(t sim.Time) []sim.Record {
	var out []sim.Record
	for _, r := range c.records(sim.RecLead) {
		if r.At > t {
			out = append(out, r)
		}
	}
	return out
}

// leader returns the single node acting as leader, or sim.None.
func (c *cluster) leader() sim.NodeID {
	ls := c.s.Leaders()
	if len(ls) != 1 {
		return sim.None
	}
	return ls[0]
}

// leadSink keeps only leadership records; cheaper than a Recorder for long
// sweeps.
type leadSink struct{ leads []sim.Record }

func (l *leadSink) Record(r *sim.Record) {
	if r.Type == sim.RecLead {
		l.leads = append(l.leads, *r)
	}
}

// nemesis injects a random fault every 100ms–1s: crash a node (at most
// maxDown down), restart one, cut off a random minority, isolate a node, heal
// the network, pause a process for 0.1–2 s (a GC pause), or set a node's
// clock rate to 0.5–1.5. It draws from the run's "faults" stream. At until it
// heals everything.
type nemesis struct {
	s       *sim.Sim
	r       *sim.Rand
	ids     []sim.NodeID
	maxDown int
	until   sim.Time
	tick    func()
}

func startNemesis(s *sim.Sim, ids []sim.NodeID, maxDown int, until sim.Time) {
	nm := &nemesis{s: s, r: s.Stream("faults"), ids: ids, maxDown: maxDown, until: until}
	nm.tick = nm.step
	s.After(nm.r.DurationRange(100*time.Millisecond, time.Second), nm.tick)
	s.At(until, nm.healAll)
}

// healAll ends the faults: network healed, every node up, running, and at
// the true clock rate.
func (nm *nemesis) healAll() {
	nm.s.Heal()
	for _, id := range nm.ids {
		nm.s.Restart(id, true)
		nm.s.Resume(id)
		nm.s.SetRate(id, sim.RateOne)
	}
}

func (nm *nemesis) step() {
	if nm.s.Now() >= nm.until {
		return
	}
	var up, down []sim.NodeID
	for _, id := range nm.ids {
		if nm.s.IsUp(id) {
			up = append(up, id)
		} else {
			down = append(down, id)
		}
	}
	switch nm.r.Intn(7) {
	case 0:
		if len(down) < nm.maxDown && len(up) > 0 {
			nm.s.Crash(up[nm.r.Intn(len(up))])
		}
	case 1:
		if len(down) > 0 {
			nm.s.Restart(down[nm.r.Intn(len(down))], true)
		}
	case 2:
		nm.s.Heal()
		nm.s.SplitMinority(nm.ids, nm.r)
	case 3:
		nm.s.Isolate(nm.ids[nm.r.Intn(len(nm.ids))])
	case 4:
		nm.s.Heal()
	case 5:
		id := nm.ids[nm.r.Intn(len(nm.ids))]
		nm.s.Pause(id)
		nm.s.After(nm.r.DurationRange(100*time.Millisecond, 2*time.Second), func() {
			if nm.s.Now() < nm.until {
				nm.s.Resume(id)
			}
		})
	case 6:
		nm.s.SetRate(nm.ids[nm.r.Intn(len(nm.ids))], sim.Rate(0.5+nm.r.Float64()))
	}
	nm.s.After(nm.r.DurationRange(100*time.Millisecond, time.Second), nm.tick)
}

// quantile returns the q-quantile (nearest rank) of ds.
func quantile(ds []time.Duration, q float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(q*float64(len(s))+0.5) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(s) {
		i = len(s) - 1
	}
	return s[i]
}
