package sim

// Internals the engine fuzz target (fuzz_test.go) checks its invariants
// against.

// InFlight returns how many messages the engine holds: scheduled deliveries,
// sends waiting for a disk write, and messages buffered for a paused node.
func InFlight(s *Sim) int { return len(s.msgs) - len(s.freeMsgs) }

// Popped returns how many queue entries the run has taken, which
// Config.MaxEvents bounds.
func Popped(s *Sim) uint64 { return s.popped }
