package scenario

import (
	"slices"
	"time"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// networkLatency is what the scenario's configuration says of one-way
// message latency over the whole run: the network's distribution, every
// per-link override, every explicit link fault's latency and, when a
// nemesis draws link faults, the latencies it draws (its link_latency, or
// faults.DefaultLinkLatency). A contract's latency terms are resolved
// against it (contract.Contract.Resolve).
func networkLatency(sc *Scenario) contract.Network {
	net := contract.Network{Bounded: true}
	first := true
	add := func(d sim.Dist) {
		lo, hi, bounded := distBounds(d)
		if first || lo < net.Min {
			net.Min = lo
		}
		if first || hi > net.Max {
			net.Max = hi
		}
		net.Bounded = net.Bounded && bounded
		first = false
	}
	add(sc.Network.Latency)
	for _, l := range sc.Network.Links {
		if l.Latency != nil {
			add(*l.Latency)
		}
	}
	for _, f := range sc.Faults {
		if f.Link != nil && f.Link.Latency != nil {
			add(*f.Link.Latency)
		}
	}
	for _, n := range sc.Nemeses {
		if !slices.Contains(n.Kinds, faults.KindLink) {
			continue
		}
		r := faults.DefaultLinkLatency
		if n.LinkLatency != nil {
			r = *n.LinkLatency
		}
		add(sim.Uniform(r.Min, r.Max))
	}
	return net
}

// distBounds are the least and greatest values d can yield, and whether it
// has a greatest (sim.Dist.Sample: an exponential or normal with Max 0 is
// not clipped above).
func distBounds(d sim.Dist) (lo, hi time.Duration, bounded bool) {
	switch d.Kind {
	case sim.DistConstant:
		return d.Min, d.Min, true
	case sim.DistUniform:
		return d.Min, d.Max, true
	}
	return d.Min, d.Max, d.Max > 0
}
