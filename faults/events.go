package faults

import "github.com/electsim/electsim/sim"

// EventOf returns the index in Events() of the built-in trigger event a
// record shows, read from its type and typed fact alone. A lease fact is
// an event whatever store and key it concerns: the injector also requires
// the run's lease store and key; hunt's coverage counts it as it comes.
func EventOf(r *sim.Record) (int, bool) {
	var ev string
	switch r.Type {
	case sim.RecLead:
		ev = EventElected
	case sim.RecStepDown:
		ev = EventSteppedDown
	case sim.RecEffect:
		switch r.Fact {
		case sim.FactLeaseRenewed:
			ev = EventRenew
		case sim.FactLeaseAcquired:
			ev = EventAcquired
		case sim.FactLeaseExpired:
			ev = EventExpired
		case sim.FactRunStarted:
			ev = EventJobStarted
		case sim.FactRunFinished:
			ev = EventJobFinished
		}
	}
	for i, e := range events {
		if e == ev {
			return i, true
		}
	}
	return 0, false
}
