package proptest

import (
	"time"

	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// Cluster is one case of an election property over candidates only (no
// lease store, no resource): N nodes built by New on links whose latency is
// uniform in [0.5 ms, LatencyMax], each with an fsync latency uniform in
// [0, Fsync], under Sched. Faults are injected for FaultsFor; then every
// fault is reverted and the run goes on for Settle.
type Cluster struct {
	Seed       uint64
	N          int
	LatencyMax time.Duration
	Fsync      time.Duration
	// New builds node i of ids. It is called on every boot (the first start
	// and each restart, sim.AddFreshNode), so a restarted node is a new value
	// that keeps only what it persisted; read the current one with
	// s.Node(id).
	New       func(i int, ids []sim.NodeID) sim.Node
	Sched     Schedule
	FaultsFor time.Duration
	Settle    time.Duration
	// Effects are the node effects the Watch records (e.g. a halt).
	Effects []string
}

// Run builds and runs the case. With watch it attaches a Watch (a trace
// sink) and finishes it; otherwise the returned Watch is nil.
func (c Cluster) Run(watch bool) (*sim.Sim, *Watch) {
	s := sim.New(sim.Config{Seed: c.Seed, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond/2, c.LatencyMax)}})
	ids := IDs(c.N)
	names := Names(c.N)
	for i := range ids {
		s.AddFreshNode(names[i], func() sim.Node { return c.New(i, ids) }, sim.Fsync(sim.Uniform(0, c.Fsync)))
	}
	var w *Watch
	if watch {
		w = NewWatch(s, ids, c.Effects...)
	}
	c.Sched.Inject(s, faults.Environment{Candidates: ids, Store: sim.None, Resource: sim.None}, ids, sim.Time(c.FaultsFor))
	s.RunUntil(sim.Time(c.FaultsFor + c.Settle))
	s.End()
	if watch {
		w.Finish()
	}
	return s, w
}
