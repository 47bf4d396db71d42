package scenario

import (
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// contractValues are the values an algorithm's Contract reads: its own,
// plus the network's largest one-way latency under registry.NetLatencyMax
// when the latency distribution has one (a bound that depends on latency
// needs it; link overrides and link faults are the contract's link
// exception, seen by the checker as standing or recorded faults).
func contractValues(v drawnValues, lat sim.Dist) drawnValues {
	if lat.Max <= 0 || lat.Max < lat.Min {
		return v
	}
	out := make(drawnValues, len(v)+1)
	for k, d := range v {
		out[k] = d
	}
	out[registry.NetLatencyMax] = drawn{d: lat.Max}
	return out
}
