package contract

import "github.com/electsim/electsim/sim"

// ClassesOf returns the fault classes a trace record shows (at most two:
// n says how many of cls are set), read from its type and typed fact alone,
// never its text (docs/checkers.md, "Contracts"). The checker judges
// contracts by it and hunt measures fault coverage by it.
func ClassesOf(r *sim.Record) (cls [2]FaultClass, n int) {
	one := func(c FaultClass) ([2]FaultClass, int) { return [2]FaultClass{c}, 1 }
	switch r.Type {
	case sim.RecCrash:
		if r.Fact == sim.FactServiceDown { // a service node crashed: it stopped answering
			return [2]FaultClass{Crash, ServiceDown}, 2
		}
		return one(Crash)
	case sim.RecPause:
		return one(Pause)
	case sim.RecStart:
		switch {
		case r.Restarted() && r.Fact == sim.FactDiskLost: // a restart without its disk
			return [2]FaultClass{Restart, DiskLoss}, 2
		case r.Restarted():
			return one(Restart)
		case r.Fact == sim.FactDiskLost:
			return one(DiskLoss)
		}
	case sim.RecFault:
		switch r.Fact {
		case sim.FactLinksCut:
			return one(Partition)
		case sim.FactLinkChanged:
			return one(Link)
		case sim.FactLinkLossy:
			return one(Loss)
		case sim.FactLinkLossyChanged:
			return [2]FaultClass{Link, Loss}, 2
		case sim.FactClockRate:
			return one(ClockRate)
		case sim.FactClockStep:
			return one(ClockStep)
		case sim.FactDiskLatency:
			return one(Disk)
		}
	case sim.RecEffect:
		switch r.Fact {
		case sim.FactServiceDown:
			return one(ServiceDown)
		case sim.FactLeaseReverted: // a store's failover lost acknowledged writes: its data loss
			return one(DiskLoss)
		}
	}
	return cls, 0
}
