package scenario

import (
	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/sim"
)

// applyStandingFaults applies the faults the run suffers by configuration
// (network loss, clock offsets and rates, per-link settings) and records
// each as a standing fault. It runs before the checker is subscribed:
// they reach the contract's exceptions from time 0. The concrete
// scenario keeps the values drawn, so an explicit replay needs no draw.
func (r *Run) applyStandingFaults(p *buildPlan) {
	if p.drop > 0 || p.dup > 0 {
		r.standing = append(r.standing, checker.StandingFault{Class: contract.Loss, Node: sim.None})
	}
	r.concrete.Network.DropLo, r.concrete.Network.DropHi = p.drop, p.drop
	r.concrete.Network.DupLo, r.concrete.Network.DupHi = p.dup, p.dup
	r.concrete.Clocks = nil
	for _, c := range r.Scenario.Clocks {
		r.concrete.Clocks = append(r.concrete.Clocks, r.applyClock(c, p.params))
	}
	for _, ls := range r.Scenario.Network.Links {
		r.applyLink(ls)
	}
}

// applyClock draws one clock's offset and rates (in this order: the
// params stream's order is part of the trace hash), applies them and
// returns them as a concrete ClockSpec. A rate of exactly 1 is set but is
// no fault.
func (r *Run) applyClock(c ClockSpec, params *sim.Rand) ClockSpec {
	s := r.Sim
	cc := ClockSpec{Node: c.Node}
	if off := pickDur(c.OffsetLo, c.OffsetHi, params, 0); off != 0 {
		r.standing = append(r.standing, checker.StandingFault{Class: contract.ClockStep, Node: c.Node})
		s.StepWall(c.Node, off)
		cc.OffsetLo, cc.OffsetHi = off, off
	}
	if c.RateLo != 0 {
		v := r.drawRate(c.Node, c.RateLo, c.RateHi, params)
		s.SetRate(c.Node, sim.Rate(v))
		cc.RateLo, cc.RateHi = v, v
	}
	if c.MonoRateLo != 0 {
		v := r.drawRate(c.Node, c.MonoRateLo, c.MonoRateHi, params)
		s.SetMonoRate(c.Node, sim.Rate(v))
		cc.MonoRateLo, cc.MonoRateHi = v, v
	}
	if c.WallRateLo != 0 {
		v := r.drawRate(c.Node, c.WallRateLo, c.WallRateHi, params)
		s.SetWallRate(c.Node, sim.Rate(v))
		cc.WallRateLo, cc.WallRateHi = v, v
	}
	return cc
}

// drawRate draws a clock rate in [lo, hi] and records a standing
// clock-rate fault on node unless it is exactly 1.
func (r *Run) drawRate(node sim.NodeID, lo, hi float64, params *sim.Rand) float64 {
	v := pickFloat(lo, hi, params, 0)
	if v != 1 {
		r.standing = append(r.standing, checker.StandingFault{Class: contract.ClockRate, Node: node})
	}
	return v
}

// applyLink overrides one link's settings (both directions with Both).
// A changed latency or ordering is a link fault, loss or duplication a
// loss fault.
func (r *Run) applyLink(ls LinkSpec) {
	s := r.Sim
	c := s.Link(ls.From, ls.To)
	if ls.Latency != nil {
		c.Latency = *ls.Latency
	}
	if ls.Drop != nil {
		c.Drop = *ls.Drop
	}
	if ls.Dup != nil {
		c.Duplicate = *ls.Dup
	}
	if ls.FIFO != nil {
		c.FIFO = *ls.FIFO
	}
	if ls.Latency != nil || ls.FIFO != nil {
		r.standing = append(r.standing, checker.StandingFault{Class: contract.Link, Node: sim.None})
	}
	if c.Drop > 0 || c.Duplicate > 0 {
		r.standing = append(r.standing, checker.StandingFault{Class: contract.Loss, Node: sim.None})
	}
	s.SetLink(ls.From, ls.To, c)
	if ls.Both {
		s.SetLink(ls.To, ls.From, c)
	}
}
